// load-bench's run, flags aside (main.cc): the cells planned from the
// flags, the files generated, PostgreSQL's scratch cluster, every cell
// --reps times interleaved (the graph cells at least 8), the rows, plot and
// verdicts (report.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "iobench/kit/harness.h"

namespace fenec::scenarios::load {

struct Flags {
  std::string server;  // empty: this build tree's fenec-server
  size_t rows = 0, hnsw_rows = 0, per_request = 0;
  uint32_t dim = 0;
  std::vector<std::string> arms, hnsw_arms, csv_arms, indexes;
};

// Everything after h.parse(); a load that failed or lost rows is
// h.fail()ed. Returns h.finish() (1 if the files could not be written).
int run_bench(kit::Harness& h, Flags& f);

}  // namespace fenec::scenarios::load
