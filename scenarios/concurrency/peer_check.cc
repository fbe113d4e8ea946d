#include "scenarios/concurrency/peer_check.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>

#include "iobench/kit/proc.h"
#include "iobench/kit/console.h"
#include "iobench/kit/stats.h"
#include "scenarios/engines/sqlite_client.h"
#include "scenarios/engines/store.h"
#include "scenarios/engines/workload.h"
#include "scenarios/pg/pq.h"

namespace fenec::scenarios::concurrency {
using namespace engines;
namespace {

constexpr double kWithin = 0.15;  // each peer arm within 15% of its own tool

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs a shell command, its stdout and stderr into *out; "" when it exited 0.
std::string capture(const std::string& cmd, std::string* out) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return "popen failed";
  char buf[4096];
  size_t n = 0;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out->append(buf, n);
  const int rc = pclose(p);
  if (rc == 0) return "";
  std::string tail = out->size() > 400 ? out->substr(out->size() - 400) : *out;
  return fmt::format("exit {}: {}", WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, tail);
}

double first_number_after(const std::string& out, const std::regex& re) {
  std::smatch m;
  return std::regex_search(out, m, re) ? std::stod(m[1].str()) : 0;
}

}  // namespace

double parse_db_bench(const std::string& out) {
  static const std::regex re(R"(fillrandom\s*:\s*[0-9.]+ micros/op ([0-9.]+) ops/sec)");
  return first_number_after(out, re);
}

double parse_db_bench_ops(const std::string& out) {
  static const std::regex re(R"(fillrandom\s*:.* ([0-9]+) operations;)");
  return first_number_after(out, re);
}

double parse_db_bench_wal_synced(const std::string& out) {
  static const std::regex re(R"(rocksdb\.wal\.synced COUNT : ([0-9]+))");
  std::smatch m;
  return std::regex_search(out, m, re) ? std::stod(m[1].str()) : -1;
}

double parse_pgbench(const std::string& out) {
  static const std::regex re(R"(tps = ([0-9.]+))");
  return first_number_after(out, re);
}

double parse_pgbench_transactions(const std::string& out) {
  static const std::regex re(R"(number of transactions actually processed: ([0-9]+))");
  return first_number_after(out, re);
}

namespace {

void set_cpu(ToolRun* t, const kit::CpuTimes& from) {
  const double cpu_s = machine_busy_seconds_since(from);
  if (cpu_s >= 0 && t->commits > 0) t->cpu_us_per_commit = cpu_s * 1e6 / t->commits;
}

}  // namespace

// Keys of 8 bytes and values of 48, as our rows encode (id; n + a ~40-byte
// body). --statistics for its WAL syncs, as our arm keeps statistics too.
ToolRun run_db_bench(const std::string& dir, int threads, int seconds) {
  ToolRun t;
  t.command = fmt::format(
      "db_bench --benchmarks=fillrandom --sync=1 --threads={} --duration={} --num=100000000 --key_size=8 "
      "--value_size=48 --statistics=1 --db={}",
      threads, seconds, dir);
  std::string out;
  const kit::CpuTimes cpu0 = kit::read_cpu_times();
  if (t.error = capture(t.command, &out); !t.error.empty()) return t;
  t.ops_per_s = parse_db_bench(out);
  if (t.ops_per_s <= 0) t.error = "no 'ops/sec' in db_bench's output";
  t.commits = parse_db_bench_ops(out);
  if (t.commits <= 0) t.commits = t.ops_per_s * seconds;
  set_cpu(&t, cpu0);
  t.fsyncs = parse_db_bench_wal_synced(out);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return t;
}

