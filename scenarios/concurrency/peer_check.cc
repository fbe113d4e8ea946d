#include "scenarios/concurrency/peer_check.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>

#include "iobench/kit/console.h"
#include "iobench/kit/stats.h"

namespace fenec::scenarios::concurrency {
namespace {

constexpr double kWithin = 0.15;  // issue 14: each peer arm within 15% of its own tool

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

double parse_pgbench(const std::string& out) {
  static const std::regex re(R"(tps = ([0-9.]+))");
  return first_number_after(out, re);
}

// Keys of 8 bytes and values of 48, as our rows encode (id; n + a ~40-byte body).
ToolRun run_db_bench(const std::string& dir, int threads, int seconds) {
  ToolRun t;
  t.command = fmt::format(
      "db_bench --benchmarks=fillrandom --sync=1 --threads={} --duration={} --num=100000000 --key_size=8 "
      "--value_size=48 --db={}",
      threads, seconds, dir);
  std::string out;
  if (t.error = capture(t.command, &out); !t.error.empty()) return t;
  t.ops_per_s = parse_db_bench(out);
  if (t.ops_per_s <= 0) t.error = "no 'ops/sec' in db_bench's output";
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return t;
}

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
      "PGOPTIONS='-c synchronous_commit=on' pgbench -n -M prepared -c {0} -j {0} -T {1} -f {2} {3} fenec", clients,
      seconds, script, conn);
  out.clear();
  if (t.error = capture(t.command, &out); !t.error.empty()) return t;
  t.ops_per_s = parse_pgbench(out);
  if (t.ops_per_s <= 0) t.error = "no 'tps =' in pgbench's output";
  out.clear();
  (void)capture(fmt::format("psql -X -q {} -d fenec -c {}", conn, quote("DROP TABLE IF EXISTS " + table)), &out);
  return t;
}

void check_peers(kit::Harness& h, const Report& rep, int pg_port, int seconds) {
  kit::Table t({"arm", "writers", "ours (writes/s)", "its own tool", "ours/tool", "", "tool command"});
  bool any = false;
  for (const char* arm : {"rocksdb-durable", "postgres-durable"}) {
    const auto a = rep.writers.find(arm);
    if (a == rep.writers.end()) continue;
    const bool pg = std::string(arm) == "postgres-durable";
    if (pg && pg_port == 0) continue;
    for (int w : {1, 16}) {
      const auto cell = a->second.find(w);
      if (cell == a->second.end() || cell->second.empty()) continue;
      const double ours = kit::median(figures(cell->second, [](const WriterFig& f) { return f.writes_per_s; }));
      const std::string dir = fmt::format("{}/peer-check-{}-{}", h.data_dir(), arm, w);
      const ToolRun tool = pg ? run_pgbench(pg_port, dir, w, seconds) : run_db_bench(dir, w, seconds);
      const std::string cs = fmt::format("writers={}", w);
      any = true;
      if (!tool.error.empty()) {
        h.results().skip(arm, cs + ";tool", (pg ? "pgbench: " : "db_bench: ") + tool.error);
        t.row({arm, std::to_string(w), kit::format_count(ours), "failed", "", tool.error.substr(0, 60), tool.command});
        continue;
      }
      const double ratio = ours / tool.ops_per_s;
      const char* f = "CC-1";
      h.results().add(f, arm, cs, "tool_writes_per_s", tool.ops_per_s, "ops/s");
      h.results().add(f, arm, cs, "ours_over_tool", ratio, "x");
      const bool within = ratio >= 1 - kWithin && ratio <= 1 + kWithin;
      t.row({arm, std::to_string(w), kit::format_count(ours), kit::format_count(tool.ops_per_s),
             fmt::format("{:.2f}x", ratio), within ? "within 15%" : "OUTSIDE 15%", tool.command});
    }
  }
  if (any) std::cout << "\nPeer arms against their own tools (same run, durable; bar: within 15%):\n" << t.str();
}

}  // namespace fenec::scenarios::concurrency
