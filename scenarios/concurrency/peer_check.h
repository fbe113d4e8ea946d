// Each peer arm against the peer's own tool, in the same run, so no one can
// say we drove the peer badly: RocksDB's db_bench (fillrandom, --sync=1, the
// same threads, 8-byte keys, values the size of ours) and PostgreSQL's
// pgbench (a prepared INSERT of a row like ours a transaction, the same
// clients, synchronous_commit=on), each beside our arm's writes/s at 1 and
// 16 writers. Within 15% is the bar (issue 14); a wider gap is printed with
// both figures and the tool's command, for the reader to weigh.
#pragma once

#include <string>

#include "iobench/kit/harness.h"
#include "scenarios/concurrency/report.h"

namespace fenec::scenarios::concurrency {

struct ToolRun {
  std::string error;      // "" when the tool ran and its rate was read
  double ops_per_s = 0;
  std::string command;    // what was run, for the report
};

// db_bench fillrandom with sync on, `threads` threads, for `seconds`, in dir.
ToolRun run_db_bench(const std::string& dir, int threads, int seconds);
// pgbench: `clients` clients (and threads), for `seconds`, a prepared INSERT
// into a table of its own, on the cluster at 127.0.0.1:port, database fenec.
ToolRun run_pgbench(int port, const std::string& dir, int clients, int seconds);

// Parses the rate out of a tool's output: db_bench's "... N ops/sec",
// pgbench's "tps = N (...)". 0 if absent.
double parse_db_bench(const std::string& out);
double parse_pgbench(const std::string& out);

// Runs the tools at 1 and 16 writers for the peer arms that ran durable in
// rep, writes the rows (arm, case writers=N, metrics tool_writes_per_s and
// ours_over_tool) and prints the comparison. pg_port 0: no cluster.
void check_peers(kit::Harness& h, const Report& rep, int pg_port, int seconds);

}  // namespace fenec::scenarios::concurrency
