// RC-1's rows, plots and verdict from the runs of each arm.
//
// Each arm runs --reps times (3 quick, 5 full), in turns (run 1 of every
// arm, then run 2 ...), so each arm has one longest wait, p99.9 and p99 a
// run; rows with "run=N" hold one run's figures, rows with "runs=all" the
// geometric mean over the runs and its 95% interval (kit::of_reps).
//
// The verdict: two checks on the transfers' longest wait against the
// source's own line, 50 ms (seeds/002: "the transfers' longest wait went
// from 187-512 ms, 36 of them past 50 ms in every run, to 5.4-29 ms and none
// in three runs"; findings/CATALOGUE.md RC-1): recon-locked's longest wait above it,
// recon-pinned's below it. A run that broke (transfer errors, an invariant
// broken, the server not exiting 0) makes it "not reproduced"; an arm that
// did not run, "not applicable".
#pragma once

#include <map>
#include <string>
#include <vector>

#include "findings/catalogue.h"
#include "iobench/kit/harness.h"
#include "iobench/kit/stats.h"
#include "iobench/kit/verdict.h"
#include "scenarios/procs/metrics.h"
#include "scenarios/recon/run.h"

namespace fenec::scenarios::recon {

inline constexpr const char* kFinding = "RC-1";
inline constexpr const char* kNoRecon = "no-recon";
inline constexpr const char* kPinned = "recon-pinned";
inline constexpr const char* kLocked = "recon-locked";

// What one run left behind, beyond RunResult: the server's own figures.
struct RunFigures {
  int run = 0;
  double wait_max_ms = 0, p50_ms = 0, p99_ms = 0, p999_ms = 0, per_s = 0;
  uint64_t over_50ms = 0, reconciliations = 0, violations = 0, errors = 0;
  double recon_max_ms = 0;
  bool valid = true;  // no transfer errors, no invariant breaks, server exited 0
};

// Rows for one run (case "run=N").
RunFigures AddRunRows(kit::Results& results, const std::string& arm, int run, const RunResult& r,
                      const std::string& server_metrics, int server_exit);

// Each arm's latency-over-time plot (its first run), reconciliations marked,
// and the longest wait per arm: every run's, and over the runs the longest
// wait, p99.9 and p99 with their 95% intervals, beside the 50 ms line.
// Returns the verdict's plot (the latter).
std::string WritePlots(kit::Harness& h, const std::map<std::string, RunResult>& first_runs,
                       const std::map<std::string, std::vector<RunFigures>>& figures);

// The source's line for both parts: a transfer waiting past 50 ms.
inline constexpr double kLineMs = findings::rc1::kWaitMs.value;

// The locked part, a check: recon-locked's longest wait / 50 ms >= 1, the
// geometric mean over the runs with its 95% interval.
std::vector<kit::Check> MakeChecks(const std::vector<RunFigures>& locked);
// The pinned part, a count: most recon-pinned runs have no transfer past
// 50 ms (the source: none in 3 of 4 runs).
kit::ExactPart PinnedPart(const std::vector<RunFigures>& pinned);

// "runs=all" rows: each arm's longest wait, p99.9 and p99 over the runs, the
// checks' ratios, and the headline ratios between the arms (paired by run).
void AddSummaryRows(kit::Results& results, const std::map<std::string, std::vector<RunFigures>>& figures);

kit::Verdict MakeVerdict(const std::map<std::string, std::vector<RunFigures>>& figures, const std::string& plot);

using procs::PromValue;  // a sample's value from the server's /metrics text

}  // namespace fenec::scenarios::recon
