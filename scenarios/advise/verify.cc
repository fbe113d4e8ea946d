#include "scenarios/advise/verify.h"

#include <time.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "iobench/kit/console.h"
#include "iobench/kit/interrupt.h"
#include "iobench/kit/proc.h"
#include "iobench/kit/stats.h"
#include "scenarios/engines/workload.h"
#include "scenarios/pg/pg_cluster.h"

namespace fenec::scenarios::advise {
namespace {

using engines::ArmSpec;

double process_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

// The CPU seconds a PostgreSQL cluster has used: its postmaster's own and its
// reaped children's (the backends that have exited), plus its live children's.
// Counting only the cluster keeps the rest of a shared machine out of it.
double cluster_cpu_s(const std::string& pg_dir) {
  std::ifstream pidf(pg_dir + "/postmaster.pid");
  long pm = 0;
  if (!(pidf >> pm) || pm <= 0) return -1;
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  double total = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(entry.path() / "stat");
    std::string line;
    if (!std::getline(f, line)) continue;
    const size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    std::string state;
    long ppid = 0;
    rest >> state >> ppid;
    std::string skip;
    for (int i = 0; i < 9; ++i) rest >> skip;  // pgrp .. cmajflt: fields 5..13
    double ut = 0, st = 0, cut = 0, cst = 0;
    rest >> ut >> st >> cut >> cst;
    const long pid = std::stol(name);
    if (pid == pm) total += (ut + st + cut + cst) / tick;
    else if (ppid == pm) total += (ut + st) / tick;
  }
  return total;
}

ArmSpec::Engine arm_engine(ia::Engine e) {
  switch (e) {
    case ia::Engine::kFenecdb: return ArmSpec::Engine::kFenecdb;
    case ia::Engine::kPostgres: return ArmSpec::Engine::kPostgres;
    case ia::Engine::kRocksdb: return ArmSpec::Engine::kRocksdb;
    case ia::Engine::kSqlite: return ArmSpec::Engine::kSqlite;
  }
  return ArmSpec::Engine::kFenecdb;
}

// A fresh store in its own folder, one run_writers cell, closed and removed.
std::string one_cell(const ArmSpec& arm, const std::string& dir, const std::string& pg, int writers, double seconds,
                     uint64_t seed, engines::WritersResult* out, double* own_cpu_s) {
  std::string err;
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  auto store = engines::open_store(arm, "writers", dir, pg, &err);
  if (!store) return err.empty() ? "open failed" : err;
  const double cpu0 = process_cpu_s();
  *out = engines::run_writers(*store, writers, engines::Budget{seconds, 1'000'000}, seed);
  *own_cpu_s = process_cpu_s() - cpu0;
  const std::string close_err = store->close();
  store.reset();
  std::filesystem::remove_all(dir, ec);
  if (!out->error.empty()) return out->error;
  return close_err;
}

std::vector<ia::EngineCpu> calibrate(kit::Harness& h, const Config& c, const std::vector<ia::Engine>& engines,
                                     const std::string& pg) {
  std::vector<ia::EngineCpu> cpu;
  for (ia::Engine e : engines) {
    ia::EngineCpu ec{e, 0, "unknown"};
    engines::WritersResult r;
    double own = 0;
    // Buffered: the commit's CPU without its sync. PostgreSQL's is in its
    // backends, so the cluster's processes count for it beside our client's.
    const bool is_pg = e == ia::Engine::kPostgres;
    const double pg0 = is_pg ? cluster_cpu_s(h.data_dir() + "/pg") : 0;
    const std::string err = one_cell(arm_of(e, {}, false), h.data_dir() + "/calibrate", pg, 1, c.calibrate_seconds,
                                     h.seed(7), &r, &own);
    const double pg_s = is_pg ? cluster_cpu_s(h.data_dir() + "/pg") - pg0 : 0;
    if (err.empty() && r.writes > 0 && pg0 >= 0) {
      ec = {e, (own + pg_s) * 1e6 / static_cast<double>(r.writes),
            is_pg ? "calibrated: client + cluster processes" : "calibrated, process CPU"};
    } else {
      fmt::print(stderr, "advise: calibrating {}: {}\n", ia::engine_name(e), err);
    }
    cpu.push_back(ec);
  }
  return cpu;
}

}  // namespace

ArmSpec arm_of(ia::Engine e, const ia::Settings& settings, bool durable) {
  ArmSpec a;
  a.engine = arm_engine(e);
  a.name = fmt::format("{}-{}", ia::engine_name(e), durable ? "durable" : "buffered");
  a.durable = durable;
  a.settings = settings;
  return a;
}

