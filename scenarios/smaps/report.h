// What smaps-bench writes besides the raw runs: the rows of an arm, the plots
// and the MM-1 verdict, kept apart from main.cc so the driver reads as the
// experiment.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <tuple>

#include "iobench/kit/harness.h"
#include "iobench/kit/results.h"
#include "scenarios/smaps/workload.h"

namespace fenec::scenarios::smaps {

struct WorkerFigures {
  double p50_us = 0, p99_us = 0, max_us = 0, ops_per_s = 0, proc_reads_per_s = 0;
  static WorkerFigures of(const ArmResult& r);
};

struct Report {
  std::map<std::pair<std::string, size_t>, double> read_us;  // (arm, mappings) -> p50 us
  // (arm, mappings, hz, threads) -> figures; `none` has hz = threads = 0
  std::map<std::tuple<std::string, size_t, int, int>, WorkerFigures> worker;
};

// The full rows of one arm: mmap_p50_us..mmap_max_us, mmap_ops_per_s, proc_reads ...
void add_arm_rows(kit::Results& r, const std::string& finding, const std::string& arm,
                  const std::string& case_, const ArmResult& res);
// The few rows a repetition carries (case ends in ;rep=N): the CI's samples.
void add_rep_rows(kit::Results& r, const std::string& finding, const std::string& arm,
                  const std::string& case_, const ArmResult& res);

void write_plots(kit::Harness& h, const Report& rep);
kit::Verdict verdict(kit::Harness& h, const Report& rep);

}  // namespace fenec::scenarios::smaps
