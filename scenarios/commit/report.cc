#include "scenarios/commit/report.h"

#include <fmt/format.h>

#include "findings/catalogue.h"

#include <algorithm>
#include <iostream>
#include <set>

#include "iobench/kit/console.h"
#include "iobench/kit/plot.h"

namespace fenec::scenarios::commit {
namespace {

int largest_files(const Report& rep) {
  int n = 0;
  for (const auto& [key, f] : rep.cells) n = std::max(n, key.second);
  return n;
}

}  // namespace

const Figures* Report::find(const std::string& arm, int files) const {
  auto it = cells.find({arm, files});
  return it == cells.end() ? nullptr : &it->second;
}

std::string finding_of(const std::string& arm) {
  return arm == "pwrite" || arm == "pwritev" ? "IO-7" : "IO-6";
}

void add_rep(Figures& f, const CellResult& res) {
  const fenec::ring::Counters& k = res.counters;
  const double mb = static_cast<double>(k.bytes) / 1e6;
  f.mb_per_s.push_back(res.seconds > 0 ? mb / res.seconds : 0);
  f.mb_per_cpu_s.push_back(res.cpu_seconds > 0 ? mb / res.cpu_seconds : 0);
  f.syscalls_per_mb.push_back(mb > 0 ? static_cast<double>(k.syscalls) / mb : 0);
  f.writes_per_mb.push_back(mb > 0 ? static_cast<double>(k.writes) / mb : 0);
  f.iou_workers.push_back(res.peak.arm);
  f.iou_workers_system = std::max(f.iou_workers_system, res.peak.system);
}

void add_rows(kit::Results& r, const std::string& arm, int files, const DirtySet& set,
              const std::vector<CellResult>& reps, Report& rep) {
  const std::string c = fmt::format("files={}", files);
  const std::string fd = finding_of(arm);
  Figures f;
  CellResult sum;
  for (const CellResult& x : reps) {
    add_rep(f, x);
    sum.seconds += x.seconds;
    sum.rounds += x.rounds;
    sum.counters += x.counters;
    sum.peak.arm = std::max(sum.peak.arm, x.peak.arm);
    sum.peak.self = std::max(sum.peak.self, x.peak.self);
  }
  rep.cells[{arm, files}] = f;

  // Rates: the geometric mean of the repetitions, with its interval.
  r.add_ratio(fd, arm, c, "mb_per_s", kit::of_reps(f.mb_per_s), "MB/s");
  r.add_ratio(fd, arm, c, "mb_per_cpu_s", kit::of_reps(f.mb_per_cpu_s), "MB/CPU-s");
  // Counts: over every repetition together.
  const fenec::ring::Counters& k = sum.counters;
  const double mb = static_cast<double>(k.bytes) / 1e6;
  r.add(fd, arm, c, "syscalls", static_cast<double>(k.syscalls), "count");
  r.add(fd, arm, c, "syscalls_per_mb", mb > 0 ? static_cast<double>(k.syscalls) / mb : 0, "count/MB");
  r.add(fd, arm, c, "writes", static_cast<double>(k.writes), "count");
  r.add(fd, arm, c, "writes_per_mb", mb > 0 ? static_cast<double>(k.writes) / mb : 0, "count/MB");
  r.add(fd, arm, c, "merged_pages", static_cast<double>(k.merged_pages), "count");
  r.add(fd, arm, c, "flushes", static_cast<double>(k.submissions), "count");
  r.add(fd, arm, c, "rounds", static_cast<double>(sum.rounds), "count");
  r.add(fd, arm, c, "seconds", sum.seconds, "s");
  r.add(fd, arm, c, "runs_per_round", static_cast<double>(set.runs()), "count");
  r.add(fd, arm, c, "pages_per_round", static_cast<double>(set.total()), "count");
  if (arm != "pwrite" && arm != "pwritev") {
    r.add(fd, arm, c, "wakeups", static_cast<double>(k.wakeups), "count");
  }
  // Worker counts: the peak over the repetitions, and the median repetition's.
  r.add(fd, arm, c, "iou_workers", sum.peak.arm, "count");
  r.add(fd, arm, c, "iou_workers_median", kit::median(f.iou_workers), "count");
  r.add(fd, arm, c, "iou_workers_process", sum.peak.self, "count");
  if (f.iou_workers_system >= 0) r.add(fd, arm, c, "iou_workers_system", f.iou_workers_system, "count");
}

void write_plots(kit::Harness& h, const Report& rep) {
  std::set<std::string> arms;
  for (const auto& [key, f] : rep.cells) arms.insert(key.first);
  kit::Chart mb, wk;
  mb.title = "Data-file flush throughput (same dirty pages; bars: 95% interval over the repetitions)";
  wk.title = "io_uring kernel workers (iou-wrk) of the arm, peak (median repetition)";
  mb.xlabel = wk.xlabel = "files";
  mb.ylabel = "MB/s";
  wk.ylabel = "workers";
  mb.logx = wk.logx = true;
  for (const std::string& arm : arms) {
    kit::Series s{arm, {}}, w{arm, {}};
    for (const auto& [key, f] : rep.cells) {
      if (key.first != arm) continue;
      const kit::Ratio m = kit::of_reps(f.mb_per_s);
      if (!m.known()) continue;
      s.points.push_back({key.second, m.value});
      if (m.ci95.known()) s.errors.push_back({m.ci95.lo, m.ci95.hi});
      w.points.push_back({key.second, kit::median(f.iou_workers)});
    }
    if (s.errors.size() != s.points.size()) s.errors.clear();
    mb.series.push_back(s);
    if (finding_of(arm) == "IO-6") wk.series.push_back(w);
  }
  for (const auto& [chart, name] : {std::pair{&mb, "flush_mb_per_s"}, {&wk, "iou_workers"}}) {
    if (chart->series.empty()) continue;
    if (std::string err = kit::write_chart(*chart, h.plot_path(name)); !err.empty()) {
      std::cerr << "commit-bench: plot " << name << ": " << err << "\n";
    }
  }
}

std::vector<kit::Verdict> verdicts(const Report& rep,
                                   const std::function<std::string(const std::string&)>& plot_png) {
  const int n = largest_files(rep);
  std::vector<kit::Verdict> out;

  kit::Verdict v6 = findings::verdict(findings::io6::kFinding);
  v6.plot = plot_png("flush_mb_per_s");
  const Figures* g = rep.find("global-ring", n);
  const Figures* p = rep.find("ring-per-file", n);
  if (g == nullptr || p == nullptr) {
    v6.ours = "-";
    v6.not_applicable("global-ring and ring-per-file were not both measured");
  } else {
    // Judged at the most files measured: the finding's case is a process
    // with many data files under load, where each file's ring grows its own
    // workers. Fewer files are reported for the shape.
    const kit::Ratio speed = kit::paired_ratio(g->mb_per_s, p->mb_per_s);
    const kit::Ratio workers = kit::paired_ratio(p->iou_workers, g->iou_workers);
    const kit::Ratio per_cpu = kit::paired_ratio(g->mb_per_cpu_s, p->mb_per_cpu_s);
    v6.ours = fmt::format("files={} (judged: the most files): global-ring {}, {:g} iou-wrk; ring-per-file {}, "
                          "{:g} iou-wrk (median repetition); global/per-file MB/s {}, MB per CPU-s {}; "
                          "per-file/global iou-wrk {}",
                          n, kit::format_interval(kit::of_reps(g->mb_per_s), "MB/s", 0), kit::median(g->iou_workers),
                          kit::format_interval(kit::of_reps(p->mb_per_s), "MB/s", 0), kit::median(p->iou_workers),
                          kit::format_ratio(speed), kit::format_ratio(per_cpu), kit::format_ratio(workers));
    std::string shape;
    for (const auto& [key, f] : rep.cells) {
      if (key.first != "global-ring" || key.second == n) continue;
      if (const Figures* q = rep.find("ring-per-file", key.second))
        shape += fmt::format("{}files={}: {}", shape.empty() ? "" : ", ", key.second,
                             kit::format_ratio(kit::paired_ratio(f.mb_per_s, q->mb_per_s)));
    }
    if (!shape.empty()) v6.ours += "; global/per-file MB/s at fewer files: " + shape;
    v6.set(kit::judge({{"global/per-file MB/s", speed, findings::io6::kSpeed.value, true},
                       {"per-file/global iou-wrk", workers, findings::io6::kWorkers.value, true}}));
  }
  out.push_back(v6);

  kit::Verdict v7 = findings::verdict(findings::io7::kFlush);
  v7.plot = plot_png("flush_mb_per_s");
  const Figures* a = rep.find("pwrite", n);
  const Figures* b = rep.find("pwritev", n);
  if (a == nullptr || b == nullptr) {
    v7.ours = "-";
    v7.not_applicable("pwrite and pwritev were not both measured");
  } else {
    const kit::Ratio fewer = kit::paired_ratio(b->writes_per_mb, a->writes_per_mb);
    const kit::Ratio speed = kit::paired_ratio(b->mb_per_s, a->mb_per_s);
    v7.ours = fmt::format("files={}: pwritev {}, {:.1f} writes/MB; pwrite {}, {:.1f} writes/MB; "
                          "pwritev/pwrite writes per MB {}, MB/s {}",
                          n, kit::format_interval(kit::of_reps(b->mb_per_s), "MB/s", 0), kit::median(b->writes_per_mb),
                          kit::format_interval(kit::of_reps(a->mb_per_s), "MB/s", 0), kit::median(a->writes_per_mb),
                          kit::format_ratio(fewer, 3), kit::format_ratio(speed));
    v7.set(kit::judge({{"pwritev/pwrite writes per MB", fewer, findings::io7::kFewer.value, false},
                       {"pwritev/pwrite MB/s", speed, findings::io7::kFaster.value, true}}));
  }
  out.push_back(v7);
  return out;
}

void print_table(const Report& rep) {
  kit::Table t({"arm", "files", "MB/s [95%]", "each repetition", "MB/CPU-s [95%]", "syscalls/MB", "writes/MB",
                "iou-wrk", "system"});
  for (const auto& [key, f] : rep.cells) {
    std::string each, workers;
    for (double v : f.mb_per_s) each += fmt::format("{}{:.0f}", each.empty() ? "" : " ", v);
    for (double v : f.iou_workers) workers += fmt::format("{}{:g}", workers.empty() ? "" : " ", v);
    t.row({key.first, std::to_string(key.second), kit::format_interval(kit::of_reps(f.mb_per_s), "", 0), each,
           kit::format_interval(kit::of_reps(f.mb_per_cpu_s), "", 0), fmt::format("{:.2f}", kit::median(f.syscalls_per_mb)),
           fmt::format("{:.2f}", kit::median(f.writes_per_mb)), workers,
           f.iou_workers_system >= 0 ? std::to_string(f.iou_workers_system) : "-"});
  }
  std::cout << "\nIO-6/IO-7 (iou-wrk: the arm's own, peak of each repetition; system: every process, peak):\n"
            << t.str();
}

}  // namespace fenec::scenarios::commit
