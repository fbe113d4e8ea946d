// commit-bench's JR-2 rows, plots, verdicts and console table.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "findings/catalogue.h"
#include "iobench/kit/harness.h"
#include "iobench/kit/results.h"
#include "scenarios/commit/merger_cell.h"

namespace fenec::scenarios::commit {

// JR-2's line, from the finding: async completion gives "~15% more
// throughput writing 100K documents with 10 threads" (findings/CATALOGUE.md JR-2; the
// source's post "RavenDB Performance: 15% improvement in one line").
constexpr double kAsyncOverSyncTarget = findings::jr2::kTarget.value;

// One arm at one place (disk and doc kind), over the repetitions (the arms
// of a place run interleaved, so repetition r of every arm saw the same
// machine: the pairs the ratios are built on).
struct MergerFigures {
  std::string disk, docs;  // the disk's name and the doc kind
  uint32_t sync_delay_us = 0;
  std::vector<double> docs_per_s;  // one per repetition, in order
  // Over every repetition together:
  uint64_t docs_put = 0;
  double put_p50_us = 0, put_p99_us = 0;
  double fsyncs_per_doc = 0;
  uint64_t batches = 0, async_completions = 0;
  // Batches the merger completed itself, and of them those during which
  // more operations queued (work that waited for its fsync): JR-2's count.
  uint64_t self_completions = 0, self_completions_with_work = 0;
  bool capped = false;
  // docs/s each bucket, of the repetition whose docs/s is the median.
  std::vector<double> docs_per_s_over_time;
  size_t reps() const { return docs_per_s.size(); }
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

// One arm at one place over its repetitions (cfg as the first ran; every
// repetition ran the same config but its seed): its figures for the plots
// and verdicts, and its rows (finding JR-2): docs/s as the geometric mean of
// the repetitions with its interval, latency and counts over them all.
MergerFigures merger_figures(const MergerCellConfig& cfg, const std::vector<MergerCellResult>& reps,
                             double bucket_seconds);
void add_merger_rows(kit::Results& r, const MergerCellConfig& cfg, const std::vector<MergerCellResult>& reps,
                     MergerReport& rep);
// jr2_docs_per_s (by disk, a line per arm and doc kind), jr2_async_over_sync
// (the headline ratio by disk, a line per doc kind) with their 95% intervals
// as error bars, and jr2_over_time_<place> (docs/s each bucket).
void write_merger_plots(kit::Harness& h, const MergerReport& rep);
// JR-2's checks for one doc kind. The finding has two parts, each a check
// on async/sync docs/s (paired by repetition: both arms ran back to back):
//   "~15% more throughput"        on the native disk, async/sync >= 1.15
//   "and far better on a slow disk"  on each slowed disk, async/sync must
//       beat both the ~15% and what async gained on the native disk: per
//       repetition, async/sync there over max(1.15, async/sync on native),
//       >= 1 (over 1.15 alone if the native disk was not measured).
struct MergerChecks {
  std::string kind;
  // async/sync docs/s at each place of this kind with both arms, by disk delay.
  std::vector<std::pair<std::string, kit::Ratio>> gains;  // (disk name, ratio)
  // The slowed disks' second part, in the same order as their gains.
  std::vector<std::pair<std::string, kit::Ratio>> slow_checks;
  std::vector<kit::Check> checks;
};
// `w`: the repetitions the ratios are built on (a sequential run's pilot or
// main experiment; every one by default).
MergerChecks merger_checks(const MergerReport& rep, const std::string& kind, const kit::Window& w = {});

// The checks' ratios as rows (finding JR-2, arm "async", each place's case):
// async_over_sync, and on a slowed disk gain_over_native_or_target.
void add_merger_ratios(kit::Results& r, const MergerReport& rep);
// One JR-2 verdict per doc kind measured: judge() of its checks, as `seq`
// (the run's sequence, if any) judges them: each check on the repetitions
// that decided it. plot_png(name): the path a verdict gives for plot `name`
// (the harness's plot_path + ".png"; a test passes its own).
std::vector<kit::Verdict> merger_verdicts(const MergerReport& rep,
                                            const std::function<std::string(const std::string&)>& plot_png,
                                            const kit::Sequence* seq = nullptr);
void print_merger_table(const MergerReport& rep);

}  // namespace fenec::scenarios::commit
