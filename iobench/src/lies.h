// IO-4: are durable writes plausibly durable here? Some disks lie: on an
// ephemeral cloud NVMe a small durable write costs almost nothing more than a
// buffered one; on io2 or a physical NVMe it costs 10x or more. This measures
// that ratio (4 KiB durable vs buffered write latency) and the flush cost, and
// gives a verdict with its reasons. Figures can only raise or lower suspicion:
// only a power cut proves durability (iobench diskcheck).
#pragma once

#include <string>
#include <vector>

#include "iobench/src/sweep.h"

namespace fenec::kit {
class Results;
struct Verdict;
}

namespace fenec::iobench {

enum class Durability { kPlausible, kInconclusive, kSuspicious, kNotDurable, kUnknown };
const char* durability_name(Durability d);

struct LiesResult {
  std::string skipped;
  CellResult buffered, durable, flush;  // 4 KiB: buffered; direct-dsync (or dsync); write+fdatasync
  double buffered_p50_us = 0, durable_p50_us = 0, flush_p50_us = 0, ratio = 0;
  Durability verdict = Durability::kUnknown;
  std::vector<std::string> reasons;
};

struct LiesOptions {
  double seconds = 1;   // per measurement
  uint64_t size = 4096;
};

LiesResult run_lies(const LiesOptions& o, const SweepEnv& env);
// The verdict from the three figures alone (what run_lies applies), for tests.
Durability judge(double durable_p50_us, double buffered_p50_us, const ProbeResult& p,
                 std::vector<std::string>* reasons);
std::string lies_report(const LiesResult& r);
// Rows under arm "lies", case "size=4k" + case_suffix (e.g. ";rep=2").
void add_lies_rows(kit::Results& results, const LiesResult& r, const std::string& case_suffix = "");

extern const char kPowerCutNote[];

}  // namespace fenec::iobench
