// The vector index's hash tables: RobinTable (one open-addressing table)
// and ShardedTable (GrowingMap's growth strategy, engine/src/index/
// growing_map.h, for small fixed-size slots). Internal to the vector index:
// VectorTable keys (tag, node) slots by a vector's hash; the owner map keys
// (owner, node) slots by the owner id.
//
// A Slot type provides: a default value that is empty, `bool empty() const`
// and `uint32_t hash() const` (its placement hash, computed from the slot
// alone: a growth places slots without reading anything else).
//
// RobinTable: Robin Hood linear probing on hash & mask, backward-shift
// erase (no tombstones), equal hashes allowed (VectorTable keeps two
// vectors whose tags collide as two slots; the caller's predicate decides).
//
// ShardedTable: one RobinTable up to kSplitCapacity slots, then 256 tables
// chosen by the hash's top 8 bits (the in-table index uses the low bits;
// they never overlap below 2^24 slots a shard), each doubling on its own at
// 7/8 full, so a growth moves about a 256th of the entries. Below the split
// the single table doubles in one move: at most 14 336 slots of 8-16 bytes
// (tens of microseconds, less than one HNSW insert's distance work), so the
// incremental move GrowingMap needs for 32-byte keyed slots is not needed
// here. Every growth is logged (entries moved, the thread's CPU time).
#pragma once

#include <time.h>

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "engine/src/index/vector/vector_types.h"

namespace fenec::index::vec {

inline uint64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}
inline uint64_t MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

template <class Slot>
class RobinTable {
 public:
  RobinTable() = default;
  explicit RobinTable(size_t capacity) : slots_(capacity), mask_(capacity ? capacity - 1 : 0) {
    assert((capacity & (capacity - 1)) == 0);
  }

  size_t capacity() const { return slots_.size(); }
  size_t size() const { return size_; }
  size_t memory_bytes() const { return slots_.capacity() * sizeof(Slot); }

  // First slot of hash h for which pred(slot) holds, else nullptr.
  template <class Pred>
  const Slot* FindIf(uint32_t h, Pred&& pred) const {
    if (slots_.empty()) return nullptr;
    size_t i = h & mask_;
    for (size_t dist = 0;; ++dist, i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.empty()) return nullptr;
      if (s.hash() == h && pred(s)) return &s;
      if (((i - (s.hash() & mask_)) & mask_) < dist) return nullptr;
    }
  }

  // The caller keeps size() below capacity() (grows first).
  void Insert(Slot s) {
    assert(size_ < slots_.size());
    ++size_;
    size_t i = s.hash() & mask_;
    for (size_t dist = 0;; ++dist, i = (i + 1) & mask_) {
      Slot& cur = slots_[i];
      if (cur.empty()) {
        cur = s;
        return;
      }
      size_t cur_dist = (i - (cur.hash() & mask_)) & mask_;
      if (cur_dist < dist) {  // Robin Hood: the richer slot moves on
        std::swap(cur, s);
        dist = cur_dist;
      }
    }
  }

  template <class Pred>
  bool EraseIf(uint32_t h, Pred&& pred) {
    const Slot* found = FindIf(h, pred);
    if (found == nullptr) return false;
    size_t i = static_cast<size_t>(found - slots_.data());
    --size_;
    size_t j = (i + 1) & mask_;
    while (!slots_[j].empty() && ((j - (slots_[j].hash() & mask_)) & mask_) != 0) {
      slots_[i] = slots_[j];
      i = j;
      j = (j + 1) & mask_;
    }
    slots_[i] = Slot{};
    return true;
  }

  template <class F>
  void ForEach(F&& f) const {
    for (const Slot& s : slots_)
      if (!s.empty()) f(s);
  }

  // Moves every slot into a table of new_capacity slots; returns the slots moved.
  size_t GrowTo(size_t new_capacity) {
    RobinTable next(new_capacity);
    for (const Slot& s : slots_)
      if (!s.empty()) next.Insert(s);
    size_t moved = next.size();
    *this = std::move(next);
    return moved;
  }

 private:
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

template <class Slot>
class ShardedTable {
 public:
  static constexpr size_t kShardBits = 8;
  static constexpr size_t kShards = size_t{1} << kShardBits;
  static constexpr size_t kSplitCapacity = 16384;
  static constexpr size_t kShardInitialCapacity = 2 * kSplitCapacity / kShards;  // 128
  static constexpr size_t kMinCapacity = 16;
  static constexpr size_t kMaxLoadNum = 7, kMaxLoadDen = 8;

