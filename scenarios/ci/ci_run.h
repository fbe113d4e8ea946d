// fenec-ci's run, flags aside (main.cc): the metric definitions read, the
// run's figures extracted, each judged against the baseline and the recent
// recorded runs, every output written.
#pragma once

#include <cstddef>
#include <string>

#include "scenarios/ci/detector.h"
#include "scenarios/ci/runs.h"

namespace fenec::scenarios::ci {

struct CiOptions {
  std::string config = "scripts/ci-charts/metrics.conf", results = "results/ci/runs", callgrind;
  std::string baseline = "results/baseline/ci.csv", history = "results/history.csv", out = "results/ci";
  RunInfo info{"", "unknown", "ci"};
  bool append = false, no_gate = false, write_baseline = false;
  size_t recent = 4;
  Policy policy;
};

// The exit code: 0, 1 on a regression (unless no_gate), 3 when the inputs
// cannot be read or nothing was measured.
int run_ci(const CiOptions& o);

}  // namespace fenec::scenarios::ci
