// HashTable: see hash_table.h for the invariants.
#include "engine/src/index/hash_table.h"

#include <malloc.h>
#include <sys/mman.h>

#include <cassert>
#include <cstdlib>
#include <new>
#include <utility>

namespace fenec::index {

SlotKey SlotKey::Make(std::string_view k) {
  SlotKey key;
  std::memset(key.bytes, 0, sizeof key.bytes);
  if (k.size() <= kInlineMax) {
    std::memcpy(key.bytes, k.data(), k.size());
    key.bytes[15] = static_cast<unsigned char>(k.size());
    return key;
  }
  assert(k.size() < (size_t{1} << 31));
  // Exact-size block: no terminator, the length lives in the slot.
  char* p = static_cast<char*>(std::malloc(k.size()));
  if (p == nullptr) throw std::bad_alloc();
  std::memcpy(p, k.data(), k.size());
  uint32_t n = static_cast<uint32_t>(k.size());
  std::memcpy(key.bytes, &p, sizeof p);
  std::memcpy(key.bytes + 8, &n, sizeof n);
  key.bytes[15] = kHeapTag;
  return key;
}

void SlotKey::Release() {
  if (tag() != kHeapTag) return;
  char* p;
  std::memcpy(&p, bytes, sizeof p);
  std::free(p);
}

size_t SlotKey::HeapBytes() const {
  if (tag() != kHeapTag) return 0;
  char* p;
  std::memcpy(&p, bytes, sizeof p);
  return malloc_usable_size(p);
}

// Arrays from kMmapBytes up are mapped directly: the kernel hands out zero
// pages that are faulted in as slots fill, so allocating a table costs no
// memset under the caller's lock. (calloc would do the same only below
// glibc's mmap threshold, which rises to 32 MB once big blocks are freed,
// and then memsets - touching every page of the new table in one put.)
static constexpr size_t kMmapBytes = size_t{16} << 10;

static Slot* alloc_slots(size_t capacity) {
  size_t bytes = capacity * sizeof(Slot);
  void* p;
  if (bytes >= kMmapBytes) {
    p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
  } else {
    p = std::calloc(capacity, sizeof(Slot));
    if (p == nullptr) throw std::bad_alloc();
  }
  return static_cast<Slot*>(p);
}

static void free_slots(Slot* slots, size_t capacity) {
  size_t bytes = capacity * sizeof(Slot);
  if (bytes >= kMmapBytes)
    munmap(slots, bytes);
  else
    std::free(slots);
}

HashTable::HashTable(size_t capacity) {
  assert(capacity == 0 || (capacity & (capacity - 1)) == 0);
  if (capacity == 0) return;
  slots_ = alloc_slots(capacity);
  capacity_ = capacity;
  mask_ = capacity - 1;
}

HashTable::~HashTable() { FreeAll(); }

HashTable::HashTable(HashTable&& o) noexcept
    : slots_(std::exchange(o.slots_, nullptr)),
      capacity_(std::exchange(o.capacity_, 0)),
      mask_(std::exchange(o.mask_, 0)),
      size_(std::exchange(o.size_, 0)),
      key_heap_bytes_(std::exchange(o.key_heap_bytes_, 0)) {}

HashTable& HashTable::operator=(HashTable&& o) noexcept {
  if (this != &o) {
    FreeAll();
    slots_ = std::exchange(o.slots_, nullptr);
    capacity_ = std::exchange(o.capacity_, 0);
    mask_ = std::exchange(o.mask_, 0);
    size_ = std::exchange(o.size_, 0);
    key_heap_bytes_ = std::exchange(o.key_heap_bytes_, 0);
  }
  return *this;
}

void HashTable::FreeAll() {
  if (slots_ == nullptr) return;
  if (key_heap_bytes_ != 0) {
    for (size_t i = 0; i < capacity_; ++i)
      if (slots_[i].hash != 0 && slots_[i].key.live()) slots_[i].key.Release();
  }
  free_slots(slots_, capacity_);
  slots_ = nullptr;
  capacity_ = mask_ = size_ = key_heap_bytes_ = 0;
}

size_t HashTable::CapacityFor(size_t n, size_t min_capacity) {
  size_t cap = min_capacity;
  while (cap / kMaxLoadDen * kMaxLoadNum < n) cap *= 2;
  return cap;
}

Slot* HashTable::Place(Slot s) {
  Slot* landed = nullptr;
  size_t i = s.hash & mask_;
  size_t dist = 0;
  for (;; ++dist, i = (i + 1) & mask_) {
    Slot* cur = &slots_[i];
    if (cur->hash == 0) {
      *cur = s;
      return landed ? landed : cur;
    }
    size_t cur_dist = (i - (cur->hash & mask_)) & mask_;
    if (cur_dist < dist) {  // Robin Hood: the richer slot moves on
      std::swap(*cur, s);
      if (landed == nullptr) landed = cur;
      dist = cur_dist;
    }
  }
}

Slot* HashTable::InsertNew(const Slot& slot) {
  assert(slot.hash != 0 && slot.key.live());
  assert(size_ < capacity_);
  ++size_;
  key_heap_bytes_ += slot.key.HeapBytes();
  return Place(slot);
}

void HashTable::Erase(Slot* s) {
  size_t i = static_cast<size_t>(s - slots_);
  key_heap_bytes_ -= s->key.HeapBytes();
  s->key.Release();
  --size_;
  size_t j = (i + 1) & mask_;
  while (slots_[j].hash != 0 && ((j - (slots_[j].hash & mask_)) & mask_) != 0) {
    slots_[i] = slots_[j];
    i = j;
    j = (j + 1) & mask_;
  }
  std::memset(&slots_[i], 0, sizeof(Slot));
}

void HashTable::Kill(Slot* s, bool free_key) {
  assert(s->key.live());
  key_heap_bytes_ -= s->key.HeapBytes();
  if (free_key) s->key.Release();
  s->key.bytes[15] = SlotKey::kDeadTag;
  --size_;
}

size_t HashTable::GrowTo(size_t new_capacity) {
  assert(new_capacity > capacity_ && (new_capacity & (new_capacity - 1)) == 0);
  Slot* old = slots_;
  size_t old_capacity = capacity_;
  slots_ = alloc_slots(new_capacity);
  capacity_ = new_capacity;
  mask_ = new_capacity - 1;
  size_t moved = 0;
  for (size_t i = 0; i < old_capacity; ++i) {
    if (old[i].hash == 0) continue;
    assert(old[i].key.live());
    Place(old[i]);
    ++moved;
  }
  if (old != nullptr) free_slots(old, old_capacity);
  return moved;
}

}  // namespace fenec::index
