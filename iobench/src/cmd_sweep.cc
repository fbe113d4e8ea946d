// `iobench sweep`: the grid, one cell after another, with progress, a table,
// tidy rows, the JSON sidecar (histograms, interval series) and plots.
#include <fmt/format.h>

#include <fstream>

#include "iobench/kit/console.h"
#include "iobench/src/fio_job.h"
#include "iobench/src/cli.h"
#include "iobench/src/submit.h"
#include "iobench/src/sweep.h"
#include "iobench/src/sweep_report.h"
#include "iobench/src/units.h"
#include "iobench/kit/interrupt.h"
#include "iobench/kit/proc.h"

namespace fenec::iobench {
namespace {

// The registry's default path: what --submit is without the flag.
std::string default_submit() {
  for (const SubmitPath* p : submit_paths())
    if (p->is_default) return p->name;
  return submit_paths().front()->name;
}

struct SweepOpts {
  CommonOpts common;
  std::string sizes = "4k,16k,64k,256k,1m,16m";
  std::string modes = "buffered,fsync,fdatasync,dsync,direct,direct-dsync";
  std::string jobs = "1";
  std::string layouts = "shared";
  std::string submits = default_submit();
  unsigned batch = 1, depth = 1;
  bool prefill = false;
  std::string duration = "2s", total = "256m", interval = "1s";
  std::string plots;
  std::string fio_jobs;
};

template <typename T>
void parse_or_usage(bool ok, const std::string& flag, const std::string& err) {
  if (!ok) throw UsageError(fmt::format("{}: {}", flag, err));
}

Grid parse_grid(const SweepOpts& o) {
  Grid g;
  std::string err;
  parse_or_usage<int>(parse_size_list(o.sizes, &g.sizes, &err), "--sizes", err);
  parse_or_usage<int>(parse_mode_list(o.modes, &g.modes, &err), "--modes", err);
  parse_or_usage<int>(parse_count_list(o.jobs, &g.jobs, &err), "--jobs", err);
  parse_or_usage<int>(parse_layout_list(o.layouts, &g.layouts, &err), "--layout", err);
  parse_or_usage<int>(parse_submit_list(o.submits, &g.submits, &err), "--submit", err);
  parse_or_usage<int>(parse_duration(o.duration, &g.duration_s, &err), "--duration", err);
  parse_or_usage<int>(parse_duration(o.interval, &g.interval_s, &err), "--interval", err);
  parse_or_usage<int>(parse_size(o.total, &g.total, &err), "--total", err);
  if (o.batch == 0 || o.batch > 1024) throw UsageError(fmt::format("--batch {} must be 1..1024 (IOV_MAX)", o.batch));
  if (o.depth == 0 || o.depth > kMaxDepth)
    throw UsageError(fmt::format("--depth {} must be 1..{}", o.depth, kMaxDepth));
  for (uint64_t s : g.sizes)
    if (s * o.batch > (1ull << 30))
      throw UsageError(fmt::format("--sizes {} x --batch {} exceeds 1 GiB per write", size_label(s), o.batch));
  g.batch = o.batch;
  g.depth = o.depth;
  g.prefill = o.prefill;
  return g;
}

// An O_DIRECT size the filesystem cannot take is a usage error, said with the
// alignment; a filesystem without O_DIRECT at all (tmpfs) is a skip instead.
void check_direct_sizes(const Grid& g, const ProbeResult& p) {
  bool direct = false;
  for (Mode m : g.modes) direct |= mode_direct(m);
  if (!direct || !p.direct_skip_reason().empty()) return;
  for (uint64_t s : g.sizes)
    if (std::string why = p.direct_size_problem(s); !why.empty())
      throw UsageError(fmt::format("--sizes with an O_DIRECT mode: {}", why));
}

// The grid as fio jobs (fio_job.h), the same writes each cell makes here.
int write_fio_jobs(const Grid& g, const std::string& path) {
  std::vector<std::pair<std::string, CellSpec>> cells;
  for (const CellSpec& s : expand(g)) cells.emplace_back(fio_section_name(s.arm() + ";" + s.case_()), s);
  std::string why;
  const std::string text = fio_job_file(cells, {}, "iobench sweep's grid as fio jobs: fio " + path, &why);
  if (text.empty()) throw UsageError("--fio-jobs: " + why);
  std::ofstream out(path);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
  fmt::print(stderr, "wrote {} ({} cells as fio job sections)\n", path, cells.size());
  return 0;
}

int run_sweep(const SweepOpts& o) {
  Grid g = parse_grid(o);
  if (!o.fio_jobs.empty()) return write_fio_jobs(g, o.fio_jobs);
  begin_run(o.common);
  uint64_t seed = resolve_seed(o.common);
  ProbeResult p = probe(o.common.dir);
  if (!p.error.empty()) throw std::runtime_error(p.error);
  check_direct_sizes(g, p);
  auto results = make_results(o.common, "sweep");
  results->meta().set("seed", std::to_string(seed));
  results->meta().set("loadavg_start", fenec::kit::load_average());
  results->attach_json("probe", probe_json(p));

  SweepEnv env;
  env.dir = o.common.dir;
  env.seed = seed;
  env.probe = &p;
  std::vector<CellSpec> specs = expand(g);
  std::vector<CellResult> cells;
  kit::Progress progress("sweep", specs.size());
  int rc = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    progress.update(i, specs[i].arm() + " " + specs[i].case_());
    cells.push_back(run_cell(specs[i], env));
    const CellResult& c = cells.back();
    add_cell_rows(*results, c, "");
    if (c.no_space) {
      results->mark_incomplete("ENOSPC: " + c.error);
      fmt::print(stderr, "iobench: {}; stopping the sweep\n", c.error);
      rc = 1;
      break;
    }
    if (kit::stop_requested()) {
      results->mark_incomplete("interrupted");
      fmt::print(stderr, "iobench: interrupted; scratch files removed, results marked incomplete\n");
      rc = 130;
      break;
    }
  }
  progress.finish();
  results->meta().set("loadavg_end", fenec::kit::load_average());
  fmt::print("{}", sweep_table(cells));  // stderr when stdout carries --csv - or --json - (begin_run)
  if (!o.plots.empty())
    for (const auto& [path, err] : write_sweep_plots(cells, o.plots + "/"))
      fmt::print(stderr, "{}: {}\n", path, err.empty() ? "written (.png, .svg, .gp)" : err);
  results->attach_json("sweep", cells_json(cells));
  int erc = emit(*results, o.common);
  return rc ? rc : erc;
}

}  // namespace

