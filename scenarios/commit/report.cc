#include "scenarios/commit/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <set>

#include "iobench/kit/plot.h"

namespace fenec::scenarios::commit {
namespace {

// "No slower" on a machine other sessions load: within this fraction of the
// ring-per-file figure counts as a tie, not a loss.
constexpr double kTieTolerance = 0.05;

std::string rel_plot(const kit::Harness& h, const std::string& name) {
  return h.plot_path(name) + ".png";
}

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

void add_rows(kit::Results& r, const std::string& arm, int files, const DirtySet& set,
              const CellResult& res, Report& rep) {
  const std::string c = fmt::format("files={}", files);
  const std::string fd = finding_of(arm);
  const fenec::ring::Counters& k = res.counters;
  const double mb = static_cast<double>(k.bytes) / 1e6;
  Figures f;
  f.mb_per_s = res.seconds > 0 ? mb / res.seconds : 0;
  f.mb_per_cpu_s = res.cpu_seconds > 0 ? mb / res.cpu_seconds : 0;
  f.syscalls = static_cast<double>(k.syscalls);
  f.syscalls_per_mb = mb > 0 ? f.syscalls / mb : 0;
  f.writes_per_mb = mb > 0 ? static_cast<double>(k.writes) / mb : 0;
  f.iou_workers = res.peak.arm;
  f.iou_workers_system = res.peak.system;
  rep.cells[{arm, files}] = f;

  r.add(fd, arm, c, "mb_per_s", f.mb_per_s, "MB/s");
  r.add(fd, arm, c, "mb_per_cpu_s", f.mb_per_cpu_s, "MB/CPU-s");
  r.add(fd, arm, c, "syscalls", f.syscalls, "count");
  r.add(fd, arm, c, "syscalls_per_mb", f.syscalls_per_mb, "count/MB");
  r.add(fd, arm, c, "writes", static_cast<double>(k.writes), "count");
  r.add(fd, arm, c, "writes_per_mb", f.writes_per_mb, "count/MB");
  r.add(fd, arm, c, "merged_pages", static_cast<double>(k.merged_pages), "count");
  r.add(fd, arm, c, "flushes", static_cast<double>(k.submissions), "count");
  r.add(fd, arm, c, "rounds", static_cast<double>(res.rounds), "count");
  r.add(fd, arm, c, "runs_per_round", static_cast<double>(set.runs()), "count");
  r.add(fd, arm, c, "pages_per_round", static_cast<double>(set.total()), "count");
  if (arm != "pwrite" && arm != "pwritev") {
    r.add(fd, arm, c, "wakeups", static_cast<double>(k.wakeups), "count");
  }
  r.add(fd, arm, c, "iou_workers", res.peak.arm, "count");
  r.add(fd, arm, c, "iou_workers_process", res.peak.self, "count");
  if (res.peak.system >= 0) r.add(fd, arm, c, "iou_workers_system", res.peak.system, "count");
}

void write_plots(kit::Harness& h, const Report& rep) {
  std::set<std::string> arms;
  for (const auto& [key, f] : rep.cells) arms.insert(key.first);
  kit::Chart mb, wk;
  mb.title = "Data-file flush throughput (same dirty pages)";
  wk.title = "io_uring kernel workers (iou-wrk) of the arm, peak";
  mb.xlabel = wk.xlabel = "files";
  mb.ylabel = "MB/s";
  wk.ylabel = "workers";
  mb.logx = wk.logx = true;
  for (const std::string& arm : arms) {
    kit::Series s{arm, {}}, w{arm, {}};
    for (const auto& [key, f] : rep.cells) {
      if (key.first != arm) continue;
      s.points.push_back({key.second, f.mb_per_s});
      w.points.push_back({key.second, f.iou_workers});
    }
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

std::vector<kit::Verdict> verdicts(const kit::Harness& h, const Report& rep) {
  const int n = largest_files(rep);
  std::vector<kit::Verdict> out;

  kit::Verdict v6;
  v6.finding = "IO-6";
  v6.claim = "one io_uring for the process is no slower than a ring per file, with fewer kernel workers";
  v6.source = "qualitative: rings per file each spawn their own iou-wrk workers, which contend; "
              "one global ring (lock-free queue, eventfd, merged writev) shares them";
  v6.plot = rel_plot(h, "flush_mb_per_s");
  const Figures* g = rep.find("global-ring", n);
  const Figures* p = rep.find("ring-per-file", n);
  if (g == nullptr || p == nullptr) {
    v6.ours = "-";
    v6.verdict = "not applicable: global-ring and ring-per-file were not both measured";
  } else {
    v6.ours = fmt::format("files={}: global-ring {:.0f} MB/s ({:.0f} per CPU-s), {} iou-wrk; "
                          "ring-per-file {:.0f} MB/s ({:.0f} per CPU-s), {} iou-wrk",
                          n, g->mb_per_s, g->mb_per_cpu_s, g->iou_workers, p->mb_per_s,
                          p->mb_per_cpu_s, p->iou_workers);
    const bool fast = g->mb_per_s >= (1 - kTieTolerance) * p->mb_per_s;
    const bool fewer = g->iou_workers < p->iou_workers;
    v6.verdict = fast && fewer ? "reproduced" : "not reproduced";
    if (!fewer && g->iou_workers == 0 && p->iou_workers == 0) {
      v6.verdict = "not reproduced: no io_uring write was punted to a kernel worker here";
    }
  }
  out.push_back(v6);

  kit::Verdict v7;
  v7.finding = "IO-7";
  v7.claim = "merging consecutive pages into one pwritev presents fewer, bigger writes";
  v7.source = "qualitative: many buffers in one pwritev (or one ring submission)";
  v7.plot = rel_plot(h, "flush_mb_per_s");
  const Figures* a = rep.find("pwrite", n);
  const Figures* b = rep.find("pwritev", n);
  if (a == nullptr || b == nullptr) {
    v7.ours = "-";
    v7.verdict = "not applicable: pwrite and pwritev were not both measured";
  } else {
    v7.ours = fmt::format("files={}: pwritev {:.0f} MB/s, {:.1f} syscalls/MB; pwrite {:.0f} MB/s, "
                          "{:.1f} syscalls/MB",
                          n, b->mb_per_s, b->syscalls_per_mb, a->mb_per_s, a->syscalls_per_mb);
    v7.verdict = b->syscalls_per_mb < a->syscalls_per_mb && b->mb_per_s >= a->mb_per_s
                     ? "reproduced"
                     : "not reproduced";
  }
  out.push_back(v7);
  return out;
}

void print_table(const Report& rep) {
  std::cout << fmt::format("{:<14} {:>6} {:>10} {:>10} {:>12} {:>10} {:>8} {:>8}\n", "arm",
                           "files", "MB/s", "MB/CPU-s", "syscalls/MB", "writes/MB", "iou-wrk",
                           "system");
  for (const auto& [key, f] : rep.cells) {
    std::cout << fmt::format("{:<14} {:>6} {:>10.0f} {:>10.0f} {:>12.2f} {:>10.2f} {:>8} {:>8}\n",
                             key.first, key.second, f.mb_per_s, f.mb_per_cpu_s,
                             f.syscalls_per_mb, f.writes_per_mb, f.iou_workers,
                             f.iou_workers_system);
  }
}

}  // namespace fenec::scenarios::commit
