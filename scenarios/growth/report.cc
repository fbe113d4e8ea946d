// growth-bench reporting: see report.h.
#include "scenarios/growth/report.h"
#include "scenarios/growth/report_parts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "engine/src/index/hash_table.h"
#include "findings/catalogue.h"
#include "iobench/kit/console.h"
#include "iobench/kit/stats.h"
#include "scenarios/procs/engine_stats.h"

namespace fenec::scenarios::growth {
namespace parts {

constexpr const char* kGR1 = "GR-1";
constexpr const char* kGR2 = "GR-2";

double us(uint64_t ns) { return static_cast<double>(ns) / 1000.0; }

const char* finding_of(Kind kind) { return kind == Kind::kUnique ? kGR1 : kGR2; }

std::string rep_case(const std::string& c, size_t rep) { return fmt::format("{};rep={}", c, rep + 1); }

const LookupResult* lookup_of(const Summary& s, const std::string& arm) {
  for (const auto& l : s.lookups)
    if (l.arm == arm) return &l;
  return nullptr;
}

const MemResult* memory_of(const Summary& s, const std::string& arm) {
  for (const auto& m : s.memory)
    if (m.arm == arm && m.ok) return &m;
  return nullptr;
}

std::vector<PutFigures> figures_of_all(const std::vector<PutRun>& runs, uint64_t n) {
  std::vector<PutFigures> out;
  for (const auto& r : runs) out.push_back(figures_of(r, n));
  return out;
}

// One figure of every repetition.
std::vector<double> pick(const std::vector<PutFigures>& fs, const std::function<double(const PutFigures&)>& get) {
  std::vector<double> out;
  for (const auto& f : fs) out.push_back(get(f));
  return out;
}

kit::Ratio over_reps(const std::vector<PutFigures>& fs, const std::function<double(const PutFigures&)>& get) {
  return kit::of_reps(pick(fs, get));
}

kit::Ratio band_reps(const std::vector<PutFigures>& fs, size_t b, bool cpu) {
  return over_reps(fs, [&](const PutFigures& f) {
    const auto& v = cpu ? f.band_growth_cpu_us : f.band_max_us;
    return b < v.size() ? v[b] : 0.0;
  });
}

kit::Ratio scaled(kit::Ratio r, double by) {
  r.value /= by;
  r.ci95.lo /= by;
  r.ci95.hi /= by;
  return r;
}

// A time in microseconds over the repetitions, in ms or us with its interval.
std::string time_text(const kit::Ratio& us_figure) {
  if (!us_figure.known()) return "-";
  const bool ms = us_figure.value >= 1000;
  const kit::Ratio r = scaled(us_figure, ms ? 1000 : 1);
  const int decimals = r.value >= 100 ? 0 : r.value >= 10 ? 1 : 2;
  return kit::format_interval(r, ms ? "ms" : "us", decimals);
}

// The same without the interval, for table cells.
std::string time_cell(const kit::Ratio& us_figure) {
  return us_figure.known() ? kit::format_us(us_figure.value) : "-";
}

double round1(double v) { return std::round(v * 10) / 10; }

// GR-1's sharded longest put, 2.5-3.6 ms in the source: its high end.
constexpr double kGR1ShardedMs = 3.6;
// GR-2's source: 276-324 ms at 3.7 M terms (the doubling at 3 670 016), 5 ms as 256 tables.
constexpr double kGR2NaiveMs = 276, kGR2ShardedMs = 5;
constexpr uint64_t kGR2SourceLo = 3670016;

size_t last_band(uint64_t n) { return bands_up_to(n).size() - 1; }

struct StallFigures {
  uint64_t lo = 0;                  // the last doubling reached
  kit::Ratio naive_cpu, naive_wall;  // naive's growth and longest put in that band
  kit::Ratio sharded_cpu;            // sharded's longest growth, CPU, over the whole run
  kit::Ratio sharded_band_cpu;       // ... over the keys of naive's last doubling (the check's)
  kit::Ratio cpu_ratio, wall_ratio;  // naive stall / sharded longest there (CPU), over the run (wall)
  kit::Ratio naive_max, naive_p999, naive_p99, sharded_max, sharded_p999, sharded_p99, sharded_plain;
};

StallFigures stall_figures(const std::vector<PutRun>& naive, const std::vector<PutRun>& sharded, uint64_t n) {
  StallFigures s;
  const auto fn = figures_of_all(naive, n), fs = figures_of_all(sharded, n);
  const size_t last = last_band(n);
  s.lo = bands_up_to(n)[last].lo;
  s.naive_cpu = band_reps(fn, last, true);
  s.naive_wall = band_reps(fn, last, false);
  s.sharded_cpu = over_reps(fs, [](const PutFigures& f) { return f.growth_cpu_max_us; });
  const auto n_cpu = pick(fn, [&](const PutFigures& f) { return f.band_growth_cpu_us[last]; });
  const auto n_wall = pick(fn, [&](const PutFigures& f) { return f.band_max_us[last]; });
  const auto s_cpu = pick(fs, [&](const PutFigures& f) { return f.band_growth_cpu_us[last]; });
  s.sharded_band_cpu = kit::of_reps(s_cpu);
  s.cpu_ratio = kit::paired_ratio(n_cpu, s_cpu);  // stall_check's ratio
  s.wall_ratio = kit::paired_ratio(n_wall, pick(fs, [](const PutFigures& f) { return f.max_us; }));
  s.naive_max = over_reps(fn, [](const PutFigures& f) { return f.max_us; });
  s.naive_p999 = over_reps(fn, [](const PutFigures& f) { return f.p999_us; });
  s.naive_p99 = over_reps(fn, [](const PutFigures& f) { return f.p99_us; });
  s.sharded_max = over_reps(fs, [](const PutFigures& f) { return f.max_us; });
  s.sharded_p999 = over_reps(fs, [](const PutFigures& f) { return f.p999_us; });
  s.sharded_p99 = over_reps(fs, [](const PutFigures& f) { return f.p99_us; });
  s.sharded_plain = over_reps(fs, [](const PutFigures& f) { return f.plain_max_us; });
  return s;
}

std::string stall_ours(const StallFigures& s, size_t reps, uint64_t n, const char* what, const char* unit) {
  return fmt::format(
      "{} {} x {} runs. naive's stall at the doubling at {} {}: {} CPU, {} wall; sharded's longest growth from "
      "there on {} CPU ({} over the whole run); naive/sharded {} in CPU time, {} on the wall clock (longest "
      "puts). Longest put (p99.9, p99): naive {} ({}, {}); sharded {} ({}, {}), its longest put that grew "
      "nothing {}",
      n, what, reps, s.lo, unit, time_text(s.naive_cpu), time_text(s.naive_wall), time_text(s.sharded_band_cpu),
      time_text(s.sharded_cpu),
      kit::format_ratio(s.cpu_ratio, 1), kit::format_ratio(s.wall_ratio, 1), time_text(s.naive_max),
      time_text(s.naive_p999), time_text(s.naive_p99), time_text(s.sharded_max), time_text(s.sharded_p999),
      time_text(s.sharded_p99), time_text(s.sharded_plain));
}

// Why the verdict reads the growths' CPU time at the maximum.
std::string basis(const StallFigures& s) {
  return fmt::format(
      ". Judged on the longest growth in the putting thread's CPU time, over the keys of the naive arm's last "
      "doubling (the biggest tables, so the sharded design's longest growth): the finding is the longest put (a "
      "stall is one put in a million, which p99.9 cannot see: naive's p99.9 {} against its stall {}), and on "
      "this shared 2-core machine the sharded arm's wall-clock longest put ({}) is preemption, not growth, as "
      "its longest put that grew nothing ({}) shows",
      time_text(s.naive_p999), time_text(s.naive_wall), time_text(s.sharded_max), time_text(s.sharded_plain));
}

void add_ratio_rows(kit::Results& r, const char* f, const std::string& arm, const std::string& c,
                    const std::string& metric, const std::vector<double>& per_rep, const std::string& unit) {
  for (size_t i = 0; i < per_rep.size(); ++i) r.add(f, arm, rep_case(c, i), metric, per_rep[i], unit);
  r.add_ratio(f, arm, c, metric, kit::of_reps(per_rep), unit);
}

}  // namespace parts
using namespace parts;

std::string arm_of(Kind kind, index::Arm arm) {
  return fmt::format("{}-{}", kind == Kind::kUnique ? "unique" : "text", index::ArmName(arm));
}

std::string source_band_figure(const Band& b) {
  for (const auto& s : kSourceBands)
    if (s.lo == b.lo) return s.text;
  return "";
}

// GR-1's line. The source (findings/CATALOGUE.md GR-1, from seeds/002): four million
// single puts into the table that doubles whole waited 7, 19, 49, 109 and
// 235-267 ms at the doublings from 229 376 keys; into the 256 tables the
// longest put was 2.5-3.6 ms. The line is the smallest ratio those figures
// allow at the doubling this run reached: the source's stall there (the low
// end of a range) over its longest sharded put (the high end, 3.6 ms), e.g.
// 49 / 3.6 = 13.6 at 917 504 keys (quick), 235 / 3.6 = 65.3 at 3 670 016
// (full). Past the last doubling the source measured, that one's figure.
std::optional<double> gr1_stall_line(uint64_t band_lo) {
  double ms = 0;
  for (const auto& s : kSourceBands)
    if (band_lo >= s.lo) ms = s.ms;
  if (ms == 0) return std::nullopt;
  return round1(ms / kGR1ShardedMs);
}

// GR-2's line. The source (findings/CATALOGUE.md GR-2): the term table stalled
// 276-324 ms at 3.7 M terms (the doubling at 3 670 016); as 256 tables the
// longest put was 5 ms. It gives no figure at smaller doublings, so its
// stall is scaled to the doubling this run reached by the terms a doubling
// moves (all of them): 276 ms x lo / 3 670 016, over 5 ms, e.g. 13.8 at
// 917 504 (quick), 55.2 at 3 670 016 (full). The source's own GR-1 stalls
// grow 2.2-2.7x a doubling, more than the keys, so scaling down in
// proportion to the keys makes the line no easier than the source's.
std::optional<double> gr2_stall_line(uint64_t band_lo) {
  if (band_lo < kGR2SourceLo / 32) return std::nullopt;  // below 114 688: no doubling of a big table
  return round1(kGR2NaiveMs * static_cast<double>(band_lo) / static_cast<double>(kGR2SourceLo) / kGR2ShardedMs);
}

PutFigures figures_of(const PutRun& run, uint64_t n) {
  PutFigures f;
  const base::Histogram& h = run.rec.histogram();
  f.max_us = us(h.max());
  f.p99_us = us(h.Percentile(99));
  f.p999_us = us(h.Percentile(99.9));
  f.plain_max_us = us(run.rec.max_plain_ns());
  const size_t nb = bands_up_to(n).size();
  f.band_max_us.assign(nb, 0);
  f.band_growth_cpu_us.assign(nb, 0);
  const auto& bm = run.rec.band_max_ns();
  for (size_t b = 0; b < nb && b < bm.size(); ++b) f.band_max_us[b] = us(bm[b]);
  for (const auto& e : run.growths) {
    f.growth_cpu_max_us = std::max(f.growth_cpu_max_us, us(e.cpu_ns));
    f.growth_wall_max_us = std::max(f.growth_wall_max_us, us(e.ns));
    const size_t b = band_of(e.keys_before);
    if (b < nb) f.band_growth_cpu_us[b] = std::max(f.band_growth_cpu_us[b], us(e.cpu_ns));
  }
  return f;
}

kit::Check stall_check(const std::vector<PutRun>& naive, const std::vector<PutRun>& sharded, uint64_t n,
                       double line, const std::string& line_source, const std::string& unit) {
  const auto fn = figures_of_all(naive, n), fs = figures_of_all(sharded, n);
  const size_t last = last_band(n);
  kit::Check c;
  c.what = fmt::format(
      "naive's stall at the doubling at {0} {1} / sharded's longest growth from {0} {1} on, CPU time (line: {2})",
      bands_up_to(n)[last].lo, unit, line_source);
  // Like for like: the sharded arm's growths over the same stretch of keys
  // as the naive doubling. A growth's work is the table it moves, and the
  // sharded tables are biggest there, so that stretch holds the design's
  // longest growth; a longer one earlier, at half the table, is not the
  // table's work (seen once: 15 ms of CPU for a growth that takes 0.3 ms in
  // every other repetition, on a VM whose thread clock then counts the
  // kernel's or the host's time). The longest over the whole run is
  // reported beside (ours).
  c.ratio = kit::paired_ratio(pick(fn, [&](const PutFigures& f) { return f.band_growth_cpu_us[last]; }),
                              pick(fs, [&](const PutFigures& f) { return f.band_growth_cpu_us[last]; }));
  c.line = line;
  c.above = true;
  return c;
}

ExactPart one_hash_a_key(const Summary& s) {
  size_t runs = 0, exact = 0;
  for (const auto* arm : {&s.unique_naive, &s.unique_sharded}) {
    for (const auto& r : *arm) {
      ++runs;
      exact += r.stats.hash_computations == r.rec.histogram().count() + r.side.reads + r.side.writes;
    }
  }
  ExactPart p;
  p.what = fmt::format("one hash a put or lookup, none in any growth (hashes = puts + side reads and writes in {} "
                       "of {} runs)",
                       exact, runs);
  p.holds = runs > 0 && exact == runs;
  return p;
}

void add_put_rows(kit::Results& r, Kind kind, index::Arm arm, uint64_t n, const std::vector<PutRun>& runs) {
  if (runs.empty()) return;
  const std::string a = arm_of(kind, arm);
  const char* f = finding_of(kind);
  const auto fs = figures_of_all(runs, n);
  const std::string all = "keys=all";
  for (size_t i = 0; i < runs.size(); ++i) r.add_latency(f, a, rep_case(all, i), runs[i].rec.histogram(), "put");
  // The maxima and tails over the repetitions: each repetition's, then their
  // geometric mean and 95% interval.
  // (each repetition's are among its add_latency rows above).
  r.add_ratio(f, a, all, "put_max_us", over_reps(fs, [](const PutFigures& x) { return x.max_us; }), "us");
  r.add_ratio(f, a, all, "put_p999_us", over_reps(fs, [](const PutFigures& x) { return x.p999_us; }), "us");
  r.add_ratio(f, a, all, "put_p99_us", over_reps(fs, [](const PutFigures& x) { return x.p99_us; }), "us");
  // The index's own clocks on its longest growth: wall, and the thread's CPU
  // time, which leaves out the time a loaded machine kept the thread off a core.
  add_ratio_rows(r, f, a, all, "growth_max_us", pick(fs, [](const PutFigures& x) { return x.growth_wall_max_us; }),
                 "us");
  add_ratio_rows(r, f, a, all, "growth_cpu_max_us",
                 pick(fs, [](const PutFigures& x) { return x.growth_cpu_max_us; }), "us");
  add_ratio_rows(r, f, a, "grew=no", "put_max_us", pick(fs, [](const PutFigures& x) { return x.plain_max_us; }),
                 "us");
  std::vector<double> grew;
  for (const auto& run : runs) grew.push_back(us(run.rec.max_grew_ns()));
  add_ratio_rows(r, f, a, "grew=yes", "put_max_us", grew, "us");
  std::vector<Band> bands = bands_up_to(n);
  for (size_t b = 0; b < bands.size(); ++b) {
    const auto wall = pick(fs, [&](const PutFigures& x) { return x.band_max_us[b]; });
    const auto cpu = pick(fs, [&](const PutFigures& x) { return x.band_growth_cpu_us[b]; });
    if (*std::max_element(wall.begin(), wall.end()) > 0) add_ratio_rows(r, f, a, bands[b].label(), "put_max_us", wall, "us");
    if (*std::max_element(cpu.begin(), cpu.end()) > 0)
      add_ratio_rows(r, f, a, bands[b].label(), "growth_cpu_max_us", cpu, "us");
  }
  // The ten longest puts over every repetition.
  std::vector<std::pair<PutRecorder::Top, size_t>> top;
  for (size_t i = 0; i < runs.size(); ++i)
    for (const auto& t : runs[i].rec.top()) top.emplace_back(t, i + 1);
  std::sort(top.begin(), top.end(), [](const auto& x, const auto& y) { return x.first.ns > y.first.ns; });
  for (size_t i = 0; i < top.size() && i < PutRecorder::kTop; ++i) {
    const std::string c = fmt::format("rank={}", i + 1);
    r.add(f, a, c, "top_put_us", us(top[i].first.ns), "us");
    r.add(f, a, c, "top_put_keys", static_cast<double>(top[i].first.keys), "count");
    r.add(f, a, c, "top_put_rep", static_cast<double>(top[i].second), "count");
  }
  // Counts, one set a repetition; the largest move past the split point (what
  // one growth costs a big index; CI gates it) over all of them.
  uint64_t max_moved_past_split = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const PutRun& run = runs[i];
    const auto& st = run.stats;
    const std::string c = rep_case(all, i);
    r.add(f, a, c, "puts", static_cast<double>(run.rec.histogram().count()), "count");
    r.add(f, a, c, "keys", static_cast<double>(st.keys), "count");
    r.add(f, a, c, "put_seconds", run.seconds, "s");
    r.add(f, a, c, "growths", static_cast<double>(st.growths), "count");
    r.add(f, a, c, "max_keys_moved", static_cast<double>(st.max_keys_moved), "count");
    r.add(f, a, c, "keys_moved_total", static_cast<double>(st.keys_moved_total), "count");
    r.add(f, a, c, "puts_that_grew", static_cast<double>(st.puts_that_grew), "count");
    r.add(f, a, c, "hash_computations", static_cast<double>(st.hash_computations), "count");
    r.add(f, a, c, "index_bytes", static_cast<double>(st.memory_bytes), "bytes");
    for (const auto& e : run.growths)
      if (e.keys_before >= 114688) max_moved_past_split = std::max(max_moved_past_split, e.keys_moved);
    const SideStats& s = run.side;
    if (s.reads + s.writes > 0) {
      const std::string rd = rep_case("side=reader", i), wr = rep_case("side=writer", i);
      r.add(f, a, rd, "ops", static_cast<double>(s.reads), "count");
      r.add(f, a, rd, "waited_on_growth", static_cast<double>(s.reads_waited_on_growth), "count");
      r.add(f, a, rd, "wait_max_us", us(s.read_wait_max_ns), "us");
      r.add(f, a, wr, "ops", static_cast<double>(s.writes), "count");
      r.add(f, a, wr, "waited_on_growth", static_cast<double>(s.writes_waited_on_growth), "count");
      r.add(f, a, wr, "wait_max_us", us(s.write_wait_max_ns), "us");
    }
  }
  r.add(f, a, "keys>=114688", "max_keys_moved", static_cast<double>(max_moved_past_split), "count");
}

