// commit-bench's workload, by counts: the dirty set is what it says, the
// worker scan counts what /proc shows, and each arm's cell writes exactly
// rounds x the dirty set, in the counted number of writes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "engine/src/base/testing.h"
#include "scenarios/commit/flusher.h"
#include "scenarios/commit/merger_cell.h"
#include "scenarios/commit/merger_report.h"
#include "scenarios/commit/report.h"
#include "scenarios/commit/workload.h"

namespace fenec::scenarios::commit {
namespace {

namespace fs = std::filesystem;

TEST(DirtySet, ExactTotalRunsWithinBoundsAndNeverTouching) {
  const DirtySet s = make_dirty_set(8, 1000, 16, 3);
  EXPECT_EQ(s.total(), 1000u);
  ASSERT_EQ(s.pages.size(), 8u);
  uint64_t runs = 0;
  for (const auto& f : s.pages) {
    EXPECT_EQ(f.size(), 125u);
    uint64_t len = 0;
    for (size_t i = 0; i < f.size(); ++i) {
      EXPECT_LT(f[i], s.file_pages);
      if (i > 0) {
        EXPECT_GT(f[i], f[i - 1]);
      }
      const bool starts = i == 0 || f[i] != f[i - 1] + 1;
      if (starts) {
        ++runs;
        len = 0;
      }
      EXPECT_LE(++len, 16u);
    }
  }
  EXPECT_EQ(s.runs(), runs);
  // One page per run at most one run each: runs of length 1.
  EXPECT_EQ(make_dirty_set(1, 50, 1, 1).runs(), 50u);
}

TEST(ScanWorkers, CountsArmSelfAndSystem) {
  base::ScratchDir scratch("commit-" + std::string("scan"));
  ASSERT_TRUE(scratch.ok()) << scratch.error();
  const fs::path proc = scratch.path();
  auto task = [&](const std::string& pid_or_self, int tid, const std::string& comm) {
    const fs::path d = proc / pid_or_self / "task" / std::to_string(tid);
    fs::create_directories(d);
    std::ofstream(d / "comm") << comm << "\n";
  };
  task("self", 10, "commit-bench");
  task("self", 11, "iou-wrk-10");
  task("self", 12, "iou-wrk-10");
  task("self", 13, "iou-wrk-99");
  task("42", 43, "iou-wrk-42");
  task("42", 44, "postgres");
  task("7", 8, "iou-wrk-7");
  WorkerScan s = scan_workers({10}, true, proc.string());
  EXPECT_EQ(s.arm, 2);
  EXPECT_EQ(s.self, 3);
  EXPECT_EQ(s.system, 2);  // "self" is not a pid: the system scan reads numbered folders only
  EXPECT_EQ(scan_workers({}, false, proc.string()).system, -1);
  fs::remove_all(proc);
}

class Cells : public ::testing::TestWithParam<std::string> {};

TEST_P(Cells, WriteRoundsTimesTheDirtySet) {
  base::ScratchDir scratch("commit-" + std::string("cell-" + GetParam()));
  ASSERT_TRUE(scratch.ok()) << scratch.error();
  const fs::path dir = scratch.path();
  const DirtySet set = make_dirty_set(3, 300, 24, 5);
  std::vector<int> fds;
  ASSERT_EQ(prepare_files(dir.string(), set, 4096, false, &fds), "");
  CellConfig cfg;
  cfg.arm = GetParam();
  cfg.producers = 1;  // one producer: every round flushes every file once
  cfg.seconds = 0.2;
  const CellResult r = run_cell(cfg, set, fds);
  close_files(&fds);
  fs::remove_all(dir);
  ASSERT_EQ(r.error, "");
  ASSERT_GT(r.rounds, 0u);
  EXPECT_EQ(r.counters.submissions, r.rounds * 3);
  EXPECT_EQ(r.counters.bytes, r.rounds * set.total() * 4096);
  EXPECT_EQ(r.counters.writes, r.rounds * (GetParam() == "pwrite" ? set.total() : set.runs()));
  EXPECT_GE(r.peak.arm, 0);
}

INSTANTIATE_TEST_SUITE_P(Commit, Cells, ::testing::ValuesIn(flusher_arms()),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

// --- JR-2 ---------------------------------------------------------------------

TEST(MergerDisk, ParsesNativeAndSlowDelays) {
  Disk d;
  ASSERT_TRUE(parse_disk("native", &d));
  EXPECT_EQ(d.sync_delay_us, 0u);
  ASSERT_TRUE(parse_disk("slow-2ms", &d));
  EXPECT_EQ(d.sync_delay_us, 2000u);
  ASSERT_TRUE(parse_disk("slow-10ms", &d));
  EXPECT_EQ(d.sync_delay_us, 10000u);
  ASSERT_TRUE(parse_disk("slow-250us", &d));
  EXPECT_EQ(d.sync_delay_us, 250u);
  EXPECT_EQ(d.name, "slow-250us");
  for (const char* bad : {"slow", "slow-", "slow-0ms", "slow-2s", "fast-2ms", "slow-x"}) {
    EXPECT_FALSE(parse_disk(bad, &d)) << bad;
  }
}

class MergerCells : public ::testing::TestWithParam<std::string> {};

// Every doc put and acknowledged once, counted alike by the cell, the
// histogram, the time buckets and the database; the merger's own counts
// match the arm; the slow disk delayed exactly the fsyncs the database made.
TEST_P(MergerCells, PutEveryDocAndCountIt) {
  base::ScratchDir scratch("commit-" + std::string("jr2-" + GetParam()));
  ASSERT_TRUE(scratch.ok()) << scratch.error();
  const fs::path dir = scratch.path();
  MergerCellConfig cfg;
  cfg.arm = GetParam();
  ASSERT_TRUE(parse_disk("slow-300us", &cfg.disk));
  cfg.writers = 4;
  cfg.docs = 400;
  cfg.max_seconds = 60;  // far more than needed: the count, not the clock, ends this cell
  cfg.dir = (dir / "db").string();
  cfg.seed = 11;
  const MergerCellResult r = run_merger_cell(cfg);
  fs::remove_all(dir);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.docs, 400u);
  EXPECT_FALSE(r.capped);
  EXPECT_EQ(r.put_ns.count(), 400u);
  uint64_t bucketed = 0;
  for (uint64_t n : r.acked_per_bucket) bucketed += n;
  EXPECT_EQ(bucketed, 400u);
  EXPECT_EQ(r.stats.commits, 400u);
  EXPECT_EQ(r.stats.merger_ops, GetParam() == "direct" ? 0u : 400u);
  if (GetParam() == "direct") {
    EXPECT_EQ(r.stats.merger_batches, 0u);
  } else {
    EXPECT_GT(r.stats.merger_batches, 0u);
    EXPECT_LE(r.stats.merger_batches, 400u);
  }
  if (GetParam() == "async") {
    EXPECT_EQ(r.stats.merger_async_completions, r.stats.merger_batches);
  }
  EXPECT_GT(r.stats.journal_fsyncs, 0u);
  EXPECT_EQ(r.delayed_syncs, r.stats.fsyncs);
  EXPECT_FALSE(fs::exists(dir / "db"));
}

INSTANTIATE_TEST_SUITE_P(Commit, MergerCells, ::testing::ValuesIn(merger_arms()),
                         [](const auto& info) { return info.param; });

// The indexed kind: every put lands in the root and its three branches.
TEST(MergerCells, IndexedDocsGoThroughTheirBranches) {
  base::ScratchDir scratch("commit-" + std::string("jr2-indexed"));
  ASSERT_TRUE(scratch.ok()) << scratch.error();
  const fs::path dir = scratch.path();
  MergerCellConfig cfg;
  cfg.arm = "async";
  cfg.doc_kind = "indexed";
  ASSERT_TRUE(parse_disk("native", &cfg.disk));
  cfg.writers = 4;
  cfg.docs = 200;
  cfg.max_seconds = 60;
  cfg.dir = (dir / "db").string();
  cfg.seed = 12;
  const MergerCellResult r = run_merger_cell(cfg);
  fs::remove_all(dir);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.docs, 200u);
  EXPECT_EQ(r.stats.commits, 200u);
  EXPECT_EQ(r.stats.branches, 3u) << "a @unique and two @text indexes";
  EXPECT_TRUE(is_doc_kind("indexed") && is_doc_kind("small") && !is_doc_kind("big"));
}

TEST(MergerDocs, FewerOnSlowerDisksAndDatabasesOnlyWhereTheyHelp) {
  Disk native, slow2, slow10;
  ASSERT_TRUE(parse_disk("native", &native));
  ASSERT_TRUE(parse_disk("slow-2ms", &slow2));
  ASSERT_TRUE(parse_disk("slow-10ms", &slow10));
  EXPECT_EQ(merger_docs(40000, native), 40000u);
  EXPECT_EQ(merger_docs(40000, slow2), 8000u);
  EXPECT_EQ(merger_docs(40000, slow10), 1600u);
  EXPECT_EQ(merger_docs(5000, slow10), 400u);   // the floor
  EXPECT_EQ(merger_docs(100, slow10), 100u);    // never more than asked
  EXPECT_GT(merger_databases(native), 1);
  EXPECT_EQ(merger_databases(slow10), 1);
}

// Two databases added into one repetition: docs, time, latencies and the
// merger's counts summed, the buckets one after the other, the first error kept.
TEST(MergerCells, AddDatabaseSumsARepetition) {
  MergerCellResult a, b, rep;
  a.docs = 100;
  a.seconds = 1;
  a.put_ns.Record(1000);
  a.stats.commits = 100;
  a.stats.fsyncs = 10;
  a.stats.merger_batches = 7;
  a.acked_per_bucket = {60, 40};
  b.docs = 50;
  b.seconds = 0.5;
  b.put_ns.Record(2000);
  b.put_ns.Record(3000);
  b.stats.commits = 50;
  b.stats.fsyncs = 5;
  b.stats.merger_batches = 3;
  b.stats.branches = 3;
  b.acked_per_bucket = {50};
  b.error = "boom";
  add_database(&rep, a);
  add_database(&rep, b);
  EXPECT_EQ(rep.docs, 150u);
  EXPECT_DOUBLE_EQ(rep.seconds, 1.5);
  EXPECT_EQ(rep.put_ns.count(), 3u);
  EXPECT_EQ(rep.stats.commits, 150u);
  EXPECT_EQ(rep.stats.fsyncs, 15u);
  EXPECT_EQ(rep.stats.merger_batches, 10u);
  EXPECT_EQ(rep.stats.branches, 3u);
  EXPECT_EQ(rep.acked_per_bucket, (std::vector<uint64_t>{60, 40, 50}));
  EXPECT_EQ(rep.error, "boom");
}

// --- JR-2 verdicts, on synthetic figures -------------------------------------

class MergerVerdicts : public ::testing::Test {
 protected:
  // One arm at one place: docs/s per repetition.
  void put(const std::string& arm, const std::string& disk, const std::string& kind, std::vector<double> dps) {
    MergerFigures f;
    f.disk = disk;
    f.docs = kind;
    Disk d;
    ASSERT_TRUE(parse_disk(disk, &d));
    f.sync_delay_us = d.sync_delay_us;
    f.docs_per_s = std::move(dps);
    f.docs_put = 1000;
    const std::string place = merger_place(disk, kind);
    if (std::find(rep.places.begin(), rep.places.end(), place) == rep.places.end()) rep.places.push_back(place);
    rep.cells[{arm, place}] = f;
  }
  std::vector<kit::Verdict> verdicts() const {
    return merger_verdicts(rep, [](const std::string& name) { return "plots/commit/" + name + ".png"; });
  }
  MergerReport rep;
};

// The indexed kind: async 1.4x sync on the native disk (clears 1.15), and
// on the slow disk 1.02x, under the native disk's gain (misses): partly.
TEST_F(MergerVerdicts, FifteenPercentClearsAndSlowDiskMissesIsPartly) {
  put("sync", "native", "indexed", {1000, 1010, 990});
  put("async", "native", "indexed", {1400, 1420, 1390});
  put("sync", "slow-10ms", "indexed", {500, 505, 495});
  put("async", "slow-10ms", "indexed", {510, 515, 505});
  put("direct", "slow-10ms", "indexed", {450, 455, 445});
  const MergerChecks m = merger_checks(rep, "indexed");
  ASSERT_EQ(m.checks.size(), 2u);
  EXPECT_EQ(kit::check_result(m.checks[0]), kit::CheckResult::kCleared) << kit::describe(m.checks[0]);
  EXPECT_EQ(kit::check_result(m.checks[1]), kit::CheckResult::kMissed) << kit::describe(m.checks[1]);
  // Over the native disk's own gain (1.4x), not 1.15: it was larger.
  EXPECT_NEAR(m.checks[1].ratio.value, 1.02 / 1.4, 0.01);
  const std::vector<kit::Verdict> v = verdicts();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].finding, "JR-2");
  EXPECT_EQ(v[0].outcome, kit::Outcome::kPartly) << v[0].reason;
  EXPECT_NE(v[0].ours.find("1.40x ["), std::string::npos) << v[0].ours;
  EXPECT_NE(v[0].ours.find("direct"), std::string::npos) << v[0].ours;
  EXPECT_EQ(v[0].plot, "plots/commit/jr2_async_over_sync.png");
}

