// The MM-1 experiment: a worker doing mmap/munmap in a loop (what an engine
// does as it maps and unmaps files and arenas) while other threads of the
// same process sample its memory, in one of the ways the source went through.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/src/base/histogram.h"
#include "iobench/kit/interrupt.h"

namespace fenec::scenarios::smaps {

enum class Reader {
  kNone,         // nobody samples: the comparison arm
  kSmaps,        // each thread reads /proc/self/smaps at hz (the source's bug)
  kSmapsRollup,  // each thread reads /proc/self/smaps_rollup at hz
  kSampler,      // SmapsRollupSampler: one thread at hz; the `threads` callers get its cache
};

const char* reader_name(Reader r);  // "none", "smaps", "smaps_rollup", "sampler"
bool parse_reader(const std::string& name, Reader* out);

struct ArmConfig {
  Reader reader = Reader::kNone;
  int hz = 10;       // samples a second per reading thread (the sampler's one thread for kSampler)
  int threads = 1;   // reading threads, or callers of the sampler's cached value
  std::chrono::milliseconds duration{2000};
  size_t map_bytes = 64 * 1024;  // what the worker maps and unmaps each op
};

struct ArmResult {
  base::Histogram op_ns;            // one mmap + first touch + munmap, in ns
  uint64_t ops = 0;
  double seconds = 0;
  uint64_t proc_reads = 0;     // reads of /proc actually made during the arm
  uint64_t cached_reads = 0;   // sampler callers served from the cache
};

// Runs the worker on the calling thread for cfg.duration (or until
// kit::stop_requested()) with the readers cfg asks for running beside it.
ArmResult run_arm(const ArmConfig& cfg);

// The cost of one read: reads /proc/self/<smaps|smaps_rollup> at least
// min_reads times and until budget_s has been spent. Histogram in ns.
base::Histogram measure_reads(Reader r, int min_reads, double budget_s);

}  // namespace fenec::scenarios::smaps
