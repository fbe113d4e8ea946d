// journals-bench's rows, plots, verdicts (JR-1) and console tables.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "iobench/kit/harness.h"
#include "iobench/kit/results.h"
#include "iobench/kit/stats.h"
#include "scenarios/engines/journals_workload.h"

namespace fenec::scenarios::journals {

// The fsyncs-per-put verdict compares counts with the finding's n + 1 and 1
// within this fraction: the 1% the CI gate holds shared's counts to
// (scripts/ci-charts/metrics.conf), for a data-file sync landing in the timed part.
inline constexpr double kCountTolerance = 0.01;

// One mode at one (indexes, writers) cell, over the repetitions (the modes
// of a cell run interleaved, so repetition r of each saw the same machine).
struct Figures {
  std::vector<double> puts_per_s;  // one per repetition, in order
  // Over every repetition together (counts divided by all the puts):
  double writes_per_put = 0, fsyncs_per_put = 0, dir_syncs_per_put = 0;
  double p50_us = 0, p99_us = 0, p999_us = 0;
  uint64_t puts = 0;
  bool journals_shared = false;  // in every repetition
  uint64_t branches = 0;
  size_t reps() const { return puts_per_s.size(); }
};

struct Report {
  std::map<std::tuple<std::string, int, int>, Figures> cells;  // (mode, indexes, writers)
  std::map<std::string, std::vector<RecoveryResult>> recovery;  // mode -> its kill -9 rounds
  RecoveryConfig recovery_cfg;                                  // the rounds' shape (for the case column)
  const Figures* find(const std::string& mode, int indexes, int writers) const;
  // Whether any recovery round failed or lost an acknowledged put.
  bool recovery_failed() const;
};

std::string cell_case(int indexes, int writers);

// The figures of one cell's repetitions (cfg as they all ran), kept for
// plots and verdicts, and its tidy rows: puts_per_s as the geometric mean of
// the repetitions with its interval (add_ratio), latency and the counts per
// put over every repetition together.
Figures figures_of(const std::vector<CellResult>& reps);
void add_cell(kit::Results& r, const std::string& mode, const CellConfig& cfg, const std::vector<CellResult>& reps,
              Report& rep);
// One kill -9 round's rows (case: indexes=..;writers=..;round=N) and its result kept.
void add_recovery(kit::Results& r, const std::string& mode, const RecoveryConfig& cfg, int round,
                  const RecoveryResult& res, Report& rep);

// JR-1's throughput checks: shared/separate puts/s (paired by repetition)
// at the most indexes measured, at the fewest and at the most writers,
// each >= 1 (see verdicts()). Empty if the modes were not both measured.
std::vector<kit::Check> throughput_checks(const Report& rep);
// Their ratios as rows: shared_over_separate_puts_per_s (arm "shared") at every
// cell measured in both modes, with its interval.
void add_ratios(kit::Results& r, const Report& rep);

void write_plots(kit::Harness& h, const Report& rep);
// Throughput (shared over separate), fsyncs per put at 1 writer (counts),
// and recovery (no acknowledged put missing in any round). plot_png(name):
// the path a verdict gives for plot `name` (a test passes its own).
std::vector<kit::Verdict> verdicts(const Report& rep, const std::function<std::string(const std::string&)>& plot_png);
void print_tables(const Report& rep);

}  // namespace fenec::scenarios::journals
