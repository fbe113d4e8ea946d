// RC-1's rows, plots and verdict from the runs of each arm.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "iobench/kit/harness.h"
#include "scenarios/recon/run.h"

namespace fenec::scenarios::recon {

inline constexpr const char* kFinding = "RC-1";
inline constexpr const char* kNoRecon = "no-recon";
inline constexpr const char* kPinned = "recon-pinned";
inline constexpr const char* kLocked = "recon-locked";

// What one run left behind, beyond RunResult: the server's own figures.
struct RunFigures {
  int run = 0;
  double wait_max_ms = 0, p50_ms = 0, p99_ms = 0, per_s = 0;
  uint64_t over_50ms = 0, reconciliations = 0, violations = 0, errors = 0;
  double recon_max_ms = 0;
  bool valid = true;  // no transfer errors, no invariant breaks, server exited 0
};

// Rows for one run (case "run=N").
RunFigures AddRunRows(kit::Results& results, const std::string& arm, int run, const RunResult& r,
                      const std::string& server_metrics, int server_exit);

// Each arm's latency-over-time plot (its first run), reconciliations marked,
// and the longest wait of every run per arm. Returns the main plot's path.
std::string WritePlots(kit::Harness& h, const std::map<std::string, RunResult>& first_runs,
                       const std::map<std::string, std::vector<RunFigures>>& figures);

kit::Verdict MakeVerdict(const std::map<std::string, std::vector<RunFigures>>& figures, const std::string& plot);

// A sample's value from Prometheus text ("name{labels} value"), or -1.
double PromValue(const std::string& text, const std::string& series);

}  // namespace fenec::scenarios::recon
