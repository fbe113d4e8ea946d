#include "scenarios/concurrency/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "iobench/kit/interrupt.h"
#include "scenarios/concurrency/peer_check.h"
#include "scenarios/concurrency/report.h"
#include "scenarios/engines/store.h"
#include "scenarios/pg/pg_cluster.h"

namespace fenec::scenarios::concurrency {
using namespace engines;

const char* const kHelpFooter =
    "Every cell's arms run --reps times, interleaved (rep 0 of every arm, then rep 1, ...), each on a fresh "
    "store under --dir; a buffered writers cell, and the readers and batches parts (their arms in turn), in "
    "--rounds rounds spread over the repetition. Each verdict "
    "is checks of ratios with 95% intervals over the repetitions (iobench/kit/verdict.h) against the "
    "finding's line: CC-1 fsyncs/commit at 16 writers < 1, 16 writers/1 > 1 and fenecdb/sqlite-full at "
    "16 > 1; CC-2 fenecdb-buffered/sqlite-normal at 1 writer >= 6 (half the source's 12x) and 16 writers/1 "
    "< 0.5; CC-3 median lock hold a batch, built under/outside the lock >= 1.65 (half the source's 3.3x); "
    "CC-4 no buffer written under the lock and no lock hold reaching 17 ms (counts that must be 0); "
    "CC-5 every answer right (categorical), p99.9 wait of the writes that met a long read, locked/pinned "
    ">= 10, and the read alone pinned/locked < 2.\n"
    "Writes results/concurrency/latest.csv (one measurement a row, case ...;rep=N for each repetition, "
    "and each check's ratio with its _ci95_lo/_ci95_hi/_reps rows; metrics include writes_per_s, commits, "
    "fsyncs, fsyncs_per_commit, reads_per_s, read_wait_{p50,p999,max}_us, batch_hold_p50_us, "
    "write_wait_max_us, write_wait_during_read_{p99,p999,max}_us, pin_mean_us), "
    "plots/concurrency/*.png|svg (error bars: the 95% intervals), and prints each figure beside the "
    "source's with a verdict for CC-1..CC-5. fenecdb's fsyncs are its Stats; SQLite's are the xSync calls a "
    "counting VFS shim sees; RocksDB's its WAL_FILE_SYNCED ticker; PostgreSQL's pg_stat_wal.wal_sync. "
    "cpu_us_per_commit is the whole machine's busy CPU a commit (/proc/stat), so a server's processes count. "
    "The peers' targets (fenecdb-durable at 16 writers >= 1.5x rocksdb-durable and >= 2.5x postgres-durable; "
    "fenecdb-buffered at 1 writer >= 1.5x rocksdb-buffered) are reported, not judged; each peer arm is checked "
    "against its own tool (db_bench, pgbench) in the same run.";

int run(kit::Harness& h, Config& c, bool peer_check_given) {
  auto& meta = h.results().meta();
  meta.set("cell_seconds", fmt::format("{}", c.seconds));
  meta.set("naive_switches",
           "writers: CommitMode::kNaive; readers: BufferWrite::kUnderLock; batches: BatchBuild::kUnderLock; "
           "long-read: LongReads::kUnderLock; writers, fenecdb-durable-append: Options::journal_zero_ahead = 0");
  meta.set("sqlite_fsyncs", "xSync calls counted by a VFS shim (sync_vfs.h); directory syncs not seen");

  meta.set("rocksdb", rocksdb_version() + " (WAL on; sync=true durable, false buffered)");

  // The PostgreSQL arms' cluster: our own, under the scratch dir (or beside
  // it: pg_cluster.h), for this run only (stopped before the harness removes
  // the scratch dir). Not installed is a skip; installed but not started,
  // the run's failure too.
  pg::PgCluster pg;
  const auto pg_arms = arms_of(c, "writers");
  if (std::any_of(pg_arms.begin(), pg_arms.end(),
                  [](const ArmSpec& a) { return a.engine == ArmSpec::Engine::kPostgres; })) {
    if (const std::string err = pg.Start(h.data_dir() + "/pg"); !err.empty()) {
      for (const char* arm : {"postgres-durable", "postgres-buffered"}) {
        h.results().skip(arm, "all", err);
        c.unavailable.insert(arm);
      }
      if (!pg.missing()) h.fail("postgres: " + err);
    } else {
      meta.set("postgres", pg.Version() +
                               " (scratch cluster on 127.0.0.1, fsync on; synchronous_commit on "
                               "durable, off buffered; a row a transaction, prepared INSERT)");
    }
  }

  const auto has = [&](const char* p) { return std::find(c.parts.begin(), c.parts.end(), p) != c.parts.end(); };
  size_t cells = 0;
  if (has("writers")) {
    for (const auto& arm : arms_of(c, "writers")) cells += h.reps() * c.writers.size() * (arm.durable ? 1 : c.rounds);
  }
  for (const char* p : {"readers", "batches"}) cells += has(p) ? h.reps() : 0;
  if (has("long-read")) cells += h.reps() * long_read_units(c).size();

  Report rep;
  rep.commit_window_us = c.commit_window_us;
  {
    Runner run(h, cells, pg.conninfo());
    if (has("writers")) run_writers_part(h, c, run, rep);
    if (has("readers")) run_mixed_part(h, c, run, rep, "readers");
    if (has("batches")) run_mixed_part(h, c, run, rep, "batches");
    if (has("long-read")) run_long_read_part(h, c, run, rep);
  }
  if (c.peer_check_seconds > 0 && !kit::stop_requested()) {
    check_peers(h, rep, pg.up() ? pg.port() : 0, c.peer_check_seconds);
  } else if (h.quick() && !peer_check_given) {
    for (const char* tool : {"db_bench", "pgbench"}) {
      h.results().skip(tool, "all",
                       "the peer arms' check against their own tools runs in full mode (quick cells are "
                       "too short to compare with a tool's run); --peer-check-seconds N runs it");
    }
  }
  if (const std::string err = pg.Stop(); !err.empty()) std::cerr << "warning: " << err << "\n";
  write_plots(h, rep);
  judge(h, rep);
  return h.finish();
}

}  // namespace fenec::scenarios::concurrency
