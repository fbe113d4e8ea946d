// Tiny real cells on the build folder's filesystem: counts (writes, syncs,
// bytes, ops), never times. Also the refusals: an O_DIRECT size the probed
// alignment forbids, and O_DIRECT on tmpfs, are skipped with their reason.
#include <gtest/gtest.h>

#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "iobench/src/sweep.h"
#include "engine/src/base/testing.h"

namespace fenec::iobench {
namespace sweep_real_test {

bool never() { return false; }

class RealSweep : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::make_unique<base::ScratchDir>("sweep");
    probe_ = probe(dir_->path());
    ASSERT_TRUE(probe_.error.empty()) << probe_.error;
    if (probe_.memory_backed) GTEST_SKIP() << dir_->path() << " is memory-backed; set FENEC_TEST_DIR to a disk";
    env_.dir = dir_->path();
    env_.seed = base::TestSeed();
    env_.probe = &probe_;
    env_.stop = never;
  }
  CellSpec spec(Mode mode, SubmitKind k, unsigned writes, unsigned batch = 1, unsigned depth = 1) {
    CellSpec s;
    s.size = 4096;
    s.mode = mode;
    s.submit = k;
    s.batch = batch;
    s.depth = depth;
    s.duration_s = 50;
    s.total = uint64_t{writes} * 4096;
    return s;
  }
  std::unique_ptr<base::ScratchDir> dir_;
  ProbeResult probe_;
  SweepEnv env_;
};

TEST_F(RealSweep, DirectDsyncCellWritesExactlyItsPlan) {
  if (!probe_.o_direct) GTEST_SKIP() << probe_.direct_skip_reason();
  CellResult r = run_cell(spec(Mode::kDirectDsync, SubmitKind::kPwrite, 64), env_);
  ASSERT_TRUE(r.ran()) << r.skipped;
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.ops, 64u);
  EXPECT_EQ(r.write_calls, 64u);
  EXPECT_EQ(r.bytes, 64u * 4096);
  EXPECT_EQ(r.sync_calls, 0u);
  EXPECT_EQ(r.lat.count(), 64u);
  EXPECT_GT(r.mb_per_s(), 0);
  EXPECT_EQ(dir_->entries(), 0u) << "the cell removes its files";
}

TEST_F(RealSweep, SyncModesSyncOncePerRound) {
  CellResult r = run_cell(spec(Mode::kFdatasync, SubmitKind::kPwrite, 32), env_);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.write_calls, 32u);
  EXPECT_EQ(r.sync_calls, 32u);
  EXPECT_EQ(r.sync.count(), 32u);

  // pwritev merges a batch of 4 buffers into one call; one sync a batch.
  r = run_cell(spec(Mode::kFsync, SubmitKind::kPwritev, 32, 4), env_);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.ops, 8u);
  EXPECT_EQ(r.write_calls, 8u);
  EXPECT_EQ(r.sync_calls, 8u);

  // The same batch on the pwrite path is 4 calls.
  r = run_cell(spec(Mode::kFsync, SubmitKind::kPwrite, 32, 4), env_);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.write_calls, 32u);
  EXPECT_EQ(r.sync_calls, 8u);
}

TEST_F(RealSweep, UringKeepsItsDepthAndSyncsARound) {
  if (!probe_.io_uring) GTEST_SKIP() << probe_.io_uring_note;
  CellResult r = run_cell(spec(Mode::kBuffered, SubmitKind::kUring, 64, 1, 4), env_);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.write_calls, 64u);
  EXPECT_EQ(r.bytes, 64u * 4096);
  r = run_cell(spec(Mode::kFdatasync, SubmitKind::kUring, 64, 2, 4), env_);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.ops, 32u);
  EXPECT_EQ(r.write_calls, 32u);  // one writev entry a batch
  EXPECT_EQ(r.sync_calls, 8u);    // 32 ops in rounds of 4
  EXPECT_EQ(plan_cell(spec(Mode::kFdatasync, SubmitKind::kUring, 64, 2, 4)).sync_calls, 8u);
}