int run(kit::Harness& h, const Config& c) {
  std::vector<ia::Engine> engines;
  for (const std::string& n : c.engines) {
    ia::Engine e;
    if (ia::parse_engine(n, &e)) engines.push_back(e);
  }
  std::vector<unsigned> writers(c.writers.begin(), c.writers.end());
  auto& meta = h.results().meta();
  meta.set("loadavg_start", kit::load_average());

  // 1. The disk.
  ia::MeasureOptions mo;
  mo.dir = h.data_dir();
  mo.cell_s = c.measure_seconds;
  mo.seed = h.seed(1);
  fmt::print(stderr, "advise: measuring {}\n", mo.dir);
  const ia::Measurement m = ia::measure(mo);
  if (!m.probe.error.empty()) {
    h.fail("probe: " + m.probe.error);
    return h.finish();
  }
  const ia::DiskFigures d = ia::figures_of(m);

  // 2. The engines present, and their CPU a commit.
  pg::PgCluster cluster;
  std::string pg;
  if (std::find(engines.begin(), engines.end(), ia::Engine::kPostgres) != engines.end()) {
    if (const std::string err = cluster.Start(h.data_dir() + "/pg"); !err.empty()) {
      h.results().skip("postgres", "all", err);
      engines.erase(std::find(engines.begin(), engines.end(), ia::Engine::kPostgres));
    } else {
      pg = cluster.conninfo();
      meta.set("postgres", cluster.Version());
    }
  }
  meta.set("rocksdb", engines::rocksdb_version());
  std::vector<ia::EngineCpu> cpu = calibrate(h, c, engines, pg);
  if (!c.cpu_us.empty())
    for (ia::EngineCpu& ec : cpu) {
      const std::string key = std::string(ia::engine_name(ec.engine)) + "=";
      const size_t at = c.cpu_us.find(key);
      if (at != std::string::npos) ec = {ec.engine, std::atof(c.cpu_us.c_str() + at + key.size()), "given"};
    }

  // 3. The advice.
  const ia::Advice a = ia::advise(d, cpu, writers);
  fmt::print(stderr, "{}\n", ia::advice_text(d, cpu, a));

  // 4. Each engine at default and recommended settings, every writer count, interleaved.
  std::vector<Cell> cells;
  for (ia::Engine e : engines) {
    const auto rec = a.recommended.find(e);
    for (int w : c.writers) {
      cells.push_back({e, "default", w, ia::default_settings(e), {}, {}, ""});
      if (rec != a.recommended.end()) cells.push_back({e, "recommended", w, rec->second, {}, {}, ""});
    }
  }
  kit::Progress progress("advise verify", cells.size() * static_cast<size_t>(h.reps()));
  size_t done = 0;
  h.interleave(cells.size(), [&](size_t i, int rep) {
    Cell& cell = cells[i];
    progress.update(done++, fmt::format("{} {} writers={} rep {}", ia::engine_name(cell.engine), cell.config,
                                        cell.writers, rep));
    if (!cell.error.empty()) return;
    engines::WritersResult r;
    double own = 0;
    cell.error = one_cell(arm_of(cell.engine, cell.settings, true), h.data_dir() + "/cell", pg, cell.writers,
                          c.seconds, h.seed(1000 + i * 100 + rep), &r, &own);
    if (!cell.error.empty()) return;
    cell.rates.push_back(r.per_s());
    cell.per_round.push_back(r.counters.fsyncs ? static_cast<double>(r.counters.commits) / r.counters.fsyncs : 0);
    const std::string arm = fmt::format("{}-{}", ia::engine_name(cell.engine), cell.config);
    const std::string cs = fmt::format("writers={};rep={}", cell.writers, rep);
    h.results().add("", arm, cs, "commits_per_s", cell.rates.back(), "ops/s");
    h.results().add("", arm, cs, "commits_per_fsync", cell.per_round.back(), "count");
    h.results().add("", arm, cs, "fsyncs", static_cast<double>(r.counters.fsyncs), "count");
  });
  progress.finish();
  cluster.Stop();

  // 5. The verdicts, the report.
  const Verdicts v = judge(a, cells, h.results());
  fmt::print("{}", v.table);
  ia::add_advice_rows(h.results(), &m, d, a);
  h.results().attach_json("advice", ia::advice_json(&m, d, cpu, a, v.json));
  std::string dir = c.report;
  if (dir.empty()) dir = std::filesystem::path(h.plot_path("advise")).parent_path().string();
  const std::string err = ia::write_report(dir, m, d, cpu, a, v.points, v.markdown);
  fmt::print(stderr, "report: {}\n", err.empty() ? dir + "/advise.md" : err);
  meta.set("loadavg_end", kit::load_average());
  for (const Cell& cell : cells)
    if (!cell.error.empty())
      h.results().skip(fmt::format("{}-{}", ia::engine_name(cell.engine), cell.config),
                       fmt::format("writers={}", cell.writers), cell.error);
  return h.finish();
}

}  // namespace fenec::scenarios::advise
