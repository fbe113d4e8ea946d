// vector-bench's memory part (VS-3): the index built with its full vectors
// in a file (Options::vector_file), in a child process held by a cgroup v1
// memory controller to a fraction of the vector bytes, batch+preload against
// row-at-a-time, hnswlib beside (its vectors are anonymous memory: under a
// limit below them it is killed, and that is what is reported).
//
// The limit. A child's cgroup holds what the child charges: the pages of
// the vectors file it writes and reads (page cache), and its own heap (the
// graph, the batch arm's processes, hnswlib's whole index). The data set is
// made by the parent before the fork, so its pages stay charged to the
// parent. So an arm's limit is its footprint + fraction * vector bytes,
// where the footprint is measured: a calibration child builds that fenec
// arm under no limit, and footprint = its peak usage
// (memory.max_usage_in_bytes) less the vector bytes, so both fenec arms get
// the same page cache for their vectors. hnswlib gets fenec-batch's limit
// (the same machine). Footprints and every limit go into the metadata.
// Before each child the vectors file's cache is dropped (posix_fadvise
// DONTNEED after an fdatasync), never the machine's whole page cache.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/vector/arm.h"

namespace fenec::scenarios::vector {

// The batch arm with its vectors in anonymous memory (no limit): the reference.
inline constexpr const char* kInMemory = "fenec-batch-in-memory";

struct MemoryCell {
  std::string arm;        // fenec-batch, fenec-row, hnswlib, kInMemory
  double fraction = 0;    // of the vector bytes
  uint64_t limit = 0;     // memory.limit_in_bytes written
  std::string error;      // non-empty: no figure (e.g. killed at the limit)
  double build_s = 0;
  uint64_t hits = 0, queries = 0;  // recall@k at ef after the build
  // The child's, during the build (a stopped one: up to its last progress report).
  uint64_t major_faults = 0;       // getrusage
  double user_s = 0, sys_s = 0;    // CPU (getrusage)
  uint64_t read_bytes = 0;         // read from the disk (/proc/self/io)
  uint64_t link_major_faults = 0, pages_preloaded = 0, vectors_preloaded = 0;  // the index's counters
  uint64_t peak_bytes = 0;         // memory.max_usage_in_bytes
  uint64_t failcnt = 0;            // memory.failcnt: times the limit was hit
  // A build stopped at the cap: vectors indexed by its last progress report, and when.
  uint64_t done = 0;
  double done_s = 0;
  // Each piece of the build (a link batch, in order): what it cost.
  struct Piece {
    uint64_t vectors = 0;
    double s = 0;
    uint64_t major_faults = 0, read_bytes = 0;
    double user_s = 0, sys_s = 0;
  };
  std::vector<Piece> pieces;
  bool stopped = false;
  double cap_s = 0;  // this build's cap: the run's, or the row arm's decided-early one (run_memory)
  // Seconds a vector: the whole build's, or a stopped one's up to its last
  // report (its early vectors met a smaller graph: a bound in its favour).
  double seconds_per_vector(uint64_t n) const {
    return error.empty() ? build_s / double(n) : stopped && done ? done_s / double(done) : 0;
  }
};

struct MemoryRun {
  std::string error;        // non-empty: the part could not run (no cgroup), nothing else valid
  std::string cgroup;       // the parent folder of the cells' cgroups
  double cap_s = 0;         // a build still running after this long is stopped
  double decide_at = 0;     // and a row build after this many times the batch build's (run_memory)
  size_t ef = 0;            // recall@10 is searched with it after each build
  uint64_t vector_bytes = 0;
  uint64_t footprint = 0;      // fenec-batch's, measured (see above)
  uint64_t row_footprint = 0;  // fenec-row's
  MemoryCell in_memory;     // kInMemory, no limit
  std::vector<MemoryCell> cells;  // fraction by fraction, arms interleaved
};

// d: the data (with truth), dir: where the vectors file goes (the bench's
// data folder: the disk measured), fractions: e.g. 1, 0.5, 0.25.
// decide_at > 0: a row build is stopped once it has run decide_at times the
// batch build's time at the same fraction. Its row / batch ratio is then at
// least decide_at, a bound that decides a line below it; running on would
// only make the bound larger, at the cost of the build's whole thrashing.
MemoryRun run_memory(const Dataset& d, const ArmParams& p, size_t ef, size_t k, const std::string& dir,
                     const std::vector<double>& fractions, bool with_row, bool with_hnswlib, double cap_s,
                     double decide_at = 0);

}  // namespace fenec::scenarios::vector
