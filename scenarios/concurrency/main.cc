// concurrency-bench: CC-1..CC-5 of FINDINGS.md, fenecdb against SQLite in
// the same run, on the same workloads (workload.h), each cell a fresh store,
// every cell's arms h.reps() times, interleaved, for the intervals of the
// verdicts' ratios (report.h).
//
//   writers    1..16 writers, a row a commit: writes/s, commits, fsyncs   CC-1, CC-2
//   readers    readers by id beside single-row writers: read waits        CC-4
//   batches    readers beside 1 000-row batches: read waits, lock hold    CC-3
//   long-read  an aggregate over the table beside writers: write waits    CC-5
//
// "-naive" flips the one fenecdb switch the part measures: commit mode
// (writers), buffer write under the lock (readers), batch built under the
// lock (batches), long reads under the lock (long-read). "fenecdb-durable-append"
// (writers) turns the journal's zero ahead off: every fdatasync also commits
// the file's grown size.
//
// main.cc is the command line; each part is its own file (parts.h).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "iobench/kit/harness.h"
#include "engine/src/base/interrupt.h"
#include "scenarios/concurrency/parts.h"
#include "scenarios/concurrency/peer_check.h"
#include "scenarios/concurrency/report.h"
#include "scenarios/concurrency/store.h"
#include "scenarios/pg/pg_cluster.h"

namespace fc = fenec::scenarios::concurrency;
using fenec::kit::Harness;

