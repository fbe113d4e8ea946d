// GrowingMap: hashed keys -> 64-bit values, growing without long moves.
// Internal to engine/src/index: UniqueIndex stores row ids in the values,
// TextIndex stores postings handles.
//
// Two arms (index_types.h):
//  - kSharded: a single HashTable up to kSplitKeys keys, then 256 shard
//    tables selected by the hash's top 8 bits (the in-table index uses the
//    low bits, so the two never correlate). Each shard doubles on its own at
//    7/8 full, so a growth moves the keys of one shard: about a 256th of the
//    index. Below the split, the single table grows incrementally: the write
//    that finds it full freezes it, allocates the next table (twice the
//    size; at the split, the 256 shards of kShardInitialCapacity slots, 2 x
//    131 072 in all), and it and every later write move the next
//    kMoveSlotsPerStep slots of the frozen table across. While a move runs,
//    lookups try the new table(s) and then the frozen one, inserts go to the
//    new, and erases in the frozen table leave dead slots (no backward shift,
//    which could carry a slot past the move cursor).
//  - kNaive: the single table doubles in one move, whatever its size.
// No growth ever hashes a key: slots are placed by their stored hash.
//
// Why these constants: 114 688 = 7/8 of 131 072 is where the source switched
// to shards; below it one table costs less memory than 256 near-empty ones
// and fits in cache. 256 shards bound a growth to ~n/256 keys while the
// shard array (256 x 32 B) stays in L1. 256 slots a step bounds a write's
// share of a move (and of the page faults of the new table's first touches)
// to a small, fixed amount of work; a move of the
// 131 072-slot table ends within 512 writes, long before the new table fills.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/src/index/hash_table.h"
#include "engine/src/index/index_types.h"

namespace fenec::index {

class GrowingMap {
 public:
  static constexpr size_t kShardBits = 8;
  static constexpr size_t kShards = size_t{1} << kShardBits;
  static constexpr size_t kSplitCapacity = 131072;
  static constexpr uint64_t kSplitKeys =
      kSplitCapacity / HashTable::kMaxLoadDen * HashTable::kMaxLoadNum;  // 114 688
  static constexpr size_t kShardInitialCapacity = 2 * kSplitCapacity / kShards;  // 1024
  static constexpr size_t kMoveSlotsPerStep = 256;
  static constexpr size_t kMinCapacity = 16;

  explicit GrowingMap(Arm arm) : arm_(arm) {}

  Arm arm() const { return arm_; }
  size_t size() const { return size_; }
  bool moving() const { return old_.capacity() != 0; }
  bool sharded() const { return !shards_.empty(); }

  Slot* Find(const HashedKey& k) const {
    Slot* s = shards_.empty() ? single_.Find(k.hash, k.key) : ShardOf(k.hash).Find(k.hash, k.key);
    if (s == nullptr && moving()) s = old_.Find(k.hash, k.key);
    return s;
  }

  // Inserts a key the caller has checked is absent; pays for any growth.
  // The returned slot is valid until the next call that changes the map.
  Slot* InsertAbsent(const HashedKey& k, uint64_t value);
  // Removes the key; false if absent. *value gets what it held.
  bool Erase(const HashedKey& k, uint64_t* value);
  // A write that changes no key (TextIndex editing postings) still advances
  // a running move, so every move ends.
  void WriteHappened() {
    if (moving()) MoveStep();
  }

  // Empties the map and presizes it for keys with these hashes (one per
  // key, any order), so the inserts that follow cause no growth.
  void Presize(const std::vector<uint64_t>& hashes);
  void Clear();

  template <class F>
  void ForEach(F&& f) const {
    single_.ForEachLive(f);
    old_.ForEachLive(f);
    for (const HashTable& t : shards_) t.ForEachLive(f);
  }

  // Counters filled in by the map: keys, capacity, growth counts, memory
  // (slot arrays and key bytes). The caller adds hashes and its own memory.
  IndexStats stats() const;
  const std::vector<GrowthEvent>& growth_log() const { return log_; }

 private:
  HashTable& ShardOf(uint64_t hash) const {
    return const_cast<HashTable&>(shards_[hash >> (64 - kShardBits)]);
  }
  // Where a slot goes now: its shard, or the single table.
  HashTable& TargetOf(uint64_t hash) { return shards_.empty() ? single_ : ShardOf(hash); }
  void GrowSingle();
  void MoveStep();
  void DoubleTable(HashTable& t, int shard);
  struct Clocks {
    uint64_t wall, cpu;
  };
  static Clocks Now();
  void Record(GrowthEvent::Kind kind, int shard, uint64_t moved, uint64_t capacity_after,
              Clocks since);

  Arm arm_;
  HashTable single_;               // the table before the split (and always, naive)
  HashTable old_;                  // frozen table being moved out, while moving()
  std::vector<HashTable> shards_;  // empty until the split
  size_t move_pos_ = 0;            // slots of old_ already moved
  size_t size_ = 0;
  bool grew_in_this_write_ = false;

  uint64_t growths_ = 0, keys_moved_total_ = 0, max_keys_moved_ = 0, last_keys_moved_ = 0;
  uint64_t puts_that_grew_ = 0;
  std::vector<GrowthEvent> log_;
};

}  // namespace fenec::index
