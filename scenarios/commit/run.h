// commit-bench's run, flags aside (main.cc): the flush arms of IO-6/IO-7
// and the commit completion arms of JR-2, their rows, plots and verdicts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "iobench/kit/harness.h"

namespace fenec::scenarios::commit {

// Every arm --arms takes: the flush arms, then the JR-2 ones.
std::vector<std::string> all_arms();

struct Options {
  std::vector<int> files;
  std::vector<std::string> arms;
  double seconds = 0;
  int producers = 4;
  double dirty_mib = 0;
  uint32_t max_run = 32;
  uint32_t page_size = 4096;
  unsigned worker_cap = 0;
  bool direct = false;
  bool inline_first = false;
  // JR-2
  std::vector<std::string> disks;
  std::vector<std::string> doc_kinds;
  int writers = 10;
  uint64_t docs = 0;
  double max_seconds = 0;
  double bucket_ms = 100;
};

// Runs the arms o.arms names, flush arms first; returns h.finish().
int run(kit::Harness& h, const Options& o);

}  // namespace fenec::scenarios::commit
