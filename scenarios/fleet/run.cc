#include "scenarios/fleet/run.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "engine/src/base/json.h"
#include "iobench/kit/console.h"
#include "iobench/kit/interrupt.h"
#include "iobench/kit/stats.h"
#include "iobench/src/fleet.h"
#include "iobench/src/probe.h"
#include "iobench/src/sweep.h"
#include "scenarios/fleet/hosts.h"

namespace fenec::scenarios::fleet {
namespace {

namespace fl = iobench::fleet;

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// One of the run's own checks, for the console and REPORT.md's section.
struct Outcome {
  std::string what, figure, verdict;
};

std::vector<iobench::CellInstance> cells_of(const Config& c, std::string* why) {
  std::vector<iobench::SubmitKind> submits;
  for (const std::string& s : c.submits) {
    iobench::SubmitKind k;
    if (!iobench::parse_submit(s, &k, why)) return {};
    submits.push_back(k);
  }
  return iobench::cell_instances(c.cells, c.jobs, submits, c.runtime_s, why);
}

// The run's progress line, fed by run_fleet.
fl::RunOptions base_options(const kit::Harness& h, const Config& c, kit::Progress* progress) {
  fl::RunOptions o;
  o.ramp_s = c.ramp_s;
  o.seed = h.seed();
  o.progress = [progress](size_t done, size_t, const std::string& what) { progress->update(done, what); };
  return o;
}

// The named hosts must be the slow one and the lying one, each as what it is.
Outcome judge_names(const LocalFleet& fleet, const fl::Judgement& j) {
  std::vector<std::string> wrong, named;
  for (const LocalHost& lh : fleet.hosts()) {
    const fl::HostVerdict* v = nullptr;
    for (const fl::HostVerdict& x : j.hosts)
      if (x.host == lh.host.label()) v = &x;
    const std::string label = fmt::format("{} ({})", lh.host.label(), host_kind_name(lh.kind));
    if (!v) {
      wrong.push_back(label + ": no verdict");
      continue;
    }
    if (v->named()) named.push_back(fmt::format("{} as {}", lh.host.label(), v->lying() ? "lying" : v->speed));
    const bool right = lh.kind == HostKind::kLying  ? v->lying()
                       : lh.kind == HostKind::kSlow ? v->speed == "slow" && !v->lying()
                                                    : !v->named();
    if (!right) wrong.push_back(fmt::format("{} named '{}'", label, v->named() ? (v->lying() ? "lying" : v->speed) : "nobody"));
  }
  std::string figure;
  for (const std::string& n : named) figure += (figure.empty() ? "" : "; ") + n;
  return {"the slow host and the lying host named, nobody else", figure.empty() ? "nobody named" : figure,
          wrong.empty() ? "holds" : "fails: " + fmt::format("{}", fmt::join(wrong, "; "))};
}

// A sequence's checks as one outcome: holds when every check clears its
// line, fails when one misses it, else inconclusive; the figure is the first
// check's ratio, with how many repetitions decided each check.
Outcome judged(std::string what, const std::vector<kit::Check>& checks) {
  std::string verdict = "holds", notes;
  for (const kit::Check& c : checks) {
    const kit::CheckResult r = kit::check_result(c);
    if (r == kit::CheckResult::kMissed) verdict = "fails";
    else if (r != kit::CheckResult::kCleared && verdict == "holds")
      verdict = r == kit::CheckResult::kUnknown ? "inconclusive: no interval"
                                                : "inconclusive: the interval straddles the line";
    if (!c.note.empty() && notes.find(c.note) == std::string::npos) notes += (notes.empty() ? "" : "; ") + c.note;
  }
  std::string figure = checks.empty() ? "no figure" : kit::format_ratio(checks.front().ratio);
  if (!notes.empty()) figure += " (" + notes + ")";
  return {std::move(what), std::move(figure), verdict};
}

Outcome part_scaling(kit::Harness& h, const Config& c, const iobench::CellInstance& cell) {
  FleetOptions fo;
  fo.dir = h.data_dir() + "/scaling";
  fo.kinds.assign(std::max(2u, c.scale_servers), HostKind::kHealthy);
  fo.first_addr = 10;
  fo.shared_tmpfs = true;
  std::string why;
  auto fleet = LocalFleet::Build(fo, &why);
  if (!fleet) return {"fan-out", "", "skipped: " + why};
  const std::vector<fl::Host> all = fleet->fleet_hosts();
  const std::vector<fl::Host> two(all.begin(), all.begin() + 2);
  std::vector<double> wall[2];
  kit::Progress progress("fleet scaling", static_cast<uint64_t>(h.reps()) * 2);
  auto judge = [&](const kit::Window& w) {
    return std::vector<kit::Check>{kit::Check(fmt::format("{} servers' wall time over 2's", all.size()),
                                              kit::paired_ratio(wall[1], wall[0], w), kScalingLine, false)};
  };
  // Arm 0: two servers, arm 1: all of them; the order turns each repetition.
  kit::Sequence& seq = h.sequence("scaling");
  seq.run(2, [&](size_t arm, int rep) {
    progress.update(static_cast<uint64_t>(rep) * 2 + arm, arm ? "all servers" : "two servers");
    fl::RunOptions o = base_options(h, c, &progress);
    o.progress = nullptr;
    o.hosts = arm ? all : two;
    o.cells = {cell};
    o.apart = false;
    o.reps = 1;
    o.out_dir = fmt::format("{}/run/scaling-{}-r{}", h.results_dir(), o.hosts.size(), rep);
    std::string refused;
    const fl::FleetData d = fl::run_fleet(o, &refused);
    for (const fl::Invocation& inv : d.invocations)
      if (inv.mode == fl::RunMode::kTogether) {
        wall[arm].push_back(inv.seconds);
        h.results().add("", fmt::format("servers={}", o.hosts.size()), fmt::format("{};rep={}", cell.name, rep),
                        "client_wall_s", inv.seconds, "s");
      }
    for (const fl::Failure& f : d.failures)
      if (f.fatal) h.fail(fmt::format("scaling, {} servers: {}: {}", o.hosts.size(), f.host, f.reason));
    if (!refused.empty()) h.fail("scaling: " + refused);
  }, judge, kit::Order{.rotate = true});
  progress.finish();
  const std::vector<kit::Check> checks = seq.checks(judge);
  h.results().add_ratio("", "fanout", cell.name, fmt::format("wall_{}_over_2", all.size()), checks.front().ratio);
  Outcome out = judged(fmt::format("{} servers' wall time over 2's, --together, {} (at most {}x)", all.size(),
                                   cell.name, kScalingLine),
                       checks);
  if (out.verdict == "fails")
    h.fail(fmt::format("{} servers took {} the wall time of 2 (line {}x)", all.size(), out.figure, kScalingLine));
  return out;
}

Outcome part_check(kit::Harness& h, const Config& c, const LocalHost& host, const iobench::CellInstance& cell) {
  const iobench::ProbeResult probe = iobench::probe(host.host.dir);
  iobench::SweepEnv env;
  env.dir = host.host.dir;
  env.seed = h.seed(7);
  env.probe = &probe;
  std::vector<double> rate[2];
  kit::Progress progress("fleet check", static_cast<uint64_t>(h.reps()) * 2);
  // Within the tolerance: two lines, each a check a main experiment can decide.
  auto judge = [&](const kit::Window& w) {
    const kit::Ratio r = kit::paired_ratio(rate[1], rate[0], w);
    return std::vector<kit::Check>{kit::Check("fio --server over iobench, not below", r, 1 - kCheckTolerance, true),
                                   kit::Check("fio --server over iobench, not above", r, 1 + kCheckTolerance, false)};
  };
  // Arm 0: iobench's own cell runner; arm 1: the same CellSpec through fio's server.
  kit::Sequence& seq = h.sequence("check");
  seq.run(2, [&](size_t arm, int rep) {
    progress.update(static_cast<uint64_t>(rep) * 2 + arm, arm ? "fio --server" : "iobench sweep");
    if (arm == 0) {
      const iobench::CellResult r = iobench::run_cell(cell.spec, env);
      if (!r.error.empty() || !r.skipped.empty()) return h.fail("check: iobench's cell: " + r.error + r.skipped);
      rate[0].push_back(r.iops());
      h.results().add("", "iobench", fmt::format("{};rep={}", cell.name, rep), "iops", r.iops(), "ops/s");
      return;
    }
    fl::RunOptions o = base_options(h, c, &progress);
    o.progress = nullptr;
    o.hosts = {host.host};
    o.cells = {cell};
    o.together = false;
    o.reps = 1;
    o.out_dir = fmt::format("{}/run/check-r{}", h.results_dir(), rep);
    std::string refused;
    const fl::FleetData d = fl::run_fleet(o, &refused);
    if (d.samples.empty()) return h.fail("check: the fleet path gave no rate" + (refused.empty() ? "" : ": " + refused));
    rate[1].push_back(d.samples[0].iops);
    h.results().add("", "fleet", fmt::format("{};rep={}", cell.name, rep), "iops", d.samples[0].iops, "ops/s");
  }, judge, kit::Order{.rotate = true});
  progress.finish();
  const std::vector<kit::Check> checks = seq.checks(judge);
  h.results().add_ratio("", "fleet_over_iobench", cell.name, "iops_ratio", checks.front().ratio);
  Outcome out = judged(fmt::format("one host ({}), {}: fio --server's rate over iobench sweep's (within {:.0f}%)",
                                   host.host.label(), cell.name, kCheckTolerance * 100),
                       checks);
  if (out.verdict == "fails")
    h.fail(fmt::format("one host through fio's server: {} of iobench's own rate (want within {:.0f}%)", out.figure,
                       kCheckTolerance * 100));
  return out;
}

}  // namespace

int run(kit::Harness& h, const Config& c) {
  std::string why;
  const std::vector<iobench::CellInstance> cells = cells_of(c, &why);
  if (cells.empty()) {
    std::cerr << "fleet-bench: " << why << "\n";
    return 2;
  }
  // The cell the scaling and the check run: one writer's 4 KiB write + fdatasync.
  const iobench::CellInstance probe_cell =
      iobench::instance_of(*iobench::find_fleet_cell(iobench::kSyncReference), 1, iobench::SubmitKind::kPwrite, c.runtime_s);
  std::vector<Outcome> outcomes;
  auto& meta = h.results().meta();
  // Inherited by every fio client and server this run starts.
  if (::setpriority(PRIO_PROCESS, 0, c.nice) != 0)
    std::cerr << fmt::format("fleet-bench: nice {}: {}; the run goes on at {}\n", c.nice, std::strerror(errno),
                             ::getpriority(PRIO_PROCESS, 0));
  meta.set("nice", std::to_string(::getpriority(PRIO_PROCESS, 0)));
  // fio's output and the job files of this run only, beside its rows.
  std::error_code ec;
  std::filesystem::remove_all(h.results_dir() + "/run", ec);
  std::string markdown;
  // The sites --reps auto may add repetitions to share its budget.
  h.expect_sequences(static_cast<int>(has(c.parts, "check")) + static_cast<int>(has(c.parts, "scaling")));
  if (has(c.parts, "fleet") || has(c.parts, "check")) {
    FleetOptions fo;
    fo.dir = h.data_dir() + "/fleet";
    fo.kinds = {HostKind::kHealthy, HostKind::kSlow, HostKind::kHealthy, HostKind::kLying};
    fo.loop_bytes = c.loop_mib << 20;
    fo.slow_iops = c.slow_iops;
    std::cerr << "fleet-bench: building four hosts (loop devices, a tmpfs, a cgroup write limit, fio servers)\n";
    auto fleet = LocalFleet::Build(fo, &why);
    if (!fleet) {
      h.results().skip("fleet", "all", why);
      h.fail("cannot build the local fleet: " + why);
      return h.finish();
    }
    for (const LocalHost& lh : fleet->hosts())
      meta.set("host_" + lh.host.label(), fmt::format("{}: {} in {}", host_kind_name(lh.kind), lh.fs, lh.host.dir));
    meta.set("throttle", fleet->throttle());
    if (has(c.parts, "fleet")) {
      kit::Progress progress("fleet", static_cast<uint64_t>(h.reps()) * (fleet->hosts().size() + cells.size()));
      fl::RunOptions o = base_options(h, c, &progress);
      o.hosts = fleet->fleet_hosts();
      o.cells = cells;
      o.reps = h.reps();
      o.out_dir = h.results_dir() + "/run/fleet";
      std::string refused;
      const fl::FleetData d = fl::run_fleet(o, &refused);
      progress.finish();
      if (!refused.empty()) h.fail(refused);
      const fl::Judgement j = fl::judge_fleet(d);
      std::cout << fl::fleet_text(d, j);
      fl::add_fleet_rows(h.results(), d, j);
      h.results().attach_json("fleet", fl::fleet_json(d, j));
      for (const auto& [path, err] : fl::write_fleet_plots(d, j, h.plot_path("")))
        if (!err.empty()) std::cerr << path << ": " << err << "\n";
      for (const fl::Failure& f : d.failures)
        if (f.fatal) h.fail(fmt::format("{}: {}", f.host, f.reason));
      outcomes.push_back(judge_names(*fleet, j));
      if (outcomes.back().verdict != "holds") h.fail(outcomes.back().what + ": " + outcomes.back().verdict);
      markdown = fl::fleet_markdown(d, j, "plots/fleet/");
    }
    if (has(c.parts, "check") && !kit::stop_requested())
      for (const LocalHost& lh : fleet->hosts())
        if (lh.kind == HostKind::kHealthy) {
          outcomes.push_back(part_check(h, c, lh, probe_cell));
          break;
        }
  }
  if (has(c.parts, "scaling") && !kit::stop_requested()) outcomes.push_back(part_scaling(h, c, probe_cell));
  kit::Table t({"check", "ours", "outcome"});
  std::string md = "\n# The run's checks\n\n| check | ours | outcome |\n|---|---|---|\n";
  for (const Outcome& o : outcomes) {
    t.row({o.what, o.figure, o.verdict});
    md += fmt::format("| {} | {} | {} |\n", o.what, o.figure, o.verdict);
  }
  std::cout << "\n" << t.str();
  std::string json;
  base::AppendJsonString(json, markdown + md);
  h.results().attach_json("fleet_markdown", json);
  return h.finish();
}

}  // namespace fenec::scenarios::fleet