void add_lookup_rows(kit::Results& r, const std::vector<LookupResult>& lookups) {
  const LookupResult* absl = nullptr;
  for (const auto& l : lookups)
    if (l.arm == "absl-flat") absl = &l;
  for (const auto& l : lookups) {
    const std::string c = fmt::format("keys={}", l.keys);
    r.add(kGR1, l.arm, c, "lookup_ns", l.hit_ns, "ns");
    r.add(kGR1, l.arm, c, "lookup_miss_ns", l.miss_ns, "ns");
    for (size_t i = 0; i < l.hit_ns_reps.size(); ++i) {
      r.add(kGR1, l.arm, rep_case(c, i), "lookup_ns", l.hit_ns_reps[i], "ns");
      r.add(kGR1, l.arm, rep_case(c, i), "lookup_miss_ns", l.miss_ns_reps[i], "ns");
    }
    r.add(kGR1, l.arm, c, "lookups", static_cast<double>(l.lookups), "count");
    r.add(kGR1, l.arm, c, "build_s", l.build_s, "s");
    if (absl) r.add_ratio(kGR1, l.arm, c, "lookup_vs_absl", kit::paired_ratio(l.hit_ns_reps, absl->hit_ns_reps), "ratio");
  }
}

void add_memory_rows(kit::Results& r, const MemResult& m) {
  const char* f = m.arm.rfind("text-", 0) == 0 ? kGR2 : kGR1;
  const std::string c = fmt::format("keys={};source=smaps_rollup", m.keys);
  if (!m.ok) {
    r.skip(m.arm, c, m.error);
    return;
  }
  r.add(f, m.arm, c, "bytes_per_key", m.smaps_bytes_per_key, "bytes");
  if (m.slots_per_key > 0) {
    r.add(f, m.arm, fmt::format("keys={};source=accounting", m.keys), "bytes_per_key",
          m.own_bytes_per_key, "bytes");
    r.add(f, m.arm, fmt::format("keys={}", m.keys), "slots_per_key", m.slots_per_key, "count");
    // The stored hash: 8 bytes in every slot, so 8 x slots/key a key counting empty slots.
    r.add(f, m.arm, fmt::format("keys={};per=slot", m.keys), "hash_bytes", sizeof(uint64_t), "bytes");
    r.add(f, m.arm, fmt::format("keys={};per=key", m.keys), "hash_bytes",
          sizeof(uint64_t) * m.slots_per_key, "bytes");
  }
}

