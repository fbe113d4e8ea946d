#include "scenarios/smaps/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "engine/src/base/histogram.h"
#include "iobench/kit/interrupt.h"
#include "iobench/kit/console.h"
#include "scenarios/smaps/mappings.h"
#include "scenarios/smaps/report.h"
#include "scenarios/smaps/workload.h"

namespace fenec::scenarios::smaps {
namespace {

using base::Histogram;

constexpr const char* kFinding = "MM-1";

void run_read_cost(kit::Harness& h, const Options& o, Report& rep) {
  const int reps = h.reps();
  kit::Progress progress("smaps read cost", o.read_mappings.size() * reps * 2);
  size_t done = 0;
  const Reader readers[] = {Reader::kSmaps, Reader::kSmapsRollup};
  for (size_t n : o.read_mappings) {
    if (kit::stop_requested()) return;
    const std::string c = fmt::format("mappings={}", n);
    MappingSet set;
    if (const std::string err = set.create(n); !err.empty()) {
      for (const char* arm : {"smaps", "smaps_rollup"}) h.results().skip(arm, c, err);
      continue;
    }
    const double vmas = static_cast<double>(count_vmas());
    // Each repetition: a few reads of smaps, then of smaps_rollup (at least
    // 3 reads and the budget), its p50 the repetition's figure.
    const double budget = h.quick() ? 0.3 : 1.0;
    Histogram all[2];
    kit::run_interleaved(reps, 2, [&](size_t i, int r) {
      const Histogram ns = measure_reads(readers[i], 3, budget);
      const char* arm = reader_name(readers[i]);
      const double p50 = ns.Percentile(50) / 1000.0;
      h.results().add(kFinding, arm, fmt::format("{};rep={}", c, r), "read_us", p50, "us");
      rep.read_us[{arm, n}].push_back(p50);
      all[i].Merge(ns);
      progress.update(++done, c);
    });
    for (size_t i = 0; i < 2; ++i) {
      const char* arm = reader_name(readers[i]);
      h.results().add_ratio(kFinding, arm, c, "read_us", kit::of_reps(rep.read_us[{arm, n}]), "us");
      h.results().add(kFinding, arm, c, "read_p99_us", all[i].Percentile(99) / 1000.0, "us");
      h.results().add(kFinding, arm, c, "reads", static_cast<double>(all[i].count()), "count");
      h.results().add(kFinding, arm, c, "vmas", vmas, "count");
    }
  }
  progress.finish();
}

struct Cell {
  Reader reader;
  int hz, threads;
  std::string case_for(size_t mappings) const {
    return fmt::format("mappings={};hz={};threads={}", mappings, hz, threads);
  }
};

std::vector<Cell> cells_of(const Options& o) {
  std::vector<Cell> cells;
  for (const std::string& a : o.arms) {
    Reader r{};
    parse_reader(a, &r);
    if (r == Reader::kNone) {
      cells.push_back({r, 0, 0});
      continue;
    }
    for (int hz : o.hz) {
      for (int t : o.threads) cells.push_back({r, hz, t});
    }
  }
  return cells;
}

void run_worker_arms(kit::Harness& h, const Options& o, Report& rep) {
  const std::vector<Cell> cells = cells_of(o);
  const int reps = h.reps();
  kit::Progress progress("smaps worker arms", o.worker_mappings.size() * cells.size() * reps);
  size_t done = 0;
  for (size_t n : o.worker_mappings) {
    MappingSet set;
    if (const std::string err = set.create(n); !err.empty()) {
      for (const Cell& cell : cells) {
        h.results().skip(reader_name(cell.reader), cell.case_for(n), err);
      }
      continue;
    }
    std::map<size_t, ArmResult> merged;  // by cell index
    // Reps outer, arms inner: slow drift of a shared machine hits every arm alike.
    kit::run_interleaved(reps, cells.size(), [&](size_t i, int r) {
      const Cell& cell = cells[i];
      ArmConfig cfg;
      cfg.reader = cell.reader;
      cfg.hz = cell.hz;
      cfg.threads = cell.threads;
      cfg.duration = std::chrono::milliseconds(static_cast<int64_t>(o.seconds * 1000));
      const ArmResult res = run_arm(cfg);
      const std::string arm = reader_name(cell.reader);
      add_rep_rows(h.results(), kFinding, arm, fmt::format("{};rep={}", cell.case_for(n), r), res);
      rep.worker[{arm, n, cell.hz, cell.threads}].push_back(WorkerFigures::of(res));
      auto& m = merged[i];
      m.op_ns.Merge(res.op_ns);
      m.ops += res.ops;
      m.seconds += res.seconds;
      m.proc_reads += res.proc_reads;
      m.cached_reads += res.cached_reads;
      progress.update(++done, cell.case_for(n));
    });
    for (const auto& [i, m] : merged) {
      const Cell& cell = cells[i];
      add_arm_rows(h.results(), kFinding, reader_name(cell.reader), cell.case_for(n), m);
    }
  }
  progress.finish();
}

}  // namespace

int run(kit::Harness& h, const Options& o) {
  h.results().meta().set("max_map_count", std::to_string(max_map_count()));

  Report rep;
  if (!o.no_read_cost) run_read_cost(h, o, rep);
  run_worker_arms(h, o, rep);
  write_plots(h, rep);
  h.results().verdict(verdict(rep, h.plot_path(""), &h.results()));
  return h.finish();
}

}  // namespace fenec::scenarios::smaps
