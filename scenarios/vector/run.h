// vector-bench's run, flags aside (main.cc): the data and its exact top-k,
// the arms --reps times interleaved, VS-2's binary quantization, MM-2's
// visited sets (mm2.h), their rows, plots and verdicts (report.h).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "iobench/kit/harness.h"
#include "scenarios/vector/arm.h"
#include "scenarios/vector/workload.h"

namespace fenec::scenarios::vector {

struct Options {
  DataSpec spec;
  ArmParams params;
  size_t ef = 32;  // the headline search ef
  double search_seconds = 0.25;
  bool skip_hnswlib = false, skip_bq = false, skip_row = false, skip_db = false, durable = false;
  std::vector<std::string> parts;  // arms, bq, mm2
  double mm2_seconds = 0;
  // VS-3 (memory.h): its own data, fenec-batch, fenec-row and hnswlib under
  // a memory cgroup at each fraction of the vector bytes.
  size_t mem_n = 0;
  uint32_t mem_dim = 768;
  double mem_cap_s = 0;
  std::vector<double> mem_fractions;
};

// Everything after h.parse(); returns h.finish().
int run(kit::Harness& h, Options& o);

}  // namespace fenec::scenarios::vector
