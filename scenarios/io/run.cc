#include "scenarios/io/run.h"

#include <fmt/format.h>

#include <iostream>
#include <map>

#include "iobench/kit/interrupt.h"
#include "iobench/kit/console.h"
#include "iobench/src/sweep_report.h"
#include "iobench/src/units.h"
#include "scenarios/io/verdicts.h"

namespace fenec::scenarios::io {

using namespace fenec::iobench;

namespace {

constexpr unsigned kMergeBatch = 16;

bool should_stop() { return fenec::kit::stop_requested(); }

struct Block {
  std::string finding;
  std::vector<CellSpec> specs;
  std::vector<CellResult> cells;  // every repetition of every spec, in the order they ran
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

// Quick mode pays for its 3 repetitions with shorter cells (0.4 s, at most
// 256 MiB), full mode for its 5 with 1 s cells.
Plan make_plan(bool quick, const ProbeResult& p) {
  Plan plan;
  const bool direct = p.direct_skip_reason().empty();
  plan.durable = direct ? Mode::kDirectDsync : Mode::kDsync;
  const double secs = quick ? 0.4 : 1.0;

  std::vector<uint64_t> sizes = quick ? std::vector<uint64_t>{4 << 10, 16 << 10, 64 << 10, 1 << 20, 16 << 20}
                                      : std::vector<uint64_t>{4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 16 << 20};
  std::vector<Mode> modes = quick ? std::vector<Mode>{Mode::kBuffered, Mode::kFdatasync, Mode::kDirect, Mode::kDirectDsync}
                                  : std::vector<Mode>(std::begin(kAllModes), std::end(kAllModes));
  for (Mode m : modes)
    for (uint64_t s : sizes) plan.sizes.specs.push_back(cell(s, m, secs, quick ? 256ull << 20 : 1ull << 30));
  if (!quick)  // the same durable writes overwriting allocated blocks instead of fresh extents
    for (uint64_t s : {uint64_t{4} << 10, uint64_t{1} << 20, uint64_t{16} << 20}) {
      CellSpec c = cell(s, plan.durable, secs, 256ull << 20);
      c.prefill = true;
      plan.sizes.specs.push_back(c);
    }

  std::vector<unsigned> jobs = quick ? std::vector<unsigned>{1, 4, 16} : std::vector<unsigned>{1, 2, 4, 8, 16};
  for (Layout l : quick ? std::vector<Layout>{Layout::kShared} : std::vector<Layout>{Layout::kShared, Layout::kPerJob})
    for (unsigned j : jobs) {
      // 1 s even in quick mode: a latency ratio of 16 jobs to one moves with
      // the host's flush latency over time, and a longer cell averages it.
      CellSpec c = cell(plan.jobs_size, plan.durable, 1.0, 512ull << 20);
      c.jobs = j;
      c.layout = l;
      plan.jobs.specs.push_back(c);
    }

  // Past vm.dirty_background_* of memory the kernel starts writeback, and a
  // writer faster than the disk is throttled to its pace. Quick mode cannot
  // write that much (gigabytes, each repetition) in its minute: no IO-3 there.
  if (!quick) {
    CellSpec d = cell(1 << 20, Mode::kBuffered, 8.0, 8ull << 30);
    d.interval_s = 0.5;
    plan.drain.specs.push_back(d);
  }

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

// Runs a block's cells `reps` times, interleaved; false if the run must stop
// (Ctrl-C, ENOSPC).
bool run_block(Block& b, int reps, const SweepEnv& env, kit::Results& results, kit::Progress& progress,
               size_t* done) {
  bool go = true;
  kit::run_interleaved(reps, b.specs.size(), [&](size_t i, int rep) {
    if (!go) return;
    const CellSpec& s = b.specs[i];
    progress.update((*done)++, fmt::format("{} {} {} rep {}", b.finding, s.arm(), s.case_(), rep));
    CellResult c = run_cell(s, env);
    c.rep = rep;
    add_cell_rows(results, c, b.finding, fmt::format(";rep={}", rep));
    if (c.no_space) {
      results.mark_incomplete("ENOSPC: " + c.error);
      std::cerr << fmt::format("io-bench: {}; stopping\n", c.error);
      go = false;
    }
    b.cells.push_back(std::move(c));
    if (should_stop()) go = false;
  });
  return go && !should_stop();
}

// The runs of each spec, specs in plan order.
std::vector<std::vector<const CellResult*>> by_spec(const Block& b) {
  std::vector<std::vector<const CellResult*>> out(b.specs.size());
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < b.specs.size(); ++i) index[b.specs[i].arm() + "|" + b.specs[i].case_()] = i;
  for (const CellResult& c : b.cells)
    if (c.ran() && c.error.empty() && !c.interrupted && c.ops > 0)
      out[index.at(c.spec.arm() + "|" + c.spec.case_())].push_back(&c);
  return out;
}

const base::Histogram& op_latency(const CellResult& c) {
  return mode_sync(c.spec.mode) != SyncCall::kNone ? c.commit : c.lat;
}

// Each spec over its repetitions, under its plain case: mb_per_s and iops
// (geometric mean, 95% interval) and the latency of all their ops together.
void add_summary_rows(kit::Results& results, const Block& b) {
  for (const auto& runs : by_spec(b)) {
    if (runs.empty()) continue;
    const CellSpec& s = runs[0]->spec;
    results.add_ratio(b.finding, s.arm(), s.case_(), "mb_per_s", over_reps(runs, mb_per_s), "MB/s");
    results.add_ratio(b.finding, s.arm(), s.case_(), "iops", over_reps(runs, iops), "ops/s");
    base::Histogram lat, commit;
    for (const CellResult* c : runs) {
      lat.Merge(c->lat);
      commit.Merge(c->commit);
    }
    results.add_latency(b.finding, s.arm(), s.case_(), lat);
    if (commit.count()) results.add_latency(b.finding, s.arm(), s.case_(), commit, "commit");
  }
}

std::string block_table(const Block& b) {
  kit::Table t({"arm", "case", "MB/s [95% interval]", "IOPS", "op p50", "op p99", "op max", "reps"});
  const auto groups = by_spec(b);
  for (size_t i = 0; i < b.specs.size(); ++i) {
    const CellSpec& s = b.specs[i];
    const auto& runs = groups[i];
    if (runs.empty()) {
      t.row({s.arm(), s.case_(), "-", "-", "-", "-", "-", "skipped or failed: see below"});
      continue;
    }
    base::Histogram h;
    for (const CellResult* c : runs) h.Merge(op_latency(*c));
    const base::LatencySummary l = base::LatencySummary::Of(h);
    const kit::Ratio mb = over_reps(runs, mb_per_s);
    t.row({s.arm(), s.case_(), kit::format_interval(mb, "", mb.value >= 100 ? 0 : 1),
           kit::format_count(over_reps(runs, iops).value), kit::format_us(l.p50_us), kit::format_us(l.p99_us),
           kit::format_us(l.max_us), std::to_string(runs.size())});
  }
  return t.str();
}

void print_block(const Block& b) {
  if (!b.cells.empty()) std::cout << fmt::format("\n{}\n{}", b.finding, block_table(b));
}

std::string plot(kit::Harness& h, const std::string& name, const std::vector<CellResult>& cells,
                 std::string (*draw)(const std::vector<CellResult>&, const std::string&)) {
  if (cells.empty()) return "";
  std::string base = h.plot_path(name);
  std::string err = draw(cells, base);
  if (!err.empty()) {
    std::cerr << fmt::format("io-bench: plot {}: {}\n", name, err);
    return "";
  }
  return base + ".png";
}

void add(kit::Results& results, const Judged& j) {
  for (const RatioRow& r : j.rows) results.add_ratio(j.verdict.finding, r.arm, r.case_, r.metric, r.ratio, r.unit);
  results.verdict(j.verdict);
}

}  // namespace

int run(kit::Harness& h) {
  ProbeResult p = probe(h.data_dir());
  if (!p.error.empty()) {
    std::cerr << "io-bench: " << p.error << "\n";
    return 1;
  }
  std::cout << probe_table(p);
  kit::Results& results = h.results();
  add_probe_rows(results, p);
  results.attach_json("probe", probe_json(p));

  const int reps = h.reps();
  Plan plan = make_plan(h.quick(), p);
  SweepEnv env;
  env.dir = h.data_dir();
  env.seed = h.seed();
  env.probe = &p;
  env.stop = should_stop;
  const size_t steps = (plan.cells() + 1) * static_cast<size_t>(reps) + 1;
  kit::Progress progress("io-bench", steps);
  size_t done = 0;
  bool go = true;
  for (Block* b : {&plan.sizes, &plan.jobs, &plan.drain, &plan.merged})
    if (go) go = run_block(*b, reps, env, results, progress, &done);

  std::vector<LiesResult> lies;
  CoherenceResult coh;
  CoherenceOptions co;
  if (go) {
    LiesOptions lo;
    lo.seconds = h.quick() ? 0.25 : 0.5;
    kit::run_interleaved(reps, 1, [&](size_t, int rep) {
      progress.update(done++, fmt::format("IO-4 lies rep {}", rep));
      lies.push_back(run_lies(lo, env));
      add_lies_rows(results, lies.back(), fmt::format(";rep={}", rep));
    });
    // IO-5 is a count (stale reads), not a timing: one run of its rounds.
    progress.update(done++, "IO-5 coherence");
    co.dir = h.data_dir();
    co.rounds = h.quick() ? 50 : 200;
    co.seed = h.seed();
    co.stop = should_stop;
    coh = run_coherence(co, p);
    add_coherence_rows(results, co, coh, "IO-5");
  }
  progress.finish();

  for (const Block* b : {&plan.sizes, &plan.jobs, &plan.drain, &plan.merged}) {
    print_block(*b);
    add_summary_rows(results, *b);
  }
  if (!lies.empty()) std::cout << "\nIO-4 (the first repetition)\n" << lies_report(lies.front());
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

  add(results, io1_verdict(plan.sizes.cells, plan.durable, p_size));
  add(results, io2_verdict(plan.jobs.cells, plan.sizes.cells, plan.durable, plan.jobs_size, p_jobs));
  add(results, h.quick() ? io3_quick_verdict(dirty_background_bytes())
                         : io3_verdict(plan.drain.cells, dirty_background_bytes(), p_time));
  if (go) {
    add(results, io4_verdict(lies));
    results.verdict(io5_verdict(coh, p));
  }
  add(results, io7_verdict(plan.merged.cells, plan.durable, kMergeBatch, p_merge));

  return h.finish();
}

}  // namespace fenec::scenarios::io
