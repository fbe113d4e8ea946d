#include "scenarios/recon/report.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "iobench/kit/plot.h"

namespace fenec::scenarios::recon {

RunFigures AddRunRows(kit::Results& results, const std::string& arm, int run, const RunResult& r,
                      const std::string& server_metrics, int server_exit) {
  RunFigures f;
  f.run = run;
  f.wait_max_ms = r.transfer_ns.max() / 1e6;
  f.p50_ms = r.transfer_ns.Percentile(50) / 1e6;
  f.p99_ms = r.transfer_ns.Percentile(99) / 1e6;
  f.p999_ms = r.transfer_ns.Percentile(99.9) / 1e6;
  f.per_s = r.seconds > 0 ? r.transfers / r.seconds : 0;
  f.over_50ms = r.over_50ms;
  f.reconciliations = r.recons.size();
  f.violations = r.violations + r.retries_applied;
  f.errors = r.errors;
  for (const auto& rc : r.recons) f.recon_max_ms = std::max(f.recon_max_ms, rc.ms);
  f.valid = f.violations == 0 && f.errors == 0 && server_exit == 0;

  const std::string c = fmt::format("run={}", run);
  auto add = [&](const char* metric, double v, const char* unit) { results.add(kFinding, arm, c, metric, v, unit); };
  add("transfer_wait_max_ms", f.wait_max_ms, "ms");
  add("transfers_over_50ms", static_cast<double>(f.over_50ms), "count");
  add("transfer_p50_ms", f.p50_ms, "ms");
  add("transfer_p99_ms", f.p99_ms, "ms");
  add("transfer_p999_ms", f.p999_ms, "ms");
  add("transfers_per_s", f.per_s, "ops/s");
  add("transfers", static_cast<double>(r.transfers), "count");
  add("reconciliations", static_cast<double>(f.reconciliations), "count");
  if (!r.recons.empty()) {
    std::vector<double> ms;
    for (const auto& rc : r.recons) ms.push_back(rc.ms);
    std::sort(ms.begin(), ms.end());
    add("recon_ms_p50", ms[ms.size() / 2], "ms");
    add("recon_ms_max", f.recon_max_ms, "ms");
  }
  add("invariant_violations", static_cast<double>(f.violations), "count");
  add("retries_rejected", static_cast<double>(r.retries_rejected), "count");
  add("transfer_errors", static_cast<double>(r.errors), "count");
  add("server_exit_code", server_exit, "code");
  // The engine's own view of the same run, from the server's /metrics.
  double lock_wait = PromValue(server_metrics, "fenec_write_lock_wait_max_seconds");
  if (lock_wait >= 0) add("write_lock_wait_max_ms", lock_wait * 1000, "ms");
  double hold = PromValue(server_metrics, "fenec_write_lock_hold_max_seconds");
  if (hold >= 0) add("write_lock_hold_max_ms", hold * 1000, "ms");
  double pin = PromValue(server_metrics, "fenec_pin_max_seconds");
  if (pin >= 0) add("pin_max_ms", pin * 1000, "ms");
  double pins = PromValue(server_metrics, "fenec_pins_total");
  if (pins >= 0) add("pins", pins, "count");
  double rss = PromValue(server_metrics, "fenec_process_rss_peak_bytes");
  if (rss >= 0) add("server_rss_peak_mb", rss / (1 << 20), "MB");
  return f;
}

std::string WritePlots(kit::Harness& h, const std::map<std::string, RunResult>& first_runs,
                       const std::map<std::string, std::vector<RunFigures>>& figures) {
  std::string main_plot;
  for (const auto& [arm, r] : first_runs) {
    kit::Chart chart;
    chart.title = fmt::format("RC-1 {}: transfers' latency over time (run 1), reconciliations marked", arm);
    chart.xlabel = "time in run (s)";
    chart.ylabel = "transfer round trip (ms)";
    chart.logy = true;
    // Every transfer over kSlowMs is drawn, large; of the fast bulk, enough
    // to show its band (a hundred thousand dots would make a 10 MB SVG).
    constexpr double kSlowMs = 5;
    constexpr size_t kBulkPoints = 20000;
    size_t fast = 0;
    for (const auto& p : r.points) fast += p.latency_ms < kSlowMs;
    const size_t stride = std::max<size_t>(1, (fast + kBulkPoints - 1) / kBulkPoints);
    kit::Series bulk, slow;
    // Titles led by "under" / "over": two families in the kit's style, so the
    // slow ones (the story) get a colour of their own, not a tint of the bulk's.
    bulk.title = stride > 1 ? fmt::format("under {} ms: 1 transfer in {}", kSlowMs, stride)
                            : fmt::format("under {} ms: every transfer", kSlowMs);
    bulk.style = "dots";
    slow.title = fmt::format("over {} ms: every transfer", kSlowMs);
    slow.style = "points pt 7 ps 0.6";
    size_t i = 0;
    for (const auto& p : r.points) {
      if (p.latency_ms >= kSlowMs) {
        slow.points.emplace_back(p.t_s, p.latency_ms);
      } else if (i++ % stride == 0) {
        bulk.points.emplace_back(p.t_s, std::max(0.001, static_cast<double>(p.latency_ms)));
      }
    }
    chart.series.push_back(std::move(bulk));
    if (!slow.points.empty()) chart.series.push_back(std::move(slow));
    chart.refs.push_back({kLineMs, fmt::format("{:.0f} ms: the source's line", kLineMs)});
    for (size_t i = 0; i < r.recons.size(); ++i) {
      chart.marks.push_back({r.recons[i].start_s, i == 0 ? "reconciliation" : ""});
    }
    std::string base = h.plot_path(fmt::format("latency-{}", arm));
    if (std::string err = kit::write_chart(chart, base); !err.empty()) {
      fmt::print(stderr, "recon-bench: plot {}: {}\n", base, err);
    } else if (arm == kLocked || main_plot.empty()) {
      main_plot = base + ".png";
    }
  }
  std::string base = h.plot_path("longest-wait");
  const std::vector<std::string> order = {kNoRecon, kPinned, kLocked};
  kit::Chart runs;
  runs.title = "RC-1: transfers' longest wait, p99.9, p99 per arm (95% intervals over the runs)";
  runs.xlabel = "arm";
  runs.ylabel = "transfer wait (ms, log)";
  runs.logy = true;
  kit::Series each, longest, p999, p99;
  each.title = "longest wait, each run";
  each.style = "points pt 6 ps 1";
  longest.title = "longest wait over the runs";
  longest.style = "points";
  p999.title = "p99.9 over the runs";
  p999.style = "points";
  p99.title = "p99 over the runs";
  p99.style = "points";
  auto put = [](kit::Series& s, double x, const kit::Ratio& r) {
    if (!r.known()) return;
    s.points.emplace_back(x, r.value);
    s.errors.emplace_back(r.ci95.lo, r.ci95.hi);
  };
  for (size_t i = 0; i < order.size(); ++i) {
    auto it = figures.find(order[i]);
    if (it == figures.end()) continue;
    const double x = static_cast<double>(i + 1);
    std::vector<double> mx, q999, q99;
    for (const auto& f : it->second) {
      each.points.emplace_back(x - 0.1, std::max(0.001, f.wait_max_ms));
      mx.push_back(f.wait_max_ms);
      q999.push_back(f.p999_ms);
      q99.push_back(f.p99_ms);
    }
    put(longest, x, kit::of_reps(mx));
    put(p999, x + 0.1, kit::of_reps(q999));
    put(p99, x + 0.2, kit::of_reps(q99));
    runs.xtics.push_back({x + 0.05, order[i]});
  }
  for (auto* s : {&each, &longest, &p999, &p99})
    if (!s->points.empty()) runs.series.push_back(std::move(*s));
  runs.refs.push_back({kLineMs, fmt::format("{:.0f} ms: the source's line", kLineMs)});
  if (std::string err = kit::write_chart(runs, base); !err.empty()) {
    fmt::print(stderr, "recon-bench: plot {}: {}\n", base, err);
    return main_plot;
  }
  return base + ".png";
}

namespace {

std::vector<double> Of(const std::vector<RunFigures>& fs, double RunFigures::*m) {
  std::vector<double> v;
  for (const auto& f : fs) v.push_back(f.*m);
  return v;
}

std::vector<double> Over50(const std::vector<RunFigures>& fs) {
  std::vector<double> v;
  for (const auto& f : fs) v.push_back(f.wait_max_ms / kLineMs);
  return v;
}

std::string Ms(const kit::Ratio& r) {
  if (!r.known()) return "-";
  return kit::format_interval(r, "ms", r.value >= 100 ? 0 : r.value >= 1 ? 1 : 2);
}

std::string Counts(const std::vector<RunFigures>& fs) {
  std::string s;
  for (const auto& f : fs) s += fmt::format("{}{}", s.empty() ? "" : "/", f.over_50ms);
  return s;
}

std::vector<RunFigures> Get(const std::map<std::string, std::vector<RunFigures>>& figures, const char* arm) {
  auto it = figures.find(arm);
  return it == figures.end() ? std::vector<RunFigures>{} : it->second;
}

}  // namespace

std::vector<kit::Check> MakeChecks(const std::vector<RunFigures>& locked) {
  kit::Check stall;
  // seeds/002: with the long read under the shared lock, "187-512 ms, 36 of them past 50 ms in every run".
  stall.what = "recon-locked: the transfers' longest wait / 50 ms (source: 187-512 ms, 36 past 50 ms every run)";
  stall.ratio = kit::of_reps(Over50(locked));
  stall.line = 1;
  stall.above = true;
  return {stall};
}

kit::ExactPart PinnedPart(const std::vector<RunFigures>& pinned) {
  // seeds/002: pinned, "5.4-29 ms and none [past 50 ms] in three [of four]
  // runs". A count of runs, as the source gives it, not the longest wait's
  // interval: in 15 pinned runs here, one held 2 transfers past 50 ms (its
  // longest 0.3 s; the other 14 had none), and one such run puts
  // a geometric interval over three runs across the line. Most runs free of
  // waits past 50 ms is the source's 3 of 4 (its own pinned arm had such a
  // run); a pinned read that held transfers would fail it in every run.
  size_t clean = 0;
  for (const auto& f : pinned) clean += f.over_50ms == 0;
  return {fmt::format("recon-pinned: runs with no transfer past 50 ms {} of {}, most (source: 3 of 4)", clean,
                      pinned.size()),
          !pinned.empty() && 2 * clean > pinned.size()};
}

void AddSummaryRows(kit::Results& results, const std::map<std::string, std::vector<RunFigures>>& figures) {
  const std::string c = "runs=all";
  for (const auto& [arm, fs] : figures) {
    results.add_ratio(kFinding, arm, c, "transfer_wait_max_ms", kit::of_reps(Of(fs, &RunFigures::wait_max_ms)), "ms");
    results.add_ratio(kFinding, arm, c, "transfer_p999_ms", kit::of_reps(Of(fs, &RunFigures::p999_ms)), "ms");
    results.add_ratio(kFinding, arm, c, "transfer_p99_ms", kit::of_reps(Of(fs, &RunFigures::p99_ms)), "ms");
    results.add_ratio(kFinding, arm, c, "transfer_wait_max_over_50ms", kit::of_reps(Over50(fs)));
  }
  // The headline ratios, run i of one arm over run i of the other.
  const auto none = Get(figures, kNoRecon), pinned = Get(figures, kPinned), locked = Get(figures, kLocked);
  auto pair = [&](const char* arm, const std::vector<RunFigures>& a, const char* vs, const std::vector<RunFigures>& b) {
    if (a.empty() || b.empty()) return;
    results.add_ratio(kFinding, arm, fmt::format("{};vs={}", c, vs), "transfer_wait_max_ratio",
                      kit::paired_ratio(Of(a, &RunFigures::wait_max_ms), Of(b, &RunFigures::wait_max_ms)));
  };
  pair(kLocked, locked, kPinned, pinned);
  pair(kLocked, locked, kNoRecon, none);
  pair(kPinned, pinned, kNoRecon, none);
}

kit::Verdict MakeVerdict(const std::map<std::string, std::vector<RunFigures>>& figures, const std::string& plot) {
  kit::Verdict v = findings::verdict(findings::rc1::kFinding);
  v.plot = plot;
  const auto none = Get(figures, kNoRecon), pinned = Get(figures, kPinned), locked = Get(figures, kLocked);
  auto arm_text = [](const char* name, const std::vector<RunFigures>& fs) {
    return fmt::format("{} {} (p99.9 {}, p99 {}; past 50 ms per run {})", name,
                       Ms(kit::of_reps(Of(fs, &RunFigures::wait_max_ms))), Ms(kit::of_reps(Of(fs, &RunFigures::p999_ms))),
                       Ms(kit::of_reps(Of(fs, &RunFigures::p99_ms))), Counts(fs));
  };
  auto ratio = [](const std::vector<RunFigures>& a, const std::vector<RunFigures>& b) {
    return kit::format_ratio(kit::paired_ratio(Of(a, &RunFigures::wait_max_ms), Of(b, &RunFigures::wait_max_ms)), 1);
  };
  const size_t runs = std::max({none.size(), pinned.size(), locked.size()});
  v.ours = fmt::format("longest wait over {} runs: {}; {}; {}", runs, arm_text("locked", locked),
                       arm_text("pinned", pinned), arm_text("no-recon", none));
  if (!locked.empty() && !pinned.empty()) {
    v.ours += fmt::format("; locked/pinned {}", ratio(locked, pinned));
    if (!none.empty()) v.ours += fmt::format(", locked/no-recon {}, pinned/no-recon {}", ratio(locked, none), ratio(pinned, none));
  }
  if (none.empty() || pinned.empty() || locked.empty()) {
    v.not_applicable("an arm did not run (--arms): the verdict needs no-recon, recon-pinned and recon-locked");
    return v;
  }
  for (const auto* fs : {&none, &pinned, &locked}) {
    for (const auto& f : *fs) {
      if (!f.valid) {
        v.set({kit::Outcome::kNotReproduced,
               fmt::format("run {} was invalid (transfer errors, an invariant broken, or the server did not exit 0): "
                           "a reconciliation that is wrong reproduces nothing",
                           f.run)});
        return v;
      }
    }
  }
  v.set(kit::judge(MakeChecks(locked), {PinnedPart(pinned)}));
  v.reason += ". Judged on the longest wait and the runs past 50 ms, the source's own figures: a reconciliation "
              "holds at most one transfer of each client (each sends one at a time), a few in a run of thousands, "
              "which p99.9 does not reach; and on the 50 ms line rather than the source's ratio, since the locked "
              "stall is the reconciliation's hold, which grows with the ledger (the source's passed 1.8 M entries)";
  return v;
}

}  // namespace fenec::scenarios::recon
