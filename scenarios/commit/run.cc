#include "scenarios/commit/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "iobench/kit/interrupt.h"
#include "iobench/kit/console.h"
#include "scenarios/commit/flusher.h"
#include "scenarios/commit/merger_cell.h"
#include "scenarios/commit/merger_report.h"
#include "scenarios/commit/report.h"
#include "scenarios/commit/workload.h"

namespace fenec::scenarios::commit {

std::vector<std::string> all_arms() {
  std::vector<std::string> a = flusher_arms();
  for (const std::string& m : merger_arms()) a.push_back(m);
  return a;
}

namespace {

// IO-6/IO-7: every flush arm on every file count, h.reps() times interleaved:
// each repetition runs every arm once, starting one arm later than the last,
// so no arm always runs first (cold cache) or last, and repetition r of each
// arm saw the same drift of the machine (the pairs the ratios are built on).
void run_flush_arms(kit::Harness& h, const Options& o, const std::vector<std::string>& arms) {
  const uint64_t total_pages = static_cast<uint64_t>(o.dirty_mib * 1024 * 1024) / o.page_size;
  const int reps = h.reps();
  Report rep;
  kit::Progress progress("commit flush arms", o.files.size() * arms.size() * static_cast<size_t>(reps));
  size_t done = 0;
  for (int files : o.files) {
    if (kit::stop_requested()) break;
    const std::string c = fmt::format("files={}", files);
    const DirtySet set = make_dirty_set(files, total_pages, o.max_run, h.seed(static_cast<uint64_t>(files)));
    std::vector<int> fds;
    if (std::string err = prepare_files(h.data_dir(), set, o.page_size, o.direct, &fds); !err.empty()) {
      for (const std::string& arm : arms) h.results().skip(arm, c, err);
      close_files(&fds);
      continue;
    }
    std::map<std::string, std::vector<CellResult>> by_arm;
    std::map<std::string, std::string> failed;
    h.interleave(
        arms.size(),
        [&](size_t k, int r) {
          const std::string& arm = arms[k];
          CellConfig cfg;
          cfg.arm = arm;
          cfg.producers = o.producers;
          cfg.seconds = o.seconds;
          cfg.page_size = o.page_size;
          cfg.max_bound_workers = o.worker_cap;
          cfg.force_async = !o.inline_first;
          CellResult res = run_cell(cfg, set, fds);
          if (!res.error.empty()) failed[arm] = res.error;
          by_arm[arm].push_back(std::move(res));
          progress.update(++done, fmt::format("{} {} rep {}", c, arm, r + 1));
        },
        kit::Order{true, 0});
    close_files(&fds);
    for (const auto& [arm, results] : by_arm) {
      if (auto it = failed.find(arm); it != failed.end()) {
        h.results().skip(arm, c, it->second);
        continue;
      }
      add_rows(h.results(), arm, files, set, results, rep);
    }
  }
  progress.finish();
  write_plots(h, rep);
  for (kit::Verdict& v : verdicts(rep, [&h](const std::string& name) { return h.plot_path(name) + ".png"; }))
    h.results().verdict(v);
  print_table(rep);
}

// JR-2: every place (disk and doc kind) and every JR-2 arm on it once a
// repetition, each cell in fresh databases: at each place a repetition
// splits its docs over merger_databases(disk) of them, run in turn with the
// other arms' (A's first, B's first, ..., A's second, ...), and each
// repetition starts one arm later than the last, so no arm always runs
// first. One sequence (--reps auto) over every place: a repetition holds all
// of them, so the slowed disks' checks, which pair each repetition with the
// native disk's, pair the same repetitions in the pilot and in the main
// experiment.
void run_merger_arms(kit::Harness& h, const Options& o, const std::vector<std::string>& arms) {
  struct Place {
    Disk disk;
    std::string kind, c;
    uint64_t docs = 0;
    int dbs = 1;
    size_t first = 0;  // its first cell index within a repetition
  };
  std::vector<Place> places;
  const size_t n = arms.size();
  size_t cells = 0;
  for (size_t p = 0; p < o.disks.size() * o.doc_kinds.size(); ++p) {
    Place pl;
    parse_disk(o.disks[p / o.doc_kinds.size()], &pl.disk);  // validated by the flag's check
    pl.kind = o.doc_kinds[p % o.doc_kinds.size()];
    pl.docs = merger_docs(o.docs, pl.disk);
    pl.dbs = static_cast<int>(std::min<uint64_t>(static_cast<uint64_t>(merger_databases(pl.disk)), pl.docs));
    pl.c = merger_case(pl.disk.name, o.writers, pl.kind);
    pl.first = cells;
    cells += static_cast<size_t>(pl.dbs) * n;
    places.push_back(pl);
  }
  // by[p][arm]: one result a repetition, each summing its databases.
  std::vector<std::map<std::string, std::vector<MergerCellResult>>> by(places.size());
  std::vector<std::map<std::string, MergerCellConfig>> cfg_of(places.size());
  std::vector<std::map<std::string, std::string>> failed(places.size());
  kit::Progress progress("commit JR-2 arms", cells * static_cast<size_t>(h.reps()));
  size_t done = 0;
  // The report as the repetitions so far stand (the sequence's judge reads it).
  auto report = [&] {
    MergerReport rep;
    rep.writers = o.writers;
    rep.bucket_seconds = o.bucket_ms / 1000.0;
    for (size_t p = 0; p < places.size(); ++p)
      for (const std::string& arm : arms) {
        auto it = by[p].find(arm);
        if (it == by[p].end() || cfg_of[p].count(arm) == 0 || failed[p].count(arm)) continue;
        const std::string place = merger_place(places[p].disk.name, places[p].kind);
        if (std::find(rep.places.begin(), rep.places.end(), place) == rep.places.end()) rep.places.push_back(place);
        rep.cells[{arm, place}] = merger_figures(cfg_of[p].at(arm), it->second, rep.bucket_seconds);
      }
    return rep;
  };
  auto judge = [&](const kit::Window& w) {
    const MergerReport rep = report();
    std::vector<kit::Check> all;
    for (const std::string& kind : doc_kinds())
      for (kit::Check& c : merger_checks(rep, kind, w).checks) all.push_back(std::move(c));
    return all;
  };
  kit::Sequence& seq = h.sequence("JR-2");
  seq.run(cells, [&](size_t i, int r) {
    if (i == 0)
      for (auto& m : by)
        for (const std::string& arm : arms) m[arm].emplace_back();
    size_t p = 0;
    while (p + 1 < places.size() && places[p + 1].first <= i) ++p;
    const Place& pl = places[p];
    const size_t j = (i - pl.first) / n, k = (i - pl.first) % n;
    const std::string& arm = arms[(k + p + static_cast<size_t>(r)) % n];
    MergerCellConfig cfg;
    cfg.arm = arm;
    cfg.disk = pl.disk;
    cfg.doc_kind = pl.kind;
    cfg.writers = o.writers;
    cfg.docs = pl.docs / static_cast<uint64_t>(pl.dbs) +
               (static_cast<int>(j) == pl.dbs - 1 ? pl.docs % static_cast<uint64_t>(pl.dbs) : 0);
    cfg.max_seconds = o.max_seconds / pl.dbs;
    cfg.bucket_seconds = o.bucket_ms / 1000.0;
    cfg.dir = fmt::format("{}/jr2-{}-{}", h.data_dir(), arm, merger_place(pl.disk.name, pl.kind));
    cfg.seed = h.seed(p * 4096 + static_cast<uint64_t>(r) * 256 + static_cast<uint64_t>(j) * 16 + k);
    const MergerCellResult res = run_merger_cell(cfg);
    if (!res.error.empty()) failed[p][arm] = res.error;
    add_database(&by[p][arm].back(), res);
    cfg.docs = pl.docs;  // the row's config: the repetition's docs, all its databases
    cfg.max_seconds = o.max_seconds;
    cfg_of[p].emplace(arm, cfg);
    progress.update(++done, fmt::format("{} {} rep {}", pl.c, arm, r + 1));
  }, judge);
  progress.finish();
  MergerReport rep;
  for (size_t p = 0; p < places.size(); ++p)
    for (const std::string& arm : arms) {
      auto it = by[p].find(arm);
      if (it == by[p].end() || cfg_of[p].count(arm) == 0) continue;
      if (auto f = failed[p].find(arm); f != failed[p].end()) {
        h.results().skip(arm, places[p].c, f->second);
        continue;
      }
      add_merger_rows(h.results(), cfg_of[p].at(arm), it->second, rep);
    }
  write_merger_plots(h, rep);
  add_merger_ratios(h.results(), rep);
  for (kit::Verdict& v :
       merger_verdicts(rep, [&h](const std::string& name) { return h.plot_path(name) + ".png"; }, &seq))
    h.results().verdict(v);
  print_merger_table(rep);
}

}  // namespace

int run(kit::Harness& h, const Options& o) {
  std::vector<std::string> flush_arms, merger_arms;
  for (const std::string& a : o.arms) (is_merger_arm(a) ? merger_arms : flush_arms).push_back(a);
  auto& meta = h.results().meta();
  meta.set("producers", std::to_string(o.producers));
  meta.set("page_size", std::to_string(o.page_size));
  meta.set("direct", o.direct ? "1" : "0");
  meta.set("force_async", o.inline_first ? "0" : "1");
  meta.set("worker_count_source",
           "iou_workers: /proc/self/task/*/comm named iou-wrk-<a ring thread of "
           "the arm>; iou_workers_system: /proc/*/task/*/comm, any process");
  if (!merger_arms.empty()) {
    meta.set("jr2_writers", std::to_string(o.writers));
    meta.set("jr2_docs", std::to_string(o.docs));
    meta.set("jr2_databases",
             "per repetition: native disk 16 (the docs split over them, run in "
             "turn with the other arms'), slowed disks 1");
    meta.set("jr2_max_seconds", fmt::format("{}", o.max_seconds));
    meta.set("jr2_slow_disk", "SlowSyncEnv: each fdatasync sleeps the delay first, then syncs");
  }
  if (!flush_arms.empty()) run_flush_arms(h, o, flush_arms);
  if (!merger_arms.empty() && !kit::stop_requested()) run_merger_arms(h, o, merger_arms);
  if (kit::stop_requested()) h.results().mark_incomplete("interrupted");
  return h.finish();
}

}  // namespace fenec::scenarios::commit
