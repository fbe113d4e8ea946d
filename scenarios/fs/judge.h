// fs-bench's judgements: every headline ratio of one file system (two of
// its cells' figures paired by repetition, kit::paired_ratio), the findings
// judged per file system from them (IO-1, IO-4, IO-7, CC-1, JR-1, JR-zero),
// the table finding x file system, and every difference over 15% between two
// file systems explained from the counters the cells recorded.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "iobench/kit/results.h"
#include "iobench/kit/verdict.h"
#include "scenarios/fs/matrix.h"

namespace fenec::scenarios::fs {

// One headline ratio: num's metric / den's metric, both cells on the same
// file system (den empty: num's metric alone, a figure to compare across them).
struct RatioDef {
  std::string finding;  // "IO-1", "" for one only reported
  std::string name;     // the CSV metric ("iops_16k_over_4k")
  std::string what;     // "16k/4k durable IOPS"
  std::string num_key, num_metric, den_key, den_metric;
};
const std::vector<RatioDef>& ratio_defs();

struct FsRatio {
  const RatioDef* def;
  std::string fs;
  kit::Ratio ratio;
};
// Every def on every file system that ran both its cells.
std::vector<FsRatio> fs_ratios(const Measured& m);

// A def's per-repetition values on one file system (num / den, paired) in
// w, and their ratio at w's level.
void def_values(const Measured& m, const RatioDef& d, const std::string& fs_name, std::vector<double>* num,
                std::vector<double>* den, const kit::Window& w = {});
kit::Ratio def_ratio(const Measured& m, const RatioDef& d, const std::string& fs_name, const kit::Window& w = {});
const RatioDef* def_named(const std::string& name);

// Checks as a sequential run judged them, by the names part_checks gives
// (checks.h).
using JudgedChecks = std::map<std::string, kit::Check>;

// The verdicts, one a finding and file system, `ours` naming the file system;
// each check as `judged` has it, if given.
std::vector<kit::Verdict> fs_verdicts(const Measured& m, bool quick, const std::string& plot,
                                      const JudgedChecks* judged = nullptr);

// A difference over 15% between two file systems' values of one def (its
// whole 95% interval past 1.15x or below 1/1.15x), with what the counters say.
struct Difference {
  const RatioDef* def;
  std::string fs_a, fs_b;  // a's value over b's, > 1.15 or < 1/1.15
  kit::Ratio ratio;
  std::string explanation;
};
// How many pairs of file systems, over every def, were decided: differ by
// over 15% (the whole interval past it), or within 15% (the whole inside).
struct PairCount {
  int pairs = 0, differ = 0, within = 0;
  int undecided() const { return pairs - differ - within; }
};
// *unsettled (may be null): pairs past 15% at the point estimate whose
// interval reaches back inside it. judged: the pairs' checks as a
// sequential run judged them (pair_checks' names).
std::vector<Difference> differences(const Measured& m, double threshold = 1.15, int* unsettled = nullptr,
                                    const JudgedChecks* judged = nullptr, PairCount* count = nullptr);

// The markdown table finding x file system: each ratio with its interval,
// and each finding's verdict.
std::string findings_table(const Measured& m, const std::vector<kit::Verdict>& verdicts);
std::string differences_markdown(const std::vector<Difference>& d, int unsettled);

// Ratio rows (arm "ratio", case fs=NAME) and difference rows (arm
// "difference", case fs=A;vs=B) into results.
void add_ratio_rows(kit::Results& r, const std::vector<FsRatio>& ratios, const std::vector<Difference>& diffs);

// The plots: durable-write cost by size per file system, the headline
// ratios across file systems, the engines at their most writers. Returns
// the findings chart's png (for the verdicts), "" if not drawn.
std::string write_plots(const Measured& m, const std::function<std::string(const std::string&)>& plot_path);

}  // namespace fenec::scenarios::fs
