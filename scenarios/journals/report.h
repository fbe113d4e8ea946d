// journals-bench's rows, plots, verdicts (JR-1) and console tables.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "iobench/kit/harness.h"
#include "iobench/kit/results.h"
#include "scenarios/journals/workload.h"

namespace fenec::scenarios::journals {

// The target JR-1 is held to: shared journals at least this many times the
// puts/s of separate ones at indexes=8, writers=16.
inline constexpr double kTargetRatio = 3.0;

struct Figures {
  double puts_per_s = 0;
  double writes_per_put = 0, fsyncs_per_put = 0, dir_syncs_per_put = 0;
  double p50_us = 0, p99_us = 0, p999_us = 0;
  uint64_t puts = 0;
  bool journals_shared = false;
  uint64_t branches = 0;
};

struct Report {
  std::map<std::tuple<std::string, int, int>, Figures> cells;  // (mode, indexes, writers)
  std::map<std::string, RecoveryResult> recovery;              // mode -> its kill -9 round
  RecoveryConfig recovery_cfg;                                 // the round's shape (for the case column)
  const Figures* find(const std::string& mode, int indexes, int writers) const;
  // Whether any recovery round failed or lost an acknowledged put.
  bool recovery_failed() const;
};

std::string cell_case(int indexes, int writers);

// The tidy rows of one cell (and the figures kept for plots and verdicts).
void add_cell(kit::Results& r, const std::string& mode, const CellConfig& cfg, const CellResult& res,
              Report& rep);
void add_recovery(kit::Results& r, const std::string& mode, const RecoveryConfig& cfg,
                  const RecoveryResult& res, Report& rep);

void write_plots(kit::Harness& h, const Report& rep);
// Throughput (shared/separate at the cell closest to indexes=8;writers=16),
// fsyncs per put at 1 writer, and recovery (no acknowledged put missing).
std::vector<kit::Verdict> verdicts(const kit::Harness& h, const Report& rep);
void print_tables(const Report& rep);

}  // namespace fenec::scenarios::journals
