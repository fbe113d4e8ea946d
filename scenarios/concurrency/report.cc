#include "scenarios/concurrency/report.h"

#include <fmt/format.h>

#include <cmath>
#include <iostream>

#include "findings/catalogue.h"
#include "iobench/kit/console.h"
#include "iobench/kit/plot.h"
#include "scenarios/concurrency/report_util.h"
#include "scenarios/engines/workload.h"

namespace fenec::scenarios::concurrency {
using namespace engines;

using namespace report_detail;

// Each check's line follows the rule in report_util.h (kRoughly).

// ---- The peers: RocksDB and PostgreSQL group-commit too, so
// they are not part of CC-1's claim (fenecdb against an engine that syncs
// under its lock) or CC-2's; their rows sit beside fenecdb's in the tables,
// and fenecdb's lead on each is a target, reported, not asserted.
double cpu_us(const WriterFig& f) { return f.cpu_us_per_commit; }
double sync_us(const WriterFig& f) { return f.sync_us; }
// A durable arm's sync rounds: the commits one sync covers, and the time
// from one sync's start to the next's. rate = commits a round / round time,
// so a lead over a peer is one or the other (0 where nothing synced).
double commits_a_round(const WriterFig& f) { return f.fsyncs > 0 ? f.commits / f.fsyncs : 0; }
double round_us(const WriterFig& f) {
  return f.fsyncs > 0 && f.writes_per_s > 0 ? 1e6 * f.commits / (f.writes_per_s * f.fsyncs) : 0;
}

// A plain mean over the repetitions, for counts that can be 0 (a buffered
// arm's fsyncs a commit), which a geometric mean cannot hold.
std::string mean_of(const Reps<WriterFig>& reps, double (*get)(const WriterFig&), int decimals = 3) {
  const std::vector<double> v = figures(reps, get);
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? "unknown" : fmt::format("{:.{}f}", sum / static_cast<double>(v.size()), decimals);
}

struct Peer {
  const char* arm;
  double target;  // fenecdb / peer at the cell: our target
};

// Lines, ratio rows and targets for fenecdb-<mode> against each peer that
// ran at `writers`.
void add_peers(const Report& rep, const char* finding, const char* ours, int writers, std::initializer_list<Peer> peers,
               Judged* j) {
  const auto* mine = writer_reps(rep, ours, writers);
  if (!mine) return;
  for (const Peer& p : peers) {
    const auto* theirs = writer_reps(rep, p.arm, writers);
    if (!theirs) continue;
    const Ratio r = paired(*mine, *theirs, wps);
    const std::string case_ = fmt::format("writers={}", writers);
    j->ratios.push_back({finding, ours, case_, std::string("ratio_vs_") + p.arm, r});
    j->lines.push_back({finding, fmt::format("{} vs {}, {} writer{}", ours, p.arm, writers, writers == 1 ? "" : "s"),
                        "(a peer that group-commits too; no source figure)",
                        fmt::format("{} vs {} w/s ({}); fsyncs/commit {} vs {}; machine CPU a commit {} vs {}{}",
                                    count_ci(over_reps(*mine, wps)), count_ci(over_reps(*theirs, wps)),
                                    format_ratio(r), mean_of(*mine, per_commit), mean_of(*theirs, per_commit),
                                    us_ci(over_reps(*mine, cpu_us)), us_ci(over_reps(*theirs, cpu_us)),
                                    mean_of(*mine, commits_a_round) == "0.000"
                                        ? ""
                                        : fmt::format("; commits a sync round {} vs {}, a round {} vs {} us",
                                                      mean_of(*mine, commits_a_round, 1),
                                                      mean_of(*theirs, commits_a_round, 1),
                                                      mean_of(*mine, round_us, 0), mean_of(*theirs, round_us, 0)))});
    j->targets.push_back(target_row(finding,
                                    {fmt::format("{} >= {}x {} at {} writer{}", ours, p.target, p.arm, writers,
                                                 writers == 1 ? "" : "s"),
                                     r, p.target, true},
                                    "see fsyncs/commit and CPU per commit in the table above"));
  }
}

// The commit window against none (fenecdb-durable-nowindow), at each writer
// count both ran: the default's (adaptive) and a fixed one's
// (fenecdb-durable-window, --commit-window-us). Ours, targets, not the source's claim.
void add_window_lines(const Report& rep, Judged* j) {
  const auto none = rep.writers.find("fenecdb-durable-nowindow");
  if (none == rep.writers.end()) return;
  const std::pair<const char*, std::string> arms[] = {
      {"fenecdb-durable", "adaptive commit window"},
      {"fenecdb-durable-window", fmt::format("commit window {} us", rep.commit_window_us)}};
  for (const auto& [arm, what] : arms) {
    const auto it = rep.writers.find(arm);
    if (it == rep.writers.end()) continue;
    for (const auto& [w, reps] : it->second) {
      const auto* d = writer_reps(rep, "fenecdb-durable-nowindow", w);
      if (!d) continue;
      const Ratio r = paired(reps, *d, wps);
      const std::string case_ = fmt::format("writers={}", w);
      j->ratios.push_back({"CC-1", arm, case_, "ratio_vs_no_window", r});
      j->lines.push_back({"CC-1", fmt::format("{} vs none, {} writer{}", what, w, w == 1 ? "" : "s"),
                         "(ours: a round waits for the commits in flight)",
                         fmt::format("{} vs {} w/s ({}); commits a sync round {} vs {}, a round {} vs {} us",
                                     count_ci(over_reps(reps, wps)), count_ci(over_reps(*d, wps)), format_ratio(r),
                                     mean_of(reps, commits_a_round, 1), mean_of(*d, commits_a_round, 1),
                                     mean_of(reps, round_us, 0), mean_of(*d, round_us, 0))});
      const std::string commits = fmt::format("commits a round {} vs {} (every writer in every round: {})",
                                              mean_of(reps, commits_a_round, 1), mean_of(*d, commits_a_round, 1), w);
      if (w == 16)
        j->targets.push_back(target_row("CC-1", {fmt::format("16 durable writers, {} >= 1.3x none", what), r, 1.3, true},
                                        commits));
      // The default must never cost a lone writer: met, or straddling 1, is no slower.
      if (w == 1 && std::string(arm) == "fenecdb-durable")
        j->targets.push_back(target_row("CC-1", {"1 durable writer, adaptive commit window >= 1x none", r, 1.0, true},
                                        commits));
    }
  }
}

// ---- CC-1: durable writes scale with the writers.
//
// The finding (findings/CATALOGUE.md CC-1, seed 002) states no factor, only the
// direction of three things, and each is a check with that direction as its
// line: 16 writers share fsyncs (fewer fsyncs than commits: < 1 a commit),
// durable writes scale with the writers (16 writers write more than one: > 1),
// and SQLite, which syncs under its write lock, falls behind (fenecdb over
// sqlite-full at 16 writers > 1). Our 8x and 5x are targets, reported
// beside, not lines.
Judged judge_cc1(const Report& rep) {
  Judged j;
  j.verdict = findings::verdict(findings::cc1::kFinding);
  j.verdict.plot = plot_ref("writes_per_s");
  const auto* d1 = writer_reps(rep, "fenecdb-durable", 1);
  const auto* d16 = writer_reps(rep, "fenecdb-durable", 16);
  const auto* n16 = writer_reps(rep, "fenecdb-durable-naive", 16);
  const auto* sf16 = writer_reps(rep, "sqlite-full", 16);
  if (!d1 || !d16 || !sf16) {
    j.verdict.ours = "-";
    j.verdict.plot.clear();
    j.verdict.not_applicable("the 1- and 16-writer cells of fenecdb-durable and sqlite-full did not all run");
    add_window_lines(rep, &j);
    return j;
  }
  const Ratio scale = paired(*d16, *d1, wps);
  const Ratio vs_sqlite = paired(*d16, *sf16, wps);
  const Ratio fpc = over_reps(*d16, per_commit);
  const Ratio sq_fpc = over_reps(*sf16, per_commit);
  const Ratio d16_wps = over_reps(*d16, wps), d1_wps = over_reps(*d1, wps), sf16_wps = over_reps(*sf16, wps);
  j.ratios = {{"CC-1", "fenecdb-durable", "writers=16", "ratio_vs_1_writer", scale},
              {"CC-1", "fenecdb-durable", "writers=16", "ratio_vs_sqlite_full", vs_sqlite},
              {"CC-1", "fenecdb-durable", "writers=16", "fsyncs_per_commit_over_reps", fpc, "ratio"}};
  j.lines.push_back({"CC-1", "durable writes/s, 16 writers vs 1", "scales: 16 writers share fsyncs",
                     fmt::format("{} -> {} w/s ({})", count_ci(d1_wps), count_ci(d16_wps), format_ratio(scale))});
  j.lines.push_back({"CC-1", "fsyncs per commit, 16 writers", "shared (<1); SQLite FULL: 1 per commit",
                     fmt::format("fenecdb {}{}, sqlite-full {}", plain_ci(fpc, 3),
                                 n16 ? fmt::format(", naive {}", plain_ci(over_reps(*n16, per_commit), 2)) : "",
                                 plain_ci(sq_fpc, 2))});
  // Zero ahead (Options::journal_zero_ahead): not the source's claim, a
  // design choice of ours, shown against its switch turned off.
  for (const int w : {1, 16}) {
    const auto* z = w == 1 ? d1 : d16;
    const auto* a = writer_reps(rep, "fenecdb-durable-append", w);
    if (!a) continue;
    const Ratio r = paired(*z, *a, wps);
    j.ratios.push_back({"CC-1", "fenecdb-durable", fmt::format("writers={}", w), "ratio_vs_append_journal", r});
    j.lines.push_back({"CC-1", fmt::format("journal zeroed ahead vs appended, {} writer{}", w, w == 1 ? "" : "s"),
                       "(ours: overwrites need no size commit)",
                       fmt::format("{} vs {} w/s ({}); fdatasync mean {} vs {} us", count_ci(over_reps(*z, wps)),
                                   count_ci(over_reps(*a, wps)), format_ratio(r), mean_of(*z, sync_us, 0),
                                   mean_of(*a, sync_us, 0))});
  }
  add_window_lines(rep, &j);
  j.lines.push_back({"CC-1", "durable fenecdb vs sqlite-full, 16 writers", "fenecdb ahead (no figure given)",
                     fmt::format("{} vs {} w/s ({})", count_ci(d16_wps), count_ci(sf16_wps), format_ratio(vs_sqlite))});
  const std::vector<Check> checks = {
      {"fenecdb-durable fsyncs/commit at 16 writers", fpc, findings::cc1::kShared.value, false},
      {"fenecdb-durable 16 writers/1, writes/s", scale, findings::cc1::kScales.value, true},
      {"fenecdb-durable/sqlite-full at 16 writers, writes/s", vs_sqlite, findings::cc1::kAhead.value, true},
  };
  j.verdict.set(kit::judge(checks));
  j.verdict.ours = fmt::format("16 writers {} w/s: {} one writer, {} sqlite-full; fsyncs/commit {} (sqlite-full {})",
                               count_ci(d16_wps), format_ratio(scale), format_ratio(vs_sqlite), plain_ci(fpc, 3),
                               plain_ci(sq_fpc, 2));
  const double commits_per_fsync = fpc.known() && fpc.value > 0 ? 1 / fpc.value : 0;
  j.targets.push_back(target_row("CC-1", {"16 durable writers >= 8x 1 writer", scale, 8, true},
                                 fmt::format("{:.1f} commits/fsync at 16; 1 writer = one fsync round each",
                                             commits_per_fsync)));
  j.targets.push_back(target_row("CC-1", {"16 durable writers >= 5x sqlite-full", vs_sqlite, 5, true},
                                 "fsync latency of this device bounds both arms' rounds"));
  add_peers(rep, "CC-1", "fenecdb-durable", 16, {{"rocksdb-durable", 1.5}, {"postgres-durable", 2.5}}, &j);
  return j;
}

// ---- CC-2: without fsync one fenecdb writer is 12x SQLite NORMAL; handing
// the lock among 16 writers costs more than half of that.
//
// Two parts, two checks. The first line is half the source's 12x (held
// roughly, see the lines above); the second is the finding's own bound: 16
// writers < 0.5x one. A
// buffered writers cell runs on several fresh stores (main.cc: one store
// keeps one of two speeds for its life), and the line shows their range.
//
// The handover is judged on rounds, not repetitions: round k of repetition
// r ran at 1 and at 16 writers in the same turn of writers_part's loop,
// seconds apart, each on a fresh store, so the pairs are the rounds (30 in
// quick mode), and the verdict takes the median pair with its
// order-statistic interval (stats.h). At 16 writers a store meets the
// host's slow placement for a while (a third to a half of the usual rate;
// one writer never does), and
// over 3 quick repetitions one such stretch gave 0.67x [0.45, 1.02] where
// the runs before and after gave 0.80x [0.75, 0.85]: a mean over
// repetitions judged how long that stretch lasted. The rounds in a slow
// stretch are counted and the repetitions' ratio shown beside.
// CC-2's handover from the lock's own counts, per put, at 1 and 16
// writers (medians over the repetitions): how often the lock passed to
// another thread, how often a writer found it held (a futex wait), and how
// long a put held it. The source's 16 writers lost more than half the rate
// handing the lock between an M1's cores at nearly every put; where the
// counts show handovers at a small share of the puts, the lock mostly stays
// with the writer the scheduler is running, and there is little to lose.
std::string cc2_lock_counts(const Reps<WriterFig>& one, const Reps<WriterFig>& sixteen) {
  auto per_put = [](const Reps<WriterFig>& reps, double WriterFig::*f) {
    std::vector<double> v;
    for (const auto& [rep, x] : reps)
      if (x.*f >= 0 && x.lock_acquisitions > 0) v.push_back(x.*f / x.lock_acquisitions);
    return v.empty() ? -1.0 : kit::median(v);
  };
  const double h16 = per_put(sixteen, &WriterFig::lock_handovers), c16 = per_put(sixteen, &WriterFig::lock_contended);
  if (h16 < 0 || c16 < 0) return "";
  return fmt::format(
      "the lock's counts a put, 1 writer / 16: handed to another thread {:.3f} / {:.3f}, found held (a futex wait) "
      "{:.3f} / {:.3f}, held {:.2f} / {:.2f} us, waited for {:.2f} / {:.2f} us: at 16 writers the lock passed "
      "between threads at {:.1f}% of the puts",
      per_put(one, &WriterFig::lock_handovers), h16, per_put(one, &WriterFig::lock_contended), c16,
      per_put(one, &WriterFig::lock_hold_ns) / 1000, per_put(sixteen, &WriterFig::lock_hold_ns) / 1000,
      per_put(one, &WriterFig::lock_wait_ns) / 1000, per_put(sixteen, &WriterFig::lock_wait_ns) / 1000, 100 * h16);
}

constexpr double kCc2Ratio = findings::cc2::kRatio.value;  // 12 / kRoughly
constexpr double kCc2Handover = findings::cc2::kHandover.value;

Judged judge_cc2(const Report& rep) {
  Judged j;
  j.verdict = findings::verdict(findings::cc2::kFinding);
  j.verdict.plot = plot_ref("writes_per_s");
  const auto* b1 = writer_reps(rep, "fenecdb-buffered", 1);
  const auto* b16 = writer_reps(rep, "fenecdb-buffered", 16);
  const auto* sn1 = writer_reps(rep, "sqlite-normal", 1);
  if (!b1 || !sn1) {
    j.verdict.ours = "-";
    j.verdict.plot.clear();
    j.verdict.not_applicable("fenecdb-buffered or sqlite-normal 1-writer cell did not run");
    return j;
  }
  const Ratio r = paired(*b1, *sn1, wps);
  j.ratios.push_back({"CC-2", "fenecdb-buffered", "writers=1", "ratio_vs_sqlite_normal", r});
  j.lines.push_back({"CC-2", "1 buffered writer vs sqlite-normal", "12x",
                     fmt::format("{} vs {} w/s ({})", count_ci(over_reps(*b1, wps)), count_ci(over_reps(*sn1, wps)),
                                 format_ratio(r))});
  std::vector<Check> checks = {{"fenecdb-buffered/sqlite-normal, 1 writer", r, kCc2Ratio, true}};
  std::string handover = "16-writer cell not run";
  if (b16) {
    const Ratio by_rep = paired(*b16, *b1, wps);
    std::vector<double> rounds16, rounds1;
    for (const auto& [r, f16] : *b16) {
      const auto one = b1->find(r);
      if (one == b1->end() || one->second.round_rates.size() != f16.round_rates.size()) continue;
      rounds16.insert(rounds16.end(), f16.round_rates.begin(), f16.round_rates.end());
      rounds1.insert(rounds1.end(), one->second.round_rates.begin(), one->second.round_rates.end());
    }
    // Rounds where they were kept (a run's cells); the repetitions otherwise.
    const bool on_rounds = rounds16.size() >= 6;
    const Ratio r16 = on_rounds ? kit::median_ratio(rounds16, rounds1) : by_rep;
    size_t slow = 0;
    for (size_t i = 0; i < rounds16.size(); ++i) slow += rounds16[i] < 0.5 * r16.value * rounds1[i];
    j.ratios.push_back({"CC-2", "fenecdb-buffered", "writers=16", "ratio_vs_1_writer", r16});
    double lo = 0, hi = 0;
    for (const auto& [k, f] : *b16) {
      lo = lo == 0 ? f.store_min : std::min(lo, f.store_min);
      hi = std::max(hi, f.store_max);
    }
    j.lines.push_back({"CC-2", "16 buffered writers vs 1 (lock handover)", "< 0.5x (costs more than half)",
                       fmt::format("{} (16 writers: {} to {} w/s from one round to another)", format_ratio(r16),
                                   format_count(lo), format_count(hi))});
    checks.push_back({on_rounds ? "fenecdb-buffered 16 writers/1 (handover), median round"
                                : "fenecdb-buffered 16 writers/1 (handover)",
                      r16, kCc2Handover, false});
    handover = on_rounds ? fmt::format("16 writers/1 {} the median of {} round pairs ({} of them in a slow stretch, "
                                       "under half the median; over the repetitions {})",
                                       format_ratio(r16), rounds16.size(), slow, format_ratio(by_rep))
                         : fmt::format("16 writers/1 {}", format_ratio(r16));
  }
  j.verdict.set(kit::judge(checks));
  const std::string counts = b16 ? cc2_lock_counts(*b1, *b16) : "";
  if (j.verdict.outcome == kit::Outcome::kPartly && b16 && kit::check_result(checks[1]) == kit::CheckResult::kMissed) {
    j.verdict.reason += " (2 cores here: at most two writers contend for the lock at once; " +
                        (counts.empty() ? std::string("the lock's counts were not read") : counts) + ")";
  }
  j.verdict.ours = fmt::format("1 writer {} sqlite-normal; {}{}", format_ratio(r), handover,
                               counts.empty() ? "" : "; " + counts);
  j.targets.push_back(target_row("CC-2", {"1 buffered writer >= 10x sqlite-normal", r, 10, true},
                                 "SQLite NORMAL commits reach the page cache only; both arms are CPU-bound here"));
  add_peers(rep, "CC-2", "fenecdb-buffered", 1, {{"rocksdb-buffered", 1.5}}, &j);
  return j;
}

// ---- CC-3: a batch holds the write lock only to land its rows.
//
// Judged on the median write-lock hold a batch (fenecdb's Stats around each
// batch): a preempted holder (this box is shared) moves the mean and the
// longest, not the median. The source: ~0.5 ms built under the lock, ~0.15
// ms built outside, 3.3x; the line is half of that (1.65x, "roughly", see
// the lines above). Buffered decides (its hold is the engine's alone);
// durable is shown.
constexpr double kCc3Line = findings::cc3::kHold.value;  // ~0.5 / ~0.15 ms, over kRoughly

Judged judge_cc3(const Report& rep) {
  Judged j;
  j.verdict = findings::verdict(findings::cc3::kFinding);
  j.verdict.plot = plot_ref("batch_hold");
  if (const auto* sq = reps_of(rep.batches, "sqlite-normal")) {
    j.lines.push_back({"CC-3", "SQLite readers beside batches (WAL, NORMAL)", "213 k reads/s, longest 4.8 ms",
                       fmt::format("{} reads/s, longest {}",
                                   count_ci(over_reps(*sq, [](const MixedFig& f) { return f.reads_per_s; })),
                                   us_ci(over_reps(*sq, [](const MixedFig& f) { return f.read_max_us; })))});
  }
  const auto hold = [](const MixedFig& f) { return f.batch_hold_p50_us; };
  bool judged = false;
  for (const std::string mode : {"buffered", "durable"}) {
    const auto* out = reps_of(rep.batches, "fenecdb-" + mode);
    const auto* in = reps_of(rep.batches, "fenecdb-" + mode + "-naive");
    if (!out || !in || out->begin()->second.batch_hold_p50_us < 0 || in->begin()->second.batch_hold_p50_us < 0) continue;
    const Ratio r = paired(*in, *out, hold);
    j.ratios.push_back({"CC-3", "fenecdb-" + mode, rep.batches_case, "batch_hold_ratio_under_vs_outside", r});
    const auto mean_hold = [](const MixedFig& f) { return f.lock_hold_mean_us; };
    j.lines.push_back({"CC-3", fmt::format("write lock held a 1 000-row batch, built under -> outside ({})", mode),
                       "~0.5 ms -> ~0.15 ms",
                       fmt::format("median {} -> {} ({}); mean {} -> {}", us_ci(over_reps(*in, hold)),
                                   us_ci(over_reps(*out, hold)), format_ratio(r), us_ci(over_reps(*in, mean_hold)),
                                   us_ci(over_reps(*out, mean_hold)))});
    const auto blocked = [](const MixedFig& f) { return f.read_blocked_p50_us; };
    const auto longest = [](const MixedFig& f) { return f.read_max_us; };
    j.lines.push_back(
        {"CC-3", fmt::format("readers that waited (> 10 us): median / longest, under -> outside ({})", mode),
         "median 0.4 -> 0.08 ms",
         fmt::format("{} / {} -> {} / {}", us_ci(over_reps(*in, blocked)), us_ci(over_reps(*in, longest)),
                     us_ci(over_reps(*out, blocked)), us_ci(over_reps(*out, longest)))});
    if (judged) continue;
    judged = true;
    j.verdict.set(kit::judge({{fmt::format("median hold under/outside the lock ({})", mode), r, kCc3Line, true}}));
    j.verdict.ours = fmt::format("{}: median hold {} -> {} ({})", mode, us_ci(over_reps(*in, hold)),
                                 us_ci(over_reps(*out, hold)), format_ratio(r));
  }
  if (!judged) {
    j.verdict.ours = "-";
    j.verdict.plot.clear();
    j.verdict.not_applicable("fenecdb batch cells did not run");
  }
  return j;
}

// ---- CC-4: disk waits stay out of the lock; no single wait reaches 17 ms.
//
// Two parts, both counts that must be zero, so both categorical: no 1 MB
// buffer written under the lock (fenecdb's Stats), and no write-lock hold
// reaching 17 ms (the finding's line; the longest hold of every repetition,
// the engine's own Stats). The claim is about a single wait, so the longest
// is the figure, and one hold past 17 ms refutes it; an interval over the
// repetitions' longest would instead extrapolate from one holder the
// scheduler preempted (2.5 ms beside 0.5 ms) to 17 ms when no hold came near
// it. The repetitions' longest with their interval, and the readers' p99,
// p99.9 and longest (the scheduler's as much as the engine's on a shared
// 2-core box), are shown beside.
constexpr double kCc4LineUs = findings::cc4::kHoldUs.value;

Judged judge_cc4(const Report& rep) {
  Judged j;
  j.verdict = findings::verdict(findings::cc4::kFinding);
  j.verdict.plot = plot_ref("read_wait_writers");
  const auto* f = reps_of(rep.readers, "fenecdb-buffered");
  if (!f || f->begin()->second.buffer_flushes < 0) {
    j.verdict.ours = "-";
    j.verdict.plot.clear();
    j.verdict.not_applicable("the fenecdb-buffered readers cell did not run");
    return j;
  }
  double flushes = 0, under = 0;
  for (const auto& [r, fig] : *f) {
    flushes += fig.buffer_flushes;
    under += fig.buffer_flushes_under_lock;
  }
  const auto hold_max = [](const MixedFig& m) { return m.lock_hold_max_us; };
  const Ratio hold = over_reps(*f, hold_max);
  const Ratio p99 = over_reps(*f, [](const MixedFig& m) { return m.read_p99_us; });
  const Ratio p999 = over_reps(*f, [](const MixedFig& m) { return m.read_p999_us; });
  const Ratio longest = over_reps(*f, [](const MixedFig& m) { return m.read_max_us; });
  j.ratios.push_back({"CC-4", "fenecdb-buffered", rep.readers_case, "lock_hold_max_us_over_reps", hold, "us"});
  j.ratios.push_back({"CC-4", "fenecdb-buffered", rep.readers_case, "read_wait_p999_us_over_reps", p999, "us"});
  j.ratios.push_back({"CC-4", "fenecdb-buffered", rep.readers_case, "read_wait_max_us_over_reps", longest, "us"});
  j.lines.push_back({"CC-4", "longest lock hold / readers' wait p99, p99.9, longest; buffer written after unlock",
                     "< 17 ms (17.4 ms before)",
                     fmt::format("{} / {}, {}, {}; {:.0f} flushes, {:.0f} under the lock", us_ci(hold), us_ci(p99),
                                 us_ci(p999), us_ci(longest), flushes, under)});
  if (const auto* n = reps_of(rep.readers, "fenecdb-buffered-naive"); n && n->begin()->second.lock_hold_max_us >= 0) {
    double nf = 0, nu = 0;
    for (const auto& [r, fig] : *n) {
      nf += fig.buffer_flushes;
      nu += fig.buffer_flushes_under_lock;
    }
    j.lines.push_back({"CC-4", "the same, buffer written under the lock (naive)", "1.5-11 ms a flush on macOS",
                       fmt::format("{} / {}, {}, {}; {:.0f} flushes, {:.0f} under the lock",
                                   us_ci(over_reps(*n, hold_max)),
                                   us_ci(over_reps(*n, [](const MixedFig& m) { return m.read_p99_us; })),
                                   us_ci(over_reps(*n, [](const MixedFig& m) { return m.read_p999_us; })),
                                   us_ci(over_reps(*n, [](const MixedFig& m) { return m.read_max_us; })), nf, nu)});
  }
  double longest_hold = 0;
  int holds_past_line = 0;
  for (const auto& [r, fig] : *f) {
    longest_hold = std::max(longest_hold, fig.lock_hold_max_us);
    holds_past_line += fig.lock_hold_max_us >= kCc4LineUs;
  }
  j.verdict.ours = fmt::format(
      "longest lock hold {} (a repetition's: {}; {:.0f} flushes, {:.0f} under the lock); readers' wait p99 {}, "
      "p99.9 {}, longest {}",
      format_us(longest_hold), us_ci(hold), flushes, under, us_ci(p99), us_ci(p999), us_ci(longest));
  const std::string holds = fmt::format("the longest write-lock hold of {} repetitions {} {} 17 ms", f->size(),
                                        format_us(longest_hold), holds_past_line ? ">=" : "<");
  if (flushes <= 0) {
    j.verdict.not_applicable("no 1 MB buffer filled during the cells");
  } else if (under > 0 || holds_past_line > 0) {
    j.verdict.set({kit::Outcome::kNotReproduced,
                   fmt::format("{:.0f} of {:.0f} buffers written under the lock (a count that must be 0); {}", under,
                               flushes, holds)});
  } else {
    j.verdict.set({kit::Outcome::kReproduced,
                   fmt::format("no buffer written under the lock ({:.0f} flushes; a count that must be 0); {} (no "
                               "single wait reaches it: judged on the longest, categorically)",
                               flushes, holds)});
  }
  return j;
}


void judge(kit::Harness& h, const Report& rep) {
  std::vector<Line> lines;
  kit::Table targets({"finding", "target (issues 3, 14)", "ours", "", "what limits it"});
  auto& res = h.results();
  for (Judged (*f)(const Report&) : {judge_cc1, judge_cc2, judge_cc3, judge_cc4, judge_cc5}) {
    Judged j = f(rep);
    for (const RatioRow& r : j.ratios) res.add_ratio(r.finding, r.arm, r.case_, r.metric, r.ratio, r.unit);
    lines.insert(lines.end(), j.lines.begin(), j.lines.end());
    for (auto& t : j.targets) targets.row(std::move(t));
    res.verdict(std::move(j.verdict));
  }
  kit::Table t({"finding", "figure", "source (M1, F_FULLFSYNC)", "ours (this machine; [95% interval])"});
  for (const Line& l : lines) t.row({l.finding, l.figure, l.source, l.ours});
  std::cout << "\n" << t.str() << "\nTargets (reported, not asserted):\n" << targets.str();
}

}  // namespace fenec::scenarios::concurrency
