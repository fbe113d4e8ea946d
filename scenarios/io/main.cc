// make io-bench: iobench's default characterization of the disk under --dir,
// sized for about 3 minutes here (--quick: about 1), reproducing IO-1, IO-2,
// IO-3, IO-4, IO-5 and IO-7 with a verdict for each.
//
//   IO-1  sizes x modes at 1 job            (throughput vs size)
//   IO-2  8 KiB durable writes at 1..16 jobs (total and per-job throughput, latency CDF)
//   IO-3  one long buffered 1 MiB cell       (throughput over time: the page cache draining)
//   IO-4  iobench lies                       (durable vs buffered latency ratio)
//   IO-5  iobench coherence                  (stale reads after direct writes)
//   IO-7  N x 4 KiB per op: N pwrites vs one pwritev vs one ring writev
#include <cstdlib>
#include <fmt/format.h>
#include <iostream>
#include <unistd.h>

#include "iobench/kit/console.h"
#include "iobench/kit/harness.h"
#include "iobench/src/sweep_report.h"
#include "iobench/src/units.h"
#include "scenarios/io/verdicts.h"
#include "engine/src/base/interrupt.h"
#include "engine/src/base/proc.h"

namespace fenec::scenarios::io {
namespace {

using namespace fenec::iobench;

constexpr unsigned kMergeBatch = 16;

bool should_stop() { return fenec::base::StopRequested(); }

struct Block {
  std::string finding;
  std::vector<CellSpec> specs;
  std::vector<CellResult> cells;
};

CellSpec cell(uint64_t size, Mode mode, double seconds, uint64_t total) {
  CellSpec s;
  s.size = size;
  s.mode = mode;
  s.duration_s = seconds;
  s.total = total;
  s.interval_s = std::min(1.0, seconds / 4);
  return s;
}

struct Plan {
  Block sizes{"IO-1", {}, {}}, jobs{"IO-2", {}, {}}, drain{"IO-3", {}, {}}, merged{"IO-7", {}, {}};
  Mode durable = Mode::kDirectDsync;
  uint64_t jobs_size = 8192;
  size_t cells() const { return sizes.specs.size() + jobs.specs.size() + drain.specs.size() + merged.specs.size(); }
};

Plan make_plan(bool quick, const ProbeResult& p) {
  Plan plan;
  const bool direct = p.direct_skip_reason().empty();
  plan.durable = direct ? Mode::kDirectDsync : Mode::kDsync;
  const double secs = quick ? 1.0 : 2.0;

  std::vector<uint64_t> sizes = quick ? std::vector<uint64_t>{4 << 10, 16 << 10, 64 << 10, 1 << 20, 16 << 20}
                                      : std::vector<uint64_t>{4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 16 << 20};
  std::vector<Mode> modes = quick ? std::vector<Mode>{Mode::kBuffered, Mode::kFdatasync, Mode::kDirect, Mode::kDirectDsync}
                                  : std::vector<Mode>(std::begin(kAllModes), std::end(kAllModes));
  for (Mode m : modes)
    for (uint64_t s : sizes) plan.sizes.specs.push_back(cell(s, m, secs, quick ? 512ull << 20 : 1ull << 30));
  if (!quick)  // the same durable writes overwriting allocated blocks instead of fresh extents
    for (uint64_t s : {uint64_t{4} << 10, uint64_t{1} << 20, uint64_t{16} << 20}) {
      CellSpec c = cell(s, plan.durable, secs, 256ull << 20);
      c.prefill = true;
      plan.sizes.specs.push_back(c);
    }

  std::vector<unsigned> jobs = quick ? std::vector<unsigned>{1, 4, 16} : std::vector<unsigned>{1, 2, 4, 8, 16};
  for (Layout l : quick ? std::vector<Layout>{Layout::kShared} : std::vector<Layout>{Layout::kShared, Layout::kPerJob})
    for (unsigned j : jobs) {
      CellSpec c = cell(plan.jobs_size, plan.durable, secs, 512ull << 20);
      c.jobs = j;
      c.layout = l;
      plan.jobs.specs.push_back(c);
    }

  // Past vm.dirty_ratio of memory the writer is throttled to the disk's pace.
  CellSpec d = cell(1 << 20, Mode::kBuffered, quick ? 4.0 : 8.0, quick ? 5ull << 30 : 8ull << 30);
  d.interval_s = quick ? 0.25 : 0.5;
  plan.drain.specs.push_back(d);

  // IO-7: 4 KiB buffers, merged into one write per op or written one by one.
  auto merged = [&](Mode m, SubmitKind k, unsigned batch) {
    CellSpec c = cell(4096, m, secs, 256ull << 20);
    c.batch = batch;
    c.submit = k;
    plan.merged.specs.push_back(c);
  };
  for (unsigned b : quick ? std::vector<unsigned>{1, kMergeBatch} : std::vector<unsigned>{1, 4, kMergeBatch, 64})
    merged(plan.durable, SubmitKind::kPwritev, b);
  merged(plan.durable, SubmitKind::kPwrite, kMergeBatch);
  if (!quick) {
    merged(plan.durable, SubmitKind::kPwrite, 1);
    merged(plan.durable, SubmitKind::kUring, kMergeBatch);
  }
  merged(Mode::kFdatasync, SubmitKind::kPwrite, kMergeBatch);
  merged(Mode::kFdatasync, SubmitKind::kPwritev, kMergeBatch);
  return plan;
}

// Runs a block's cells; false if the run must stop (Ctrl-C, ENOSPC).
bool run_block(Block& b, const SweepEnv& env, kit::Results& results, kit::Progress& progress, size_t* done) {
  for (const CellSpec& s : b.specs) {
    progress.update((*done)++, fmt::format("{} {} {}", b.finding, s.arm(), s.case_()));
    b.cells.push_back(run_cell(s, env));
    const CellResult& c = b.cells.back();
    add_cell_rows(results, c, b.finding);
    if (c.no_space) {
      results.mark_incomplete("ENOSPC: " + c.error);
      std::cerr << fmt::format("io-bench: {}; stopping\n", c.error);
      return false;
    }
    if (should_stop()) return false;
  }
  return true;
}

void print_block(const Block& b) {
  if (!b.cells.empty()) std::cout << fmt::format("\n{}\n{}", b.finding, sweep_table(b.cells));
}

std::string plot(kit::Harness& h, const std::string& name, const std::vector<CellResult>& cells,
                 std::string (*draw)(const std::vector<CellResult>&, const std::string&)) {
  std::string base = h.plot_path(name);
  std::string err = draw(cells, base);
  if (!err.empty()) {
    std::cerr << fmt::format("io-bench: plot {}: {}\n", name, err);
    return "";
  }
  return base + ".png";
}

// A latency measured while the CPUs are oversubscribed says more about the
// scheduler than the disk: a woken writer can wait out another task's slice
// (a 4 ms tick here). Say so beside the figures that depend on it.
kit::Verdict with_load_note(kit::Verdict v, const std::string& load) {
  double one = std::atof(load.c_str());
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (cpus > 0 && one > cpus) v.ours += fmt::format(" [under shared load: loadavg {} on {} CPUs]", load, cpus);
  return v;
}

int run(int argc, char** argv) {
  kit::Harness h("io", "io-bench: what a durable write costs on this disk (IO-1..IO-5, IO-7)");
  if (int rc = h.parse(argc, argv); rc >= 0) return rc;
  ProbeResult p = probe(h.data_dir());
  if (!p.error.empty()) {
    std::cerr << "io-bench: " << p.error << "\n";
    return 1;
  }
  std::cout << probe_table(p);
  kit::Results& results = h.results();
  // The machine may be shared: the load says how much to trust a latency.
  results.meta().set("loadavg_start", fenec::base::LoadAverage());
  add_probe_rows(results, p);
  results.attach_json("probe", probe_json(p));

  Plan plan = make_plan(h.quick(), p);
  SweepEnv env;
  env.dir = h.data_dir();
  env.seed = h.seed();
  env.probe = &p;
  env.stop = should_stop;
  const size_t steps = plan.cells() + 2;
  kit::Progress progress("io-bench", steps);
  size_t done = 0;
  bool go = true;
  for (Block* b : {&plan.sizes, &plan.jobs, &plan.drain, &plan.merged})
    if (go) go = run_block(*b, env, results, progress, &done);

  LiesResult lies;
  CoherenceResult coh;
  CoherenceOptions co;
  if (go) {
    progress.update(done++, "IO-4 lies");
    LiesOptions lo;
    lo.seconds = h.quick() ? 0.5 : 1.0;
    lies = run_lies(lo, env);
    add_lies_rows(results, lies);
    progress.update(done++, "IO-5 coherence");
    co.dir = h.data_dir();
    co.rounds = h.quick() ? 50 : 200;
    co.seed = h.seed();
    co.stop = should_stop;
    coh = run_coherence(co, p);
    add_coherence_rows(results, co, coh, "IO-5");
  }
  progress.finish();
  results.meta().set("loadavg_end", fenec::base::LoadAverage());

  for (const Block* b : {&plan.sizes, &plan.jobs, &plan.drain, &plan.merged}) print_block(*b);
  if (go) std::cout << "\nIO-4\n" << lies_report(lies);
  std::vector<CellResult> all;
  for (const Block* b : {&plan.sizes, &plan.jobs, &plan.drain, &plan.merged})
    all.insert(all.end(), b->cells.begin(), b->cells.end());
  results.attach_json("sweep", cells_json(all));

  std::string p_size = plot(h, "throughput_vs_size", plan.sizes.cells, plot_throughput_vs_size);
  plot(h, "latency_cdf_modes", plan.sizes.cells, plot_latency_cdf);
  std::string p_jobs = plot(h, "throughput_vs_jobs", plan.jobs.cells, plot_throughput_vs_jobs);
  plot(h, "latency_cdf_jobs", plan.jobs.cells, plot_latency_cdf);
  std::string p_time = plot(h, "throughput_over_time", plan.drain.cells, plot_throughput_over_time);
  std::string p_merge = plot(h, "throughput_vs_batch", plan.merged.cells, plot_throughput_vs_batch);

  const std::string load = fenec::base::LoadAverage();
  results.verdict(with_load_note(io1_verdict(plan.sizes.cells, plan.durable, p_size), load));
  results.verdict(
      with_load_note(io2_verdict(plan.jobs.cells, plan.sizes.cells, plan.durable, plan.jobs_size, p_jobs), load));
  const CellResult* drain = plan.drain.cells.empty() ? nullptr : &plan.drain.cells[0];
  results.verdict(with_load_note(io3_verdict(drain, dirty_background_bytes(), p_time), load));
  if (go) {
    results.verdict(with_load_note(io4_verdict(lies), load));
    results.verdict(io5_verdict(coh, p));
  }
  results.verdict(with_load_note(io7_verdict(plan.merged.cells, plan.durable, kMergeBatch, p_merge), load));

  return h.finish();
}

}  // namespace
}  // namespace fenec::scenarios::io

int main(int argc, char** argv) { return fenec::scenarios::io::run(argc, argv); }
