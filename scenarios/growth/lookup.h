// growth-bench lookups and memory: fenec's UniqueIndex (both arms) beside
// absl::flat_hash_map and std::unordered_map holding the same keys.
//
// Lookups: all four maps are built in this process, then measured in turns
// (rep-major, map-minor, the same seeded key order for each) so a noisy
// neighbour slows every map alike, and repetition r of one map pairs with
// repetition r of another (kit::paired_ratio). Keys of each batch of 256 are
// formatted before its clock starts. Memory: each map is built alone in a forked
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
  uint64_t lookups = 0;   // hits measured over all repetitions (misses the same count)
  double hit_ns = 0;      // mean ns a lookup of a present key, over all repetitions
  double miss_ns = 0;     // mean ns a lookup of an absent key
  std::vector<double> hit_ns_reps, miss_ns_reps;  // the same, one figure a repetition
  double build_s = 0;     // inserting the keys one by one
};

// `lookups` hits and as many misses per map, split evenly over `reps`
// interleaved repetitions.
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
  double rebuild_s = 0;                // mean over the repetitions
  std::vector<double> rebuild_s_reps;  // one a repetition
  bool same = false;  // every rebuilt index answered every key with its row
};
// Both arms (sharded, naive), `reps` times each, interleaved, from the same
// (key, row) pairs built once.
std::vector<RebuildResult> time_rebuilds(uint64_t keys, KeyStyle style, int reps);

}  // namespace fenec::scenarios::growth
