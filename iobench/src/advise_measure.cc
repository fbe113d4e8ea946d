// advise's measurements: sweep cells (run_cell), the lies check, the
// syncmethods table, probe and JR-3's priority cells (prio.h), called as
// they are.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "iobench/src/advise.h"
#include "iobench/src/cells.h"
#include "iobench/src/prio.h"

namespace fenec::iobench::advise {
namespace {

using Clock = std::chrono::steady_clock;

// The cells are cells.h's durable cells, the ones a fleet asks of its hosts.
CellResult cell(const MeasureOptions& o, const SweepEnv& env, uint64_t size, Mode mode, Writes writes, unsigned jobs,
                Layout layout) {
  CellSpec s = durable_cell(size, mode, writes, jobs, layout);
  s.submit = o.submit;
  s.duration_s = o.cell_s;
  s.interval_s = o.cell_s;
  // Bounded by time, not bytes, except that 1 MiB syncs must not fill a small disk.
  s.total = size >= (1u << 20) ? 128ull << 20 : 64ull << 20;
  return run_cell(s, env);
}

// The cell whose commit p50 is the median of `cells` (the lower middle one
// of an even count); an empty result for none.
CellResult median_cell(std::vector<CellResult> cells) {
  if (cells.empty()) return CellResult{};
  auto p50 = [](const CellResult& c) { return c.commit.count() ? c.commit.Percentile(50) : 0; };
  std::sort(cells.begin(), cells.end(), [&](const CellResult& a, const CellResult& b) { return p50(a) < p50(b); });
  return std::move(cells[(cells.size() - 1) / 2]);
}

// JR-3's journal cells (iobench/src/prio.h), alone, beside an equal-priority
// O_DIRECT background and beside the same background in IDLE.
PrioControl prio_control(const MeasureOptions& o, const ProbeResult& p) {
  PrioControl c;
  if (o.submit == SubmitKind::kNull) c.skipped = "null submission path: no I/O";
  else if (p.memory_backed) c.skipped = p.fs_type + " is memory-backed: no device queue to order";
  else if (!p.o_direct) c.skipped = "no O_DIRECT here: a buffered background reaches the disk through writeback, at its priority";
  if (!c.skipped.empty()) return c;
  prio::PrioConfig cfg;
  cfg.dir = o.dir + "/advise-prio";
  cfg.seconds = o.cell_s;
  cfg.stop = o.stop;
  if (std::string e = prio::prepare_data_file(cfg); !e.empty()) c.skipped = "the control's data file: " + e;
  for (prio::BgPrio bp : {prio::BgPrio::kNone, prio::BgPrio::kEqual, prio::BgPrio::kIdle}) {
    if (!c.skipped.empty()) break;
    const prio::JournalCell cell = prio::run_journal_cell(cfg, bp);
    if (!cell.error.empty() || cell.commits == 0) {
      c.skipped = cell.error.empty() ? "no journal commit in the control's window" : cell.error;
      break;
    }
    const double p50 = cell.sync_ns.Percentile(50) / 1000.0;
    if (bp == prio::BgPrio::kNone) c.alone_p50_us = p50;
    if (bp == prio::BgPrio::kEqual) c.equal_p50_us = p50, c.equal_bg_mb_s = cell.bg_mb_per_s();
    if (bp == prio::BgPrio::kIdle) c.idle_p50_us = p50, c.idle_bg_mb_s = cell.bg_mb_per_s();
  }
  // Honoured only if the equal-priority writer hurt the foreground at all
  // (else there is nothing for a priority to protect) and IDLE undid most of it.
  c.honoured = c.skipped.empty() && c.equal_p50_us > 1.25 * c.alone_p50_us && c.idle_p50_us <= 0.8 * c.equal_p50_us;
  std::error_code ec;
  std::filesystem::remove_all(cfg.dir, ec);
  return c;
}

}  // namespace

Measurement measure(const MeasureOptions& o) {
  const auto t0 = Clock::now();
  Measurement m;
  m.cores = std::max(1u, std::thread::hardware_concurrency());
  const bool null_path = o.submit == SubmitKind::kNull;
  if (null_path) {
    m.probe.dir = o.dir;
  } else {
    m.probe = probe(o.dir);
    if (!m.probe.error.empty()) return m;
  }
  SweepEnv env;
  env.dir = o.dir;
  env.seed = o.seed;
  env.probe = null_path ? nullptr : &m.probe;
  env.stop = o.stop;
  for (uint64_t size : {4096ull, 8192ull, 1ull << 20}) {
    if (o.stop && o.stop()) break;
    SyncCosts s;
    s.size = size;
    // An engine's log that is only appended to grows its file with every
    // commit. Whether appending costs more than overwriting decides
    // zero-ahead, wal_init_zero and log recycling, and a disk's sync time
    // drifts by more than their difference within a minute: at 4 KiB (the
    // figure those read) the two alternate kSyncPairs times, the order
    // swapped each time, and the cell with each one's median p50 is kept.
    const int pairs = size == 4096 ? kSyncPairs : 1;
    std::vector<CellResult> appends, overwrites;
    for (int i = 0; i < pairs && !(o.stop && o.stop()); ++i) {
      auto append = [&] {
        appends.push_back(cell(o, env, size, Mode::kFdatasync, Writes::kAppend, 1, Layout::kShared));
      };
      auto overwrite = [&] {
        overwrites.push_back(cell(o, env, size, Mode::kFdatasync, Writes::kOverwrite, 1, Layout::kShared));
      };
      if (i % 2 == 0) append(), overwrite();
      else overwrite(), append();
    }
    s.append = median_cell(std::move(appends));
    s.overwrite = median_cell(std::move(overwrites));
    s.direct = cell(o, env, size, Mode::kDirectDsync, Writes::kOverwrite, 1, Layout::kShared);
    m.sizes.push_back(std::move(s));
  }
  for (unsigned j : o.jobs) {
    if (o.stop && o.stop()) break;
    m.overlap.push_back(cell(o, env, 8192, Mode::kFdatasync, Writes::kOverwrite, j, Layout::kPerJob));
    m.overlap_append.push_back(cell(o, env, 8192, Mode::kFdatasync, Writes::kAppend, j, Layout::kPerJob));
  }
  if (null_path) {
    m.lies.skipped = m.syncmethods.error = "null submission path: no I/O";
  } else {
    LiesOptions lo;
    lo.seconds = o.cell_s;
    m.lies = run_lies(lo, env);
    SyncMethodsOptions so;
    so.dir = o.dir;
    so.seconds = std::min(o.cell_s, 0.5);  // a table of ~20 tests: the 8k rows are all advise reads
    so.stop = o.stop;
    m.syncmethods = run_syncmethods(so, m.probe);
  }
  m.prio = prio_control(o, m.probe);
  m.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return m;
}

}  // namespace fenec::iobench::advise