void add_rebuild_rows(kit::Results& r, const RebuildResult& rb) {
  const std::string c = fmt::format("keys={}", rb.keys);
  if (!rb.same) {
    r.skip(rb.arm, c, "rebuild did not reproduce the keys: a bug, see the test suite 'index'");
    return;
  }
  add_ratio_rows(r, kGR1, rb.arm, c, "rebuild_s", rb.rebuild_s_reps, "s");
}

void add_db_rows(kit::Results& r, const std::vector<DbRun>& runs, uint64_t n) {
  const char* a = "fenecdb-unique";
  std::vector<PutRun> ok;
  for (size_t i = 0; i < runs.size(); ++i) {
    const DbRun& d = runs[i];
    const std::string all = rep_case("keys=all", i);
    if (!d.ok) {
      r.skip(a, all, d.error);
      continue;
    }
    ok.push_back(d.run);
    r.add_latency(kGR1, a, all, d.run.rec.histogram(), "put");
    r.add(kGR1, a, all, "puts", static_cast<double>(d.run.rec.histogram().count()), "count");
    r.add(kGR1, a, all, "put_seconds", d.run.seconds, "s");
    procs::AddStatRows(r, kGR1, a, all, d.stats);  // write_lock_hold_max_ns, GR-5's writes_deferred_for_sync ...
    r.add(kGR1, a, all, "duplicate_rejected", d.duplicate_rejected ? 1 : 0, "count");
    const std::string opened = rep_case(fmt::format("keys={}", d.count_after_open), i);
    r.add(kGR1, a, opened, "open_s", d.open_s, "s");
    r.add(kGR1, a, opened, "clash_found_after_open", d.found_after_open ? 1 : 0, "count");
  }
  if (ok.empty()) return;
  const auto fs = figures_of_all(ok, n);
  const std::string all = "keys=all";
  r.add_ratio(kGR1, a, all, "put_max_us", over_reps(fs, [](const PutFigures& x) { return x.max_us; }), "us");
  r.add_ratio(kGR1, a, all, "put_p999_us", over_reps(fs, [](const PutFigures& x) { return x.p999_us; }), "us");
  r.add_ratio(kGR1, a, all, "put_p99_us", over_reps(fs, [](const PutFigures& x) { return x.p99_us; }), "us");
  std::vector<Band> bands = bands_up_to(n);
  for (size_t b = 0; b < bands.size(); ++b) {
    const auto wall = pick(fs, [&](const PutFigures& x) { return x.band_max_us[b]; });
    if (*std::max_element(wall.begin(), wall.end()) > 0) r.add_ratio(kGR1, a, bands[b].label(), "put_max_us", kit::of_reps(wall), "us");
  }
}

