#include "scenarios/smaps/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <set>
#include <vector>

#include "findings/catalogue.h"
#include "iobench/kit/plot.h"

namespace fenec::scenarios::smaps {
namespace {

// A worker slowed at the tail by this factor is harmed, not noise; under it,
// its latency is flat. The source gives no figure ("degraded latency",
// "flat latency numbers"): twice the unsampled worker's p99 is the line.
constexpr double kHarmFactor = findings::mm1::kHarm.value;
// smaps_rollup "provides much better performance" (no figure): one smaps
// read must cost at least twice one smaps_rollup read.
constexpr double kReadFactor = findings::mm1::kRead.value;

std::vector<double> field(const std::vector<WorkerFigures>& reps, double WorkerFigures::*f) {
  std::vector<double> v;
  for (const WorkerFigures& w : reps) v.push_back(w.*f);
  return v;
}

// "219 ms [201, 240]" of one figure's repetitions, in us or ms.
std::string us(const std::vector<double>& reps) {
  kit::Ratio r = kit::of_reps(reps);
  if (r.known() && r.value >= 1000) {
    r.value /= 1000, r.ci95.lo /= 1000, r.ci95.hi /= 1000;
    return kit::format_interval(r, "ms", r.value >= 100 ? 0 : 1);
  }
  return kit::format_interval(r, "us", r.known() && r.value >= 100 ? 0 : 1);
}

}  // namespace

WorkerFigures WorkerFigures::of(const ArmResult& r) {
  WorkerFigures f;
  f.p50_us = static_cast<double>(r.op_ns.Percentile(50)) / 1000.0;
  f.p99_us = static_cast<double>(r.op_ns.Percentile(99)) / 1000.0;
  f.p999_us = static_cast<double>(r.op_ns.Percentile(99.9)) / 1000.0;
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
  r.add(finding, arm, case_, "mmap_p999_us", f.p999_us, "us");
  r.add(finding, arm, case_, "mmap_max_us", f.max_us, "us");
  r.add(finding, arm, case_, "mmap_ops_per_s", f.ops_per_s, "ops/s");
}

void write_plots(kit::Harness& h, const Report& rep) {
  auto report_err = [](const std::string& err) {
    if (!err.empty()) std::cerr << "smaps-bench: plot: " << err << "\n";
  };
  // A point is the geometric mean of its repetitions, its bar their 95% interval.
  auto add_point = [](kit::Series& s, double x, const std::vector<double>& reps) {
    const kit::Ratio r = kit::of_reps(reps);
    s.points.emplace_back(x, r.value);
    s.errors.emplace_back(r.ci95.lo, r.ci95.hi);
  };
  const char* bars = ": geometric mean of the repetitions, bars 95% interval";
  if (!rep.read_us.empty()) {
    kit::Chart c;
    c.title = fmt::format("MM-1: one read of /proc/self/smaps vs smaps_rollup{}", bars);
    c.xlabel = "memory mappings in the process";
    c.ylabel = "read time, p50 (us)";
    c.logx = c.logy = true;
    for (const char* arm : {"smaps", "smaps_rollup"}) {
      kit::Series s{arm, {}};
      for (const auto& [k, reps] : rep.read_us) {
        if (k.first == arm) add_point(s, static_cast<double>(k.second), reps);
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
      c.title = fmt::format("MM-1: worker mmap+munmap {} while sampling ({} mappings){}", mt.what, n, bars);
      c.xlabel = "samples per second per reading thread";
      c.ylabel = mt.ylabel;
      c.logx = c.logy = true;
      std::map<std::string, kit::Series> by;
      for (const auto& [k, reps] : rep.worker) {
        const auto& [arm, m, hz, t] = k;
        if (m != n) continue;
        const std::vector<double> v = field(reps, mt.field);
        if (arm == "none") {
          // The unsampled worker is one figure: drawn flat across the rates.
          kit::Series s{"none (no sampling)", {}, "lines"};
          for (int x : hzs) add_point(s, x, v);
          by["0none"] = s;
          continue;
        }
        const std::string title = arm == "sampler" ? fmt::format("sampler, {} callers", t)
                                                   : fmt::format("{} x{} threads", arm, t);
        by[title].title = title;
        add_point(by[title], hz, v);
      }
      for (auto& [k, s] : by) c.series.push_back(s);
      report_err(kit::write_chart(c, h.plot_path(fmt::format("{}_m{}", mt.file, n))));
    }
  }
}

kit::Verdict verdict(const Report& rep, const std::string& plot_dir, kit::Results* rows) {
  kit::Verdict v = findings::verdict(findings::mm1::kFinding);
  // Read cost at the largest mapping count both readers reached.
  size_t read_n = 0;
  const std::vector<double>*smaps_reads = nullptr, *rollup_reads = nullptr;
  for (const auto& [k, reps] : rep.read_us) {
    if (k.first != "smaps") continue;
    const auto it = rep.read_us.find({"smaps_rollup", k.second});
    if (it == rep.read_us.end() || k.second < read_n) continue;
    read_n = k.second;
    smaps_reads = &reps;
    rollup_reads = &it->second;
  }
  // The harm: the worst smaps cell (most mappings, then most threads, then the
  // highest rate) against the unsampled worker at the same mapping count.
  const std::vector<WorkerFigures>* bad = nullptr;
  std::tuple<size_t, int, int> worst{0, 0, 0};  // (mappings, threads, hz)
  for (const auto& [k, reps] : rep.worker) {
    const auto& [arm, n, hz, t] = k;
    if (arm != "smaps" || !rep.worker.count({"none", n, 0, 0})) continue;
    const std::tuple<size_t, int, int> key{n, t, hz};
    if (bad != nullptr && key < worst) continue;
    bad = &reps;
    worst = key;
  }
  const auto [n, threads, hz] = worst;
  const auto none_it = rep.worker.find({"none", n, 0, 0});
  const std::vector<WorkerFigures>* none = none_it == rep.worker.end() ? nullptr : &none_it->second;
  // The fix: the sampler with as many callers, at the server's rate if it
  // ran (else the lowest rate it ran at), against the unsampled worker.
  const std::vector<WorkerFigures>* fix = nullptr;
  int fix_hz = 0;
  for (const auto& [k, reps] : rep.worker) {
    const auto& [arm, m, h, t] = k;
    if (arm != "sampler" || m != n || t != threads) continue;
    if (fix == nullptr || h == kServerSamplerHz || (fix_hz != kServerSamplerHz && h < fix_hz)) {
      fix = &reps;
      fix_hz = h;
    }
  }
  const auto same = rep.worker.find({"sampler", n, hz, threads});
  const std::vector<WorkerFigures>* same_rate = same == rep.worker.end() ? nullptr : &same->second;

  v.plot = plot_dir + (bad != nullptr ? fmt::format("mmap_p99_m{}.png", n) : "read_cost.png");
  if (read_n == 0 || bad == nullptr || none == nullptr || fix == nullptr) {
    v.not_applicable("this run measured only part of MM-1: it needs the read-cost part, and the none, smaps and "
                     "sampler arms at one mapping count and thread count (see --arms, --no-read-cost, --threads)");
    return v;
  }
  const std::vector<double> bad_p99 = field(*bad, &WorkerFigures::p99_us),
                            none_p99 = field(*none, &WorkerFigures::p99_us),
                            fix_p99 = field(*fix, &WorkerFigures::p99_us);
  // 1. One smaps read costs more than one smaps_rollup read ("much better performance").
  const kit::Check cost{fmt::format("one smaps/smaps_rollup read at {} mappings", read_n),
                        kit::paired_ratio(*smaps_reads, *rollup_reads), kReadFactor, true};
  // 2. Frequent sampling from several threads degrades the worker's latency.
  //    The p99: the tail a stalled mmap lands in (a monitor's read holds the
  //    lock for milliseconds); the max, one event, and the p99.9 are beside it.
  const kit::Check harm{fmt::format("worker p99 with {} threads reading smaps at {} Hz/unsampled", threads, hz),
                        kit::paired_ratio(bad_p99, none_p99), kHarmFactor, true};
  // 3. The fix keeps it flat: one throttled thread reading smaps_rollup, cached.
  const kit::Check flat{fmt::format("worker p99 with the sampler at {} Hz, {} callers/unsampled", fix_hz, threads),
                        kit::paired_ratio(fix_p99, none_p99), kHarmFactor, false};
  v.set(kit::judge({cost, harm, flat}));
  v.ours = fmt::format(
      "one smaps read {} vs smaps_rollup {} at {} mappings ({}); worker at {} mappings, p99 (the verdict's): "
      "unsampled {}, {} threads reading smaps at {} Hz {} ({}; p99.9 {}, max {}), the sampler at {} Hz {} ({}){}; "
      "ops/s unsampled {:.0f}, smaps {:.0f}",
      us(*smaps_reads), us(*rollup_reads), read_n, kit::format_ratio(cost.ratio), n, us(none_p99), threads, hz,
      us(bad_p99), kit::format_ratio(harm.ratio), us(field(*bad, &WorkerFigures::p999_us)),
      us(field(*bad, &WorkerFigures::max_us)), fix_hz, us(fix_p99), kit::format_ratio(flat.ratio),
      same_rate != nullptr && hz != fix_hz
          ? fmt::format(", at {} Hz {}", hz, us(field(*same_rate, &WorkerFigures::p99_us)))
          : std::string(),
      kit::of_reps(field(*none, &WorkerFigures::ops_per_s)).value,
      kit::of_reps(field(*bad, &WorkerFigures::ops_per_s)).value);
  if (rows != nullptr) {
    rows->add_ratio(v.finding, "smaps", fmt::format("mappings={}", read_n), "read_over_rollup", cost.ratio);
    rows->add_ratio(v.finding, "smaps", fmt::format("mappings={};hz={};threads={}", n, hz, threads),
                    "mmap_p99_over_none", harm.ratio);
    rows->add_ratio(v.finding, "sampler", fmt::format("mappings={};hz={};threads={}", n, fix_hz, threads),
                    "mmap_p99_over_none", flat.ratio);
  }
  return v;
}

}  // namespace fenec::scenarios::smaps
