// The visited sets of a graph walk (MM-2): which nodes a search has already
// scored, cleared once per search (per layer, for an insert).
//
// VisitedBitmap is the engine's copy of scenarios/micro/visited.h's
// VersionedBitmap: one bit a node plus a 16-bit version a 64-bit word.
// Clear() bumps the version, and a word whose version is stale reads as
// empty and is zeroed when first written, so a clear costs nothing; only
// when the version wraps (every 65 536 clears) are both arrays really
// zeroed. One per searching thread (VectorIndex keeps a thread_local one),
// sized to the node count when the search starts and grown when a search
// meets a node added after it started (a concurrent insert), so every Add
// is bounds-checked. Memory: 10 bits a node (n/8 + n/32 bytes).
//
// VisitedHash is for the insert processes: the batch arm runs 128 walks
// at once (a group, batch.cc), and 128 of these bitmaps of the whole
// graph would cost 160 bytes a node (160 MB at 1 M nodes). An insert visits several hundred nodes
// a layer whatever the graph's size, so each process keeps an
// open-addressing set of 4-byte slots sized by what it visits (1024 slots,
// doubled at half full). Clear() zeroes it: a few KB, and the few
// processes a core runs in turn (a task) keep their sets small enough to
// stay in cache, where
// a version stamp a slot (MM-2's trick) would double the bytes every probe
// touches. Measured: 8-byte stamped slots made the set the batch arm's
// largest cost (it spilled the L3 cache at 512 processes).
//
// VisitedHash(16) is also MM-2's comparison inside the engine's searches
// (VisitedSet in vector_types.h, for measurement only): started at 16
// slots it is scenarios/micro/visited.h's FlatVisited, the "flat" arm of
// micro's MM-2 (one flat array, open addressing, node + 1 a slot, doubled
// at half full, Clear() zeroing the whole table the largest walk left).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace fenec::index::vec {

class VisitedBitmap {
 public:
  VisitedBitmap() = default;
  explicit VisitedBitmap(size_t nodes) { Reserve(nodes); }

  // Makes room for nodes [0, nodes); keeps what is marked.
  void Reserve(size_t nodes) {
    size_t words = (nodes + 63) / 64;
    if (words <= words_.size()) return;
    words = std::max(words, words_.size() * 2);
    words_.resize(words, 0);
    versions_.resize(words, 0);  // version 0 != version_ unless version_ wrapped to 0: see Clear
  }
  size_t capacity() const { return words_.size() * 64; }

  // Marks node; true if it was not marked yet.
  bool Add(uint32_t node) {
    size_t i = node >> 6;
    if (i >= words_.size()) Reserve(size_t{node} + 1);
    if (versions_[i] != version_) {
      versions_[i] = version_;
      words_[i] = 0;
    }
    uint64_t mask = uint64_t{1} << (node & 63);
    bool fresh = (words_[i] & mask) == 0;
    words_[i] |= mask;
    return fresh;
  }
  bool Contains(uint32_t node) const {
    size_t i = node >> 6;
    return i < words_.size() && versions_[i] == version_ && (words_[i] & (uint64_t{1} << (node & 63))) != 0;
  }
  // True when the clear really zeroed memory (a wrap, once in 65 536).
  bool Clear() {
    if (++version_ != 0) return false;
    // Wrapped: a word stamped 65 536 clears ago would read as current.
    // Zero both arrays, then start at version 1 so that words added by a
    // later Reserve (stamped 0) read as stale.
    std::memset(words_.data(), 0, words_.size() * sizeof(uint64_t));
    std::memset(versions_.data(), 0, versions_.size() * sizeof(uint16_t));
    version_ = 1;
    ++real_clears_;
    return true;
  }
  uint64_t real_clears() const { return real_clears_; }
  size_t memory_bytes() const { return words_.capacity() * 8 + versions_.capacity() * 2; }

 private:
  std::vector<uint64_t> words_;
  std::vector<uint16_t> versions_;
  uint16_t version_ = 1;  // fresh words are stamped 0: stale
  uint64_t real_clears_ = 0;
};

class VisitedHash {
 public:
  static constexpr size_t kMinSlots = 1024;

  VisitedHash() : VisitedHash(kMinSlots) {}
  // `slots`: a power of two, the table's size until it first doubles.
  explicit VisitedHash(size_t slots) : slots_(slots, 0), mask_(slots - 1) {}

  bool Add(uint32_t node) {
    if (2 * (size_ + 1) > slots_.size()) Grow();
    if (!Place(node)) return false;
    ++size_;
    return true;
  }
  // Makes room for `more` Adds without a growth, so slots prefetched now
  // are the ones those Adds probe.
  void Reserve(size_t more) {
    while (2 * (size_ + more) > slots_.size()) Grow();
  }
  // Hints the cache to fetch node's first slot. A process checks a whole
  // list at once (up to 2m ids): prefetching every slot first overlaps the
  // misses instead of taking them one after another (the batch arm's 512
  // sets do not all fit in a core's L2).
  void Prefetch(uint32_t node) const { __builtin_prefetch(&slots_[Slot(node)], 1, 3); }
  // Zeroes the slots in use: 4 KB for the usual insert, less than the
  // cache misses a version stamp a slot would add to every probe.
  // True when it zeroed memory (the set was not empty).
  bool Clear() {
    const bool zeroed = size_ != 0;
    if (zeroed) std::memset(slots_.data(), 0, slots_.size() * sizeof(uint32_t));
    size_ = 0;
    return zeroed;
  }
  size_t size() const { return size_; }
  size_t memory_bytes() const { return slots_.capacity() * sizeof(uint32_t); }

 private:
  // A slot holds node + 1; 0 is empty (node ids stop below 2^32 - 1).
  size_t Slot(uint32_t node) const { return (node * 0x9E3779B1u) & mask_; }
  bool Place(uint32_t node) {
    const uint32_t want = node + 1;
    size_t i = Slot(node);
    for (;;) {
      uint32_t s = slots_[i];
      if (s == 0) {
        slots_[i] = want;
        return true;
      }
      if (s == want) return false;
      i = (i + 1) & mask_;
    }
  }
  void Grow() {
    std::vector<uint32_t> old;
    old.swap(slots_);
    slots_.assign(old.size() * 2, 0);
    mask_ = slots_.size() - 1;
    for (uint32_t s : old)
      if (s != 0) Place(s - 1);
  }

  std::vector<uint32_t> slots_;
  size_t mask_;
  size_t size_ = 0;
};

}  // namespace fenec::index::vec