// Our arm's statement shape: an INSERT of (body, n) into a bigserial-keyed
// table, prepared, a transaction each, synchronous_commit on, and the
// backends time their WAL syncs (track_wal_io_timing), as our sessions do.
// pgbench's body is a literal of our body's size where ours is a text
// parameter: the only difference left in what the server runs.
ToolRun run_pgbench(int port, const std::string& dir, int clients, int seconds) {
  ToolRun t;
  std::filesystem::create_directories(dir);
  const std::string table = fmt::format("pgbench_peer_{}", clients);
  const std::string conn = fmt::format("-h 127.0.0.1 -p {} -U postgres", port);
  std::string out;
  const std::string setup = fmt::format(
      "psql -X -q {} -d fenec -c {}", conn,
      quote(fmt::format("DROP TABLE IF EXISTS {0}; CREATE TABLE {0} (id bigserial PRIMARY KEY, body text NOT NULL, "
                        "n bigint NOT NULL)",
                        table)));
  if (t.error = capture(setup, &out); !t.error.empty()) return t;
  const std::string script = dir + "/insert.sql";
  std::ofstream(script) << fmt::format(
      "\\set n random(0, 999)\nINSERT INTO {} (body, n) VALUES ('doc 0000000001 amber basalt 1234567', :n);\n", table);
  t.command = fmt::format(
      "PGOPTIONS='-c synchronous_commit=on -c track_wal_io_timing=on' pgbench -n -M prepared -c {0} -j {0} -T {1} "
      "-f {2} {3} fenec",
      clients, seconds, script, conn);
  std::string err;
  pg::PqConn admin(pg::Connect(fmt::format("host=127.0.0.1 port={} user=postgres dbname=fenec", port), &err));
  const PgWalStats wal0 = admin ? read_pg_wal_stats(admin.get(), true) : PgWalStats{};
  out.clear();
  const kit::CpuTimes cpu0 = kit::read_cpu_times();
  if (t.error = capture(t.command, &out); !t.error.empty()) return t;
  t.commits = parse_pgbench_transactions(out);
  set_cpu(&t, cpu0);
  t.ops_per_s = parse_pgbench(out);
  if (t.ops_per_s <= 0) t.error = "no 'tps =' in pgbench's output";
  if (admin && wal0.ok) {
    const PgWalStats wal1 = read_pg_wal_stats(admin.get(), true);
    if (wal1.ok && wal1.syncs > wal0.syncs) {
      t.fsyncs = static_cast<double>(wal1.syncs - wal0.syncs);
      t.sync_us = (wal1.sync_ms - wal0.sync_ms) * 1000 / t.fsyncs;
    }
  }
  out.clear();
  (void)capture(fmt::format("psql -X -q {} -d fenec -c {}", conn, quote("DROP TABLE IF EXISTS " + table)), &out);
  return t;
}

// The plain SQLite client (sqlite_client.h) on a live database: first
// `seconds` of the same inserts untimed (the WAL grown and reset by its
// checkpoints, as a database in use has it), then `seconds` timed.
// fresh_ops_per_s: the same client on a new file, for the note.
ToolRun run_sqlite_client_tool(const std::string& dir, int threads, int seconds, SqliteClientRun* fresh_out,
                               uint64_t* live_wal_bytes) {
  ToolRun t;
  std::filesystem::create_directories(dir);
  t.command = fmt::format("sqlite-client {0}/live.sqlite {1} {2} {2} count (a fresh file: sqlite-client "
                          "{0}/fresh.sqlite {1} {2} 0 count)",
                          dir, threads, seconds);
  // No CPU figure: the machine's CPU over the call would count the warm-up too.
  const SqliteClientRun live = run_sqlite_client(dir + "/live.sqlite", threads, seconds, seconds, true);
  if (!live.error.empty()) return t.error = live.error, t;
  t.ops_per_s = live.ops_per_s;
  t.commits = static_cast<double>(live.commits);
  t.fsyncs = static_cast<double>(live.syncs.total());
  *live_wal_bytes = live.wal_bytes;
  *fresh_out = run_sqlite_client(dir + "/fresh.sqlite", threads, seconds, 0, true);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return t;
}

