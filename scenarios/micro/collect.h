// Turns Google Benchmark's runs into the project's tidy rows and judges
// MM-2..MM-5 from them.
#pragma once

#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <vector>

#include "iobench/kit/results.h"

namespace fenec::scenarios::micro {

// One benchmark instance's figure: per repetition and the median over them.
struct Figure {
  std::string finding, arm, case_;  // "MM-2", "hash_clear", "nodes=...;threads=1"
  std::vector<double> ns_per_item;  // one a repetition: wall time per item
  // One a repetition: CPU time per item, all threads' CPU over all their
  // items. At 2 threads on a shared 2-core machine the wall time moves with
  // whoever else runs (a thread waits for a core); the CPU an item costs does not.
  std::vector<double> cpu_ns_per_item;
  std::map<std::string, double> counters;  // user counters of the last repetition
  std::map<std::string, std::vector<double>> counter_reps;  // each user counter, one a repetition
  std::string error;
  double median_ns() const;
};

// The repetitions are passes: every benchmark once (Google Benchmark's
// --benchmark_repetitions=1), then every benchmark again, --reps times
// (kit::run_interleaved's order), so repetition r of two arms ran seconds
// apart and a neighbour's burst of load hits both sides of a pair. (Google
// Benchmark's own repetitions with random interleaving put repetition r of
// two arms at unrelated times: a burst then hits one side of a pair.)
// Each reporter is told the pass, and stamps it as the runs' repetition_index.

// A display reporter that prints like the console one and keeps every run.
class CollectingReporter : public benchmark::ConsoleReporter {
 public:
  // Colour only on a terminal: CI logs and pipes get plain text.
  CollectingReporter();
  void set_pass(int pass) { pass_ = pass; }
  bool ReportContext(const Context& context) override;  // printed on the first pass only
  void ReportRuns(const std::vector<Run>& runs) override;
  const std::vector<Run>& runs() const { return runs_; }

 private:
  std::vector<Run> runs_;
  int pass_ = 0;
  bool context_printed_ = false;
};

// Google Benchmark's JSON of every pass as one document: one context, then
// every pass's runs. RunSpecifiedBenchmarks() hands its file reporter the
// --benchmark_out stream of that call; this one writes to its own, so pass it
// with a throwaway --benchmark_out, and call Done() after the last pass.
class PassesJsonReporter : public benchmark::BenchmarkReporter {
 public:
  explicit PassesJsonReporter(std::ostream* out);
  void set_pass(int pass) { pass_ = pass; }
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override {}
  void Done();

 private:
  benchmark::JSONReporter json_;
  int pass_ = 0;
  bool context_written_ = false;
};

// Groups the iteration runs by instance. `cases` maps "MM2/hash_clear" to its case string.
std::vector<Figure> figures_of(const std::vector<benchmark::BenchmarkReporter::Run>& runs,
                               const std::map<std::string, std::string>& cases);

// Rows: ns_per_item, cpu_ns_per_item and items_per_s (median) and every
// counter; with more than one repetition also ns_per_item and cpu_ns_per_item
// per repetition, case suffixed ";rep=N".
void add_rows(kit::Results& r, const std::vector<Figure>& figs);
// MM-2..MM-5, each judge() of checks: ratios of two arms' CPU per item,
// paired by repetition, with their 95% intervals, against the finding's line;
// each check's ratio also as rows (add_ratio) beside the arm it is about.
void add_verdicts(kit::Results& r, const std::vector<Figure>& figs, const std::string& plot);

}  // namespace fenec::scenarios::micro
