// commit-bench's workload, by counts: the dirty set is what it says, the
// worker scan counts what /proc shows, and each arm's cell writes exactly
// rounds x the dirty set, in the counted number of writes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "engine/src/ring/flusher.h"
#include "scenarios/commit/workload.h"

namespace fenec::commit {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("fenec-commit-test-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

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
  const fs::path proc = temp_dir("scan");
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
  const fs::path dir = temp_dir("cell-" + GetParam());
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

INSTANTIATE_TEST_SUITE_P(Commit, Cells, ::testing::ValuesIn(fenec::ring::flusher_arms()),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

}  // namespace
}  // namespace fenec::commit
