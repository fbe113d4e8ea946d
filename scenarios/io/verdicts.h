// The io scenario's judgements: for each finding, the source's figure (from
// findings/CATALOGUE.md), ours from this run, and an outcome, computed from the cells
// alone so the rules are in one place.
//
// Every cell runs kit::Harness::reps() times, its block's cells interleaved
// (rep 0 of every cell, then rep 1, ...), and CellResult::rep says which
// repetition a run was. A verdict is kit::judge() of checks: a ratio of two
// cells' figures paired by repetition (kit::paired_ratio) with its 95%
// interval, against the line the finding draws. Each check's line and where
// it comes from is written beside it in verdicts.cc.
#pragma once

#include <string>
#include <vector>

#include "iobench/kit/results.h"
#include "iobench/kit/verdict.h"
#include "iobench/src/coherence.h"
#include "iobench/src/lies.h"
#include "iobench/src/sweep.h"

namespace fenec::scenarios::io {

using iobench::CellResult;

// Every run of one cell by its axes (one a repetition, by rep); empty if it
// never ran. Skipped, failed, interrupted and prefilled runs are left out.
std::vector<const CellResult*> find_reps(const std::vector<CellResult>& cells, iobench::Mode mode, uint64_t size,
                                         unsigned jobs, iobench::Layout layout = iobench::Layout::kShared,
                                         iobench::SubmitKind submit = iobench::SubmitKind::kPwrite,
                                         unsigned batch = 1);

// fa(a) / fb(b) of the runs of two cells, paired by repetition (a repetition
// one of them lacks is left out): the geometric mean and its 95% interval.
kit::Ratio paired(const std::vector<const CellResult*>& a, double (*fa)(const CellResult&),
                  const std::vector<const CellResult*>& b, double (*fb)(const CellResult&));
// One figure over a cell's repetitions (kit::of_reps).
kit::Ratio over_reps(const std::vector<const CellResult*>& runs, double (*f)(const CellResult&));
// A cell's figures as functions, for paired() and over_reps().
inline double mb_per_s(const CellResult& c) { return c.mb_per_s(); }
inline double iops(const CellResult& c) { return c.iops(); }

// A check's ratio as a CSV row, beside the cell its numerator comes from
// (Results::add_ratio writes <metric>, _ci95_lo, _ci95_hi, _reps).
struct RatioRow {
  std::string arm, case_, metric;
  kit::Ratio ratio;
  std::string unit = "x";
};
struct Judged {
  kit::Verdict verdict;
  std::vector<RatioRow> rows;
};

// `durable` is the O_DIRECT|O_DSYNC mode, or O_DSYNC where O_DIRECT cannot run.
Judged io1_verdict(const std::vector<CellResult>& sizes, iobench::Mode durable, const std::string& plot);
Judged io2_verdict(const std::vector<CellResult>& jobs, const std::vector<CellResult>& sizes,
                   iobench::Mode durable, uint64_t size, const std::string& plot);
// The long buffered cell's repetitions. dirty_bytes: how much the kernel lets
// be dirty before writeback starts (vm.dirty_background_*): the rate written
// before that much is compared with the rate after it.
Judged io3_verdict(const std::vector<CellResult>& drain, uint64_t dirty_bytes, const std::string& plot);
// Quick mode runs no drain cell: it cannot write past dirty_bytes in its budget.
Judged io3_quick_verdict(uint64_t dirty_bytes);
// vm.dirty_background_bytes, else dirty_background_ratio of MemAvailable; 0 if unknown.
uint64_t dirty_background_bytes();
// One iobench lies run a repetition: a classification from the interval of
// the durable/buffered latency ratio.
Judged io4_verdict(const std::vector<iobench::LiesResult>& lies);
kit::Verdict io5_verdict(const iobench::CoherenceResult& c, const iobench::ProbeResult& p);
Judged io7_verdict(const std::vector<CellResult>& merged, iobench::Mode durable, unsigned batch,
                   const std::string& plot);

}  // namespace fenec::scenarios::io