// A sync round: the commits one WAL sync covers (1 / syncs a commit) and the
// time from one sync's start to the next's (1 / (rate x syncs a commit)), of
// which the sync itself where it is timed. ours/tool = (their commits a
// round ratio) x (their round times' ratio), so whichever of the two moves
// most is where the gap comes from.
std::string explain_gap(const WriterFig& ours, int writers, const ToolRun& tool) {
  (void)writers;
  if (ours.commits <= 0 || ours.fsyncs <= 0 || tool.commits <= 0 || tool.fsyncs <= 0) return "";
  const double fpc_o = ours.fsyncs / ours.commits, fpc_t = tool.fsyncs / tool.commits;
  const double round_o = 1e6 / (ours.writes_per_s * fpc_o), round_t = 1e6 / (tool.ops_per_s * fpc_t);
  const double per_round = fpc_t / fpc_o;  // our commits a round over the tool's
  const double round_time = round_t / round_o;  // > 1: our rounds are shorter
  std::string s = fmt::format("commits a sync round {:.2f} vs {:.2f} ({:.2f}x); a round {:.0f} vs {:.0f} us ({:.2f}x)",
                              1 / fpc_o, 1 / fpc_t, per_round, round_o, round_t, round_time);
  if (ours.sync_us >= 0 && tool.sync_us >= 0) {
    s += fmt::format(", of it the WAL sync {:.0f} vs {:.0f} us and the rest {:.0f} vs {:.0f} us", ours.sync_us,
                     tool.sync_us, round_o - ours.sync_us, round_t - tool.sync_us);
  }
  if (ours.cpu_us_per_commit >= 0 && tool.cpu_us_per_commit >= 0) {
    s += fmt::format("; machine CPU a commit {:.0f} vs {:.0f} us", ours.cpu_us_per_commit, tool.cpu_us_per_commit);
  }
  const double ratio = ours.writes_per_s / tool.ops_per_s;
  const bool per_round_moves = std::abs(std::log(per_round)) >= std::abs(std::log(round_time));
  if (!per_round_moves && ours.sync_us >= 0 && tool.sync_us >= 0) {
    // The round times differ: is it the sync (the disk) or the rest (the driving)?
    const double d_sync = ours.sync_us - tool.sync_us, d_rest = (round_o - ours.sync_us) - (round_t - tool.sync_us);
    if (std::abs(d_sync) >= std::abs(d_rest) && (d_sync > 0) == (ratio < 1)) {
      return s + fmt::format(": the gap is the WAL sync's own time ({:+.0f} us a round; the rest {:+.0f} us), the "
                             "disk at the moment each ran, not how the arm drives the server",
                             d_sync, d_rest);
    }
    return s + ": the gap is outside the sync (the rest of a round), in how the two drive the server";
  }
  return s + (per_round_moves ? ": the gap is in how many commits share a sync round"
                              : ": the gap is in the round's time (the syncs are not timed here)");
}

namespace {

// Our arm's cell as one figure: each field's median over the repetitions.
WriterFig median_fig(const Reps<WriterFig>& cell) {
  const auto med = [&](auto get) { return kit::median(figures(cell, get)); };
  WriterFig f;
  f.writes_per_s = med([](const WriterFig& x) { return x.writes_per_s; });
  f.commits = med([](const WriterFig& x) { return x.commits; });
  f.fsyncs = med([](const WriterFig& x) { return x.fsyncs; });
  f.cpu_us_per_commit = med([](const WriterFig& x) { return x.cpu_us_per_commit; });
  f.sync_us = med([](const WriterFig& x) { return x.sync_us; });
  return f;
}

std::string us_or_dash(double v) { return v >= 0 ? fmt::format("{:.0f}", v) : "-"; }
std::string per_commit(double fsyncs, double commits) {
  return fsyncs >= 0 && commits > 0 ? fmt::format("{:.3f}", fsyncs / commits) : "-";
}

}  // namespace

