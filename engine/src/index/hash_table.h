// HashTable: one open-addressing table whose slots keep each key's 64-bit
// hash beside the key. Internal to engine/src/index (GrowingMap builds the
// sharded and naive arms out of these).
//
// Invariants.
//  - A slot is 32 bytes: hash (0 = empty), a 64-bit value, and the key (up
//    to 15 bytes inline, else a pointer to an exact-size heap copy). The
//    slot is trivially copyable, so moving it is a memcpy and ownership of a
//    heap key moves with it.
//  - Robin Hood linear probing on hash & mask: a slot's probe distance is
//    computed from its stored hash, so lookups stop early, erase shifts the
//    following slots back (no tombstones in a live table) and growth places
//    slots without touching a key's bytes or hashing it.
//  - At most 7/8 of the slots are used (kMaxLoadNum/kMaxLoadDen): the load at
//    which Robin Hood probe lengths stay short, and the factor that puts the
//    doublings at 114 688, 229 376, ... 3 670 016 keys, where the source
//    measured them.
//  - A frozen table (the single table while it is being split) may hold dead
//    slots: hash kept so probe distances stay right, key tagged kDeadTag so it
//    never matches. Nothing is inserted into a frozen table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace fenec::index {

// A key as a slot holds it: 16 bytes, no constructor, no destructor; the
// table that holds it decides when its heap bytes are freed.
struct SlotKey {
  static constexpr size_t kInlineMax = 15;
  static constexpr unsigned char kHeapTag = 0x80;
  static constexpr unsigned char kDeadTag = 0xFE;

  unsigned char bytes[16];

  unsigned char tag() const { return bytes[15]; }
  bool live() const { return tag() != kDeadTag; }
  std::string_view view() const {
    if (tag() <= kInlineMax) return {reinterpret_cast<const char*>(bytes), tag()};
    const char* p;
    uint32_t n;
    std::memcpy(&p, bytes, sizeof p);
    std::memcpy(&n, bytes + 8, sizeof n);
    return {p, n};
  }
  bool Equals(std::string_view k) const {
    unsigned char t = tag();
    if (t <= kInlineMax) return t == k.size() && std::memcmp(bytes, k.data(), t) == 0;
    if (t != kHeapTag) return false;  // dead
    std::string_view v = view();
    return v.size() == k.size() && std::memcmp(v.data(), k.data(), k.size()) == 0;
  }
  // Copies k (allocating when it does not fit inline).
  static SlotKey Make(std::string_view k);
  // Frees the heap copy, if any. The key must not be used afterwards.
  void Release();
  // Bytes the heap copy occupies (malloc's usable size), 0 if inline.
  size_t HeapBytes() const;
};

struct Slot {
  uint64_t hash;   // 0: empty
  uint64_t value;
  SlotKey key;
};
static_assert(sizeof(Slot) == 32, "a slot is two to a cache line");

class HashTable {
 public:
  static constexpr size_t kMaxLoadNum = 7, kMaxLoadDen = 8;

  HashTable() = default;
  explicit HashTable(size_t capacity);  // capacity: 0 or a power of two
  ~HashTable();
  HashTable(HashTable&& o) noexcept;
  HashTable& operator=(HashTable&& o) noexcept;
  HashTable(const HashTable&) = delete;
  HashTable& operator=(const HashTable&) = delete;

  size_t capacity() const { return capacity_; }
  size_t size() const { return size_; }
  // Keys the table holds at most before it must grow.
  size_t max_keys() const { return capacity_ / kMaxLoadDen * kMaxLoadNum; }
  bool full() const { return size_ >= max_keys(); }
  // Smallest power-of-two capacity (>= min_capacity) that holds n keys.
  static size_t CapacityFor(size_t n, size_t min_capacity);

  Slot* Find(uint64_t hash, std::string_view key) const {
    if (capacity_ == 0) return nullptr;
    size_t i = hash & mask_;
    for (size_t dist = 0;; ++dist, i = (i + 1) & mask_) {
      Slot* s = &slots_[i];
      if (s->hash == 0) return nullptr;
      if (s->hash == hash && s->key.Equals(key)) return s;
      if (((i - (s->hash & mask_)) & mask_) < dist) return nullptr;
    }
  }

  // Places a slot whose key is known to be absent; the table takes its key.
  // The caller grows the table first when full().
  Slot* InsertNew(const Slot& slot);
  // Frees s's key and shifts the following slots back.
  void Erase(Slot* s);
  // Frozen tables only: s stays as a dead marker. free_key=false when the
  // key has been handed to another table.
  void Kill(Slot* s, bool free_key);

  // Moves every slot into a table of new_capacity slots (by stored hash, no
  // key is read). Returns the slots moved.
  size_t GrowTo(size_t new_capacity);

  Slot* slot_at(size_t i) const { return &slots_[i]; }
  // Slot array plus heap key bytes.
  size_t memory_bytes() const { return capacity_ * sizeof(Slot) + key_heap_bytes_; }
  size_t key_heap_bytes() const { return key_heap_bytes_; }

  template <class F>
  void ForEachLive(F&& f) const {
    for (size_t i = 0; i < capacity_; ++i)
      if (slots_[i].hash != 0 && slots_[i].key.live()) f(slots_[i]);
  }

 private:
  Slot* Place(Slot s);
  void FreeAll();

  Slot* slots_ = nullptr;
  size_t capacity_ = 0;
  size_t mask_ = 0;
  size_t size_ = 0;            // live slots
  size_t key_heap_bytes_ = 0;  // of live slots
};

}  // namespace fenec::index
