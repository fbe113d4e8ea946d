// journals-bench's JR-3 part: builds the bfq loop device (loopfs.h), then on
// it and on the scratch dir's own disk runs the positive control and the
// journal-latency arms (priority.h), interleaved repetition by repetition.
#pragma once

#include <string>
#include <vector>

#include "iobench/kit/harness.h"
#include "scenarios/journals/priority_report.h"

namespace fenec::scenarios::journals {

struct Jr3Options {
  std::vector<std::string> devices{"loop", "disk"};  // "loop": bfq loop device; "disk": the scratch dir's disk
  std::vector<std::string> flushers;                 // threads, ring
  std::vector<std::string> prios;                    // alone, equal, be7, idle
  std::vector<std::string> disk_prios;               // the same on the disk (quick: fewer)
  bool control = true;
  PrioConfig cell;                                   // dir filled per device
  uint64_t loop_bytes = 1ull << 30;
};

// Measures into rep (one PrioDevice a device, skipped ones with the reason)
// and adds the rows. Returns false if a cell failed (its device's error is
// in skip_reason and printed).
bool run_jr3(kit::Harness& h, const Jr3Options& o, PrioReport* rep);

}  // namespace fenec::scenarios::journals
