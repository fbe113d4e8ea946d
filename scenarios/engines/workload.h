// The four workloads of the concurrency bench, each one cell: threads start
// together, run until a time budget or an operation cap, and report counts
// and latency histograms (ns). They know nothing of arms: a Store is a Store.
//
// "Wait" is the latency of a call as its thread sees it, from call to
// return: a read that found the lock taken waited for it; a durable write
// waited for its fsync (or for another's that covered it).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "engine/src/base/histogram.h"
#include "iobench/kit/proc.h"
#include "scenarios/engines/store.h"

namespace fenec::scenarios::engines {

struct Budget {
  double seconds = 1.0;
  uint64_t max_ops = 1'000'000;  // writes (or reads) per cell, whichever ends first
};

// A small document, as the source wrote: a text of ~40 bytes and an int.
Doc make_doc(std::mt19937_64& rng, uint64_t i, int64_t n);

// Writes `rows` documents in 1 000-row batches; n = i % 1000, so the sum of
// n over the table is known (*sum). Ids are then 1..rows.
std::string preload(Store& store, uint64_t rows, uint64_t seed, int64_t* sum);

struct WritersResult {
  std::string error;
  uint64_t writes = 0;
  std::vector<uint64_t> per_writer;  // writer w wrote per_writer[w] rows, each with n = w
  double seconds = 0;                // start to the last thread's return: what writes and counters cover
  // The rate's own span: writes acknowledged by the time budget's end, over
  // the time to it. A writer still inside a call at the deadline (SQLite's
  // busy handler sleeping) would otherwise stretch `seconds` for every arm.
  // When the op cap ends the cell first, these are writes and seconds.
  uint64_t writes_in_budget = 0;
  double budget_seconds = 0;
  double per_s() const { return budget_seconds > 0 ? writes_in_budget / budget_seconds : 0; }
  base::Histogram write_ns;
  Counters counters;
  // Busy CPU of the whole machine over the cell, every process's: ours and a
  // server's (PostgreSQL's backends), so engines that work in other
  // processes are counted too. /proc/stat, 10 ms ticks.
  double machine_cpu_s = 0;
};
// CC-1/CC-2: `writers` threads, a row a commit.
WritersResult run_writers(Store& store, int writers, const Budget& budget, uint64_t seed);
// The whole machine's busy CPU seconds since `from` (/proc/stat, every
// process: a server's too), or -1 where /proc is not readable.
double machine_busy_seconds_since(const kit::CpuTimes& from);

struct MixedResult {
  std::string error;
  uint64_t reads = 0, writes = 0, commits_done = 0;  // writes are rows; commits_done: puts or batches
  double seconds = 0;
  base::Histogram read_ns, write_ns;  // write_ns: per put, or per batch
  // Batches, where the engine tells: the write lock's hold between one
  // batch's end and the next's (the batch, plus any handover piece run then).
  base::Histogram hold_ns;
  Counters counters;
};
// CC-4 (and the readers' side of CC-1): readers read rows 1..preloaded by
// id while writers add rows one a commit. A missing row is an error.
MixedResult run_readers_beside_writers(Store& store, int readers, int writers, uint64_t preloaded,
                                       const Budget& budget, uint64_t seed);
// CC-3: one writer lands `batch`-row batches back to back while readers read.
MixedResult run_readers_beside_batches(Store& store, int readers, int batch, uint64_t preloaded,
                                       const Budget& budget, uint64_t seed);

struct LongReadResult {
  std::string error;
  uint64_t writes = 0;
  double seconds = 0;
  base::Histogram write_ns;
  std::vector<double> long_read_ms;    // each aggregate beside the writers
  std::vector<double> long_read_at_s;  // when each started, from the cell's start
  // For each aggregate beside the writers, the longest wait (us) of a write
  // that overlapped it (began before it ended, ended after it began): with
  // the read under the lock, a write waits out the rest of the read.
  std::vector<double> wait_during_read_us;
  // The same over a window as long just before each read, clear of it and
  // of the one before by kQuietMarginMs (0 where the gap leaves no room):
  // what the writers wait with no long read.
  std::vector<double> wait_before_read_us;
  // Every write that overlapped a long read, and every write in those
  // windows before them: their waits (ns), for percentiles.
  base::Histogram during_read_ns, before_read_ns;
  bool answers_ok = true;              // every aggregate saw sum == preloaded sum
  std::string answer_problem;
  // Longest write wait (us) in each kWindowMs window, from the cell's start: the plot.
  std::vector<std::pair<double, double>> wait_series;
  Counters counters;
};
inline constexpr int kWindowMs = 10;
// CC-5, before the writers: `rounds` aggregates on each store, alone, the
// stores' reads alternating (a, b, a, b, ...) so that a slow second of the
// machine hits each store alike; each must see the preloaded count and sum.
struct AloneReads {
  std::string error;
  std::vector<double> ms;   // each read's time
  bool pinned = false;       // the store pinned its reads (fenecdb); SQLite's WAL readers need none
  double first_pin_us = 0;   // if pinned: the first read's pin, on cold memory
  bool answers_ok = true;
  std::string answer_problem;
};
std::vector<AloneReads> run_alone_reads(const std::vector<Store*>& stores, uint64_t preloaded,
                                        int64_t preloaded_sum, int rounds);

inline constexpr int kQuietMarginMs = 5;
// CC-5: `writers` threads write rows with n = 0 while one thread runs
// `long_reads` aggregates over the table, `gap_s` apart; the preloaded sum
// is therefore the right answer for every one of them.
LongReadResult run_long_read(Store& store, int writers, uint64_t preloaded, int64_t preloaded_sum, int long_reads,
                             double gap_s, uint64_t seed);

}  // namespace fenec::scenarios::engines