RunFn register_sweep(CLI::App& root) {
  auto o = std::make_shared<SweepOpts>();
  CLI::App* sub = root.add_subcommand("sweep", "Throughput and latency over sizes x modes x jobs x layout x submit");
  sub->footer(std::string(
      "Modes: buffered (page cache), fsync / fdatasync (the call after each write), dsync (O_DSYNC),\n"
      "direct (O_DIRECT), direct-dsync (O_DIRECT|O_DSYNC). An op is --batch buffers landing contiguously:\n"
      "one pwritev or ring entry, or --batch pwrites. In fsync/fdatasync modes a job issues up to --depth\n"
      "ops, waits for them, then syncs once. Each cell stops at --duration or after --total bytes (shared\n"
      "among its jobs), whichever comes first. Files are preallocated and removed; data is random.\n"
      "Metrics: MB/s (10^6 bytes), IOPS (write calls/s), per-job MB/s, write latency, sync-call latency,\n"
      "commit latency (write + its sync), CPU per write (the job thread's CPU time: io_uring's kernel\n"
      "workers are not counted), and a per --interval series in the JSON.\n"
      "Submission paths (--submit):\n") + submit_help_lines());
  add_common_flags(sub, &o->common, true);
  sub->add_option("--sizes", o->sizes, "Write sizes (k/m/g = 1024 multiples)")->capture_default_str();
  sub->add_option("--modes", o->modes, "Durability modes")->capture_default_str();
  sub->add_option("--jobs", o->jobs, "Concurrent writer threads, e.g. 1,2,4,8,16")->capture_default_str();
  sub->add_option("--layout", o->layouts, "shared (regions of one file) and/or per-job (a file each)")
      ->capture_default_str();
  sub->add_option("--submit", o->submits, "Submission paths: " + submit_names())->capture_default_str();
  sub->add_option("--batch", o->batch, "Buffers per op (merged into one pwritev / ring entry)")->capture_default_str();
  sub->add_option("--depth", o->depth, "Ops in flight per job (" + submit_names(true) + "; the others keep 1)")
      ->capture_default_str();
  sub->add_option("--duration", o->duration, "Time bound per cell (e.g. 2s, 500ms)")->capture_default_str();
  sub->add_option("--total", o->total, "Byte bound per cell, shared among its jobs")->capture_default_str();
  sub->add_option("--interval", o->interval, "Width of the per-interval series")->capture_default_str();
  sub->add_flag("--prefill", o->prefill,
               "Fill each file with data before timing: overwrite allocated blocks rather than fresh extents");
  sub->add_option("--plots", o->plots, "Write plots (PNG, SVG, gnuplot script) into this folder");
  sub->add_option("--fio-jobs", o->fio_jobs,
                  "Write the grid as a fio job file (a section a cell, in turn) and exit: the cells as fio runs "
                  "them, as `iobench fleet` sends them");
  return [o] { return run_sweep(*o); };
}

}  // namespace fenec::iobench
