// commit-bench's JR-2 rows, plots, verdicts and console table.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "iobench/kit/harness.h"
#include "iobench/kit/results.h"
#include "scenarios/commit/merger_cell.h"

namespace fenec::scenarios::commit {

// The target JR-2 is judged against, on every disk: async's docs/s at least
// this many times sync's with 10 writers ("~15% more throughput").
constexpr double kAsyncOverSyncTarget = 1.15;

struct MergerFigures {
  std::string disk, docs;  // the disk's name and the doc kind
  double docs_per_s = 0;
  uint64_t docs_put = 0;
  double put_p50_us = 0, put_p99_us = 0;
  double fsyncs_per_doc = 0;
  uint64_t batches = 0, async_completions = 0;
  uint32_t sync_delay_us = 0;
  bool capped = false;
  std::vector<double> docs_per_s_over_time;  // one value per bucket
};

// Where a cell ran: a disk and a doc kind, as one name ("native-small").
std::string merger_place(const std::string& disk, const std::string& docs);

struct MergerReport {
  int writers = 10;
  double bucket_seconds = 0.1;
  std::vector<std::string> places;  // merger_place()s, in the order run
  std::map<std::pair<std::string, std::string>, MergerFigures> cells;  // (arm, place)
  const MergerFigures* find(const std::string& arm, const std::string& place) const;
};

// The case string of a cell: "disk=<name>;writers=<n>;docs=<kind>".
std::string merger_case(const std::string& disk, int writers, const std::string& docs);

// Adds the cell's rows (finding JR-2) and keeps its figures for the plots and verdicts.
void add_merger_rows(kit::Results& r, const MergerCellConfig& cfg, const MergerCellResult& res, MergerReport& rep);
// jr2_docs_per_s (by disk, a line per arm and doc kind) and jr2_over_time_<place> (docs/s each bucket).
void write_merger_plots(kit::Harness& h, const MergerReport& rep);
// One JR-2 verdict per place run. plot_png(name): the path a verdict gives for
// plot `name` (the harness's plot_path + ".png"; a test passes its own).
std::vector<kit::Verdict> merger_verdicts(const MergerReport& rep,
                                            const std::function<std::string(const std::string&)>& plot_png);
void print_merger_table(const MergerReport& rep);

}  // namespace fenec::scenarios::commit