  static size_t MaxEntries(size_t capacity) { return capacity / kMaxLoadDen * kMaxLoadNum; }
  static size_t CapacityFor(size_t n, size_t min_capacity) {
    size_t cap = min_capacity;
    while (MaxEntries(cap) < n) cap *= 2;
    return cap;
  }

  size_t size() const { return size_; }
  bool sharded() const { return !shards_.empty(); }

  template <class Pred>
  const Slot* FindIf(uint32_t h, Pred&& pred) const {
    return TableOf(h).FindIf(h, pred);
  }
  template <class Pred>
  bool EraseIf(uint32_t h, Pred&& pred) {
    bool erased = TableOf(h).EraseIf(h, pred);
    if (erased) --size_;
    return erased;
  }

  void Insert(Slot s) {
    uint32_t h = s.hash();
    if (shards_.empty() && single_.size() + 1 > MaxEntries(single_.capacity())) {
      if (single_.capacity() >= kSplitCapacity)
        Split();
      else
        Double(single_, -1);
    }
    RobinTable<Slot>& t = TableOf(h);
    if (t.size() + 1 > MaxEntries(t.capacity())) Double(t, static_cast<int>(h >> (32 - kShardBits)));
    t.Insert(s);
    ++size_;
  }

  // Empties the table and sizes it for these slots' hashes, then inserts
  // them: no growth happens.
  void Build(const std::vector<Slot>& slots) {
    Clear();
    if (slots.size() <= MaxEntries(kSplitCapacity)) {
      single_ = RobinTable<Slot>(CapacityFor(slots.size(), kMinCapacity));
    } else {
      std::vector<size_t> per(kShards, 0);
      for (const Slot& s : slots) ++per[s.hash() >> (32 - kShardBits)];
      shards_.reserve(kShards);
      for (size_t i = 0; i < kShards; ++i) shards_.emplace_back(CapacityFor(per[i], kShardInitialCapacity));
    }
    for (const Slot& s : slots) {
      TableOf(s.hash()).Insert(s);
      ++size_;
    }
  }

  void Clear() {
    single_ = RobinTable<Slot>();
    shards_.clear();
    size_ = 0;
  }

  template <class F>
  void ForEach(F&& f) const {
    single_.ForEach(f);
    for (const auto& t : shards_) t.ForEach(f);
  }

  size_t capacity() const {
    size_t c = single_.capacity();
    for (const auto& t : shards_) c += t.capacity();
    return c;
  }
  size_t memory_bytes() const {
    size_t b = single_.memory_bytes() + shards_.capacity() * sizeof(RobinTable<Slot>) +
               log_.capacity() * sizeof(GrowthEvent);
    for (const auto& t : shards_) b += t.memory_bytes();
    return b;
  }
  const std::vector<GrowthEvent>& growth_log() const { return log_; }

 private:
  const RobinTable<Slot>& TableOf(uint32_t h) const {
    return shards_.empty() ? single_ : shards_[h >> (32 - kShardBits)];
  }
  RobinTable<Slot>& TableOf(uint32_t h) { return shards_.empty() ? single_ : shards_[h >> (32 - kShardBits)]; }

  void Double(RobinTable<Slot>& t, int shard) {
    uint64_t t0 = ThreadCpuNs(), w0 = MonotonicNs();
    size_t moved = t.GrowTo(std::max(kMinCapacity, t.capacity() * 2));
    Record(shard, moved, t0, w0);
  }
  void Split() {
    uint64_t t0 = ThreadCpuNs(), w0 = MonotonicNs();
    std::vector<RobinTable<Slot>> shards;
    shards.reserve(kShards);
    for (size_t i = 0; i < kShards; ++i) shards.emplace_back(kShardInitialCapacity);
    single_.ForEach([&](const Slot& s) { shards[s.hash() >> (32 - kShardBits)].Insert(s); });
    size_t moved = single_.size();
    single_ = RobinTable<Slot>();
    shards_ = std::move(shards);
    Record(-1, moved, t0, w0);
  }
  void Record(int shard, size_t moved, uint64_t t0, uint64_t w0) {
    GrowthEvent e;
    e.entries_before = size_;
    e.moved = moved;
    e.shard = static_cast<int16_t>(shard);
    e.cpu_ns = ThreadCpuNs() - t0;
    e.wall_ns = MonotonicNs() - w0;
    log_.push_back(e);
  }

  RobinTable<Slot> single_;
  std::vector<RobinTable<Slot>> shards_;
  size_t size_ = 0;
  std::vector<GrowthEvent> log_;
};

}  // namespace fenec::index::vec
