// fs-bench's run, flags aside (main.cc): the matrix on the real runner, then
// its rows, verdicts, tables, plots and metadata.
#pragma once

#include <string>
#include <vector>

#include "iobench/kit/harness.h"
#include "scenarios/fs/runner.h"

namespace fenec::scenarios::fs {

struct Config {
  std::vector<std::string> fs;
  RunConfig run;
  uint64_t loop_mib = 8192, small_mib = 64, big_mib = 512;
};

int run(kit::Harness& h, Config& c);

}  // namespace fenec::scenarios::fs
