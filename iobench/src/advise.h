// `iobench advise`: from this disk's measured costs, the settings each
// engine should use here and the durable commits/s to expect
// (iobench/doc/advise.md states the model and where it breaks).
//
// Three layers, each usable alone:
//   measure()  runs sweep cells, syncmethods, lies, probe and JR-3's
//              priority cells (their code, called): the disk's figures;
//   figures_of() + advise()  the model and the recommendations: pure
//              arithmetic on DiskFigures and each engine's calibration, so
//              tests pin it on fixed inputs;
//   advise_report.cc  the text a user pastes, JSON, tidy rows, Markdown + plots.
// The verifying half (engines run at default vs recommended settings) sits
// above iobench in scenarios/advise, which links this library; `iobench
// advise --verify` execs that scenario's binary.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "iobench/src/lies.h"
#include "iobench/src/probe.h"
#include "iobench/src/sweep.h"
#include "iobench/src/syncmethods.h"

namespace fenec::kit {
class Results;
}

namespace fenec::iobench::advise {

enum class Engine { kFenecdb, kPostgres, kRocksdb, kSqlite };
inline constexpr Engine kAllEngines[] = {Engine::kFenecdb, Engine::kPostgres, Engine::kRocksdb, Engine::kSqlite};
const char* engine_name(Engine e);  // "fenecdb", "postgres", "rocksdb", "sqlite"
bool parse_engine(const std::string& name, Engine* out);
bool parse_engine_list(const std::string& text, std::vector<Engine>* out, std::string* err);

// One size's durable-write costs: write+fdatasync appending to a file that
// grows with each write (each sync commits its new size, as an engine's
// log that is only appended to does); the same over blocks the file already
// has; O_DIRECT|O_DSYNC there.
// The 4 KiB append and overwrite cells alternate this many times (measure()).
inline constexpr int kSyncPairs = 3;

struct SyncCosts {
  uint64_t size = 0;
  CellResult append, overwrite, direct;
};

// Whether the scheduler honours I/O priority: JR-3's journal cell (4 KiB
// appends + fdatasync, iobench/src/prio.h) alone, beside an O_DIRECT
// background at the journal's priority, and beside the same in the IDLE class.
struct PrioControl {
  std::string skipped;
  double alone_p50_us = 0, equal_p50_us = 0, idle_p50_us = 0;
  double equal_bg_mb_s = 0, idle_bg_mb_s = 0;
  // IDLE protected the foreground: its p50 beside IDLE at most 0.8x its p50
  // beside the equal-priority writer, and the background actually slowed it.
  bool honoured = false;
};

struct Measurement {
  ProbeResult probe;
  unsigned cores = 1;
  std::vector<SyncCosts> sizes;     // 4 KiB (a small record's page), 8 KiB (the WAL page), 1 MiB
  std::vector<CellResult> overlap;  // 8 KiB write+fdatasync over written blocks, a file a job, at each job count
  std::vector<CellResult> overlap_append;  // the same appending (each file grows)
  LiesResult lies;
  SyncMethodsResult syncmethods;
  PrioControl prio;
  double seconds = 0;               // wall time of measure()
};

struct MeasureOptions {
  std::string dir;
  SubmitKind submit = SubmitKind::kPwrite;  // kNull: no disk (tests); lies, syncmethods, prio skipped
  double cell_s = 1;                        // per sweep cell
  std::vector<unsigned> jobs = {1, 4, 16};  // the overlap cells
  uint64_t seed = 1;
  bool (*stop)() = kit::stop_requested;
};
Measurement measure(const MeasureOptions& o);

// What the model reads: medians (us) of one durable commit's write + sync.
struct DiskFigures {
  double append_us = 0;      // 4 KiB write+fdatasync appending (the file grows)
  double overwrite_us = 0;   // 4 KiB write+fdatasync over allocated blocks
  double direct_us = 0;      // 4 KiB O_DIRECT|O_DSYNC overwrite; 0: no O_DIRECT here
  double wal8k_fdatasync_us = 0, wal8k_dsync_us = 0;  // syncmethods' "one 8k write", 0 if not run
  bool wal8k_dsync_direct = false;                    // the dsync figure had O_DIRECT
  double big_us = 0;         // 1 MiB write+fdatasync overwrite (a checkpoint's flush)
  std::vector<std::pair<unsigned, double>> overlap;   // jobs -> ops/s over one job's
  // jobs -> a commit's p50 with that many syncing at once, over one job's
  // alone: a sync's time depends on what else runs (the model's T at N writers).
  std::vector<std::pair<unsigned, double>> overwrite_scale, append_scale;
  unsigned cores = 1;
  bool memory_backed = false, o_direct = false;
  Durability lies = Durability::kUnknown;
  std::vector<std::string> lies_reasons;
  std::string scheduler = "unknown";
  bool prio_known = false, prio_honoured = false;
  double prio_equal_us = 0, prio_idle_us = 0;
};
DiskFigures figures_of(const Measurement& m);

// One engine's calibration (scenarios/advise runs it; iobench alone has only
// --cpu-us). Every field <= 0 is unknown, and the model then falls back to
// the disk's own figures for it (said in the output).
// A setting an arm applies: name -> value, as the engine spells it
// (PostgreSQL GUCs, RocksDB option strings, SQLite pragmas, fenecdb Options fields).
using Settings = std::map<std::string, std::string>;

struct EngineCalibration {
  Engine engine = Engine::kFenecdb;
  double cpu_us = 0;     // x: CPU a commit outside its sync (a buffered run of that engine, or given)
  std::string cpu_from;  // where x came from: "calibrated", "given", "unknown"
  // One writer, durable, default settings: a commit's time, call to return.
  // Its part beyond x over the disk's sync for those settings is the
  // engine's own factor on every sync it makes (k in the doc).
  double commit_us = 0;
  // `at_writers` durable writers, default settings: commits/s and commits a
  // sync there (the serial cost each commit adds to a round, s), and the CPU
  // a durable commit costs there, wake-ups included (what a window waits
  // for the released writers to spend).
  unsigned at_writers = 0;
  double rate_per_s = 0, per_round = 0, busy_cpu_us = 0;
  // The settings these cells ran at: empty for the engine's defaults (see
  // calibrates_apart: some settings need a calibration of their own).
  // Initialized, so a calibration listed without settings is complete.
  Settings settings = {};
};

// True when `s` changes what engine e does per commit beyond the disk figure
// it meets (SQLite's journal mode: DELETE creates, syncs and unlinks a
// journal a commit, WAL appends a frame), so that k and s taken at the
// defaults do not carry to them: verify calibrates such settings apart.
bool calibrates_apart(Engine e, const Settings& s);


struct Recommendation {
  Engine engine = Engine::kFenecdb;
  std::string name, value, default_value;
  std::string reason;         // one line, quoting the measured figure it rests on
  bool changes_default = false;
  bool tradeoff = false;      // gives up something (durability): stated, never applied by --verify
  double predicted_gain = 0;  // at the largest writer count; 0 where the model has none
};

// The model's answer for one engine, config and writer count.
struct Prediction {
  Engine engine = Engine::kFenecdb;
  std::string config;          // "default" or "recommended"
  unsigned writers = 1;
  double round_us = 0;         // one sync round: the commit's write + sync, plus any window waited
  double commits_per_round = 1;
  double commits_per_s = 0;
  bool cpu_bound = false;
};

// What the model took from an engine's calibration (iobench/doc/advise.md).
struct EngineFit {
  Engine engine = Engine::kFenecdb;
  bool calibrated = false;  // false: k = 1, s = 0, the disk's figures alone
  double k = 1;             // the engine's sync over the disk's, at one writer
  double s_us = 0;          // serial time a commit adds to a round (SQLite: a writer adds to a commit)
  double busy_cpu_us = 0;   // CPU a durable commit at many writers (the window's wait, the CPU cap)
  std::string note;         // the figures each came from, one line
};

struct Advice {
  std::vector<std::string> warnings;  // first in every output: the lies verdict, memory-backed dirs
  std::vector<Recommendation> recs;
  std::vector<Prediction> predictions;
  std::map<Engine, Settings> recommended;  // what changes a default and is not a trade-off
  std::vector<EngineFit> fits;
};

// The model (iobench/doc/advise.md): R(N) = min(N / (x + (N / c) * round), cores / x_busy),
// round = k*T + (c - 1)*s + wait (SQLite: c = 1, round = k*T + (N - 1)*s).
double commits_per_s(double x_us, double round_us, double per_round, unsigned writers, unsigned cores,
                     double cap_cpu_us, bool* cpu_bound = nullptr);
// Commits one round carries at N writers: 1 at one writer; without a window a
// group commit carries about half (those released by round k arrive while
// round k+1 syncs); with a window that waits for them, all N.
double commits_per_round(unsigned writers, bool group_commit, bool window);
// The wait a window adds to a round: every writer was released by the last
// round (it carried them all), and each spends its durable commit's CPU to
// come back, over the cores; capped by the window itself.
double window_wait_us(double window_us, double busy_cpu_us, unsigned writers, unsigned cores);
// k, s and the busy CPU from a calibration (k = 1, s = 0 where it has none).
EngineFit fit_of(const EngineCalibration& c, const DiskFigures& d);
// The scale at the largest measured job count <= writers (1 if none).
double scale_at(const std::vector<std::pair<unsigned, double>>& scale, unsigned writers);

// The settings a verify run's "default" config starts from: the engine's own
// defaults, spelled out where the arm's baseline differs (SQLite's arm is WAL).
Settings default_settings(Engine e);

Advice advise(const DiskFigures& d, const std::vector<EngineCalibration>& cpu, const std::vector<unsigned>& writers);
// The model's prediction for engine c.engine at `settings` and N writers,
// from that calibration (advise() makes its own from the same arithmetic).
// --verify calls it once a repetition with that repetition's calibration.
Prediction predict_with(const DiskFigures& d, const EngineCalibration& c, const std::string& config,
                        const Settings& settings, unsigned writers);
// The writer count of the many-writer calibration: between the default
// 4 and 16, so neither is predicted from its own measurement.
inline constexpr unsigned kCalibrationWriters = 8;

// Output (advise_report.cc).
std::string advice_text(const DiskFigures& d, const std::vector<EngineCalibration>& cpu, const Advice& a);
std::string advice_json(const Measurement* m, const DiskFigures& d, const std::vector<EngineCalibration>& cpu,
                        const Advice& a, const std::string& verify_json = "");
void add_advice_rows(kit::Results& r, const Measurement* m, const DiskFigures& d, const Advice& a);
// <dir>/advise.md and its plots (sync latency CDFs append vs overwrite;
// predicted vs measured when `measured` has rows: engine/config/writers -> commits/s).
struct MeasuredPoint {
  Engine engine;
  std::string config;
  unsigned writers;
  double commits_per_s, lo, hi;  // median of repetitions and its 95% interval
};
std::string write_report(const std::string& dir, const Measurement& m, const DiskFigures& d,
                         const std::vector<EngineCalibration>& cpu, const Advice& a,
                         const std::vector<MeasuredPoint>& measured, const std::string& verify_md);

}  // namespace fenec::iobench::advise
