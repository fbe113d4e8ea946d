// The harness on the null path: no I/O, so the only thing under test is the
// job loop's plan. Writes, syncs, ops and histogram counts must match
// plan_cell() exactly for every combination of mode, batch, depth and jobs.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/src/base/testing.h"
#include "iobench/kit/results.h"
#include "iobench/src/submit.h"
#include "iobench/src/sweep.h"
#include "iobench/src/sweep_report.h"

namespace fenec::iobench {
namespace sweep_null_test {

bool never() { return false; }
bool always() { return true; }

CellSpec null_spec(Mode mode, unsigned jobs, unsigned batch, unsigned depth, uint64_t total) {
  CellSpec s;
  s.size = 4096;
  s.mode = mode;
  s.jobs = jobs;
  s.submit = SubmitKind::kNull;
  s.batch = batch;
  s.depth = depth;
  s.duration_s = 600;  // never the bound: the byte total is
  s.total = total;
  s.interval_s = 0.001;
  return s;
}

TEST(NullSweep, CountsMatchThePlan) {
  SweepEnv env;
  env.stop = never;
  for (Mode mode : kAllModes)
    for (unsigned jobs : {1u, 3u})
      for (unsigned batch : {1u, 4u})
        for (unsigned depth : {1u, 4u}) {
          CellSpec spec = null_spec(mode, jobs, batch, depth, 1 << 20);
          SCOPED_TRACE(spec.arm() + " " + spec.case_());
          CellPlan plan = plan_cell(spec);
          CellResult r = run_cell(spec, env);
          ASSERT_TRUE(r.ran()) << r.skipped;
          ASSERT_TRUE(r.error.empty()) << r.error;
          EXPECT_EQ(r.ops, plan.ops_per_job * jobs);
          EXPECT_EQ(r.write_calls, plan.write_calls);
          EXPECT_EQ(r.sync_calls, plan.sync_calls);
          EXPECT_EQ(r.bytes, plan.ops_per_job * jobs * 4096 * batch);
          EXPECT_EQ(r.lat.count(), r.ops);
          EXPECT_EQ(r.sync.count(), r.sync_calls);
          bool syncs = mode_sync(mode) != SyncCall::kNone;
          EXPECT_EQ(r.commit.count(), syncs ? r.ops : 0u);
          EXPECT_EQ(r.job_mb_per_s.size(), jobs);
          EXPECT_FALSE(r.interrupted);
        }
}

TEST(NullSweep, PlanArithmetic) {
  // 1 MiB among 3 jobs of 16 KiB ops: 21 ops each (the remainder is not written).
  CellPlan p = plan_cell(null_spec(Mode::kFsync, 3, 4, 4, 1 << 20));
  EXPECT_EQ(p.unit_bytes, 16384u);
  EXPECT_EQ(p.ops_per_job, 21u);
  EXPECT_EQ(p.write_calls, 63u);
  EXPECT_EQ(p.sync_calls, 3u * 6u);  // ceil(21 / 4) rounds a job
  EXPECT_EQ(p.files, 0u);

  CellSpec pw = null_spec(Mode::kFdatasync, 2, 8, 1, 1 << 20);
  pw.submit = SubmitKind::kPwrite;
  p = plan_cell(pw);
  EXPECT_EQ(p.ops_per_job, 16u);
  EXPECT_EQ(p.write_calls, 2u * 16u * 8u);  // pwrite: one call per buffer
  EXPECT_EQ(p.sync_calls, 32u);
  EXPECT_EQ(p.files, 1u);
  EXPECT_EQ(p.file_bytes, 1u << 20);
  pw.layout = Layout::kPerJob;
  p = plan_cell(pw);
  EXPECT_EQ(p.files, 2u);
  EXPECT_EQ(p.file_bytes, 512u << 10);
  // A total below one op per job still writes one op each.
  p = plan_cell(null_spec(Mode::kBuffered, 4, 1, 1, 4096));
  EXPECT_EQ(p.ops_per_job, 1u);
}

TEST(NullSweep, StopRequestEndsTheCellAndItIsReportedIncomplete) {
  SweepEnv env;
  env.stop = always;
  CellResult r = run_cell(null_spec(Mode::kFsync, 2, 1, 1, 1 << 20), env);
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.ops, 0u);
  kit::Results results("io", kit::Metadata{});
  add_cell_rows(results, r, "");
  ASSERT_EQ(results.skips().size(), 1u);
  EXPECT_NE(results.skips()[0].reason.find("interrupted"), std::string::npos);
  EXPECT_TRUE(results.rows().empty());
}

TEST(NullSweep, RowsCarryTheReportNames) {
  SweepEnv env;
  env.stop = never;
  CellSpec spec = null_spec(Mode::kFdatasync, 1, 1, 1, 64 * 4096);
  CellResult r = run_cell(spec, env);
  kit::Results results("io", kit::Metadata{});
  add_cell_rows(results, r, "IO-1");
  std::set<std::string> metrics;
  for (const auto& row : results.rows()) {
    EXPECT_EQ(row.arm, "fdatasync+null");
    EXPECT_EQ(row.case_, "size=4k;jobs=1;layout=shared");
    EXPECT_EQ(row.finding, "IO-1");
    metrics.insert(row.metric);
    if (row.metric == "writes" || row.metric == "syncs") {
      EXPECT_EQ(row.value, 64);
    }
  }
  for (const char* m : {"iops", "mb_per_s", "lat_p50_us", "lat_p99_us", "lat_max_us", "sync_p50_us",
                        "commit_p99_us", "cpu_per_write_us", "job_mb_per_s"})
    EXPECT_TRUE(metrics.count(m)) << m;
  std::string json = cells_json({r});
  EXPECT_NE(json.find("\"bins\""), std::string::npos) << "JSON carries histogram bins";
  EXPECT_NE(json.find("\"intervals\":["), std::string::npos);
}

TEST(NullSweep, DurationBoundsACellAndIntervalsAdvance) {
  SweepEnv env;
  env.stop = never;
  CellSpec spec = null_spec(Mode::kBuffered, 2, 1, 1, uint64_t{1} << 40);
  spec.duration_s = 0.05;
  spec.interval_s = 0.01;
  CellResult r = run_cell(spec, env);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_LT(r.ops, plan_cell(spec).ops_per_job * 2) << "the duration, not the total, ended it";
  EXPECT_GT(r.ops, 0u);
  ASSERT_FALSE(r.intervals.empty());
  for (size_t i = 1; i < r.intervals.size(); ++i) EXPECT_GT(r.intervals[i].t_s, r.intervals[i - 1].t_s);
}

// A cell run several times (the io scenario's repetitions): rows of one
// repetition carry its suffix, the JSON its rep, and a throughput plot draws
// one point a spec with the repetitions' 95% interval as an error bar.
class Repetitions : public base::ScratchTest {};

TEST_F(Repetitions, RowsJsonAndErrorBars) {
  SweepEnv env;
  env.stop = never;
  std::vector<CellResult> cells;
  for (int rep = 0; rep < 3; ++rep)
    for (uint64_t total : {uint64_t{64} << 12, uint64_t{16} << 20}) {
      CellSpec spec = null_spec(Mode::kBuffered, 1, 1, 1, total);
      spec.size = total / 64;  // two sizes, 64 writes each
      cells.push_back(run_cell(spec, env));
      cells.back().rep = rep;
    }
  kit::Results results("io", kit::Metadata{});
  add_cell_rows(results, cells[3], "IO-1", ";rep=1");
  ASSERT_FALSE(results.rows().empty());
  for (const auto& row : results.rows()) EXPECT_EQ(row.case_, "size=256k;jobs=1;layout=shared;rep=1");
  EXPECT_NE(cell_json(cells[3]).find("\"rep\":1,"), std::string::npos);

  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  const std::string base = path("size");
  plot_throughput_vs_size(cells, base);  // the script is written even without gnuplot
  std::string gp = slurp(base + ".gp");
  EXPECT_NE(gp.find("with yerrorlines"), std::string::npos) << gp;
  EXPECT_NE(gp.find("geometric mean of the repetitions"), std::string::npos);
  // One run of each spec: the plot as before, no bars.
  cells.resize(2);
  plot_throughput_vs_size(cells, base);
  gp = slurp(base + ".gp");
  EXPECT_EQ(gp.find("yerror"), std::string::npos) << gp;
  EXPECT_NE(gp.find("with linespoints"), std::string::npos) << gp;
}

TEST(Grid, ExpandsEveryCombinationAndKeepsDepthForTheRingOnly) {
  Grid g;
  g.sizes = {4096, 65536};
  g.modes = {Mode::kBuffered, Mode::kDirectDsync};
  g.jobs = {1, 4};
  g.layouts = {Layout::kShared, Layout::kPerJob};
  g.submits = {SubmitKind::kPwrite, SubmitKind::kUring};
  g.depth = 8;
  auto cells = expand(g);
  EXPECT_EQ(cells.size(), 32u);
  // A path keeps the grid's depth up to its own limit (a synchronous one keeps 1).
  for (const auto& c : cells) EXPECT_EQ(c.depth, std::min(8u, submit_path(c.submit).max_depth));
}

// The registry is the one description of the paths: names and kinds are
// unique, one is the default, and the planner and the grid follow each
// path's traits (files, calls per op, depth) with no path named.
TEST(Registry, EveryPathIsPlannedThroughItsTraits) {
  std::set<std::string> names;
  std::set<SubmitKind> kinds;
  unsigned defaults = 0;
  for (const SubmitPath* p : submit_paths()) {
    SCOPED_TRACE(p->name);
    EXPECT_TRUE(names.insert(p->name).second) << "a name twice";
    EXPECT_TRUE(kinds.insert(p->kind).second) << "a kind twice";
    EXPECT_EQ(&submit_path(p->kind), p);
    EXPECT_STREQ(submit_name(p->kind), p->name);
    EXPECT_NE(std::string(p->help), "");
    ASSERT_NE(p->make, nullptr);
    ASSERT_GE(p->max_depth, 1u);
    defaults += p->is_default;
    SubmitKind parsed{};
    std::string err;
    ASSERT_TRUE(parse_submit(p->name, &parsed, &err)) << err;
    EXPECT_EQ(parsed, p->kind);
    EXPECT_EQ(arm_name(Mode::kFsync, p->kind), p->is_default ? "fsync" : "fsync+" + std::string(p->name));

    for (Mode mode : {Mode::kBuffered, Mode::kFdatasync})
      for (Layout layout : {Layout::kShared, Layout::kPerJob}) {
        CellSpec s = null_spec(mode, 3, 4, 8, 1 << 20);
        s.submit = p->kind;
        s.layout = layout;
        const CellPlan plan = plan_cell(s);
        EXPECT_EQ(plan.files, !p->writes_files ? 0u : layout == Layout::kShared ? 1u : 3u);
        EXPECT_EQ(plan.write_calls, plan.ops_per_job * 3 * (p->call_per_buffer ? 4 : 1));
        const uint64_t depth = std::min(8u, p->max_depth);
        EXPECT_EQ(plan.sync_calls, mode == Mode::kBuffered ? 0 : (plan.ops_per_job + depth - 1) / depth * 3);
      }

    Grid g;
    g.sizes = {4096};
    g.modes = {Mode::kBuffered};
    g.jobs = {1};
    g.layouts = {Layout::kShared};
    g.submits = {p->kind};
    g.depth = 8;
    std::vector<CellSpec> cells = expand(g);
    ASSERT_EQ(cells.size(), 1u);
    EXPECT_EQ(cells[0].depth, std::min(8u, p->max_depth));
    EXPECT_EQ(cells[0].arm(), arm_name(Mode::kBuffered, p->kind));

    // The submitter the path makes is the one it describes (a ring may be
    // forbidden here: then it says why).
    std::unique_ptr<Submitter> sub = p->make(p->depth_for(8), &err);
    if (!sub) {
      EXPECT_NE(err, "") << "a path that cannot be made says why";
      continue;
    }
    EXPECT_EQ(sub->kind(), p->kind);
    EXPECT_EQ(sub->depth(), p->depth_for(8));
  }
  EXPECT_EQ(defaults, 1u);
  EXPECT_EQ(submit_names(), [&] {
    std::string all;
    for (const SubmitPath* p : submit_paths()) all += (all.empty() ? "" : ", ") + std::string(p->name);
    return all;
  }());
}

}  // namespace sweep_null_test
}  // namespace fenec::iobench
