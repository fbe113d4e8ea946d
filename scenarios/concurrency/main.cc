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
// the file's grown size. fenecdb-durable's commit window is the engine's
// default (adaptive); "fenecdb-durable-window" (writers) sets
// Options::commit_window_us to --commit-window-us, "fenecdb-durable-nowindow" to 0.
//
// main.cc is the command line; the run is run.h, each part its own file (parts.h).
#include <fmt/format.h>

#include "iobench/kit/harness.h"
#include "scenarios/concurrency/run.h"

namespace fc = fenec::scenarios::concurrency;

int main(int argc, char** argv) {
  fenec::kit::Harness h("concurrency",
            "CC-1..CC-5: what one writer at a time costs when many want to write, and what readers and "
            "writers wait meanwhile. fenecdb (one shared Database) against SQLite (WAL, a connection per "
            "thread, 30 s busy timeout), a row a write, a row by id a read, every arm in the same run; in the "
            "writers part also against the engines that group-commit too: RocksDB (one DB, WAL, sync=true/false) "
            "and PostgreSQL 15 (a scratch cluster this run starts on 127.0.0.1 and stops, libpq, prepared "
            "INSERT, synchronous_commit on/off; skipped with the reason where it is not installed).\n"
            "Parts: writers (CC-1/CC-2), readers beside writers (CC-4), readers beside 1 000-row batches "
            "(CC-3), a long aggregate beside writers (CC-5). '-naive' arms flip only the switch the part "
            "measures: commit mode, buffer write, batch build, long reads; 'fenecdb-durable-append' (writers) "
            "turns the journal's zero ahead off, so every fdatasync also commits the file's grown size; "
            "fenecdb-durable's commit window is the engine's default (adaptive: at most its disk's recent "
            "fdatasync); 'fenecdb-durable-window' (writers) waits up to --commit-window-us before each durable "
            "round, 'fenecdb-durable-nowindow' never.");
  h.footer(fc::kHelpFooter);
  fc::Config c;
  std::vector<std::string> arm_names, parts = {"writers", "readers", "batches", "long-read"};
  for (const auto& a : fc::all_arms()) arm_names.push_back(a.name);
  // Quick mode keeps the writer counts the verdicts judge (1 and 16) and one between, for the shape.
  h.flag("--writers", &c.writers, "writer counts for the writers part", {1, 2, 4, 8, 16}, {1, 4, 16}).range(1, 256);
  h.flag("--parts", &c.parts, "parts to run", parts).one_of(parts);
  h.flag("--arms", &c.arms, fmt::format("arms to run: {}", fmt::join(arm_names, ",")), {})
      .default_text("all")
      .one_of(arm_names);
  h.flag("--commit-window-us", &c.commit_window_us,
         "fenecdb-durable-window's Options::commit_window_us: a durable round's leader waits at most this long "
         "for the commits in flight (writers part)", 100u)
      .range(1, 1000000);
  h.flag("--seconds", &c.seconds, "time budget per cell and repetition", 2, 0.4).range(0.05, 600);
  h.flag("--rounds", &c.rounds,
         "rounds a cell's time is split into, spread over its repetition, their figures together the repetition's "
         "(a 2-vCPU VM's multi-thread speed swings for seconds at a time): a buffered writers cell on a fresh "
         "store each round; readers and batches with every arm's store open, the arms in turn each round", 10)
      .range(1, 100);
  h.flag("--max-ops", &c.max_ops, "operation cap per cell", 2'000'000).range(1, 1 << 30);
  h.flag("--readers", &c.readers, "readers beside writers", 2).range(1, 64);
  h.flag("--reader-writers", &c.reader_writers, "writers beside those readers", 2).range(1, 64);
  h.flag("--batch", &c.batch, "rows a batch", 1000).range(1, 1000000);
  h.flag("--batch-readers", &c.batch_readers, "readers beside the batches", 2).range(1, 64);
  h.flag("--preload", &c.preload_rows, "rows in the table the readers read", 100'000, 20'000).range(1, 1e8);
  // CC-5 at the source's length: its aggregate over 1 M events held writes
  // 0.8 s; ours reads 1 M rows far faster, so full mode reads 16 M. Quick
  // keeps 1 M: a shorter read would be lost in a shared machine's stalls.
  h.flag("--long-rows", &c.long_rows,
         "rows the long read aggregates (full: the locked arm then holds writes about as long as the source's "
         "0.8 s; quick: the source's row count)", 16'000'000, 1'000'000).range(1, 1e8);
  h.flag("--long-reads", &c.long_reads, "long reads per cell; CC-5 pools the writes that met them, over a repetition",
         5).range(1, 1000);
  h.flag("--long-writers", &c.long_writers, "writers beside the long read (1: with the reader, one thread a core)", 1)
      .range(1, 64);
  h.flag("--long-gap", &c.long_gap, "seconds between long reads", 0.25, 0.1).range(0, 60);
  // Quick mode leaves the peers' check to the full run: its short cells
  // against a tool's run of seconds compare unlike lengths.
  const fenec::kit::Flag& peer_check =
      h.flag("--peer-check-seconds", &c.peer_check_seconds,
             "seconds of each peer's own tool (db_bench, pgbench, the plain sqlite-client) at 1 and 16 writers, run after the "
             "parts to check our RocksDB, PostgreSQL and SQLite arms against them; 0 skips", 5, 0).range(0, 600);
  if (const int rc = h.parse(argc, argv); rc >= 0) return rc;
  return fc::run(h, c, peer_check.given());
}
