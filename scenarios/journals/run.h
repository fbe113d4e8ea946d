// journals-bench's run, flags aside (main.cc): JR-1's cells and kill -9
// rounds, then JR-3 (jr3.h), their rows, plots and verdicts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "iobench/kit/harness.h"
#include "scenarios/journals/jr3.h"
#include "scenarios/engines/journals_workload.h"

namespace fenec::scenarios::journals {

struct Config {
  std::vector<int> indexes, writers;
  std::vector<std::string> modes;
  double seconds = 0;
  uint64_t max_puts = 0;
  bool recovery = true;
  int recovery_indexes = 8, recovery_writers = 4;
  double recovery_seconds = 0;
  uint64_t recovery_max_acks = 0;
  uint32_t checkpoint_ms = 200;
  std::vector<std::string> parts;
  // Quick mode left JR-3 out by default (--parts not given): it gets a
  // skipped verdict with the reason instead of none.
  bool jr3_quick_skip = false;
  Jr3Options jr3;
  uint64_t jr3_loop_mib = 1024, jr3_data_mib = 0;
  uint32_t jr3_chunk_kib = 512;
};

// Runs the parts c.parts names into h.results(); a failed cell or a lost
// put is h.fail()ed. Returns h.finish().
int run(kit::Harness& h, Config& c);

}  // namespace fenec::scenarios::journals
