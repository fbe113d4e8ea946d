// What the concurrency bench judges: the figures each part keeps per
// repetition for the plots, the table beside the source's figures, the
// targets (our own lines) and the verdicts for CC-1..CC-5.
//
// Every cell runs h.reps() times, its arms interleaved (main.cc), and keeps
// one figure set a repetition: a headline ratio is then kit::paired_ratio of
// repetition i of one arm over repetition i of the other, with its 95%
// interval, and a verdict is kit::judge of checks on those intervals.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "iobench/kit/harness.h"
#include "iobench/kit/stats.h"
#include "iobench/kit/verdict.h"

namespace fenec::scenarios::concurrency {

// One repetition of one (arm, writers) cell of the writers part.
struct WriterFig {
  double writes_per_s = 0;  // over the cell's stores together
  double commits = 0, fsyncs = 0;
  double write_max_us = 0;
  double store_min = 0, store_max = 0;  // the slowest and fastest store's rate (buffered arms: several stores)
  double cpu_us_per_commit = -1;        // the machine's busy CPU a commit, every process (-1: unknown)
  double sync_us = -1;                  // the mean sync, where the engine times its own (PostgreSQL; -1: not)
  std::vector<double> round_rates;      // buffered arms: each round's store's rate, round 0 first
  // fenecdb: the write lock's counts over the cell (its Stats, summed over
  // the rounds; -1 elsewhere): CC-2's handover, from counters.
  double lock_acquisitions = -1, lock_handovers = -1, lock_contended = -1, lock_hold_ns = -1, lock_wait_ns = -1;
};

// One repetition of a readers-beside-writers (CC-4) or readers-beside-batches (CC-3) cell.
struct MixedFig {
  double reads_per_s = 0, writes_per_s = 0;
  double read_p50_us = 0, read_p99_us = 0, read_p999_us = 0, read_max_us = 0;
  double reads_blocked = 0, read_blocked_p50_us = 0;  // reads over 10 us, and their median
  // fenecdb only (-1: not observable in the arm).
  double lock_hold_mean_us = -1, lock_hold_max_us = -1;
  double batch_hold_p50_us = -1;  // batches: the median write-lock hold a batch
  double buffer_flushes = -1, buffer_flushes_under_lock = -1;
};

// One repetition of a long-read cell (CC-5).
struct LongFig {
  double write_wait_max_us = 0, write_wait_p999_us = 0, write_wait_p99_us = 0, write_wait_p50_us = 0;
  // The waits of the writes that overlapped a long read (began before it
  // ended, ended after it began), over this repetition's reads: CC-5 is
  // judged on their p99.9. And of the writes in as long a window just before
  // each read: what the writers wait with no long read.
  double during_p50_us = 0, during_p99_us = 0, during_p999_us = 0, during_max_us = 0;
  double before_p999_us = 0, before_max_us = 0;
  double writes_per_s = 0;
  double alone_ms = 0, long_read_mean_ms = 0;
  double pin_mean_us = -1, pin_max_us = -1;  // beside the writers: includes waiting for the shared lock
  double alone_pin_us = -1;                   // the first pin, with no writer: the copy, on cold memory
  double lock_wait_max_us = -1;  // fenecdb: longest wait for the write lock (its Stats)
  bool answers_ok = true;
  std::vector<std::pair<double, double>> wait_series;  // (s, us)
  std::vector<double> long_read_at_s;
};

// Repetition number -> that repetition's figures. A cell that failed (a
// skip) has no entry, so pairing two arms takes the repetitions both ran.
template <typename Fig>
using Reps = std::map<int, Fig>;

struct Report {
  std::map<std::string, std::map<int, Reps<WriterFig>>> writers;  // arm -> writers -> reps
  std::map<std::string, Reps<MixedFig>> readers;                  // readers beside writers (CC-4)
  std::map<std::string, Reps<MixedFig>> batches;                  // readers beside batches (CC-3)
  std::map<std::string, Reps<LongFig>> long_read;                 // CC-5
  std::string readers_case, batches_case, long_case;
  uint32_t commit_window_us = 0;  // fenecdb-durable-window's
};

// Figure `get` of every repetition of `a`, in repetition order.
template <typename Fig, typename Get>
std::vector<double> figures(const Reps<Fig>& a, Get get) {
  std::vector<double> out;
  for (const auto& [rep, f] : a) out.push_back(get(f));
  return out;
}

// Figure `get` of a over that of b, repetition by repetition, for the
// repetitions both ran (kit::paired_ratio: geometric mean and 95% interval).
template <typename Fig, typename Get>
kit::Ratio paired(const Reps<Fig>& a, const Reps<Fig>& b, Get get) {
  std::vector<double> x, y;
  for (const auto& [rep, fa] : a) {
    auto it = b.find(rep);
    if (it == b.end()) continue;
    x.push_back(get(fa));
    y.push_back(get(it->second));
  }
  return kit::paired_ratio(x, y);
}

// One row of the console table beside the source's figures.
struct Line {
  std::string finding, figure, source, ours;
};

// A headline ratio (or figure over repetitions) for Results::add_ratio.
struct RatioRow {
  std::string finding, arm, case_, metric;
  kit::Ratio ratio;
  std::string unit = "x";
};

// One finding judged: its verdict, the ratios behind it (CSV rows), the
// console lines and the target rows (reported, not asserted).
struct Judged {
  kit::Verdict verdict;
  std::vector<RatioRow> ratios;
  std::vector<Line> lines;
  std::vector<std::vector<std::string>> targets;  // finding, target, ours, met/missed, what limits it
};

// Each finding from the figures alone (no harness): what the tests call with
// synthetic figures, and what judge() prints and records.
Judged judge_cc1(const Report& rep);
Judged judge_cc2(const Report& rep);
Judged judge_cc3(const Report& rep);
Judged judge_cc4(const Report& rep);
Judged judge_cc5(const Report& rep);

// plots/concurrency/: writes_per_s, fsyncs_per_commit, read_wait_batches,
// batch_hold, read_wait_writers, write_wait_long_read{,_durable} (one
// repetition's time series), write_wait_long_read_reps (each .png .svg .gp).
void write_plots(kit::Harness& h, const Report& rep);

// Prints the figures beside the source's and the targets, adds the
// headline ratios as result rows, and records a Verdict for CC-1..CC-5.
void judge(kit::Harness& h, const Report& rep);

}  // namespace fenec::scenarios::concurrency