// Every registered path, on a real file: what it did is what its traits
// planned (write calls, syncs, files), in a sync mode and a queued one.
TEST_F(RealSweep, EveryRegisteredPathRunsItsPlan) {
  for (const SubmitPath* p : submit_paths())
    for (Mode mode : {Mode::kFdatasync, Mode::kBuffered}) {
      CellSpec s = spec(mode, p->kind, 32, 2, 4);
      s.depth = p->depth_for(s.depth);
      SCOPED_TRACE(s.arm() + " " + s.case_());
      if (std::string why = check_cell(s, env_); !why.empty()) {
        EXPECT_NE(p->unavailable, nullptr) << "only a path with a probe check is skipped: " << why;
        continue;
      }
      const CellPlan plan = plan_cell(s);
      CellResult r = run_cell(s, env_);
      ASSERT_TRUE(r.ran()) << r.skipped;
      ASSERT_TRUE(r.error.empty()) << r.error;
      EXPECT_EQ(r.ops, plan.ops_per_job);
      EXPECT_EQ(r.write_calls, plan.write_calls);
      EXPECT_EQ(r.sync_calls, plan.sync_calls);
      EXPECT_EQ(dir_->entries(), 0u) << "the cell removes its files";
    }
}

TEST_F(RealSweep, PerJobFilesAndSharedRegions) {
  CellSpec s = spec(Mode::kDsync, SubmitKind::kPwrite, 64);
  s.jobs = 4;
  for (Layout l : {Layout::kShared, Layout::kPerJob}) {
    s.layout = l;
    CellResult r = run_cell(s, env_);
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_EQ(r.ops, 64u);
    EXPECT_EQ(r.job_mb_per_s.size(), 4u);
    EXPECT_EQ(dir_->entries(), 0u);
  }
}

TEST_F(RealSweep, DirectSizeOffAlignmentIsSkippedSayingWhich) {
  if (!probe_.o_direct || probe_.direct_io_align <= 1) GTEST_SKIP() << "no O_DIRECT alignment here";
  CellSpec s = spec(Mode::kDirect, SubmitKind::kPwrite, 4);
  s.size = probe_.direct_io_align + probe_.direct_io_align / 2;
  CellResult r = run_cell(s, env_);
  EXPECT_FALSE(r.ran());
  EXPECT_NE(r.skipped.find(std::to_string(probe_.direct_io_align)), std::string::npos) << r.skipped;
  EXPECT_NE(r.skipped.find("not a multiple"), std::string::npos) << r.skipped;
}

// ENOSPC on a 1 MiB tmpfs mounted in a private mount namespace (root only;
// skipped elsewhere): a clear message, the error flagged, no file left behind.
TEST(EnospcSweep, ReportedClearlyAndFilesRemoved) {
  base::ScratchDir dir("enospc");
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (unshare(CLONE_NEWNS) != 0 || mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        mount("none", dir.path().c_str(), "tmpfs", 0, "size=1m") != 0)
      _exit(77);
    SweepEnv env;
    env.dir = dir.path();
    env.stop = never;
    CellSpec s;
    s.mode = Mode::kBuffered;
    s.total = 4 << 20;
    CellResult r = run_cell(s, env);
    bool ok = r.no_space && r.error.find("no space left") != std::string::npos && dir.entries() == 0;
    if (!ok) fprintf(stderr, "no_space=%d error=%s entries=%zu\n", r.no_space, r.error.c_str(), dir.entries());
    umount(dir.path().c_str());
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) GTEST_SKIP() << "cannot mount a private tmpfs here (needs root)";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(TmpfsSweep, DirectOnTmpfsIsSkippedWithTheReason) {
  if (access("/dev/shm", W_OK) != 0) GTEST_SKIP() << "/dev/shm not writable";
  ProbeResult p = probe("/dev/shm");
  if (!p.memory_backed) GTEST_SKIP() << "/dev/shm is not tmpfs here";
  SweepEnv env;
  env.dir = "/dev/shm";
  env.probe = &p;
  env.stop = never;
  CellSpec s;
  s.mode = Mode::kDirectDsync;
  CellResult r = run_cell(s, env);
  EXPECT_FALSE(r.ran());
  EXPECT_NE(r.skipped.find("tmpfs"), std::string::npos) << r.skipped;
  // Buffered writes still run there.
  s.mode = Mode::kBuffered;
  s.total = 16 * 4096;
  r = run_cell(s, env);
  EXPECT_TRUE(r.ran());
  EXPECT_EQ(r.ops, 16u);
}

}  // namespace sweep_real_test
}  // namespace fenec::iobench
