#include "scenarios/smaps/report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>
#include <set>
#include <vector>

#include "iobench/kit/plot.h"

namespace fenec::scenarios::smaps {
namespace {

// A worker slowed by this factor against the cached sampler is harmed, not noise.
constexpr double kHarmFactor = 2.0;
// smaps must cost at least this much more than smaps_rollup for the first half of MM-1.
constexpr double kReadFactor = 2.0;

std::string rel_plot(const kit::Harness& h, const std::string& name) {
  return h.plot_path(name) + ".png";
}

}  // namespace

WorkerFigures WorkerFigures::of(const ArmResult& r) {
  WorkerFigures f;
  f.p50_us = static_cast<double>(r.op_ns.Percentile(50)) / 1000.0;
  f.p99_us = static_cast<double>(r.op_ns.Percentile(99)) / 1000.0;
  f.max_us = static_cast<double>(r.op_ns.max()) / 1000.0;
  f.ops_per_s = r.seconds > 0 ? static_cast<double>(r.ops) / r.seconds : 0;
  f.proc_reads_per_s = r.seconds > 0 ? static_cast<double>(r.proc_reads) / r.seconds : 0;
  return f;
}

void add_arm_rows(kit::Results& r, const std::string& finding, const std::string& arm,
                  const std::string& case_, const ArmResult& res) {
  const WorkerFigures f = WorkerFigures::of(res);
  r.add_latency(finding, arm, case_, res.op_ns, "mmap");
  r.add(finding, arm, case_, "mmap_ops_per_s", f.ops_per_s, "ops/s");
  r.add(finding, arm, case_, "ops", static_cast<double>(res.ops), "count");
  r.add(finding, arm, case_, "proc_reads", static_cast<double>(res.proc_reads), "count");
  r.add(finding, arm, case_, "proc_reads_per_s", f.proc_reads_per_s, "reads/s");
  r.add(finding, arm, case_, "cached_reads", static_cast<double>(res.cached_reads), "count");
}

void add_rep_rows(kit::Results& r, const std::string& finding, const std::string& arm,
                  const std::string& case_, const ArmResult& res) {
  const WorkerFigures f = WorkerFigures::of(res);
  r.add(finding, arm, case_, "mmap_p50_us", f.p50_us, "us");
  r.add(finding, arm, case_, "mmap_p99_us", f.p99_us, "us");
  r.add(finding, arm, case_, "mmap_ops_per_s", f.ops_per_s, "ops/s");
}

void write_plots(kit::Harness& h, const Report& rep) {
  auto report_err = [](const std::string& err) {
    if (!err.empty()) std::cerr << "smaps-bench: plot: " << err << "\n";
  };
  if (!rep.read_us.empty()) {
    kit::Chart c;
    c.title = "MM-1: one read of /proc/self/smaps vs smaps_rollup";
    c.xlabel = "memory mappings in the process";
    c.ylabel = "read time, p50 (us)";
    c.logx = c.logy = true;
    for (const char* arm : {"smaps", "smaps_rollup"}) {
      kit::Series s{arm, {}};
      for (const auto& [k, us] : rep.read_us) {
        if (k.first == arm) s.points.emplace_back(static_cast<double>(k.second), us);
      }
      if (!s.points.empty()) c.series.push_back(s);
    }
    report_err(kit::write_chart(c, h.plot_path("read_cost")));
  }
  std::set<size_t> counts;
  std::set<int> hzs;
  for (const auto& [k, f] : rep.worker) {
    counts.insert(std::get<1>(k));
    if (std::get<2>(k) > 0) hzs.insert(std::get<2>(k));
  }
  struct Metric {
    const char* file;
    const char* what;
    const char* ylabel;
    double WorkerFigures::*field;
  };
  const Metric metrics[] = {
      {"mmap_p99", "p99", "worker op p99 (us)", &WorkerFigures::p99_us},
      {"mmap_ops", "rate", "worker mmap+munmap ops/s", &WorkerFigures::ops_per_s},
  };
  for (size_t n : counts) {
    for (const Metric& mt : metrics) {
      kit::Chart c;
      c.title = fmt::format("MM-1: worker mmap+munmap {} while sampling ({} mappings)", mt.what, n);
      c.xlabel = "samples per second per reading thread";
      c.ylabel = mt.ylabel;
      c.logx = c.logy = true;
      std::map<std::string, kit::Series> by;
      for (const auto& [k, f] : rep.worker) {
        const auto& [arm, m, hz, t] = k;
        if (m != n) continue;
        if (arm == "none") {
          // The unsampled worker is one figure: drawn flat across the rates.
          kit::Series s{"none (no sampling)", {}, "lines"};
          for (int x : hzs) s.points.emplace_back(x, f.*mt.field);
          by["0none"] = s;
          continue;
        }
        const std::string title = arm == "sampler" ? fmt::format("sampler, {} callers", t)
                                                   : fmt::format("{} x{} threads", arm, t);
        by[title].title = title;
        by[title].points.emplace_back(hz, f.*mt.field);
      }
      for (auto& [k, s] : by) c.series.push_back(s);
      report_err(kit::write_chart(c, h.plot_path(fmt::format("{}_m{}", mt.file, n))));
    }
  }
}

kit::Verdict verdict(kit::Harness& h, const Report& rep) {
  kit::Verdict v;
  v.finding = "MM-1";
  v.claim =
      "reading /proc/PID/smaps often from several threads stalls the process's mmap/munmap; "
      "one throttled thread reading smaps_rollup does not";
  v.source =
      "tens of thousands of mappings + frequent multi-thread smaps reads: latency degraded "
      "for weeks; one thread, throttled, cached, smaps_rollup: flat latency";
  // Read cost at the largest mapping count both arms reached.
  double read_ratio = 0;
  size_t read_n = 0;
  for (const auto& [k, us] : rep.read_us) {
    if (k.first != "smaps") continue;
    const auto it = rep.read_us.find({"smaps_rollup", k.second});
    if (it == rep.read_us.end() || it->second <= 0 || k.second < read_n) continue;
    read_n = k.second;
    read_ratio = us / it->second;
  }
  // Worst smaps cell (most threads, then highest rate) at the largest mapping count,
  // against the sampler at the same rate and the unsampled worker.
  const WorkerFigures* bad = nullptr;
  const WorkerFigures* good = nullptr;
  const WorkerFigures* none = nullptr;
  std::tuple<size_t, int, int> best{0, 0, 0};
  for (const auto& [k, f] : rep.worker) {
    const auto& [arm, n, hz, t] = k;
    if (arm != "smaps") continue;
    const std::tuple<size_t, int, int> key{n, t, hz};
    if (bad != nullptr && key < best) continue;
    const auto g = std::find_if(rep.worker.begin(), rep.worker.end(), [&](const auto& e) {
      return std::get<0>(e.first) == "sampler" && std::get<1>(e.first) == n &&
             std::get<2>(e.first) == hz;
    });
    if (g == rep.worker.end()) continue;
    bad = &f;
    good = &g->second;
    best = key;
    const auto z = rep.worker.find({"none", n, 0, 0});
    none = z == rep.worker.end() ? nullptr : &z->second;
  }
  std::vector<std::string> ours;
  if (read_n > 0) {
    ours.push_back(fmt::format("one smaps read {:.0f} us vs smaps_rollup {:.0f} us at {} mappings ({:.1f}x)",
                               rep.read_us.at({"smaps", read_n}),
                               rep.read_us.at({"smaps_rollup", read_n}), read_n, read_ratio));
  }
  if (bad != nullptr) {
    const auto [n, t, hz] = best;
    ours.push_back(fmt::format(
        "worker p99 {:.0f} us / {:.0f} ops/s with {} threads reading smaps at {} Hz ({} mappings) "
        "vs {:.0f} us / {:.0f} ops/s with the sampler{}",
        bad->p99_us, bad->ops_per_s, t, hz, n, good->p99_us, good->ops_per_s,
        none ? fmt::format(" and {:.0f} us / {:.0f} ops/s unsampled", none->p99_us, none->ops_per_s)
             : std::string()));
  }
  v.ours = fmt::format("{}", fmt::join(ours, "; "));
  if (read_n == 0 || bad == nullptr) {
    v.verdict = "not applicable: this run measured only part of MM-1 (see --arms, --no-read-cost)";
  } else {
    const bool harms = bad->p99_us >= kHarmFactor * good->p99_us ||
                       bad->ops_per_s * kHarmFactor <= good->ops_per_s;
    v.verdict = read_ratio >= kReadFactor && harms ? "reproduced" : "not reproduced";
  }
  v.plot = rel_plot(h, bad != nullptr ? fmt::format("mmap_p99_m{}", std::get<0>(best)) : "read_cost");
  return v;
}

}  // namespace fenec::scenarios::smaps
