// `iobench advise`: measure this disk, then print each engine's settings and
// the durable commits/s to expect. --verify hands the whole run to the
// advise scenario's binary (scenarios/advise), which links this library and
// runs the engines themselves: iobench stays below the scenarios.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "iobench/kit/console.h"
#include "iobench/kit/interrupt.h"
#include "iobench/kit/loopfs.h"
#include "iobench/kit/machine.h"
#include "iobench/kit/proc.h"
#include "iobench/src/advise.h"
#include "iobench/src/cli.h"
#include "iobench/src/units.h"

namespace fenec::iobench {
namespace {

struct AdviseOpts {
  CommonOpts common;
  std::string engines = "fenecdb,postgres,rocksdb,sqlite";
  std::string writers = "1,4,16";
  std::string cpu_us;  // engine=us,...
  std::string submit = "pwrite";
  std::string report, loopfs;
  std::string reps;  // --verify: the repetitions (N, or auto[:BUDGET[:CAP]]: sequential.h)
  bool quick = false, verify = false;
};

// scenarios/advise/advise-bench of this build tree (FENEC_ADVISE_BENCH overrides).
std::string advise_bench_path() {
  if (const char* p = std::getenv("FENEC_ADVISE_BENCH")) return p;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  return (self.parent_path() / "../../scenarios/advise/advise-bench").lexically_normal().string();
}

[[noreturn]] void exec_verify(const AdviseOpts& o) {
  const std::string bin = advise_bench_path();
  std::vector<std::string> args = {bin, "--dir", o.common.dir, "--engines", o.engines, "--writers", o.writers};
  if (o.quick) args.push_back("--quick");
  for (const auto& [flag, v] : {std::pair{"--json", &o.common.json}, std::pair{"--csv", &o.common.csv},
                                std::pair{"--report", &o.report}, std::pair{"--cpu-us", &o.cpu_us},
                                std::pair{"--seed", &o.common.seed}, std::pair{"--reps", &o.reps}})
    if (!v->empty()) {
      args.push_back(flag);
      args.push_back(*v);
    }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(bin.c_str(), argv.data());
  throw std::runtime_error(fmt::format("--verify runs {}: {} (build scenarios/advise, or set FENEC_ADVISE_BENCH)",
                                       bin, std::strerror(errno)));
}

std::vector<advise::EngineCalibration> parse_cpu(const std::vector<advise::Engine>& engines, const std::string& text) {
  std::vector<advise::EngineCalibration> out;
  for (advise::Engine e : engines) out.push_back({e, 0, "unknown"});
  size_t pos = 0;
  while (!text.empty() && pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    const size_t eq = item.find('=');
    advise::Engine e;
    char* end = nullptr;
    const double v = eq == std::string::npos ? 0 : std::strtod(item.c_str() + eq + 1, &end);
    if (eq == std::string::npos || !advise::parse_engine(item.substr(0, eq), &e) || !end || *end || v <= 0)
      throw UsageError(fmt::format("--cpu-us: '{}' is not engine=microseconds (e.g. fenecdb=12.5)", item));
    for (advise::EngineCalibration& c : out)
      if (c.engine == e) c = {e, v, "given"};
    pos = comma + 1;
  }
  return out;
}

int run_advise(const AdviseOpts& o) {
  std::vector<advise::Engine> engines;
  std::vector<unsigned> writers;
  std::string err;
  if (!advise::parse_engine_list(o.engines, &engines, &err)) throw UsageError("--engines: " + err);
  if (!parse_count_list(o.writers, &writers, &err)) throw UsageError("--writers: " + err);
  std::vector<advise::EngineCalibration> cpu = parse_cpu(engines, o.cpu_us);
  std::vector<SubmitKind> kinds;
  if (!parse_submit_list(o.submit, &kinds, &err) || kinds.size() != 1)
    throw UsageError("--submit: " + (err.empty() ? "one path" : err));
  const SubmitKind submit = kinds.front();
  if (o.verify) {
    if (submit == SubmitKind::kNull) throw UsageError("--verify runs the engines: not on the null path");
    exec_verify(o);
  }
  CommonOpts common = o.common;
  begin_run(common);
  advise::MeasureOptions mo;
  mo.dir = o.common.dir;
  // A device of its own under --dir, with the scheduler asked for (kit::LoopFs): the advice there.
  std::unique_ptr<kit::LoopFs> loop;
  if (!o.loopfs.empty()) {
    kit::LoopFsOptions lo;
    lo.dir = o.common.dir + "/advise-loopfs";
    lo.bytes = 2ull << 30;
    lo.scheduler = o.loopfs;
    std::string why;
    loop = kit::LoopFs::Create(lo, &why);
    if (!loop) throw std::runtime_error("--loopfs: " + why);
    mo.dir = loop->mount_point();
  }
  mo.submit = submit;
  mo.cell_s = o.quick ? 0.5 : 1.5;
  mo.jobs = {1, 4, 16};
  mo.seed = resolve_seed(o.common);
  fmt::print(stderr, "iobench advise: measuring {} ({} mode)...\n", mo.dir, o.quick ? "quick" : "full");
  // Other work on the CPUs or the disk skews every sync figure the advice rests on: say so.
  const kit::MachineSample before = kit::sample_machine();
  const advise::Measurement m = advise::measure(mo);
  const kit::MachineSample after = kit::sample_machine();
  if (!m.probe.error.empty()) throw std::runtime_error(m.probe.error);
  const advise::DiskFigures d = advise::figures_of(m);
  const advise::Advice a = advise::advise(d, cpu, writers);
  fmt::print("{}", advise::advice_text(d, cpu, a));
  auto results = make_results(o.common, "advise");
  kit::record_machine(results->meta(), before, after);
  std::fflush(stdout);  // the advice first: stdout and stderr may be one file
  fmt::print(stderr, "{}\n", kit::machine_note(results->meta()));
  advise::add_advice_rows(*results, &m, d, a);
  results->attach_json("advice", advise::advice_json(&m, d, cpu, a));
  if (!o.report.empty()) {
    const std::string e = advise::write_report(o.report, m, d, cpu, a, {}, "");
    fmt::print(stderr, "{}\n", e.empty() ? "report: " + o.report + "/advise.md" : "report: " + e);
  }
  if (loop) {
    loop.reset();  // unmounted, detached, its files deleted; then the folder made for it
    std::error_code ec;
    std::filesystem::remove(o.common.dir + "/advise-loopfs", ec);
  }
  if (kit::stop_requested()) results->mark_incomplete("interrupted");
  const int rc = emit(*results, o.common);
  return kit::stop_requested() ? 130 : rc;
}

}  // namespace

RunFn register_advise(CLI::App& root) {
  auto o = std::make_shared<AdviseOpts>();
  CLI::App* sub = root.add_subcommand("advise", "the settings each engine should use on this disk, and the "
                                                "durable commits/s to expect");
  sub->footer(
      "Measures (sweep cells, syncmethods, lies, probe, JR-3's I/O-priority cells): write+fdatasync at 4 KiB,\n"
      "8 KiB and 1 MiB appending and over written blocks, O_DIRECT|O_DSYNC, syncs in parallel at 1/4/16 jobs.\n"
      "The model (iobench/doc/advise.md) predicts durable commits/s per engine and writer count from the sync's\n"
      "time, the commits a round carries and the engine's CPU a commit (--cpu-us). Alone it has only the disk:\n"
      "--verify also calibrates each engine's own sync and a round's serial cost, and predicts from those.\n"
      "--verify runs scenarios/advise's binary: each engine at default vs recommended settings, interleaved,\n"
      "predicted vs measured with 95% intervals, repeated as the noise needs (--reps). --json: the rows and the advice (one document; '-' is stdout).");
  add_common_flags(sub, &o->common, true);
  sub->add_option("--engines", o->engines, "engines to advise: fenecdb,postgres,rocksdb,sqlite")->capture_default_str();
  sub->add_option("--writers", o->writers, "writer counts to predict at")->capture_default_str();
  sub->add_option("--cpu-us", o->cpu_us, "CPU a commit per engine, e.g. fenecdb=12,postgres=90 (default: unknown, "
                                         "sync-bound; --verify calibrates)");
  sub->add_option("--submit", o->submit, "submission path of the sweep cells (null: no disk, for tests)")
      ->capture_default_str();
  sub->add_option("--report", o->report, "write DIR/advise.md and its plots");
  sub->add_option("--loopfs", o->loopfs,
                  "advise on an ext4 loop device made under --dir with this scheduler (e.g. bfq; needs root)");
  sub->add_flag("--quick", o->quick, "short cells (0.5 s each): about a minute");
  sub->add_flag("--verify", o->verify, "run the engines at default and recommended settings (scenarios/advise)");
  sub->add_option("--reps", o->reps,
                  "--verify: repetitions of its cells, N or auto[:BUDGET[:CAP]] (default auto: a pilot, then more "
                  "where a cell's band or gain straddles its line; iobench/doc/sequential.md)");
  return [o] { return run_advise(*o); };
}

}  // namespace fenec::iobench