// The small kind: async 0.9x sync on the native disk, 0.97x on the slow one
// (judged against 1.15, the larger of it and the native gain): both miss.
TEST_F(MergerVerdicts, BothPartsMissedIsNotReproduced) {
  put("sync", "native", "small", {3000, 3030, 2970});
  put("async", "native", "small", {2700, 2720, 2690});
  put("sync", "slow-2ms", "small", {300, 303, 297});
  put("async", "slow-2ms", "small", {291, 294, 288});
  const MergerChecks m = merger_checks(rep, "small");
  ASSERT_EQ(m.checks.size(), 2u);
  EXPECT_NEAR(m.checks[1].ratio.value, 0.97 / kAsyncOverSyncTarget, 0.01);
  const std::vector<kit::Verdict> v = verdicts();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].outcome, kit::Outcome::kNotReproduced) << v[0].reason;
}

// Both parts clear: 1.3x on the native disk, 2x on the slow one.
TEST_F(MergerVerdicts, BothPartsClearedIsReproduced) {
  put("sync", "native", "indexed", {1000, 1010, 990});
  put("async", "native", "indexed", {1300, 1320, 1290});
  put("sync", "slow-10ms", "indexed", {300, 303, 297});
  put("async", "slow-10ms", "indexed", {600, 610, 590});
  EXPECT_EQ(verdicts().at(0).outcome, kit::Outcome::kReproduced) << verdicts().at(0).reason;
}

