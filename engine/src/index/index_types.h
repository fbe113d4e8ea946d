// Types shared by fenec's hash indexes (UniqueIndex, TextIndex): the arm
// selector, a key hashed once, and the counters tests and benches read.
//
// Include as "engine/src/index/index_types.h" (the project root is on the
// include path through fenec_index_dep). Namespace fenec::index.
//
// Why the hash travels with the key: a key is hashed exactly once, by
// HashKey(), and from then on its 64-bit hash is carried in a HashedKey and
// stored in the table slot beside the key. Probing compares stored hashes
// before bytes, and growth places slots by their stored hash, so no growth
// ever hashes a key again (the tests count HashKey() calls to prove it).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace fenec::index {

// Which growth strategy a table uses.
//   kSharded: one table up to kSplitKeys keys, then 256 tables selected by
//             the hash's top 8 bits, each doubling on its own (the fix).
//   kNaive:   one table that doubles in a single move under the caller's
//             lock, forever (the "before" of GR-1/GR-2, kept as an arm).
enum class Arm { kSharded, kNaive };

std::string_view ArmName(Arm arm);                       // "sharded" | "naive"
std::optional<Arm> ParseArm(std::string_view name);      // nullopt if unknown

// A key and its 64-bit hash (XXH3-64, seed 0; a hash of 0 is remapped to 1
// because 0 marks an empty slot). The view must outlive the HashedKey.
struct HashedKey {
  std::string_view key;
  uint64_t hash = 0;
};

// The one place a key is hashed. Pure and thread-safe: the engine may hash a
// batch's keys before it takes the write lock.
HashedKey HashKey(std::string_view key);

// One growth: a table doubling in one move (kDouble: a shard, a small
// single table, or the naive arm), the allocation that starts an
// incremental move of the single table (kMoveStart: into a table twice its
// size, or into the 256 shards at the split; moves nothing), or one bounded
// step of that move (kMoveStep).
struct GrowthEvent {
  enum class Kind : uint8_t { kDouble, kMoveStart, kMoveStep };
  Kind kind = Kind::kDouble;
  int16_t shard = -1;          // -1: the single table
  uint64_t keys_before = 0;    // keys in the whole index when it happened
  uint64_t keys_moved = 0;     // slots relocated by this growth (no hashing)
  uint64_t capacity_after = 0; // slots of the new table(s) (0 for move steps)
  uint64_t ns = 0;             // how long it took, wall clock (steady_clock)
  uint64_t cpu_ns = 0;         // and in the calling thread's CPU time: the growth's own
                               // cost, without the time the thread spent preempted
};

// Counters. Exact when one thread uses the index at a time; under concurrent
// readers (shared lock) the lookup/hash counts may miss increments, never
// the write-path counts (those only change under the exclusive lock).
struct IndexStats {
  uint64_t keys = 0;                 // distinct keys (terms, for TextIndex)
  uint64_t capacity_slots = 0;       // slots over every table
  uint64_t growths = 0;              // GrowthEvents recorded
  uint64_t keys_moved_total = 0;     // sum of keys_moved over growths
  uint64_t max_keys_moved = 0;       // largest keys_moved of one growth
  uint64_t last_keys_moved = 0;      // keys_moved of the newest growth
  uint64_t hash_computations = 0;    // HashKey() calls made through this index
  uint64_t puts_that_grew = 0;       // puts whose own call paid for a growth
  uint64_t memory_bytes = 0;         // slot arrays + key bytes (+ postings), malloc-usable sizes
  bool moving = false;               // an incremental move of the single table is under way
  bool sharded = false;              // past the split: 256 tables
};

}  // namespace fenec::index
