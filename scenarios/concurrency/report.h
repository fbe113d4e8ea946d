// What the concurrency bench judges: the figures each part keeps for the
// plots, the table beside the source's figures, the targets of issue 3 and
// the verdicts for CC-1..CC-5.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "iobench/kit/harness.h"

namespace fenec::scenarios::concurrency {

struct WriterFig {
  double writes_per_s = 0;
  double commits = 0, fsyncs = 0;
  double write_max_us = 0;
};

struct MixedFig {
  double reads_per_s = 0, writes_per_s = 0;
  double read_p50_us = 0, read_p99_us = 0, read_p999_us = 0, read_max_us = 0;
  double reads_blocked = 0, read_blocked_p50_us = 0;  // reads over 10 us, and their median
  // fenecdb only (-1: not observable in the arm).
  double lock_hold_mean_us = -1, lock_hold_max_us = -1;
  double batch_hold_p50_us = -1;  // batches: the median write-lock hold a batch
  double buffer_flushes = -1, buffer_flushes_under_lock = -1;
};

struct LongFig {
  double write_wait_max_us = 0, write_wait_p999_us = 0, write_wait_p50_us = 0;
  double writes_per_s = 0;
  double alone_ms = 0, long_read_mean_ms = 0;
  double pin_mean_us = -1, pin_max_us = -1;  // beside the writers: includes waiting for the shared lock
  double alone_pin_us = -1;                   // the first pin, with no writer: the copy, on cold memory
  double lock_wait_max_us = -1;  // fenecdb: longest wait for the write lock (its Stats)
  bool answers_ok = true;
  std::vector<std::pair<double, double>> wait_series;  // (s, us)
  std::vector<double> long_read_at_s;
};

struct Report {
  std::map<std::string, std::map<int, WriterFig>> writers;  // arm -> writers -> figures
  std::map<std::string, MixedFig> readers;                  // readers beside writers (CC-4)
  std::map<std::string, MixedFig> batches;                  // readers beside batches (CC-3)
  std::map<std::string, LongFig> long_read;                 // CC-5
  std::string readers_case, batches_case, long_case;
};

// plots/concurrency/: writes_per_s, fsyncs_per_commit, read_wait_batches,
// read_wait_writers, write_wait_long_read (each .png .svg .gp).
void write_plots(kit::Harness& h, const Report& rep);

// Prints the figures beside the source's and the targets, adds the
// target ratios as result rows, and records a Verdict for CC-1..CC-5.
void judge(kit::Harness& h, const Report& rep);

}  // namespace fenec::scenarios::concurrency
