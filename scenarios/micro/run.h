// micro-bench's run, flags aside (main.cc): the fixtures, --reps passes of
// Google Benchmark over every benchmark, rows, verdicts and the ratio plot,
// and results/micro/latest.json replaced by Google Benchmark's JSON
// carrying the harness's sidecar under "fenec".
#pragma once

#include <string>

#include "iobench/kit/harness.h"
#include "scenarios/micro/benches.h"

namespace fenec::scenarios::micro {

// Everything after h.parse(); filter: Google Benchmark's regex ("." all).
// Returns h.finish() (1 if the fixtures or the JSON could not be written).
int run(kit::Harness& h, const std::string& filter, double min_time, const FixtureSizes& sizes);

}  // namespace fenec::scenarios::micro