int main(int argc, char** argv) {
  Harness h("concurrency",
            "CC-1..CC-5: what one writer at a time costs when many want to write, and what readers and "
            "writers wait meanwhile. fenecdb (one shared Database) against SQLite (WAL, a connection per "
            "thread, 30 s busy timeout), a row a write, a row by id a read, every arm in the same run; in the "
            "writers part also against the engines that group-commit too: RocksDB (one DB, WAL, sync=true/false) "
            "and PostgreSQL 15 (a scratch cluster this run starts on 127.0.0.1 and stops, libpq, prepared "
            "INSERT, synchronous_commit on/off; skipped with the reason where it is not installed).\n"
            "Parts: writers (CC-1/CC-2), readers beside writers (CC-4), readers beside 1 000-row batches "
            "(CC-3), a long aggregate beside writers (CC-5). '-naive' arms flip only the switch the part "
            "measures: commit mode, buffer write, batch build, long reads; 'fenecdb-durable-append' (writers) "
            "turns the journal's zero ahead off, so every fdatasync also commits the file's grown size.");
  fc::Config c;
  auto& app = h.app();
  app.footer(
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
      "against its own tool (db_bench, pgbench) in the same run.");
  app.add_option("--writers", c.writers, "writer counts for the writers part (default 1,2,4,8,16; quick 1,4,16)")
      ->delimiter(',')
      ->check(CLI::Range(1, 256));
  app.add_option("--parts", c.parts, "parts to run: writers,readers,batches,long-read (default all)")
      ->delimiter(',')
      ->check(CLI::IsMember({"writers", "readers", "batches", "long-read"}));
  std::vector<std::string> arm_names;
  for (const auto& a : fc::all_arms()) arm_names.push_back(a.name);
  app.add_option("--arms", c.arms, "arms to run (default all): " + fmt::format("{}", fmt::join(arm_names, ",")))
      ->delimiter(',')
      ->check(CLI::IsMember(arm_names));
  app.add_option("--seconds", c.seconds, "time budget per cell and repetition (default 0.4 quick, 2 full)")
      ->check(CLI::Range(0.05, 600.0));
  app.add_option("--rounds", c.rounds,
                 "rounds a cell's time is split into, spread over its repetition, their figures together the "
                 "repetition's (a 2-vCPU VM's multi-thread speed swings for seconds at a time): a buffered writers "
                 "cell on a fresh store each round; readers and batches with every arm's store open, the arms in "
                 "turn each round")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  app.add_option("--max-ops", c.max_ops, "operation cap per cell (default 2000000)")->check(CLI::Range(1, 1 << 30));
  app.add_option("--readers", c.readers, "readers beside writers (default 2)")->check(CLI::Range(1, 64));
  app.add_option("--reader-writers", c.reader_writers, "writers beside those readers (default 2)")
      ->check(CLI::Range(1, 64));
  app.add_option("--batch", c.batch, "rows a batch (default 1000)")->check(CLI::Range(1, 1000000));
  app.add_option("--batch-readers", c.batch_readers, "readers beside the batches (default 2)")
      ->check(CLI::Range(1, 64));
  app.add_option("--preload", c.preload_rows, "rows in the table the readers read (default 20000 quick, 100000 full)")
      ->check(CLI::Range(1, 100000000));
  app.add_option("--long-rows", c.long_rows,
                 "rows the long read aggregates (default 16000000: the locked arm then holds writes ~0.75 s here, "
                 "the source's 0.8 s; quick 1000000, the source's row count, whose read is ~20 ms here)")
      ->check(CLI::Range(1, 100000000));
  app.add_option("--long-reads", c.long_reads,
                 "long reads per cell; CC-5 pools the writes that met them, over a repetition (default 5)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--long-writers", c.long_writers,
                 "writers beside the long read (default 1: with the reader, one thread a core here)")
      ->check(CLI::Range(1, 64));
  app.add_option("--long-gap", c.long_gap, "seconds between long reads (default 0.1 quick, 0.25 full)")
      ->check(CLI::Range(0.0, 60.0));
  app.add_option("--peer-check-seconds", c.peer_check_seconds,
                 "seconds of each peer's own tool (db_bench, pgbench) at 1 and 16 writers, run after the parts to "
                 "check our RocksDB and PostgreSQL arms against them; 0 skips (default 5; quick 0)")
      ->check(CLI::Range(0, 600));
  if (const int rc = h.parse(argc, argv); rc >= 0) return rc;

  // Quick mode keeps the counts the verdicts judge (1 and 16) and one
  // between, for the shape: 2 and 8 cost 29 of quick's 131 s here.
  if (c.writers.empty()) c.writers = h.quick() ? std::vector<int>{1, 4, 16} : std::vector<int>{1, 2, 4, 8, 16};
  if (c.seconds == 0) c.seconds = h.quick() ? 0.4 : 2.0;
  if (c.preload_rows == 0) c.preload_rows = h.quick() ? 20'000 : 100'000;
  // 1 M rows in quick mode too: a shorter long read would be lost in a shared
  // machine's scheduling stalls, and the preload costs only seconds.
  // CC-5 at the source's length: its aggregate over 1 M events took 152 ms
  // and held writes 0.8 s; ours reads 1 M rows in ~20 ms, so full mode reads
  // 16 M (locked: writes held 722 ms buffered, 766 ms durable here, seed 15).
  if (c.long_rows == 0) c.long_rows = h.quick() ? 1'000'000 : 16'000'000;
  if (c.long_reads == 0) c.long_reads = 5;
  if (c.long_gap < 0) c.long_gap = h.quick() ? 0.1 : 0.25;
  auto& meta = h.results().meta();
  meta.set("cell_seconds", fmt::format("{}", c.seconds));
  meta.set("naive_switches",
           "writers: CommitMode::kNaive; readers: BufferWrite::kUnderLock; batches: BatchBuild::kUnderLock; "
           "long-read: LongReads::kUnderLock; writers, fenecdb-durable-append: Options::journal_zero_ahead = 0");
  meta.set("sqlite_fsyncs", "xSync calls counted by a VFS shim (sync_vfs.h); directory syncs not seen");

  meta.set("rocksdb", fc::rocksdb_version() + " (WAL on; sync=true durable, false buffered)");

  // The PostgreSQL arms' cluster: our own, under the scratch dir, for this
  // run only (stopped before the harness removes the scratch dir).
  fenec::scenarios::pg::PgCluster pg;
  const auto pg_arms = fc::arms_of(c, "writers");
  if (std::any_of(pg_arms.begin(), pg_arms.end(),
                  [](const fc::ArmSpec& a) { return a.engine == fc::ArmSpec::Engine::kPostgres; })) {
    if (const std::string err = pg.Start(h.data_dir() + "/pg"); !err.empty()) {
      for (const char* arm : {"postgres-durable", "postgres-buffered"}) {
        h.results().skip(arm, "all", err);
        c.unavailable.insert(arm);
      }
    } else {
      meta.set("postgres", pg.Version() + " (scratch cluster on 127.0.0.1, fsync on; synchronous_commit on "
                                          "durable, off buffered; a row a transaction, prepared INSERT)");
    }
  }

  const auto has = [&](const char* p) { return std::find(c.parts.begin(), c.parts.end(), p) != c.parts.end(); };
  size_t cells = 0;
  if (has("writers")) {
    for (const auto& arm : fc::arms_of(c, "writers")) cells += h.reps() * c.writers.size() * (arm.durable ? 1 : c.rounds);
  }
  for (const char* p : {"readers", "batches"}) cells += has(p) ? h.reps() : 0;
  if (has("long-read")) cells += h.reps() * fc::long_read_units(c).size();

  fc::Report rep;
  {
    fc::Runner run(h, cells, pg.conninfo());
    if (has("writers")) fc::run_writers_part(h, c, run, rep);
    if (has("readers")) fc::run_mixed_part(h, c, run, rep, "readers");
    if (has("batches")) fc::run_mixed_part(h, c, run, rep, "batches");
    if (has("long-read")) fc::run_long_read_part(h, c, run, rep);
  }
  // Quick mode leaves the check to the full run: its 0.4 s cells against a
  // tool's run of seconds compare unlike lengths (PostgreSQL 0.80x of
  // pgbench in quick, 0.85-0.95x at full length), so the quick figure was
  // no check at all, for four 2 s tool runs and their set-up.
  if (c.peer_check_seconds < 0) c.peer_check_seconds = h.quick() ? 0 : 5;
  if (c.peer_check_seconds > 0 && !fenec::base::StopRequested()) {
    fc::check_peers(h, rep, pg.up() ? pg.port() : 0, c.peer_check_seconds);
  } else if (h.quick() && app.count("--peer-check-seconds") == 0) {
    for (const char* tool : {"db_bench", "pgbench"}) {
      h.results().skip(tool, "all", "the peer arms' check against their own tools runs in full mode (quick cells are "
                                    "too short to compare with a tool's run); --peer-check-seconds N runs it");
    }
  }
  if (const std::string err = pg.Stop(); !err.empty()) std::cerr << "warning: " << err << "\n";
  fc::write_plots(h, rep);
  fc::judge(h, rep);
  return h.finish();
}
