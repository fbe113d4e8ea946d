#include "scenarios/recon/report.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "iobench/kit/plot.h"

namespace fenec::scenarios::recon {

double PromValue(const std::string& text, const std::string& series) {
  std::string padded = "\n" + text;
  size_t at = padded.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  try {
    return std::stod(padded.substr(at + series.size() + 2));
  } catch (const std::exception&) {
    return -1;
  }
}

RunFigures AddRunRows(kit::Results& results, const std::string& arm, int run, const RunResult& r,
                      const std::string& server_metrics, int server_exit) {
  RunFigures f;
  f.run = run;
  f.wait_max_ms = r.transfer_ns.max() / 1e6;
  f.p50_ms = r.transfer_ns.Percentile(50) / 1e6;
  f.p99_ms = r.transfer_ns.Percentile(99) / 1e6;
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
    bulk.title = stride > 1 ? fmt::format("transfers under {} ms (1 in {})", kSlowMs, stride)
                            : fmt::format("transfers under {} ms", kSlowMs);
    bulk.style = "dots";
    slow.title = fmt::format("transfers over {} ms (all)", kSlowMs);
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
    kit::Series limit;
    limit.title = "50 ms";
    limit.style = "lines";
    limit.points = {{0, 50}, {r.seconds, 50}};
    chart.series.push_back(std::move(limit));
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
  kit::Chart runs;
  runs.title = "RC-1: transfers' longest wait in each run, per arm";
  runs.xlabel = "run";
  runs.ylabel = "longest transfer wait (ms)";
  runs.logy = true;
  for (const auto& [arm, fs] : figures) {
    kit::Series s;
    s.title = arm;
    for (const auto& f : fs) s.points.emplace_back(f.run, std::max(0.001, f.wait_max_ms));
    runs.series.push_back(std::move(s));
  }
  std::string base = h.plot_path("longest-wait");
  if (std::string err = kit::write_chart(runs, base); !err.empty()) {
    fmt::print(stderr, "recon-bench: plot {}: {}\n", base, err);
  }
  return main_plot.empty() ? base : main_plot;
}

namespace {

std::string Range(const std::vector<RunFigures>& fs) {
  double lo = 1e300, hi = 0;
  for (const auto& f : fs) {
    lo = std::min(lo, f.wait_max_ms);
    hi = std::max(hi, f.wait_max_ms);
  }
  return fs.empty() ? "-" : fmt::format("{:.1f}-{:.1f} ms", lo, hi);
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

kit::Verdict MakeVerdict(const std::map<std::string, std::vector<RunFigures>>& figures, const std::string& plot) {
  kit::Verdict v;
  v.finding = kFinding;
  v.claim = "a ledger's reconciliation every second beside 4 HTTP clients stalls transfers unless long reads are pinned";
  v.source = "naive 187-512 ms longest wait (36 past 50 ms every run); pinned 5.4-29 ms, none past 50 ms in 3 of 4 runs";
  v.plot = plot;
  auto get = [&](const char* arm) {
    auto it = figures.find(arm);
    return it == figures.end() ? std::vector<RunFigures>{} : it->second;
  };
  const auto none = get(kNoRecon), pinned = get(kPinned), locked = get(kLocked);
  auto over = [](const std::vector<RunFigures>& fs) {
    std::string s;
    for (const auto& f : fs) s += fmt::format("{}{}", s.empty() ? "" : "/", f.over_50ms);
    return s;
  };
  v.ours = fmt::format("locked {} ({} past 50 ms per run); pinned {} ({}); no-recon {} ({})", Range(locked),
                       over(locked), Range(pinned), over(pinned), Range(none), over(none));
  if (none.empty() || pinned.empty() || locked.empty()) {
    v.verdict = "not applicable: an arm did not run";
    return v;
  }
  for (const auto* fs : {&none, &pinned, &locked}) {
    for (const auto& f : *fs) {
      if (!f.valid) {
        v.verdict = fmt::format("not reproduced: run {} was invalid (transfer errors, an invariant broken, or the "
                                "server did not exit 0)", f.run);
        return v;
      }
    }
  }
  auto maxima = [](const std::vector<RunFigures>& fs) {
    std::vector<double> m;
    for (const auto& f : fs) m.push_back(f.wait_max_ms);
    return m;
  };
  const double none_max = Median(maxima(none)), pinned_max = Median(maxima(pinned));
  const size_t clean = static_cast<size_t>(
      std::count_if(pinned.begin(), pinned.end(), [](const RunFigures& f) { return f.over_50ms == 0; }));
  const size_t need_clean = (pinned.size() * 3 + 3) / 4;  // three of four, scaled to the runs made
  const size_t stalled = static_cast<size_t>(
      std::count_if(locked.begin(), locked.end(), [](const RunFigures& f) { return f.over_50ms > 0; }));
  const bool within = pinned_max <= 2 * none_max;
  const bool naive_stalls = stalled * 2 > locked.size();
  std::vector<std::string> why;
  if (!within) why.push_back(fmt::format("pinned's longest wait {:.1f} ms > 2x no-recon's {:.1f}", pinned_max, none_max));
  if (clean < need_clean) why.push_back(fmt::format("pinned runs with none past 50 ms: {} of {}", clean, pinned.size()));
  if (!naive_stalls) why.push_back(fmt::format("the locked arm stalled past 50 ms in only {} of {} runs", stalled, locked.size()));
  if (why.empty()) {
    v.verdict = "reproduced";
  } else {
    std::string all;
    for (const auto& w : why) all += (all.empty() ? "" : "; ") + w;
    v.verdict = "not reproduced: " + all;
  }
  v.ours += fmt::format("; median longest wait pinned {:.1f} ms vs no-recon {:.1f} ms", pinned_max, none_max);
  return v;
}

}  // namespace fenec::scenarios::recon
