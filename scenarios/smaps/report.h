// What smaps-bench writes besides the raw runs: the rows of an arm, the plots
// and the MM-1 verdict, kept apart from main.cc so the driver reads as the
// experiment.
//
// Every figure is kept a repetition at a time (the harness's --reps, the
// arms interleaved), so the verdict's ratios pair repetition r of two arms
// and carry a 95% interval (kit::paired_ratio), and the plots draw each
// point's interval as an error bar.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "iobench/kit/harness.h"
#include "iobench/kit/results.h"
#include "scenarios/smaps/workload.h"

namespace fenec::scenarios::smaps {

struct WorkerFigures {
  double p50_us = 0, p99_us = 0, p999_us = 0, max_us = 0, ops_per_s = 0, proc_reads_per_s = 0;
  static WorkerFigures of(const ArmResult& r);
};

struct Report {
  // (arm, mappings) -> one read's p50 (us), a repetition each
  std::map<std::pair<std::string, size_t>, std::vector<double>> read_us;
  // (arm, mappings, hz, threads) -> the worker's figures, a repetition each;
  // `none` has hz = threads = 0
  std::map<std::tuple<std::string, size_t, int, int>, std::vector<WorkerFigures>> worker;
};

// The full rows of one arm: mmap_p50_us..mmap_max_us, mmap_ops_per_s, proc_reads ...
void add_arm_rows(kit::Results& r, const std::string& finding, const std::string& arm,
                  const std::string& case_, const ArmResult& res);
// The few rows a repetition carries (case ends in ;rep=N): the CI's samples.
void add_rep_rows(kit::Results& r, const std::string& finding, const std::string& arm,
                  const std::string& case_, const ArmResult& res);

void write_plots(kit::Harness& h, const Report& rep);

// The fenec-server's sampler interval (engine/server/server.cc: one
// smaps_rollup read a second): the rate the project ships its fix at.
constexpr int kServerSamplerHz = 1;

// MM-1 from the figures: judge() of three checks (see report.cc), or "not
// applicable" when the run measured only part of it (--arms, --no-read-cost,
// --hz, --threads). `plot_dir` is where the plots went ("plots/smaps/");
// each check's ratio is added to `rows` (when given) beside its figures.
kit::Verdict verdict(const Report& rep, const std::string& plot_dir, kit::Results* rows = nullptr);

}  // namespace fenec::scenarios::smaps