std::vector<kit::Verdict> verdicts(const kit::Harness& h, const Summary& s) {
  std::vector<kit::Verdict> out;
  if (!s.unique_naive.empty() && !s.unique_sharded.empty()) {
    const StallFigures st = stall_figures(s.unique_naive, s.unique_sharded, s.keys);
    const LookupResult* ours = lookup_of(s, "unique-sharded");
    const LookupResult* absl = lookup_of(s, "absl-flat");
    const MemResult* mem = memory_of(s, "unique-sharded");
    const MemResult* amem = memory_of(s, "absl-flat");
    const auto fn = figures_of_all(s.unique_naive, s.keys);
    std::string naive_bands, source_bands;
    std::vector<Band> bl = bands_up_to(s.keys);
    for (size_t b = 2; b < bl.size(); ++b) {
      naive_bands += (naive_bands.empty() ? "" : ", ") + time_cell(band_reps(fn, b, false));
      source_bands += (source_bands.empty() ? "" : ", ") + source_band_figure(bl[b]);
    }
    const ExactPart hashes = one_hash_a_key(s);
    kit::Verdict v = findings::verdict(findings::gr1::kFinding);
    v.ours = fmt::format(
        "{}. naive's stalls at the doublings from 229 376 keys: {} (source {}). Lookup {} (source 83-93 ns at 4 M, "
        "not judged: its comparison, 121-144 ns without the stored hash, is no arm here); {}; stored hash 8 B a "
        "slot{}",
        stall_ours(st, std::min(s.unique_naive.size(), s.unique_sharded.size()), s.keys, "puts", "keys"),
        naive_bands.empty() ? "-" : naive_bands, source_bands.empty() ? "-" : source_bands,
        ours && absl ? fmt::format("{:.0f} ns vs absl {:.0f} ns = {} at {} keys", ours->hit_ns, absl->hit_ns,
                                   kit::format_ratio(kit::paired_ratio(ours->hit_ns_reps, absl->hit_ns_reps)),
                                   ours->keys)
                     : std::string("not measured"),
        hashes.what,
        mem ? fmt::format(" = {:.1f} B a key at {:.2f} slots a key; {:.0f} B a key in all (smaps) vs absl {}",
                          8 * mem->slots_per_key, mem->slots_per_key, mem->smaps_bytes_per_key,
                          amem ? fmt::format("{:.0f}", amem->smaps_bytes_per_key) : std::string("-"))
            : std::string());
    v.plot = h.plot_path("unique-stalls") + ".png";
    if (auto line = gr1_stall_line(st.lo)) {
      v.set(kit::judge({stall_check(s.unique_naive, s.unique_sharded, s.keys, *line,
                                     fmt::format("the source's {} at this doubling / its longest sharded put {} ms",
                                                 source_band_figure({st.lo, 2 * st.lo}), kGR1ShardedMs))},
                        {hashes}));
      v.reason += basis(st);
    } else {
      v.not_applicable(fmt::format("the run's last doubling ({} keys) is below the first the source measured "
                                   "(229 376): --keys above 229 376 reaches it",
                                   st.lo));
    }
    out.push_back(v);
  }
  if (!s.text_naive.empty() && !s.text_sharded.empty()) {
    const StallFigures st = stall_figures(s.text_naive, s.text_sharded, s.terms);
    kit::Verdict v = findings::verdict(findings::gr2::kFinding);
    v.ours = stall_ours(st, std::min(s.text_naive.size(), s.text_sharded.size()), s.terms, "distinct terms", "terms");
    v.plot = h.plot_path("text-stalls") + ".png";
    if (auto line = gr2_stall_line(st.lo)) {
      v.set(kit::judge({stall_check(s.text_naive, s.text_sharded, s.terms, *line,
                                     fmt::format("the source's {} ms at 3 670 016 terms scaled to {} by the terms "
                                                 "moved / its longest sharded put {} ms",
                                                 kGR2NaiveMs, st.lo, kGR2ShardedMs),
                                     "terms")},
                        {}));
      v.reason += basis(st);
    } else {
      v.not_applicable(fmt::format("the run's last doubling ({} terms) moves too few terms to compare: --terms "
                                   "above 114 688 reaches one",
                                   st.lo));
    }
    out.push_back(v);
  }
  for (auto& v : vector_verdicts(h, s)) out.push_back(std::move(v));
  return out;
}

}  // namespace fenec::scenarios::growth
