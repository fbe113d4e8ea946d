// smaps-bench's run, flags aside (main.cc): the read-cost part, the worker
// arms, their rows, plots and verdict (report.h).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "iobench/kit/harness.h"

namespace fenec::scenarios::smaps {

struct Options {
  std::vector<size_t> read_mappings;    // the read-cost part's mapping counts
  std::vector<size_t> worker_mappings;  // the worker part's
  std::vector<int> hz;                  // sampling rates per reading thread
  std::vector<int> threads;
  std::vector<std::string> arms;        // none, smaps, smaps_rollup, sampler
  double seconds = 0;                   // worker time per arm and repetition
  bool no_read_cost = false;
};

// Everything after h.parse(); returns h.finish().
int run(kit::Harness& h, const Options& o);

}  // namespace fenec::scenarios::smaps
