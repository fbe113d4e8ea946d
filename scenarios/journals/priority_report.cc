#include "scenarios/journals/priority_report.h"

#include <fmt/format.h>

#include <iostream>

#include "iobench/kit/console.h"
#include "iobench/kit/plot.h"

namespace fenec::scenarios::journals {
namespace {

constexpr const char* kJr3 = "JR-3";

double us(uint64_t ns) { return static_cast<double>(ns) / 1e3; }

std::vector<double> p99s(const std::vector<JournalCell>& reps) {
  std::vector<double> v;
  for (const JournalCell& c : reps) v.push_back(us(c.sync_ns.Percentile(99)));
  return v;
}
std::vector<double> p50s(const std::vector<JournalCell>& reps) {
  std::vector<double> v;
  for (const JournalCell& c : reps) v.push_back(us(c.sync_ns.Percentile(50)));
  return v;
}
std::vector<double> bg_mbs(const std::vector<JournalCell>& reps) {
  std::vector<double> v;
  for (const JournalCell& c : reps) v.push_back(c.bg_mb_per_s());
  return v;
}
std::vector<double> shares(const std::vector<ControlCell>& reps) {
  std::vector<double> v;
  for (const ControlCell& c : reps) v.push_back(c.normal_share());
  return v;
}
double mb_per_s(uint64_t bytes, double s) { return s > 0 ? static_cast<double>(bytes) / s / 1e6 : 0; }

const std::vector<JournalCell>* find(const PrioDevice& d, const std::string& flusher, const std::string& prio) {
  auto it = d.cells.find({flusher, prio});
  return it == d.cells.end() ? nullptr : &it->second;
}

// p99 of `prio` over p99 at equal priority, paired by repetition.
kit::Ratio p99_over_equal(const PrioDevice& d, const std::string& flusher, const std::string& prio) {
  const auto* low = find(d, flusher, prio);
  const auto* eq = find(d, flusher, "equal");
  if (!low || !eq) return {};
  return kit::paired_ratio(p99s(*low), p99s(*eq));
}

kit::Ratio control_ratio(const PrioDevice& d) {
  auto idle = d.control.find(true), eq = d.control.find(false);
  if (idle == d.control.end() || eq == d.control.end()) return {};
  return kit::paired_ratio(shares(idle->second), shares(eq->second));
}

}  // namespace

std::string prio_case(const PrioDevice& d, const std::string& flusher) {
  return fmt::format("device={};scheduler={};flusher={}", d.label, d.scheduler, flusher);
}

void add_prio_rows(kit::Results& r, const PrioDevice& d) {
  if (!d.skip_reason.empty()) {
    r.skip("jr3", fmt::format("device={}", d.label), d.skip_reason);
    return;
  }
  for (const auto& [idle, reps] : d.control) {
    const std::string arm = idle ? "jr3-control-idle" : "jr3-control-equal";
    const std::string c = prio_case(d, "plain");
    std::vector<double> normal, low;
    for (const ControlCell& x : reps) {
      normal.push_back(mb_per_s(x.normal_bytes, x.seconds));
      low.push_back(mb_per_s(x.low_bytes, x.seconds));
    }
    r.add_ratio(kJr3, arm, c, "normal_share", kit::of_reps(shares(reps)), "fraction");
    r.add_ratio(kJr3, arm, c, "normal_mb_per_s", kit::of_reps(normal), "MB/s");
    r.add_ratio(kJr3, arm, c, "low_mb_per_s", kit::of_reps(low), "MB/s");
  }
  if (d.control.size() == 2)
    r.add_ratio(kJr3, "jr3-control-idle", prio_case(d, "plain"), "normal_share_over_equal", control_ratio(d));
  for (const auto& [key, reps] : d.cells) {
    const auto& [flusher, prio] = key;
    const std::string arm = "jr3-" + prio, c = prio_case(d, flusher);
    base::Histogram all;
    uint64_t commits = 0;
    for (const JournalCell& x : reps) {
      all.Merge(x.sync_ns);
      commits += x.commits;
    }
    r.add_ratio(kJr3, arm, c, "sync_p50_us", kit::of_reps(p50s(reps)), "us");
    r.add_ratio(kJr3, arm, c, "sync_p99_us", kit::of_reps(p99s(reps)), "us");
    r.add_latency(kJr3, arm, c, all, "sync_all");  // every repetition's fdatasyncs together
    r.add(kJr3, arm, c, "commits", static_cast<double>(commits), "count");
    if (prio != "alone") r.add_ratio(kJr3, arm, c, "bg_mb_per_s", kit::of_reps(bg_mbs(reps)), "MB/s");
    if (prio != "alone" && prio != "equal") {
      const kit::Ratio x = p99_over_equal(d, flusher, prio);
      if (x.known()) r.add_ratio(kJr3, arm, c, "p99_over_equal", x);
    }
  }
}

kit::Check control_check(const PrioDevice& d) {
  return kit::Check{fmt::format("{} control: normal writer's share beside an IDLE one / beside an equal one", d.label),
                    control_ratio(d), kControlLine, true};
}

std::vector<kit::Check> p99_checks(const PrioDevice& d) {
  std::vector<kit::Check> out;
  for (const auto& [key, reps] : d.cells) {
    const auto& [flusher, prio] = key;
    if (prio == "alone" || prio == "equal" || (prio == "be7" && !d.judge_be7)) continue;
    const kit::Ratio x = p99_over_equal(d, flusher, prio);
    if (!find(d, flusher, "equal")) continue;
    out.push_back(kit::Check{fmt::format("{} {}: journal p99 with {} background / equal", d.label, flusher, prio), x,
                             kP99Line, false});
  }
  return out;
}

kit::Verdict prio_skipped(const std::string& why) {
  kit::Verdict v = findings::verdict(findings::jr3::kFinding);
  v.ours = "-";
  v.skipped(why);
  return v;
}

kit::Verdict prio_verdict(const PrioDevice& d, const std::string& plot_png) {
  kit::Verdict v = findings::verdict(findings::jr3::kFinding);
  v.plot = plot_png;
  if (!d.skip_reason.empty()) {
    v.ours = "-";
    v.skipped(d.skip_reason);
    return v;
  }
  std::string ours = fmt::format("{} ({}): ", d.label,
                                 d.judge_be7 ? "BE/7 and IDLE" : "IDLE; BE levels are all one to this scheduler");
  const kit::Check ctl = control_check(d);
  ours += fmt::format("control: normal writer's share beside IDLE / beside equal {}", kit::format_ratio(ctl.ratio));
  for (const auto& [key, reps] : d.cells) {
    const auto& [flusher, prio] = key;
    ours += fmt::format("; {} {} p99 {} (bg {})", flusher, prio,
                        kit::format_interval(kit::of_reps(p99s(reps)), "us", 0), kit::format_interval(kit::of_reps(bg_mbs(reps)), "MB/s", 0));
  }
  v.ours = ours;
  switch (kit::check_result(ctl)) {
    case kit::CheckResult::kCleared: break;
    case kit::CheckResult::kMissed:
      v.not_applicable("the positive control shows no priority on this device and scheduler: " + kit::describe(ctl));
      return v;
    default:
      v.outcome = kit::Outcome::kInconclusive;
      v.reason = "the positive control cannot tell whether priority works here: " + kit::describe(ctl);
      return v;
  }
  const std::vector<kit::Check> checks = p99_checks(d);
  if (checks.empty()) {
    v.not_applicable("no low-priority arm measured beside equal priority");
    return v;
  }
  v.set(kit::judge(checks));
  v.reason = "control " + kit::describe(ctl) + "; " + v.reason;
  return v;
}

void write_prio_plot(kit::Harness& h, const PrioReport& rep) {
  kit::Chart ch;
  ch.title = "JR-3: journal fdatasync p99 by background priority (bars: 95% interval)";
  ch.xlabel = "background flusher's I/O priority";
  ch.ylabel = "journal fdatasync p99 (us)";
  ch.logy = true;
  ch.xtics = {{0, "none (journal alone)"}, {1, "equal"}, {2, "best effort 7"}, {3, "idle"}};
  for (const PrioDevice& d : rep.devices) {
    std::map<std::string, kit::Series> by_flusher;
    for (const auto& [key, reps] : d.cells) {
      const auto& [flusher, prio] = key;
      BgPrio p = BgPrio::kNone;
      parse_bg_prio(prio, &p);
      const kit::Ratio m = kit::of_reps(p99s(reps));
      if (!m.known()) continue;
      kit::Series& s = by_flusher[flusher];
      s.title = fmt::format("{}, {}", d.label, flusher);
      s.points.push_back({static_cast<double>(p), m.value});
      s.errors.push_back(m.ci95.known() ? std::pair{m.ci95.lo, m.ci95.hi} : std::pair{m.value, m.value});
    }
    for (auto& [f, s] : by_flusher) ch.series.push_back(std::move(s));
  }
  if (ch.series.empty()) return;
  if (std::string e = kit::write_chart(ch, h.plot_path("jr3_p99")); !e.empty())
    std::cerr << "journals-bench: plot jr3_p99: " << e << "\n";
}

void print_prio_tables(const PrioReport& rep) {
  kit::Table c({"JR-3 control", "scheduler", "arm", "normal MB/s", "other MB/s", "normal share [95%]"});
  kit::Table t({"JR-3 device", "flusher", "background", "fdatasync p50", "p99 [95%]", "each repetition's p99",
                "p99/equal [95%]", "background MB/s", "commits"});
  for (const PrioDevice& d : rep.devices) {
    if (!d.skip_reason.empty()) {
      t.row({d.label, "-", "skipped", d.skip_reason, "", "", "", "", ""});
      continue;
    }
    for (const auto& [idle, reps] : d.control) {
      uint64_t n = 0, l = 0;
      double s = 0;
      for (const ControlCell& x : reps) n += x.normal_bytes, l += x.low_bytes, s += x.seconds;
      c.row({d.label, d.scheduler, idle ? "BE + IDLE" : "BE + BE", fmt::format("{:.0f}", mb_per_s(n, s)),
             fmt::format("{:.0f}", mb_per_s(l, s)), kit::format_interval(kit::of_reps(shares(reps)), "", 3)});
    }
    for (const auto& [key, reps] : d.cells) {
      const auto& [flusher, prio] = key;
      uint64_t commits = 0;
      for (const JournalCell& x : reps) commits += x.commits;
      const kit::Ratio r = p99_over_equal(d, flusher, prio);
      std::string each;  // a p99 is set by a few stalls: the spread explains the interval
      for (double v : p99s(reps)) each += fmt::format("{}{:.0f}", each.empty() ? "" : " ", v);
      t.row({d.label, flusher, prio, kit::format_us(kit::median(p50s(reps))),
             kit::format_interval(kit::of_reps(p99s(reps)), "us", 0), each, r.known() ? kit::format_ratio(r) : "-",
             prio == "alone" ? "-" : fmt::format("{:.0f}", kit::median(bg_mbs(reps))), std::to_string(commits)});
    }
  }
  std::cout << "\n" << c.str() << "\n" << t.str();
}

}  // namespace fenec::scenarios::journals
