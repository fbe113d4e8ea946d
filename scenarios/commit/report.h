// commit-bench's rows, plots, verdicts (IO-6, IO-7) and console table.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "iobench/kit/harness.h"
#include "iobench/kit/results.h"
#include "scenarios/commit/workload.h"

namespace fenec::scenarios::commit {

struct Figures {
  double mb_per_s = 0;
  double mb_per_cpu_s = 0;
  double syscalls = 0, syscalls_per_mb = 0;
  double writes_per_mb = 0;
  int iou_workers = 0;         // the arm's own, peak
  int iou_workers_system = -1; // every process, peak
};

struct Report {
  std::map<std::pair<std::string, int>, Figures> cells;  // (arm, files)
  const Figures* find(const std::string& arm, int files) const;
};

// The finding a flush arm's rows back: IO-6 for the ring arms, IO-7 for the pwrite ones.
std::string finding_of(const std::string& arm);

void add_rows(kit::Results& r, const std::string& arm, int files, const DirtySet& set,
              const CellResult& res, Report& rep);
void write_plots(kit::Harness& h, const Report& rep);
// IO-6 at the largest file count measured; IO-7 likewise.
std::vector<kit::Verdict> verdicts(const kit::Harness& h, const Report& rep);
void print_table(const Report& rep);

}  // namespace fenec::scenarios::commit