// Repetitions that spread over the line (1.0x, 1.3x, 1.6x): the interval
// holds 1.15 and nothing else decides, so inconclusive, saying which straddles.
TEST_F(MergerVerdicts, AStraddlingCheckAloneIsInconclusive) {
  put("sync", "native", "indexed", {1000, 1000, 1000});
  put("async", "native", "indexed", {1000, 1300, 1600});
  const std::vector<kit::Verdict> v = verdicts();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].outcome, kit::Outcome::kInconclusive) << v[0].reason;
  EXPECT_NE(v[0].reason.find("straddles"), std::string::npos) << v[0].reason;
}

// One arm alone on every disk: no ratio, not applicable. A kind not run: no row.
TEST_F(MergerVerdicts, OneArmAloneIsNotApplicable) {
  put("async", "native", "small", {1000, 1000, 1000});
  const std::vector<kit::Verdict> v = verdicts();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].outcome, kit::Outcome::kNotApplicable);
  EXPECT_TRUE(merger_checks(rep, "indexed").checks.empty());
}

// The ratios go in the CSV beside the figures: async_over_sync on every disk
// with both arms, gain_over_native_or_target on the slowed ones, with intervals.
TEST_F(MergerVerdicts, RatiosAreRowsWithTheirIntervals) {
  put("sync", "native", "small", {3000, 3030, 2970});
  put("async", "native", "small", {2700, 2720, 2690});
  put("sync", "slow-10ms", "small", {300, 303, 297});
  put("async", "slow-10ms", "small", {291, 294, 288});
  kit::Results r("commit", kit::Metadata{});
  add_merger_ratios(r, rep);
  std::set<std::string> seen;
  for (const kit::Row& row : r.rows()) seen.insert(row.case_ + " " + row.metric);
  for (const char* want : {"disk=native;writers=10;docs=small async_over_sync",
                           "disk=native;writers=10;docs=small async_over_sync_ci95_lo",
                           "disk=native;writers=10;docs=small async_over_sync_reps",
                           "disk=slow-10ms;writers=10;docs=small async_over_sync_ci95_hi",
                           "disk=slow-10ms;writers=10;docs=small gain_over_native_or_target"})
    EXPECT_EQ(seen.count(want), 1u) << want;
  EXPECT_EQ(seen.count("disk=native;writers=10;docs=small gain_over_native_or_target"), 0u);
}

