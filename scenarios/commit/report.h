// commit-bench's rows, plots, verdicts (IO-6, IO-7) and console table.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "iobench/kit/harness.h"
#include "iobench/kit/results.h"
#include "iobench/kit/stats.h"
#include "scenarios/commit/workload.h"

namespace fenec::scenarios::commit {

// One flush arm on one file count, over the repetitions (the arms of a file
// count run interleaved, so repetition r of every arm saw the same machine).
struct Figures {
  // One value per repetition, in order.
  std::vector<double> mb_per_s, mb_per_cpu_s, syscalls_per_mb, writes_per_mb;
  std::vector<double> iou_workers;  // the arm's own iou-wrk threads, peak of each repetition
  int iou_workers_system = -1;      // every process, peak over the repetitions
  size_t reps() const { return mb_per_s.size(); }
};

struct Report {
  std::map<std::pair<std::string, int>, Figures> cells;  // (arm, files)
  const Figures* find(const std::string& arm, int files) const;
};

// The finding a flush arm's rows back: IO-6 for the ring arms, IO-7 for the pwrite ones.
std::string finding_of(const std::string& arm);

// The figures of one repetition of a cell (MB/s, per MB counts, workers).
void add_rep(Figures& f, const CellResult& res);
// The rows of one (arm, file count): each figure's geometric mean over the
// repetitions with its interval (add_ratio), the counts summed over them.
void add_rows(kit::Results& r, const std::string& arm, int files, const DirtySet& set,
              const std::vector<CellResult>& reps, Report& rep);
void write_plots(kit::Harness& h, const Report& rep);
// IO-6 and IO-7 at the largest file count measured. plot_png(name): the path
// a verdict gives for plot `name` (the harness's plot_path + ".png").
std::vector<kit::Verdict> verdicts(const Report& rep,
                                   const std::function<std::string(const std::string&)>& plot_png);
void print_table(const Report& rep);

}  // namespace fenec::scenarios::commit
