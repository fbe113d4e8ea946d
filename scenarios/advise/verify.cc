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

// One calibration cell: commits/s, commits a sync and the CPU a commit
// (ours, plus PostgreSQL's cluster processes: its commits run in backends).
struct Calibrated {
  std::string error;
  double rate = 0, per_round = 0, cpu_us = 0;
};
Calibrated calibrate_cell(kit::Harness& h, ia::Engine e, const ia::Settings& settings, bool durable, int writers,
                          double seconds, const std::string& pg, uint64_t seed) {
  Calibrated out;
  engines::WritersResult r;
  double own = 0;
  const bool is_pg = e == ia::Engine::kPostgres;
  const double pg0 = is_pg ? cluster_cpu_s(h.data_dir() + "/pg") : 0;
  out.error = one_cell(arm_of(e, settings, durable), h.data_dir() + "/calibrate", pg, writers, seconds, seed, &r, &own);
  const double pg_s = is_pg ? cluster_cpu_s(h.data_dir() + "/pg") - pg0 : 0;
  if (out.error.empty() && (r.writes == 0 || pg0 < 0)) out.error = "no commits, or the cluster's CPU unreadable";
  if (!out.error.empty()) return out;
  out.rate = r.per_s();
  out.per_round = r.counters.fsyncs ? static_cast<double>(r.counters.commits) / r.counters.fsyncs : 0;
  out.cpu_us = (own + pg_s) * 1e6 / static_cast<double>(r.writes);
  return out;
}

