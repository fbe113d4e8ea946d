// growth-bench lookups and memory: fenec's UniqueIndex (both arms) beside
// absl::flat_hash_map and std::unordered_map holding the same keys.
//
// Lookups: all four maps are built in this process, then measured in turns
// (rep-major, map-minor, the same seeded key order for each) so a noisy
// neighbour slows every map alike. Keys of each batch of 256 are formatted
// before its clock starts. Memory: each map is built alone in a forked
// child, whose smaps_rollup Anonymous before/after gives bytes a key with
// nothing else allocated beside it; UniqueIndex also reports its own count.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/growth/workload.h"

namespace fenec::scenarios::growth {

inline constexpr const char* kLookupArms[] = {"unique-sharded", "unique-naive", "absl-flat",
                                              "std-unordered"};

struct LookupResult {
  std::string arm;
  uint64_t keys = 0;
  uint64_t lookups = 0;   // hits measured (misses the same count)
  double hit_ns = 0;      // mean ns a lookup of a present key
  double miss_ns = 0;     // mean ns a lookup of an absent key
  double build_s = 0;     // inserting the keys one by one
};

std::vector<LookupResult> run_lookups(uint64_t keys, uint64_t lookups, int reps, KeyStyle style,
                                      uint64_t seed);

struct MemResult {
  std::string arm;
  uint64_t keys = 0;
  bool ok = false;
  std::string error;
  double smaps_bytes_per_key = 0;  // Anonymous growth over the build / keys
  double own_bytes_per_key = 0;    // the structure's accounting (fenec arms), else 0
  double slots_per_key = 0;        // capacity / keys (fenec arms)
};

// arm: one of kLookupArms, or "text-sharded" / "text-naive" (terms).
MemResult measure_memory(const std::string& arm, uint64_t keys, KeyStyle style);

// What an open costs the engine: UniqueIndex::rebuild from (key, row) pairs
// already in memory (the collection's rows), presized, each key hashed once.
struct RebuildResult {
  std::string arm;
  uint64_t keys = 0;
  double rebuild_s = 0;
  bool same = false;  // the rebuilt index answers every key with its row
};
RebuildResult time_rebuild(index::Arm arm, uint64_t keys, KeyStyle style);

}  // namespace fenec::scenarios::growth
