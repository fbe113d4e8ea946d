// growth-bench's vector parts: GR-3 and GR-4, the table of held vectors of
// fenec's HNSW index (engine/src/index/vector/vector_table.h,
// engine/doc/vectors.md).
//
// GR-3 (arms vector-naive / vector-sharded). n seeded 128-d vectors put one
// at a time into the index's own VectorArena + VectorTable, the way
// IndexCore::Insert drives them under the index's write lock: hash the
// vector (XXH3, its tag), look it up (a vector written again finds its node),
// append it to the arena, insert (tag, node), paying for any growth. Each put
// is timed (wall), and the table logs every growth: its CPU time (the putting
// thread's), wall time, entries moved and vectors read. Why the table and
// not VectorIndex::Insert or fenecdb puts: linking a vector into the graph
// is the bulk of an insert (here ~40 us of CPU a vector on these seeded
// rows: 131 072 linked and checkpointed in 2.8 s on 2 cores), so linking
// 1 M vectors in each of a full run's 10 arm-runs is several minutes, far
// past the quick budget, while the table's own steps take ~1 s; and
// through fenecdb the linking (the table's growth with it) runs on the
// linker thread, off the put's path, where a put sees a stall only as
// back-pressure once the link queue is full. The table is the same code
// the index runs under its write lock, at the source's 1 M x 128.
//
// GR-4 (arms vector-naive / vector-kept). A fenecdb collection with a
// VECTOR(128) @hnsw field, n vectors put (PutBatch) and linked, closed (the
// close checkpoints the graph with each vector's 4-byte tag). Each
// repetition opens a fresh copy of that folder with HnswOptions::open = the
// arm, times the open, then the first write (one Put and WaitForIndexes:
// the write is done when its vector is linked, which is where the naive arm
// builds the table), and counts the vectors read to build the held-vector
// table (Stats::vector_reads_after_load) after the open and after the write.
// Both arms load the same graph and fill the arena from the branch's catalog
// at open: "vectors read" is what building the table reads, the finding's
// cost.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/src/index/vector/vector_types.h"
#include "scenarios/growth/workload.h"

namespace fenec::scenarios::growth {

inline constexpr uint32_t kVectorDim = 128;

// Row i of the seeded vectors: dim floats, uniform in [-1, 1), from a
// SplitMix64 stream keyed by (seed, i), so any row is made alone and two
// rows are distinct.
void make_vector(uint64_t seed, uint64_t i, float* out, uint32_t dim = kVectorDim);

// "vector-sharded", "vector-naive"; "vector-kept" for OpenArm::kKept.
std::string vector_arm_name(index::vec::TableArm arm);
std::string vector_arm_name(index::vec::OpenArm arm);

struct VectorPutRun {
  VectorPutRun(uint64_t n, size_t plot_points) : rec(n, plot_points) {}
  PutRecorder rec;                               // each put (wall), grew = it paid for a growth
  std::vector<index::vec::GrowthEvent> growths;  // the table's log, oldest first
  uint64_t entries = 0, vectors_read = 0, compares = 0, memory_bytes = 0;
  uint64_t found_again = 0;  // puts of a vector already held (none: the rows are distinct)
  double seconds = 0;
  bool interrupted = false;
};

// n puts of rows 0..n-1 into a fresh arena + table of `arm`.
VectorPutRun run_vector_puts(index::vec::TableArm arm, uint64_t n, uint64_t seed, size_t plot_points);

// GR-4's persisted collection, built once a run.
struct VectorBase {
  bool ok = false;
  std::string error;
  std::string dir;
  uint64_t n = 0;
  double build_s = 0;  // puts + linking + the closing checkpoint
  uint64_t bytes = 0;  // the folder's files
};
VectorBase build_vector_base(const std::string& dir, uint64_t n, uint64_t seed);

struct ReopenRun {
  bool ok = false;
  std::string error;
  double open_wall_ms = 0, open_cpu_ms = 0;   // Database::Open (process CPU time: every thread)
  double write_wall_ms = 0, write_cpu_ms = 0; // the first Put + WaitForIndexes
  uint64_t read_at_open = 0;    // vectors read to build the table during the open
  uint64_t read_at_write = 0;   // ... during the first write
  uint64_t owners = 0;          // documents the graph held after the open
  uint64_t linked_at_open = 0;  // vectors the open linked (0: the graph was loaded, not rebuilt)
};
// Opens a copy of `base` in `dir` with open arm `arm`, writes one vector,
// closes (without a checkpoint) and removes the copy.
ReopenRun reopen_and_write(const VectorBase& base, const std::string& dir, index::vec::OpenArm arm,
                           uint64_t seed, uint64_t row);

}  // namespace fenec::scenarios::growth
