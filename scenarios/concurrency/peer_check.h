// Each peer arm against the peer's own tool, in the same run, so no one can
// say we drove the peer badly: RocksDB's db_bench (fillrandom, --sync=1, the
// same threads, 8-byte keys, values the size of ours) and PostgreSQL's
// pgbench (a prepared INSERT of a row like ours a transaction, the same
// clients, synchronous_commit=on), each beside our arm's writes/s at 1 and
// 16 writers; and SQLite's against a plain client (sqlite_client.h: the
// same settings, a live database). Within 15% is the bar. Each side's counters are set
// beside the rates (syncs a commit, the machine's CPU a commit, and for
// PostgreSQL the mean WAL sync, wal_sync_time with track_wal_io_timing on),
// so a wider gap says where it comes from: the same syncs and CPU a commit
// but slower syncs is the disk at the moment each ran, not the driving.
#pragma once

#include <string>

#include "iobench/kit/harness.h"
#include "scenarios/concurrency/report.h"
#include "scenarios/engines/sqlite_client.h"

namespace fenec::scenarios::concurrency {

struct ToolRun {
  std::string error;      // "" when the tool ran and its rate was read
  double ops_per_s = 0;
  double commits = 0;     // its operations (db_bench) or transactions (pgbench)
  double fsyncs = -1;     // WAL syncs: db_bench's rocksdb.wal.synced, pg_stat_wal's wal_sync (-1: unknown)
  double cpu_us_per_commit = -1;  // the machine's busy CPU over the tool's run, a commit
  double sync_us = -1;    // the mean WAL sync (PostgreSQL only; -1: unknown)
  std::string command;    // what was run, for the report
};

// db_bench fillrandom with sync on, `threads` threads, for `seconds`, in dir.
ToolRun run_db_bench(const std::string& dir, int threads, int seconds);
// pgbench: `clients` clients (and threads), for `seconds`, a prepared INSERT
// into a table of its own, on the cluster at 127.0.0.1:port, database fenec.
ToolRun run_pgbench(int port, const std::string& dir, int clients, int seconds);
// The plain SQLite client, `threads` connections, on a live database in dir
// (its first `seconds` untimed), its -wal file's size at the end in
// *live_wal_bytes; *fresh: the same client on a new file.
ToolRun run_sqlite_client_tool(const std::string& dir, int threads, int seconds, engines::SqliteClientRun* fresh,
                               uint64_t* live_wal_bytes);

// Parse a tool's output: db_bench's "... N ops/sec" rate, its "N operations"
// and its --statistics "rocksdb.wal.synced COUNT : N"; pgbench's "tps = N
// (...)" and "number of transactions actually processed: N". 0 (-1 for the
// synced count) if absent.
double parse_db_bench(const std::string& out);
double parse_db_bench_ops(const std::string& out);
double parse_db_bench_wal_synced(const std::string& out);
double parse_pgbench(const std::string& out);
double parse_pgbench_transactions(const std::string& out);

// Why ours/tool is outside the bar, from the counters: "" when they cannot
// say (either side's counters unknown, or they differ as much as the rates).
std::string explain_gap(const WriterFig& ours, int writers, const ToolRun& tool);

// Runs the tools at 1 and 16 writers for the peer arms that ran durable in
// rep, writes the rows (arm, case writers=N, metrics tool_writes_per_s,
// ours_over_tool and the tool's counters) and prints the comparison. pg_port
// 0: no cluster.
void check_peers(kit::Harness& h, const Report& rep, int pg_port, int seconds);

}  // namespace fenec::scenarios::concurrency
