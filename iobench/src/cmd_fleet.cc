// `iobench fleet`: the durable-write cells asked of many hosts through fio's
// client/server, merged exactly, the odd host named (fleet.h; the design and
// the deployment: iobench/doc/fleet.md). --ingest reads fio JSON made elsewhere.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "iobench/kit/console.h"
#include "iobench/kit/interrupt.h"
#include "iobench/kit/results.h"
#include "iobench/src/cli.h"
#include "iobench/src/fleet.h"
#include "iobench/src/units.h"

namespace fenec::iobench {
namespace {

struct FleetOpts {
  std::string hosts, hosts_file, remote_dir;
  std::vector<std::string> ingest;
  std::string cells, jobs = "1,4,16", submits = "pwrite,uring";
  bool apart = false, together = false;
  int reps = 3;
  std::string runtime = "2s", ramp = "1s";
  std::string out, plots, report, csv, json, seed, fio = "fio";
};

std::vector<CellInstance> instances(const FleetOpts& o, double seconds) {
  std::vector<unsigned> jobs;
  std::vector<SubmitKind> submits;
  std::string err;
  if (!parse_count_list(o.jobs, &jobs, &err)) throw UsageError("--jobs: " + err);
  if (!parse_submit_list(o.submits, &submits, &err)) throw UsageError("--submit: " + err);
  std::vector<CellInstance> out =
      cell_instances(split_list(o.cells.empty() ? fleet_cell_names() : o.cells), jobs, submits, seconds, &err);
  if (out.empty()) throw UsageError("--cells/--submit: " + err);
  return out;
}

std::vector<fleet::Host> hosts_of(const FleetOpts& o) {
  std::vector<fleet::Host> hosts;
  std::string why;
  if (!o.hosts.empty() && !o.hosts_file.empty()) throw UsageError("--hosts and --hosts-file: give one");
  if (!o.hosts.empty() && !fleet::parse_hosts(o.hosts, &hosts, &why)) throw UsageError("--hosts: " + why);
  if (!o.hosts_file.empty() && !fleet::read_hosts_file(o.hosts_file, &hosts, &why))
    throw UsageError("--hosts-file: " + why);
  for (fleet::Host& h : hosts)
    if (h.dir.empty()) h.dir = o.remote_dir;
  return hosts;
}

int run_fleet_cmd(const FleetOpts& o) {
  const bool ingest = !o.ingest.empty();
  if (ingest && (!o.hosts.empty() || !o.hosts_file.empty()))
    throw UsageError("--ingest reads fio output made elsewhere: no --hosts with it");
  if (!ingest && o.hosts.empty() && o.hosts_file.empty()) throw UsageError("give --hosts, --hosts-file or --ingest");
  if (o.reps < 1 || o.reps > 100) throw UsageError(fmt::format("--reps {} must be 1..100", o.reps));
  if (std::string e = kit::hold_stdout_for_data(o.csv, o.json); !e.empty()) throw UsageError(e);
  fleet::FleetData data;
  std::string out_dir = o.out;
  if (ingest) {
    data = fleet::ingest_files(o.ingest);
  } else {
    double runtime = 0, ramp = 0;
    std::string err;
    if (!parse_duration(o.runtime, &runtime, &err)) throw UsageError("--runtime: " + err);
    if (!parse_duration(o.ramp, &ramp, &err)) throw UsageError("--ramp: " + err);
    fleet::RunOptions ro;
    ro.hosts = hosts_of(o);
    ro.cells = instances(o, runtime);
    ro.apart = o.apart || !o.together;
    ro.together = o.together || !o.apart;
    ro.reps = o.reps;
    ro.ramp_s = ramp;
    ro.fio = o.fio;
    CommonOpts seed_opts;
    seed_opts.seed = o.seed;
    ro.seed = resolve_seed(seed_opts);
    if (out_dir.empty()) out_dir = "fleet-" + kit::utc_now("%Y%m%dT%H%M%SZ");
    ro.out_dir = out_dir;
    kit::Progress progress("fleet", 1);
    ro.progress = [&progress, total = size_t{0}](size_t done, size_t all, const std::string& what) mutable {
      if (total != all) progress = kit::Progress("fleet", total = all);
      progress.update(done, what);
    };
    fmt::print(stderr, "iobench fleet: {} hosts x {} cells, {}{}{}, {} repetition{}; job files and fio's output in {}/\n",
               ro.hosts.size(), ro.cells.size(), ro.apart ? "apart" : "", ro.apart && ro.together ? " and " : "",
               ro.together ? "together" : "", ro.reps, ro.reps == 1 ? "" : "s", out_dir);
    std::string refused;
    data = fleet::run_fleet(ro, &refused);
    progress.finish();
    if (!refused.empty()) {
      fmt::print(stderr, "iobench fleet: {}\n", refused);
      return 1;
    }
  }
  const fleet::Judgement j = fleet::judge_fleet(data);
  fmt::print("{}", fleet::fleet_text(data, j));
  kit::Metadata meta = kit::Metadata::collect(out_dir.empty() ? "." : out_dir, false);
  meta.set("tool", ingest ? "iobench fleet --ingest" : "iobench fleet");
  meta.set("fio_version", data.fio_version);
  meta.set("hosts", std::to_string(data.hosts.size()));
  if (!out_dir.empty()) meta.set("fleet_dir", out_dir);
  kit::Results results("fleet", meta);
  fleet::add_fleet_rows(results, data, j);
  results.attach_json("fleet", fleet::fleet_json(data, j));
  if (data.interrupted || kit::stop_requested()) results.mark_incomplete("interrupted");
  if (!o.plots.empty())
    for (const auto& [path, err] : fleet::write_fleet_plots(data, j, o.plots + "/"))
      if (!err.empty()) fmt::print(stderr, "{}: {}\n", path, err);
  if (!o.report.empty()) {
    std::ofstream md(o.report);
    md << fleet::fleet_markdown(data, j, o.plots);
    if (!md) fmt::print(stderr, "iobench fleet: cannot write {}\n", o.report);
  }
  CommonOpts emit_opts;
  emit_opts.csv = o.csv;
  emit_opts.json = o.json;
  const int erc = emit(results, emit_opts);
  if (data.interrupted || kit::stop_requested()) return 130;
  for (const fleet::Failure& f : data.failures)
    if (f.fatal) return 1;
  return erc;
}

}  // namespace

RunFn register_fleet(CLI::App& root) {
  auto o = std::make_shared<FleetOpts>();
  CLI::App* sub = root.add_subcommand(
      "fleet", "the durable-write cells asked of many hosts through fio's client/server; merged, the odd host named");
  std::string cells_help;
  for (const FleetCell& c : fleet_cells()) cells_help += fmt::format("  {:<14}{}\n", c.name, c.what);
  sub->footer(
      "Each host runs `fio --server` (iobench/doc/fleet.md: install, a systemd unit, the security note: a fio\n"
      "server runs any job anyone who reaches its port sends). iobench drives the local `fio --client` and reads\n"
      "its json+; it opens no connection of its own. The local and each remote fio must be the same version.\n"
      "Cells (--cells), each at every --jobs and --submit (io_uring where the host has it; the buffered one once):\n" +
      cells_help +
      "Modes: --apart runs one host at a time (each disk alone), --together every host at once (what shared\n"
      "storage gives under the fleet's load; the fleet's rate is the sum of the hosts' rates over the window\n"
      "they all ran in); neither flag: both. Repetitions interleave hosts and cells; each figure gets its 95%\n"
      "interval. Per cell the hosts' latency bins are summed (exact) and fio's percentile rule applied to the\n"
      "sum. A host is named lying by IO-4's rule (as `iobench lies`), slow or fast when its p50 or rate over the\n"
      "fleet's median clears the fleet's spread (at least 1.5x) with its whole interval. A host that does not\n"
      "answer, dies or returns a cut document is reported and the run goes on: exit 1. --ingest: the same\n"
      "merge and judgement on fio --output-format=json+ files made elsewhere (no host contacted).\n"
      "Exit: 0 ok, 1 a host failed (or versions differ), 2 bad flag, 130 interrupted.");
  sub->add_option("--hosts", o->hosts, "hosts running fio --server: H[:PORT],... (port 8765 unless given)");
  sub->add_option("--hosts-file", o->hosts_file, "a host a line: H[:PORT] [folder there]; # comments");
  sub->add_option("--remote-dir", o->remote_dir, "the folder the jobs write in on every host (default: the server's "
                                                 "working directory)");
  sub->add_option("--ingest", o->ingest, "fio json+ files made elsewhere: merge and judge them, contact no host")
      ->expected(1, -1);
  sub->add_option("--cells", o->cells, "cells to ask (default: all)")->default_str(fleet_cell_names());
  sub->add_option("--jobs", o->jobs, "job counts each cell runs at")->capture_default_str();
  sub->add_option("--submit", o->submits, "submission paths (pwrite = fio's psync, uring = io_uring)")
      ->capture_default_str();
  sub->add_flag("--apart", o->apart, "one host at a time: each disk alone");
  sub->add_flag("--together", o->together, "every host at once: the fleet's load");
  sub->add_option("--reps", o->reps, "repetitions, interleaved")->capture_default_str();
  sub->add_option("--runtime", o->runtime, "each cell's measured time")->capture_default_str();
  sub->add_option("--ramp", o->ramp, "each cell's ramp_time: covers the hosts' staggered starts")
      ->capture_default_str();
  sub->add_option("--out", o->out, "the run's folder: job files, fio's output and logs (default fleet-<UTC time>)");
  sub->add_option("--plots", o->plots, "write the CDFs and rate charts into this folder");
  sub->add_option("--report", o->report, "write a Markdown summary to this file");
  sub->add_option("--csv", o->csv, "also write tidy CSV rows here ('-' = stdout)");
  sub->add_option("--json", o->json, "also write JSON (rows, metadata, every merged histogram) here ('-' = stdout)");
  sub->add_option("--seed", o->seed, "seed for the order of hosts and cells and fio's buffers (default: random, logged)");
  sub->add_option("--fio", o->fio, "the local fio")->capture_default_str();
  return [o] { return run_fleet_cmd(*o); };
}

}  // namespace fenec::iobench
