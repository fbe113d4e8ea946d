// concurrency-bench's plots, one a finding's figure (the verdicts are report.cc's).
#include <fmt/format.h>

#include <cmath>
#include <iostream>

#include "iobench/kit/plot.h"
#include "scenarios/concurrency/report.h"
#include "scenarios/concurrency/report_util.h"
#include "scenarios/engines/workload.h"

namespace fenec::scenarios::concurrency {
using namespace engines;

using namespace report_detail;

namespace {

void plot(kit::Harness& h, const kit::Chart& c, const std::string& name) {
  bool any = false;
  for (const auto& s : c.series) any = any || !s.points.empty();
  if (!any) return;
  if (auto err = kit::write_chart(c, h.plot_path(name)); !err.empty()) {
    std::cerr << fmt::format("warning: plot {}: {}\n", name, err);
  }
}

// A point and its error bar from a figure over the repetitions.
void add_point(kit::Series& s, double x, const Ratio& r) {
  if (!r.known()) return;
  s.points.emplace_back(x, r.value);
  s.errors.emplace_back(r.ci95.lo, r.ci95.hi);  // NaN (one repetition): a point with no bar
}

// x positions of the "nines" charts: 0.3 = p50, 2 = p99, 3 = p99.9, 4 = the longest.
const double kP50X = std::log10(2.0);
const std::vector<std::pair<double, std::string>> kNines = {{kP50X, "p50"}, {2, "p99"}, {3, "p99.9"}, {4, "longest"}};

// Readers' wait as a curve over the "nines", one line per arm, each point the
// geometric mean of the repetitions' percentile with its 95% interval.
kit::Chart read_wait_chart(const std::string& title, const std::map<std::string, Reps<MixedFig>>& figs) {
  kit::Chart c;
  c.title = title;
  c.xlabel = "percentile of the reads' waits (bars: 95% interval over the repetitions)";
  c.ylabel = "read wait (us)";
  c.logy = true;
  c.xtics = kNines;
  for (const auto& [arm, reps] : figs) {
    kit::Series s{arm, {}};
    add_point(s, kP50X, over_reps(reps, [](const MixedFig& f) { return f.read_p50_us; }));
    add_point(s, 2, over_reps(reps, [](const MixedFig& f) { return f.read_p99_us; }));
    add_point(s, 3, over_reps(reps, [](const MixedFig& f) { return f.read_p999_us; }));
    add_point(s, 4, over_reps(reps, [](const MixedFig& f) { return f.read_max_us; }));
    c.series.push_back(std::move(s));
  }
  return c;
}

}  // namespace

void write_plots(kit::Harness& h, const Report& rep) {
  kit::Chart w;
  w.title = "CC-1/CC-2: acknowledged writes per second vs writers (a row a commit; bars: 95% interval)";
  w.xlabel = "writers";
  w.ylabel = "writes/s";
  w.logx = w.logy = true;
  kit::Chart f;
  f.title = "CC-1: fsyncs per commit vs writers (fenecdb: its Stats; SQLite: xSync calls; RocksDB: WAL_FILE_SYNCED; PostgreSQL: pg_stat_wal)";
  f.xlabel = "writers";
  f.ylabel = "fsyncs per commit";
  f.logx = true;
  for (const auto& [arm, by_w] : rep.writers) {
    kit::Series sw{arm, {}}, sf{arm, {}};
    for (const auto& [n, reps] : by_w) {
      add_point(sw, n, over_reps(reps, wps));
      // Counts per commit can be 0 (sqlite-normal): a plain mean, no bar.
      const std::vector<double> pc = figures(reps, per_commit);
      double mean = 0;
      for (double v : pc) mean += v / static_cast<double>(pc.size());
      sf.points.emplace_back(n, mean);
    }
    w.series.push_back(sw);
    f.series.push_back(sf);
  }
  plot(h, w, "writes_per_s");
  plot(h, f, "fsyncs_per_commit");
  plot(h, read_wait_chart("CC-3: readers' wait beside 1 000-row batches (" + rep.batches_case + ")", rep.batches),
       "read_wait_batches");

  // CC-3's headline figure: the median write-lock hold a batch, each mode.
  kit::Chart bh;
  bh.title = "CC-3: median write-lock hold a 1 000-row batch (bars: 95% interval over the repetitions)";
  bh.xlabel = "arm";
  bh.ylabel = "write lock held a batch (us)";
  bh.logy = true;
  bh.xtics = {{1, "fenecdb-buffered"}, {2, "fenecdb-durable"}};
  bh.refs = {{500, "source: ~0.5 ms, rows built under the lock", kit::Reference::Kind::kSource},
             {150, "source: ~0.15 ms, built outside it", kit::Reference::Kind::kSource}};
  for (const bool naive : {true, false}) {
    kit::Series s{naive ? "rows built under the lock (naive)" : "rows built outside the lock", {}, "points"};
    for (const auto& [x, mode] : {std::pair{1.0, "buffered"}, std::pair{2.0, "durable"}}) {
      const auto* r = reps_of(rep.batches, std::string("fenecdb-") + mode + (naive ? "-naive" : ""));
      // The two arms a little apart, so neither's bar hides the other's.
      if (r) add_point(s, x + (naive ? -0.05 : 0.05), over_reps(*r, [](const MixedFig& m) { return m.batch_hold_p50_us; }));
    }
    bh.series.push_back(std::move(s));
  }
  plot(h, bh, "batch_hold");

  // CC-4: the readers' wait, and the longest write-lock hold (the verdict's figure) at x = 4.
  kit::Chart rw =
      read_wait_chart("CC-4: readers' wait beside single-row writers (" + rep.readers_case + ")", rep.readers);
  rw.xlabel = "percentile of the reads' waits (bars: 95% intervals); at longest, the longest lock hold: the verdict's figure";
  for (const auto& [arm, reps] : rep.readers) {
    if (reps.empty() || reps.begin()->second.lock_hold_max_us < 0) continue;
    kit::Series s{arm + ": longest lock hold", {}, "points"};
    add_point(s, 4, over_reps(reps, [](const MixedFig& m) { return m.lock_hold_max_us; }));
    rw.series.push_back(std::move(s));
  }
  rw.refs.push_back({17000, "17 ms: no lock hold reaches it (the finding's line)"});
  plot(h, rw, "read_wait_writers");

  // CC-5, one repetition's story (the first): pinned against locked over time, each durability.
  for (const std::string mode : {"buffered", "durable"}) {
    kit::Chart l;
    l.title = fmt::format("CC-5: writers' longest wait per {} ms beside a long read, fenecdb-{} ({}, repetition 0)",
                          kWindowMs, mode, rep.long_case);
    l.xlabel = "time in the cell (s); marks: when the locked arm's long reads started";
    l.ylabel = "longest write wait in the window (us)";
    l.logy = true;
    for (const std::string& arm : {"fenecdb-" + mode, "fenecdb-" + mode + "-naive"}) {
      const auto* r = reps_of(rep.long_read, arm);
      if (!r) continue;
      const LongFig& lf = r->begin()->second;
      l.series.push_back({arm == "fenecdb-" + mode ? arm + " (pinned)" : arm + " (locked)", lf.wait_series, "lines"});
      if (arm != "fenecdb-" + mode) {
        for (double t : lf.long_read_at_s) l.marks.push_back({t, ""});
      }
    }
    plot(h, l, mode == "buffered" ? "write_wait_long_read" : "write_wait_long_read_durable");
  }

  // CC-5 over the repetitions: the waits of the writes that met a long read
  // over the nines (the verdict's figure is the p99.9), each arm.
  kit::Chart lr;
  lr.title = fmt::format("CC-5: waits of the writes that met a long read ({}; bars: 95% interval over the repetitions)",
                         rep.long_case);
  lr.xlabel = "percentile of the waits (p99.9: the verdict's)";
  lr.ylabel = "write wait (us)";
  lr.logy = true;
  lr.xtics = kNines;
  lr.refs.push_back({800'000, "source: a locked 1 M-row read held every write 0.8 s", kit::Reference::Kind::kSource});
  for (const auto& [arm, reps] : rep.long_read) {
    if (arm.rfind("fenecdb-", 0) != 0) continue;
    kit::Series s{arm.find("-naive") != std::string::npos ? arm + " (locked)" : arm + " (pinned)", {}};
    add_point(s, kP50X, over_reps(reps, [](const LongFig& x) { return x.during_p50_us; }));
    add_point(s, 2, over_reps(reps, [](const LongFig& x) { return x.during_p99_us; }));
    add_point(s, 3, over_reps(reps, [](const LongFig& x) { return x.during_p999_us; }));
    add_point(s, 4, over_reps(reps, [](const LongFig& x) { return x.during_max_us; }));
    lr.series.push_back(std::move(s));
  }
  plot(h, lr, "write_wait_long_read_reps");
}

}  // namespace fenec::scenarios::concurrency