void check_peers(kit::Harness& h, const Report& rep, int pg_port, int seconds) {
  kit::Table t({"arm", "writers", "ours (writes/s)", "its own tool", "ours/tool", "", "fsyncs/commit ours|tool",
                "CPU us/commit ours|tool", "WAL sync us ours|tool"});
  std::vector<std::string> notes;
  bool any = false;
  for (const char* arm : {"rocksdb-durable", "postgres-durable", "sqlite-full"}) {
    const auto a = rep.writers.find(arm);
    if (a == rep.writers.end()) continue;
    const bool pg = std::string(arm) == "postgres-durable", sq = std::string(arm) == "sqlite-full";
    const char* tool_name = pg ? "pgbench" : sq ? "sqlite-client" : "db_bench";
    if (pg && pg_port == 0) continue;
    for (int w : {1, 16}) {
      const auto cell = a->second.find(w);
      if (cell == a->second.end() || cell->second.empty()) continue;
      const WriterFig ours = median_fig(cell->second);
      const std::string dir = fmt::format("{}/peer-check-{}-{}", h.data_dir(), arm, w);
      SqliteClientRun fresh;
      uint64_t live_wal = 0;
      const ToolRun tool = pg   ? run_pgbench(pg_port, dir, w, seconds)
                           : sq ? run_sqlite_client_tool(dir, w, seconds, &fresh, &live_wal)
                                : run_db_bench(dir, w, seconds);
      const std::string cs = fmt::format("writers={}", w);
      any = true;
      if (!tool.error.empty()) {
        h.results().skip(arm, cs + ";tool", std::string(tool_name) + ": " + tool.error);
        t.row({arm, std::to_string(w), kit::format_count(ours.writes_per_s), "failed", "", tool.error.substr(0, 60),
               "", "", ""});
        notes.push_back(tool.command);
        continue;
      }
      const double ratio = ours.writes_per_s / tool.ops_per_s;
      const char* f = "CC-1";
      auto& res = h.results();
      res.add(f, arm, cs, "tool_writes_per_s", tool.ops_per_s, "ops/s");
      res.add(f, arm, cs, "ours_over_tool", ratio, "x");
      if (tool.fsyncs >= 0) res.add(f, arm, cs, "tool_fsyncs_per_commit", tool.fsyncs / tool.commits, "ratio");
      if (tool.cpu_us_per_commit >= 0) res.add(f, arm, cs, "tool_cpu_us_per_commit", tool.cpu_us_per_commit, "us");
      if (tool.sync_us >= 0) res.add(f, arm, cs, "tool_sync_us_mean", tool.sync_us, "us");
      if (sq && fresh.error.empty() && fresh.ops_per_s > 0) {
        res.add(f, arm, cs, "tool_fresh_writes_per_s", fresh.ops_per_s, "ops/s");
        res.add(f, arm, cs, "tool_wal_bytes", static_cast<double>(live_wal), "bytes");
        notes.push_back(fmt::format(
            "{} at {}: the client live: WAL {:.1f} MiB at the end; on a fresh file {} w/s ({:.2f}x live), WAL "
            "{:.1f} MiB, {} checkpoint syncs, {:.2f} s past its deadline",
            arm, w, live_wal / 1048576.0, kit::format_count(fresh.ops_per_s), fresh.ops_per_s / tool.ops_per_s,
            fresh.wal_bytes / 1048576.0, fresh.syncs.main_db, fresh.overrun_s));
      }
      const bool within = ratio >= 1 - kWithin && ratio <= 1 + kWithin;
      const std::string why = within ? "" : explain_gap(ours, w, tool);
      res.add(f, arm, cs, "tool_gap_explained", within || !why.empty() ? 1 : 0, "bool");
      t.row({arm, std::to_string(w), kit::format_count(ours.writes_per_s), kit::format_count(tool.ops_per_s),
             fmt::format("{:.2f}x", ratio),
             within ? "within 15%" : (why.empty() ? "OUTSIDE 15%, unexplained" : "outside 15%, see below"),
             per_commit(ours.fsyncs, ours.commits) + " | " + per_commit(tool.fsyncs, tool.commits),
             us_or_dash(ours.cpu_us_per_commit) + " | " + us_or_dash(tool.cpu_us_per_commit),
             us_or_dash(ours.sync_us) + " | " + us_or_dash(tool.sync_us)});
      if (!why.empty()) notes.push_back(fmt::format("{} at {} writer{}: {}", arm, w, w == 1 ? "" : "s", why));
      notes.push_back(fmt::format("{} at {}: {}", arm, w, tool.command));
    }
  }
  if (!any) return;
  std::cout << "\nPeer arms against their own tools (same run, durable; bar: within 15%; our figures the median "
               "of the repetitions, the tool's one run after the parts; SQLite's: a plain client, sqlite_client.h):\n"
            << t.str();
  for (const auto& n : notes) std::cout << "  " << n << "\n";
}

}  // namespace fenec::scenarios::concurrency
