// growth-bench's console tables and plots: see report.h.
#include <fmt/format.h>

#include <algorithm>

#include "iobench/kit/console.h"
#include "iobench/kit/plot.h"
#include "scenarios/growth/report.h"
#include "scenarios/growth/report_parts.h"

namespace fenec::scenarios::growth {
using namespace parts;

void print_summary(const Summary& s) {
  const uint64_t n = std::max(s.keys, s.terms);
  auto figs = [&](const std::vector<PutRun>& runs, uint64_t arm_n) { return figures_of_all(runs, arm_n); };
  const auto un = figs(s.unique_naive, s.keys), us_ = figs(s.unique_sharded, s.keys), tn = figs(s.text_naive, s.terms),
             ts = figs(s.text_sharded, s.terms);
  std::vector<PutRun> db_runs;
  for (const auto& d : s.db)
    if (d.ok) db_runs.push_back(d.run);
  const auto db = figs(db_runs, s.keys);
  auto band = [](const std::vector<PutFigures>& fs, size_t b) {
    if (fs.empty() || b >= fs[0].band_max_us.size()) return std::string("-");
    return time_cell(band_reps(fs, b, false));
  };
  const size_t reps = std::max({un.size(), us_.size(), tn.size(), ts.size()});
  kit::Table bands({"band", "unique-naive", "unique-sharded", "source naive", "fenecdb-unique", "text-naive",
                    "text-sharded"});
  std::vector<Band> bl = bands_up_to(n);
  for (size_t b = 0; b < bl.size(); ++b)
    bands.row({bl[b].label(), band(un, b), band(us_, b), source_band_figure(bl[b]), band(db, b), band(tn, b),
               band(ts, b)});
  fmt::print("\nLongest put per doubling band (band = key count before the put; geometric mean of {} runs):\n{}",
             reps, bands.str());

  kit::Table tails({"arm", "longest put", "p99.9", "p99", "longest growth, CPU", "longest put that grew nothing"});
  // fenecdb's puts do not say which of them grew the index: no growth columns.
  auto tail_row = [&](const char* name, const std::vector<PutFigures>& fs, bool growths) {
    if (fs.empty()) return;
    tails.row({name, time_text(over_reps(fs, [](const PutFigures& x) { return x.max_us; })),
               time_text(over_reps(fs, [](const PutFigures& x) { return x.p999_us; })),
               time_text(over_reps(fs, [](const PutFigures& x) { return x.p99_us; })),
               growths ? time_text(over_reps(fs, [](const PutFigures& x) { return x.growth_cpu_max_us; })) : "-",
               growths ? time_text(over_reps(fs, [](const PutFigures& x) { return x.plain_max_us; })) : "-"});
  };
  tail_row("unique-naive", un, true);
  tail_row("unique-sharded", us_, true);
  tail_row("fenecdb-unique", db, false);
  tail_row("text-naive", tn, true);
  tail_row("text-sharded", ts, true);
  fmt::print("\nLongest puts and tails over {} runs (geometric mean [95% interval]):\n{}", reps, tails.str());

  kit::Table top({"rank", "unique-naive", "unique-sharded", "text-naive", "text-sharded"});
  auto cell = [](const std::vector<PutRun>& runs, size_t i) -> std::string {
    if (runs.empty()) return "-";
    auto t = runs.front().rec.top();
    if (i >= t.size()) return "-";
    return fmt::format("{} @ {}", kit::format_us(us(t[i].ns)), t[i].keys);
  };
  for (size_t i = 0; i < PutRecorder::kTop; ++i)
    top.row({std::to_string(i + 1), cell(s.unique_naive, i), cell(s.unique_sharded, i), cell(s.text_naive, i),
             cell(s.text_sharded, i)});
  fmt::print("\nTen longest puts of run 1 (latency @ key count):\n{}", top.str());

  kit::Table g({"arm", "puts", "growths", "max moved", "puts that grew", "hashes", "longest growth wall/cpu",
                "side ops waited on growth", "side longest wait"});
  auto grow_row = [&](const char* name, const std::vector<PutRun>& runs) {
    if (runs.empty()) return;
    const PutRun& run = runs.front();
    const SideStats& sd = run.side;
    uint64_t gw = 0, gc = 0;
    for (const auto& e : run.growths) {
      gw = std::max(gw, e.ns);
      gc = std::max(gc, e.cpu_ns);
    }
    g.row({name, std::to_string(run.rec.histogram().count()), std::to_string(run.stats.growths),
           std::to_string(run.stats.max_keys_moved), std::to_string(run.stats.puts_that_grew),
           std::to_string(run.stats.hash_computations),
           fmt::format("{} / {}", kit::format_us(us(gw)), kit::format_us(us(gc))),
           fmt::format("{} of {}", sd.reads_waited_on_growth + sd.writes_waited_on_growth, sd.reads + sd.writes),
           kit::format_us(us(std::max(sd.read_wait_max_ns, sd.write_wait_max_ns)))});
  };
  grow_row("unique-naive", s.unique_naive);
  grow_row("unique-sharded", s.unique_sharded);
  grow_row("text-naive", s.text_naive);
  grow_row("text-sharded", s.text_sharded);
  fmt::print("\nGrowths in run 1 (max moved over the whole run, the single table's doublings included):\n{}", g.str());

  if (!s.lookups.empty()) {
    const LookupResult* absl = lookup_of(s, "absl-flat");
    kit::Table t({"map", "keys", "hit ns", "miss ns", "vs absl", "build s"});
    for (const auto& l : s.lookups)
      t.row({l.arm, std::to_string(l.keys), fmt::format("{:.1f}", l.hit_ns), fmt::format("{:.1f}", l.miss_ns),
             absl ? kit::format_ratio(kit::paired_ratio(l.hit_ns_reps, absl->hit_ns_reps)) : "-",
             fmt::format("{:.2f}", l.build_s)});
    fmt::print("\nLookups (same keys, same order, same run, {} interleaved rounds; source: 83-93 ns at 4 M):\n{}",
               s.lookups.front().hit_ns_reps.size(), t.str());
  }
  for (size_t i = 0; i < s.db.size(); ++i) {
    const DbRun& d = s.db[i];
    if (!d.ok) {
      fmt::print("Through fenecdb, run {}: skipped: {}\n", i + 1, d.error);
      continue;
    }
    fmt::print("Through fenecdb, run {} (Database::Put, @unique email, kBuffered): {} puts, longest {}, p99.9 {}; "
               "the engine's longest write-lock hold {}; a stored key put again {}; reopened in {:.2f} s with {} "
               "documents, a stored key {} after the reopen\n",
               i + 1, d.run.rec.histogram().count(), kit::format_us(us(d.run.rec.histogram().max())),
               kit::format_us(us(d.run.rec.histogram().Percentile(99.9))), kit::format_us(us(d.stats.write_lock_hold_max_ns)),
               d.duplicate_rejected ? "was rejected (kConstraint)" : "was NOT rejected", d.open_s, d.count_after_open,
               d.found_after_open ? "still clashes" : "does NOT clash");
  }
  for (const auto& rb : s.rebuilds)
    fmt::print("Open: {} rebuilt from {} (key, row) pairs in {}{}\n", rb.arm, rb.keys,
               kit::format_interval(kit::of_reps(rb.rebuild_s_reps), "s", 2),
               rb.same ? " (every key found, no growth)" : " -- WRONG ANSWERS");
  if (!s.memory.empty()) {
    kit::Table t({"structure", "keys", "smaps B/key", "own B/key", "slots/key", "hash B/key"});
    for (const auto& m : s.memory) {
      if (!m.ok) {
        t.row({m.arm, std::to_string(m.keys), "skipped: " + m.error, "", "", ""});
        continue;
      }
      bool own = m.slots_per_key > 0;
      t.row({m.arm, std::to_string(m.keys), fmt::format("{:.1f}", m.smaps_bytes_per_key),
             own ? fmt::format("{:.1f}", m.own_bytes_per_key) : "-",
             own ? fmt::format("{:.2f}", m.slots_per_key) : "-",
             own ? fmt::format("8/slot = {:.1f}", 8 * m.slots_per_key) : "-"});
    }
    fmt::print("\nMemory a key (smaps_rollup Anonymous growth in a child that built only it):\n{}", t.str());
  }
  print_vector_summary(s);
}

void parts::write_latency_chart(kit::Harness& h, const char* name, const std::string& what, const PutRecorder* naive,
                         const PutRecorder* sharded, const std::string& naive_arm, const std::string& sharded_arm,
                         const std::vector<kit::Mark>& marks, uint64_t n, size_t plot_points, const std::string& unit) {
  if (!naive && !sharded) return;
  kit::Chart c;
  c.title = fmt::format("{}: put latency over {} count, run 1 (chunks of {} puts; dashed: naive doublings)", what, unit,
                        std::max<uint64_t>(1, n / std::max<size_t>(1, plot_points)));
  c.xlabel = fmt::format("{}s in the index", unit);
  c.ylabel = "put latency (us, log)";
  c.logy = true;
  // The longest put of each chunk as a thin line (mostly this machine's
  // noise floor), and in front of it every put that grew, as a point.
  const std::pair<const PutRecorder*, const std::string*> arms[] = {{naive, &naive_arm}, {sharded, &sharded_arm}};
  for (const auto& [rec, arm] : arms) {
    if (!rec) continue;
    kit::Series chunk;
    chunk.title = fmt::format("{}: longest put per chunk", *arm);
    chunk.style = "lines lw 0.5";
    for (const auto& [k, ns] : rec->chunks()) chunk.points.emplace_back(static_cast<double>(k), us(ns));
    c.series.push_back(std::move(chunk));
  }
  for (const auto& [rec, arm] : arms) {
    if (!rec) continue;
    kit::Series grew;
    grew.title = fmt::format("{}: each put that grew", *arm);
    grew.style = "points pt 7 ps 0.6";
    for (const auto& [k, ns] : rec->grew()) grew.points.emplace_back(static_cast<double>(k), us(ns));
    c.series.push_back(std::move(grew));
  }
  c.marks = marks;
  if (std::string err = kit::write_chart(c, h.plot_path(name)); !err.empty())
    fmt::print(stderr, "growth-bench: plot {} not written: {}\n", name, err);
}

void write_plots(kit::Harness& h, const Summary& s) {
  auto chart = [&](const char* name, const char* what, const std::vector<PutRun>& naive,
                   const std::vector<PutRun>& sharded, const char* naive_arm, const char* sharded_arm, uint64_t n) {
    std::vector<kit::Mark> marks;
    for (uint64_t d : doublings_up_to(n)) marks.push_back({static_cast<double>(d), fmt::format("x2 @ {}", d)});
    write_latency_chart(h, name, what, naive.empty() ? nullptr : &naive.front().rec,
                        sharded.empty() ? nullptr : &sharded.front().rec, naive_arm, sharded_arm, marks, n,
                        s.plot_points, "key");
  };
  chart("unique-put-latency", "@unique puts", s.unique_naive, s.unique_sharded, "unique-naive", "unique-sharded",
        s.keys);
  chart("text-put-latency", "@text term puts", s.text_naive, s.text_sharded, "text-naive", "text-sharded", s.terms);

  // The headline figures: each doubling band's longest put and longest
  // growth in CPU time, per arm, with 95% intervals over the repetitions.
  auto stalls = [&](const char* name, const char* what, const std::vector<PutRun>& naive,
                    const std::vector<PutRun>& sharded, uint64_t n, bool source) {
    if (naive.empty() || sharded.empty()) return;
    const auto fn = figures_of_all(naive, n), fs = figures_of_all(sharded, n);
    kit::Chart c;
    c.title = fmt::format("{}: longest put and longest growth (CPU) in each doubling band, {} runs, 95% intervals",
                          what, std::min(naive.size(), sharded.size()));
    c.xlabel = "keys in the index at the band's doubling (log)";
    c.ylabel = "ms (log)";
    c.logx = c.logy = true;
    const std::vector<Band> bands = bands_up_to(n);
    auto series = [&](const std::vector<PutFigures>& f, bool cpu, const std::string& title) {
      kit::Series ser;
      ser.title = title;
      ser.style = "linespoints";
      for (size_t b = 1; b < bands.size(); ++b) {
        const kit::Ratio r = band_reps(f, b, cpu);
        if (!r.known()) continue;
        ser.points.emplace_back(static_cast<double>(bands[b].lo), r.value / 1000);
        ser.errors.emplace_back(r.ci95.lo / 1000, r.ci95.hi / 1000);
      }
      if (!ser.points.empty()) c.series.push_back(std::move(ser));
    };
    series(fn, false, "naive: longest put (wall)");
    series(fn, true, "naive: longest growth (CPU)");
    series(fs, false, "sharded: longest put (wall)");
    series(fs, true, "sharded: longest growth (CPU)");
    if (source) {
      kit::Series src;
      src.title = "source: naive at each doubling (4 M puts)";
      src.style = "points pt 6 ps 1.2";
      for (const auto& sb : kSourceBands) src.points.emplace_back(static_cast<double>(sb.lo), sb.ms);
      c.series.push_back(std::move(src));
    }
    if (std::string err = kit::write_chart(c, h.plot_path(name)); !err.empty())
      fmt::print(stderr, "growth-bench: plot {} not written: {}\n", name, err);
  };
  stalls("unique-stalls", "@unique puts", s.unique_naive, s.unique_sharded, s.keys, true);
  stalls("text-stalls", "@text term puts", s.text_naive, s.text_sharded, s.terms, false);
  write_vector_plots(h, s);
}

}  // namespace fenec::scenarios::growth
