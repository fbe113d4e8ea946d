// One cell of the sweep grid: `jobs` threads writing `size`-byte buffers in one
// mode through one submission path, bounded by a duration and a byte total,
// measured as throughput, latency histograms (write call, sync call, and the
// whole durable op), CPU per write and a per-interval series.
//
// Op semantics, so counts can be planned and tested:
//  - an op is `batch` buffers landing contiguously: one pwritev / one ring
//    entry, or `batch` pwrites on the pwrite path;
//  - in fsync/fdatasync modes a job issues a round of up to `depth` ops, waits
//    for them all, then makes one sync call (depth 1: a sync after every op);
//    other modes keep `depth` ops in flight;
//  - each job writes its own region sequentially (a region of one shared file,
//    or a file of its own), so the byte total bounds the op count exactly.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/src/base/histogram.h"
#include "iobench/src/files.h"
#include "iobench/src/mode.h"
#include "iobench/src/probe.h"
#include "iobench/src/submit.h"
#include "iobench/kit/interrupt.h"

namespace fenec::iobench {

struct CellSpec {
  uint64_t size = 4096;
  Mode mode = Mode::kBuffered;
  unsigned jobs = 1;
  Layout layout = Layout::kShared;
  SubmitKind submit = SubmitKind::kPwrite;
  unsigned batch = 1;
  unsigned depth = 1;
  double duration_s = 2;
  uint64_t total = 256ull << 20;  // bytes for the whole cell, shared out among its jobs
  double interval_s = 1;
  // Write the files full of data (and sync) before the clock starts, so the
  // cell overwrites allocated blocks as a database rewriting its pages does,
  // instead of converting fresh fallocated extents (which costs ext4 journal
  // commits on every durable write).
  bool prefill = false;
  // Start the files empty instead (no fallocate, no prefill): every write
  // extends its file, so each durable write must also commit the new size,
  // as a journal that is only appended to does.
  bool append = false;

  std::string arm() const { return arm_name(mode, submit); }
  std::string case_() const { return case_name(size, jobs, layout, batch, depth) + (prefill ? ";prefilled" : "") +
                                       (append ? ";append" : ""); }
};

// What a cell does when the byte total (not the duration) bounds it.
struct CellPlan {
  uint64_t unit_bytes = 0;      // size * batch
  uint64_t ops_per_job = 0;
  uint64_t region_bytes = 0;    // per job
  unsigned files = 0;
  uint64_t file_bytes = 0;      // per file
  uint64_t write_calls = 0;     // whole cell
  uint64_t sync_calls = 0;      // whole cell
};
CellPlan plan_cell(const CellSpec& spec);

struct IntervalPoint {
  double t_s = 0;        // end of the interval, from the cell's start
  double mb_per_s = 0;
  double ops_per_s = 0;
  double p50_us = 0, p99_us = 0, max_us = 0;  // of the ops done in it (write + its sync)
};

struct CellResult {
  CellSpec spec;
  // Which repetition of its spec this run was (0 for a single run): a caller
  // that runs a grid several times, interleaved, sets it so repetition r of
  // two cells can be paired (kit::paired_ratio) and plots group the runs.
  int rep = 0;
  std::string skipped;    // why the cell did not run; empty if it ran
  std::string error;      // why it stopped early, if it did
  bool no_space = false;
  bool interrupted = false;
  uint64_t ops = 0, write_calls = 0, sync_calls = 0, bytes = 0;
  double seconds = 0;
  double cpu_s = 0;       // thread CPU time summed over the jobs
  std::vector<double> job_mb_per_s;
  base::Histogram lat;     // ns: submit to completion of each op's write
  base::Histogram sync;    // ns: each sync call
  base::Histogram commit;  // ns: submit to durable (after its sync) in sync modes
  std::vector<IntervalPoint> intervals;

  bool ran() const { return skipped.empty(); }
  double mb_per_s() const { return seconds > 0 ? bytes / seconds / 1e6 : 0; }
  double iops() const { return seconds > 0 ? write_calls / seconds : 0; }
  double ops_per_s() const { return seconds > 0 ? ops / seconds : 0; }
  double cpu_per_write_us() const { return write_calls ? cpu_s * 1e6 / write_calls : 0; }
};

struct SweepEnv {
  std::string dir;          // where the cell's files go
  uint64_t seed = 1;
  const ProbeResult* probe = nullptr;  // what to skip; null = no checks (null path)
  bool (*stop)() = kit::stop_requested;
  // Called once the files are ready (preallocated, prefilled and synced),
  // just before the clock starts: a caller reading device counters around
  // the writes alone reads its first sample here.
  std::function<void()> on_start;
};

// Why this cell cannot run here ("" if it can): an O_DIRECT mode on tmpfs or a
// filesystem without it, a size the O_DIRECT alignment forbids, or what the
// submission path's own probe check says (SubmitPath::unavailable).
std::string check_cell(const CellSpec& spec, const SweepEnv& env);
// Runs one cell (or returns it skipped). Its files are removed before it returns.
CellResult run_cell(const CellSpec& spec, const SweepEnv& env);

// The grid, in the order cells run: sizes fastest-varying inside modes.
struct Grid {
  std::vector<uint64_t> sizes;
  std::vector<Mode> modes;
  std::vector<unsigned> jobs;
  std::vector<Layout> layouts;
  std::vector<SubmitKind> submits;
  unsigned batch = 1, depth = 1;
  bool prefill = false;
  double duration_s = 2, interval_s = 1;
  uint64_t total = 256ull << 20;
};
std::vector<CellSpec> expand(const Grid& g);

}  // namespace fenec::iobench