// One engine at `settings` (its defaults, or settings that calibrate apart):
// one buffered writer (the CPU a commit outside its sync), one durable
// writer (its own sync, k) and kCalibrationWriters durable writers (the
// serial time a commit adds to a round, s, and the CPU a durable commit
// there). `rep` < 0: the calibration the advice is made from; else
// repetition rep's, run among its cells.
ia::EngineCalibration calibrate_engine(kit::Harness& h, const Config& c, ia::Engine e, const ia::Settings& settings,
                                       const std::string& pg, int rep) {
  ia::EngineCalibration ec{e, 0, "unknown"};
  ec.settings = settings;
  auto& res = h.results();
  const bool apart = settings != ia::default_settings(e);
  const std::string arm = fmt::format("{}-{}calibration", ia::engine_name(e), apart ? "recommended-" : "");
  const std::string r = rep < 0 ? "" : fmt::format(";rep={}", rep);
  const uint64_t seed = h.seed(7 + 10 * static_cast<uint64_t>(rep + 1) + (apart ? 5 : 0));
  const Calibrated buffered = calibrate_cell(h, e, settings, false, 1, c.calibrate_seconds, pg, seed);
  const Calibrated one = calibrate_cell(h, e, settings, true, 1, c.calibrate_seconds, pg, seed + 1);
  const Calibrated many = calibrate_cell(h, e, settings, true, static_cast<int>(ia::kCalibrationWriters),
                                         c.calibrate_seconds, pg, seed + 2);
  for (const auto& [what, x] : {std::pair{"buffered", &buffered}, std::pair{"durable 1 writer", &one},
                                std::pair{"durable many writers", &many}})
    if (!x->error.empty())
      fmt::print(stderr, "advise: calibrating {} ({}): {}\n", ia::engine_name(e), what, x->error);
  if (buffered.error.empty()) {
    ec.cpu_us = buffered.cpu_us;
    ec.cpu_from = e == ia::Engine::kPostgres ? "calibrated: client + cluster processes" : "calibrated, process CPU";
    res.add("", arm, "writers=1;durable=0" + r, "cpu_us_per_commit", buffered.cpu_us, "us");
  }
  if (one.error.empty() && one.rate > 0) {
    ec.commit_us = 1e6 / one.rate;
    res.add("", arm, "writers=1;durable=1" + r, "commit_us", ec.commit_us, "us");
  }
  if (many.error.empty() && many.rate > 0) {
    ec.at_writers = ia::kCalibrationWriters;
    ec.rate_per_s = many.rate;
    ec.per_round = many.per_round;
    ec.busy_cpu_us = many.cpu_us;
    const std::string cs = fmt::format("writers={};durable=1", ia::kCalibrationWriters) + r;
    res.add("", arm, cs, "commits_per_s", many.rate, "ops/s");
    res.add("", arm, cs, "commits_per_fsync", many.per_round, "count");
    res.add("", arm, cs, "cpu_us_per_commit", many.cpu_us, "us");
  }
  return ec;
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
      if (!cluster.missing()) h.fail("postgres: " + err);  // installed but not started: not a mere skip
      engines.erase(std::find(engines.begin(), engines.end(), ia::Engine::kPostgres));
    } else {
      pg = cluster.conninfo();
      meta.set("postgres", cluster.Version());
    }
  }
  meta.set("rocksdb", engines::rocksdb_version());
  std::vector<ia::EngineCalibration> cpu;
  for (ia::Engine e : engines) cpu.push_back(calibrate_engine(h, c, e, ia::default_settings(e), pg, -1));
  if (!c.cpu_us.empty())
    for (ia::EngineCalibration& ec : cpu) {
      const std::string key = std::string(ia::engine_name(ec.engine)) + "=";
      const size_t at = c.cpu_us.find(key);
      if (at != std::string::npos) {
        ec.cpu_us = std::atof(c.cpu_us.c_str() + at + key.size());
        ec.cpu_from = "given";
      }
    }

  // 3. The advice.
  const ia::Advice a = ia::advise(d, cpu, writers);
  fmt::print(stderr, "{}\n", ia::advice_text(d, cpu, a));

  // 4. Each engine at default and recommended settings, every writer count, interleaved.
  std::vector<Cell> cells;
  for (ia::Engine e : engines) {
    const auto rec = a.recommended.find(e);
    for (int w : c.writers) {
      auto add = [&](const char* config, const ia::Settings& settings) {
        Cell cell;
        cell.engine = e;
        cell.config = config;
        cell.writers = w;
        cell.settings = settings;
        cells.push_back(std::move(cell));
      };
      add("default", ia::default_settings(e));
      if (rec != a.recommended.end()) add("recommended", rec->second);
    }
  }
  // Each repetition calibrates every engine again among its cells, and its
  // cells are predicted from that: the disk's speed drifts over minutes, and
  // a prediction should meet the conditions of the cells it is checked on.
  // Recommended settings that calibrate apart (ia::calibrates_apart) get a
  // calibration of their own in every repetition, and their cells are
  // predicted from it; the advice's own gains stay the defaults' model.
  struct CalSpec {
    size_t engine;  // index in engines
    ia::Settings settings;
  };
  std::vector<CalSpec> cals;
  for (size_t e = 0; e < engines.size(); ++e) cals.push_back({e, ia::default_settings(engines[e])});
  for (size_t e = 0; e < engines.size(); ++e)
    if (const auto rec = a.recommended.find(engines[e]);
        rec != a.recommended.end() && ia::calibrates_apart(engines[e], rec->second))
      cals.push_back({e, rec->second});
  for (Cell& cell : cells) cell.calibrated_apart = cell.config == "recommended" && ia::calibrates_apart(cell.engine, cell.settings);
  // rep_cal[rep][k]: cals[k]'s calibration in that repetition (the advice's for the defaults until one ran).
  std::vector<ia::EngineCalibration> first;
  for (const CalSpec& k : cals) {
    first.push_back(cpu[k.engine]);
    if (k.settings != ia::default_settings(engines[k.engine])) first.back().commit_us = 0;  // none yet
  }
  std::vector<std::vector<ia::EngineCalibration>> rep_cal(static_cast<size_t>(h.reps()), first);
  const size_t n_cal = cals.size();
  kit::Progress progress("advise verify", (n_cal + cells.size()) * static_cast<size_t>(h.reps()));
  size_t done = 0;
  // Each repetition's prediction, from its own calibration.
  auto predict = [&] {
    for (Cell& cell : cells) {
      const size_t e = static_cast<size_t>(std::find(engines.begin(), engines.end(), cell.engine) - engines.begin());
      size_t k = e;  // the defaults' calibration, or the one these settings had apart
      for (size_t j = engines.size(); j < cals.size(); ++j)
        if (cell.calibrated_apart && cals[j].engine == e && cals[j].settings == cell.settings) k = j;
      cell.predicted.clear();
      for (int rep : cell.reps) {
        const ia::EngineCalibration& ec = rep_cal[static_cast<size_t>(rep)][k];
        cell.predicted.push_back(ec.commit_us > 0 || k == e ? ia::predict_with(d, ec, cell.config, cell.settings,
                                                                             static_cast<unsigned>(cell.writers))
                                                                  .commits_per_s
                                                            : 0);  // its calibration failed: the advice's stands
      }
    }
  };
  kit::Sequence& seq = h.sequence("cells");
  auto judge_window = [&](const kit::Window& w) {
    predict();
    return cell_checks(a, cells, w);
  };
  seq.run(n_cal + cells.size(), [&](size_t i, int rep) {
    if (static_cast<size_t>(rep) >= rep_cal.size()) rep_cal.resize(static_cast<size_t>(rep) + 1, first);
    if (i < n_cal) {
      const size_t e = cals[i].engine;
      const bool apart = i >= engines.size();
      progress.update(done++, fmt::format("{} {}calibration rep {}", ia::engine_name(engines[e]),
                                          apart ? "recommended " : "", rep));
      const ia::EngineCalibration ec = calibrate_engine(h, c, engines[e], cals[i].settings, pg, rep);
      if (ec.commit_us <= 0) return;  // the first calibration stands
      rep_cal[static_cast<size_t>(rep)][i] = ec;
      if (cpu[e].cpu_from == "given") {  // --cpu-us holds in every repetition
        rep_cal[static_cast<size_t>(rep)][i].cpu_us = cpu[e].cpu_us;
        rep_cal[static_cast<size_t>(rep)][i].cpu_from = cpu[e].cpu_from;
      }
      return;
    }
    Cell& cell = cells[i - n_cal];
    progress.update(done++, fmt::format("{} {} writers={} rep {}", ia::engine_name(cell.engine), cell.config,
                                        cell.writers, rep));
    if (!cell.error.empty()) return;
    engines::WritersResult r;
    double own = 0;
    cell.error = one_cell(arm_of(cell.engine, cell.settings, true), h.data_dir() + "/cell", pg, cell.writers,
                          c.seconds, h.seed(1000 + i * 100 + rep), &r, &own);
    if (!cell.error.empty()) return;
    cell.rates.push_back(r.per_s());
    cell.reps.push_back(rep);
    cell.per_round.push_back(r.counters.fsyncs ? static_cast<double>(r.counters.commits) / r.counters.fsyncs : 0);
    const std::string arm = fmt::format("{}-{}", ia::engine_name(cell.engine), cell.config);
    const std::string cs = fmt::format("writers={};rep={}", cell.writers, rep);
    h.results().add("", arm, cs, "commits_per_s", cell.rates.back(), "ops/s");
    h.results().add("", arm, cs, "commits_per_fsync", cell.per_round.back(), "count");
    h.results().add("", arm, cs, "fsyncs", static_cast<double>(r.counters.fsyncs), "count");
  }, judge_window);
  progress.finish();
  cluster.Stop();
  predict();

  // 5. The verdicts, the report: each cell's checks as the sequence judged them.
  const std::vector<kit::Check> judged = seq.checks(judge_window);
  const Verdicts v = judge(a, cells, h.results(), &judged);
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