// --- IO-6 / IO-7 verdicts, on synthetic figures -------------------------------

Figures flush_figures(std::vector<double> mb_per_s, double writes_per_mb, std::vector<double> workers) {
  Figures f;
  f.mb_per_s = mb_per_s;
  f.mb_per_cpu_s = mb_per_s;
  for (size_t i = 0; i < mb_per_s.size(); ++i) {
    f.writes_per_mb.push_back(writes_per_mb);
    f.syscalls_per_mb.push_back(writes_per_mb);
  }
  f.iou_workers = std::move(workers);
  return f;
}

std::vector<kit::Verdict> flush_verdicts(const Report& rep) {
  return verdicts(rep, [](const std::string& name) { return "plots/commit/" + name + ".png"; });
}

// At the largest file count: the global ring faster with fewer workers
// (IO-6), pwritev fewer writes and faster (IO-7): both reproduced.
TEST(FlushVerdicts, JudgedAtTheLargestFileCount) {
  Report rep;
  rep.cells[{"global-ring", 8}] = flush_figures({500, 510, 490}, 16, {8, 8, 8});      // slower at 8 files
  rep.cells[{"ring-per-file", 8}] = flush_figures({1000, 1010, 990}, 16, {16, 16, 16});
  rep.cells[{"global-ring", 256}] = flush_figures({3000, 3100, 2900}, 16, {8, 9, 8});
  rep.cells[{"ring-per-file", 256}] = flush_figures({1000, 1010, 990}, 16, {256, 256, 256});
  rep.cells[{"pwrite", 256}] = flush_figures({700, 710, 690}, 244, {0, 0, 0});
  rep.cells[{"pwritev", 256}] = flush_figures({2500, 2550, 2450}, 24, {0, 0, 0});
  const std::vector<kit::Verdict> v = flush_verdicts(rep);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].finding, "IO-6");
  EXPECT_EQ(v[0].outcome, kit::Outcome::kReproduced) << v[0].reason;
  EXPECT_NE(v[0].ours.find("files=256"), std::string::npos) << v[0].ours;
  EXPECT_NE(v[0].ours.find("files=8: 0.50x"), std::string::npos) << v[0].ours;  // the others, for the shape
  EXPECT_EQ(v[1].finding, "IO-7");
  EXPECT_EQ(v[1].outcome, kit::Outcome::kReproduced) << v[1].reason;
}

// A tie within the noise (global 0.9x..1.1x per-file) straddles 1: with the
// workers' check cleared, inconclusive; one arm missing: not applicable.
TEST(FlushVerdicts, TieIsInconclusiveAndAMissingArmNotApplicable) {
  Report rep;
  rep.cells[{"global-ring", 64}] = flush_figures({900, 1000, 1100}, 16, {8, 8, 8});
  rep.cells[{"ring-per-file", 64}] = flush_figures({1000, 1000, 1000}, 16, {64, 64, 64});
  rep.cells[{"pwrite", 64}] = flush_figures({700, 710, 690}, 244, {0, 0, 0});
  const std::vector<kit::Verdict> v = flush_verdicts(rep);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].outcome, kit::Outcome::kInconclusive) << v[0].reason;
  EXPECT_EQ(v[1].outcome, kit::Outcome::kNotApplicable);
}

}  // namespace
}  // namespace fenec::scenarios::commit
