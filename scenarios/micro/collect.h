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
  std::vector<double> ns_per_item;  // one a repetition
  std::map<std::string, double> counters;  // user counters of the last repetition
  std::string error;
  double median_ns() const;
};

// A display reporter that prints like the console one and keeps every run.
class CollectingReporter : public benchmark::ConsoleReporter {
 public:
  // Colour only on a terminal: CI logs and pipes get plain text.
  CollectingReporter();
  void ReportRuns(const std::vector<Run>& runs) override;
  const std::vector<Run>& runs() const { return runs_; }

 private:
  std::vector<Run> runs_;
};

// Groups the iteration runs by instance. `cases` maps "MM2/hash_clear" to its case string.
std::vector<Figure> figures_of(const std::vector<benchmark::BenchmarkReporter::Run>& runs,
                               const std::map<std::string, std::string>& cases);

// Rows: ns_per_item and items_per_s (median) and every counter; with more than
// one repetition also ns_per_item per repetition, case suffixed ";rep=N".
void add_rows(kit::Results& r, const std::vector<Figure>& figs);
void add_verdicts(kit::Results& r, const std::vector<Figure>& figs, const std::string& plot);

}  // namespace fenec::scenarios::micro
