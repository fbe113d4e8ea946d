#include "scenarios/growth/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "iobench/kit/interrupt.h"
#include "iobench/kit/console.h"
#include "scenarios/growth/fenecdb_arm.h"
#include "scenarios/growth/gr5.h"
#include "scenarios/growth/lookup.h"
#include "scenarios/growth/report.h"
#include "scenarios/growth/workload.h"

namespace fenec::scenarios::growth {
namespace {

PutRun put_run(kit::Harness& h, Kind kind, index::Arm arm, uint64_t n, const Options& o) {
  PutRun run =
      run_puts(kind, arm, n, o.key_style == "short" ? KeyStyle::kShort : KeyStyle::kEmail, !o.no_side, o.plot_points);
  if (run.interrupted) h.results().mark_incomplete("interrupted during " + arm_of(kind, arm));
  return run;
}

constexpr int kReopenMinReps = 8;
// GR-1's naive/sharded pair runs at least kStallMinReps times (a run is about
// a second of puts an arm in quick). Its verdict divides two CPU times, and a
// stretch of host steal inflates one run's sharded growths several times over
// (the thread's CPU clock counts the host's time): over 3 repetitions such a
// run widens the interval across the line; over 8 it moves it less.
constexpr int kStallMinReps = 8;

// GR-3 then GR-4, each arm once a repetition, interleaved.
void run_vector_parts(kit::Harness& h, const Options& o, Summary& sum) {
  using index::vec::OpenArm;
  using index::vec::TableArm;
  const int reps = h.reps();
  sum.vectors = o.vectors;
  {
    kit::Progress progress(fmt::format("growth: {} vector puts (GR-3)", o.vectors), 2 * static_cast<uint64_t>(reps));
    uint64_t done = 0;
    kit::run_interleaved(reps, 2, [&](size_t a, int rep) {
      progress.update(done++, fmt::format("arm {} of 2, run {}", a + 1, rep + 1));
      const TableArm arm = a == 0 ? TableArm::kNaive : TableArm::kSharded;
      VectorPutRun run = run_vector_puts(arm, o.vectors, h.seed(), o.plot_points);
      if (run.interrupted) h.results().mark_incomplete("interrupted during " + vector_arm_name(arm));
      (a == 0 ? sum.vec_naive : sum.vec_sharded).push_back(std::move(run));
    });
    progress.finish();
    add_vector_put_rows(h.results(), TableArm::kNaive, o.vectors, sum.vec_naive);
    add_vector_put_rows(h.results(), TableArm::kSharded, o.vectors, sum.vec_sharded);
    attach_vector_growths(h.results(), sum);
  }
  if (kit::stop_requested()) return;
  // GR-4's pair runs at least kReopenMinReps times: a run is a copy and an
  // open (a fraction of a second in quick mode), and the kept arm's first
  // write is under a millisecond of CPU, so over 3 runs one slow write
  // carries the interval to the line of 10; over 8 it stays clear of it.
  const int reopen_reps = std::max(reps, kReopenMinReps);
  kit::Progress progress(fmt::format("growth: reopen {} vectors (GR-4)", o.vector_base),
                         1 + 2 * static_cast<uint64_t>(reopen_reps));
  progress.update(0, "building the collection");
  sum.vec_base = build_vector_base(h.data_dir() + "/vector-base", o.vector_base, h.seed());
  add_vector_base_rows(h.results(), sum.vec_base);
  if (sum.vec_base.ok) {
    uint64_t done = 1;
    kit::run_interleaved(reopen_reps, 2, [&](size_t a, int rep) {
      progress.update(done++, fmt::format("arm {} of 2, run {}", a + 1, rep + 1));
      const OpenArm arm = a == 0 ? OpenArm::kNaive : OpenArm::kKept;
      // A new vector each run (rows past the collection's).
      (a == 0 ? sum.reopen_naive : sum.reopen_kept)
          .push_back(reopen_and_write(sum.vec_base, h.data_dir() + "/vector-reopen", arm, h.seed(),
                                      o.vector_base + 2 * static_cast<uint64_t>(rep) + a));
    });
    add_reopen_rows(h.results(), OpenArm::kNaive, sum.vec_base, sum.reopen_naive);
    add_reopen_rows(h.results(), OpenArm::kKept, sum.vec_base, sum.reopen_kept);
  }
  progress.finish();
  add_vector_ratio_rows(h.results(), sum);
  std::error_code ec;
  std::filesystem::remove_all(sum.vec_base.dir, ec);
}

// GR-5: the naive arm and fenecdb, once each a repetition, interleaved; one
// sequence (--reps auto) judged by gr5_checks.
void run_gr5_part(kit::Harness& h, const Options& o) {
  Gr5Config cfg;
  cfg.seconds = o.gr5_seconds;
  cfg.sync_ms = o.gr5_sync_ms;
  cfg.sync_delay_us = o.gr5_sync_delay_us;
  std::vector<Gr5Run> fenecdb, naive;
  kit::Progress progress("growth: GR-5, puts beside the periodic fsync", 2 * static_cast<uint64_t>(h.reps()));
  uint64_t done = 0;
  auto judge = [&](const kit::Window& w) { return gr5_checks(fenecdb, naive, w); };
  kit::Sequence& seq = h.sequence("GR-5");
  seq.run(2, [&](size_t a, int rep) {
    Gr5Config c = cfg;
    c.arm = a == 0 ? "naive" : "fenecdb";
    c.dir = fmt::format("{}/gr5-{}", h.data_dir(), c.arm);
    progress.update(done++, fmt::format("{}, run {}", c.arm, rep + 1));
    (a == 0 ? naive : fenecdb).push_back(run_gr5(c));
  }, judge);
  progress.finish();
  add_gr5_rows(h.results(), "fenecdb", cfg, fenecdb);
  add_gr5_rows(h.results(), "naive", cfg, naive);
  h.results().verdict(gr5_verdict(fenecdb, naive, seq.checks(judge), cfg));
}

}  // namespace

int run(kit::Harness& h, const Options& o) {
  const int reps = h.reps();
  const KeyStyle style = o.key_style == "short" ? KeyStyle::kShort : KeyStyle::kEmail;
  h.results().meta().set("key_style", o.key_style);
  h.results().meta().set("discipline", "index under std::shared_mutex (engine write-lock discipline)");

  fmt::print(
      "growth-bench: the index under the engine's write-lock discipline (std::shared_mutex: "
      "puts exclusive, lookups shared), called directly; then through fenecdb.\n");

  Summary sum;
  sum.keys = o.keys;
  sum.terms = o.terms;
  sum.plot_points = o.plot_points;
  using index::Arm;
  if (!o.skip_unique) {
    // Cell 1: @unique puts, naive, sharded, through fenecdb, naive ...
    // The naive/sharded pair runs at least kStallMinReps times (see there);
    // the fenecdb arm --reps times, in the first rounds.
    const size_t arms = o.skip_db ? 2 : 3;
    const int stall_reps = std::max(reps, kStallMinReps);
    kit::Progress progress(fmt::format("growth: {} @unique puts", o.keys),
                           2 * static_cast<uint64_t>(stall_reps) + (arms - 2) * static_cast<uint64_t>(reps));
    uint64_t done = 0;
    kit::run_interleaved(stall_reps, arms, [&](size_t a, int rep) {
      if (a == 2 && rep >= reps) return;
      progress.update(done++, fmt::format("arm {} of {}, run {}", a + 1, arms, rep + 1));
      if (a == 0) {
        sum.unique_naive.push_back(put_run(h, Kind::kUnique, Arm::kNaive, o.keys, o));
      } else if (a == 1) {
        sum.unique_sharded.push_back(put_run(h, Kind::kUnique, Arm::kSharded, o.keys, o));
      } else {
        const std::string dir = fmt::format("{}/fenecdb-{}", h.data_dir(), rep + 1);
        sum.db.push_back(run_fenecdb(o.keys, style, dir, o.plot_points));
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
      }
    });
    progress.finish();
    add_put_rows(h.results(), Kind::kUnique, Arm::kNaive, o.keys, sum.unique_naive);
    add_put_rows(h.results(), Kind::kUnique, Arm::kSharded, o.keys, sum.unique_sharded);
    if (!sum.db.empty()) add_db_rows(h.results(), sum.db, o.keys);
  }
  if (!o.skip_text && !kit::stop_requested()) {
    // Cell 2: @text term puts, naive, sharded, naive ...
    kit::Progress progress(fmt::format("growth: {} @text terms", o.terms), 2 * static_cast<uint64_t>(reps));
    uint64_t done = 0;
    kit::run_interleaved(reps, 2, [&](size_t a, int rep) {
      progress.update(done++, fmt::format("arm {} of 2, run {}", a + 1, rep + 1));
      (a == 0 ? sum.text_naive : sum.text_sharded)
          .push_back(put_run(h, Kind::kText, a == 0 ? Arm::kNaive : Arm::kSharded, o.terms, o));
    });
    progress.finish();
    add_put_rows(h.results(), Kind::kText, Arm::kNaive, o.terms, sum.text_naive);
    add_put_rows(h.results(), Kind::kText, Arm::kSharded, o.terms, sum.text_sharded);
  }
  if (!o.skip_vector && !kit::stop_requested()) run_vector_parts(h, o, sum);
  if (!o.skip_gr5 && !kit::stop_requested()) run_gr5_part(h, o);
  if (!o.skip_lookup && !kit::stop_requested()) {
    kit::Progress progress("growth: lookups", 1);
    progress.update(0, fmt::format("{} keys x 4 maps, {} rounds", o.lookup_keys, reps));
    sum.lookups = run_lookups(o.lookup_keys, o.lookups, reps, style, h.seed());
    progress.finish();
    add_lookup_rows(h.results(), sum.lookups);
    if (!kit::stop_requested()) {
      sum.rebuilds = time_rebuilds(o.lookup_keys, style, reps);
      for (const auto& rb : sum.rebuilds) add_rebuild_rows(h.results(), rb);
    }
  }
  if (!o.skip_memory && !kit::stop_requested()) {
    // Bytes a key: a count, the same in every run, so measured once.
    std::vector<std::pair<std::string, uint64_t>> cells;
    for (const char* arm : kLookupArms) cells.emplace_back(arm, o.lookup_keys);
    if (!o.skip_text) {
      cells.emplace_back("text-sharded", o.terms);
      cells.emplace_back("text-naive", o.terms);
    }
    kit::Progress progress("growth: memory", cells.size());
    size_t done = 0;
    for (const auto& [arm, n] : cells) {
      if (kit::stop_requested()) break;
      MemResult m = measure_memory(arm, n, style);
      add_memory_rows(h.results(), m);
      sum.memory.push_back(m);
      progress.update(++done, arm);
    }
    progress.finish();
  }
  print_summary(sum);
  write_plots(h, sum);
  for (auto& v : verdicts(h, sum)) h.results().verdict(std::move(v));
  return h.finish();
}

}  // namespace fenec::scenarios::growth
