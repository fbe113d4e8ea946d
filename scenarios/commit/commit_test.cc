// commit-bench's workload, by counts: the dirty set is what it says, the
// worker scan counts what /proc shows, and each arm's cell writes exactly
// rounds x the dirty set, in the counted number of writes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "engine/src/base/testing.h"
#include "scenarios/commit/flusher.h"
#include "scenarios/commit/merger_cell.h"
#include "scenarios/commit/merger_report.h"
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

TEST(MergerVerdicts, MetMissedAndNotMeasured) {
  MergerReport rep;
  rep.places = {"native", "slow-10ms", "slow-2ms"};
  auto put = [&](const std::string& arm, const std::string& disk, double dps) {
    MergerFigures f;
    f.disk = disk;
    f.docs = "small";
    f.docs_per_s = dps;
    f.docs_put = 1000;
    rep.cells[{arm, disk}] = f;
  };
  put("sync", "native", 1000);
  put("async", "native", 1100);  // 1.10x: missed
  put("sync", "slow-10ms", 500);
  put("async", "slow-10ms", 1000);  // 2.00x: met
  put("direct", "slow-10ms", 900);
  put("async", "slow-2ms", 800);  // no sync there
  const std::vector<kit::Verdict> v =
      merger_verdicts(rep, [](const std::string& name) { return "plots/commit/" + name + ".png"; });
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].finding, "JR-2");
  EXPECT_EQ(v[0].verdict.rfind("not reproduced", 0), 0u) << v[0].verdict;
  EXPECT_NE(v[0].ours.find("1.10x"), std::string::npos) << v[0].ours;
  EXPECT_EQ(v[1].verdict.rfind("reproduced", 0), 0u) << v[1].verdict;
  EXPECT_NE(v[1].ours.find("2.00x"), std::string::npos) << v[1].ours;
  EXPECT_NE(v[1].ours.find("direct"), std::string::npos) << v[1].ours;
  EXPECT_EQ(v[2].verdict.rfind("not applicable", 0), 0u) << v[2].verdict;
  EXPECT_EQ(v[1].plot, "plots/commit/jr2_over_time_slow-10ms.png");
}

}  // namespace
}  // namespace fenec::scenarios::commit
