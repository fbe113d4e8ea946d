// LoopFs, for each file system it builds: set up and always torn down (no
// loop device, mount or backing file left), also after a failure at any
// step and after a mount the kernel refuses. Skipped with the reason where
// not root, or where a file system's tools are missing.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "engine/src/base/testing.h"
#include "iobench/kit/block_device.h"
#include "iobench/kit/loopfs.h"

namespace fenec::kit {
namespace loopfs_test {

namespace fs = std::filesystem;

// xfs refuses a file system under 300 MB; the backing file is sparse, so
// the size costs only what mkfs writes.
constexpr uint64_t kBytes = 320ull << 20;

// What must be gone after a teardown: checked through the kernel's own lists.
void ExpectNothingLeft(const std::string& img, const std::string& mnt) {
  EXPECT_EQ(loop_devices_backed_by(img), 0) << "a loop device still backed by " << img << " (see losetup -a)";
  EXPECT_FALSE(is_mounted(mnt)) << mnt << " still in /proc/mounts";
  EXPECT_FALSE(fs::exists(img)) << img;
  EXPECT_FALSE(fs::exists(mnt)) << mnt;
}

class LoopFsTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (std::string why = fs_unavailable_reason(GetParam()); !why.empty()) GTEST_SKIP() << why;
    dir_ = std::make_unique<base::ScratchDir>("loopfs-" + GetParam());
    ASSERT_TRUE(dir_->ok()) << dir_->error();
  }
  LoopFsOptions options(const std::string& sub) const {
    LoopFsOptions o;
    o.dir = dir_->path(sub);
    o.bytes = kBytes;
    o.fs_type = GetParam();
    o.scheduler = "";
    return o;
  }
  std::unique_ptr<base::ScratchDir> dir_;
};

TEST_P(LoopFsTest, SetUpAndTearDownLeaveNothing) {
  std::string why;
  std::unique_ptr<LoopFs> l = LoopFs::Create(options("loop"), &why);
  ASSERT_TRUE(l) << why;
  const std::string img = l->backing_file(), mnt = l->mount_point();
  EXPECT_EQ(loop_devices_backed_by(img), 1);
  EXPECT_TRUE(is_mounted(mnt));
  EXPECT_EQ(l->fs_type(), GetParam());
  EXPECT_EQ(l->mkfs_command().rfind("mkfs." + GetParam(), 0), 0u) << l->mkfs_command();
  EXPECT_NE(l->loop_settings().find("dio=1"), std::string::npos) << l->loop_settings();
  {
    std::ofstream f(mnt + "/probe");
    f << "written";
  }
  EXPECT_TRUE(fs::exists(mnt + "/probe"));
  l.reset();
  ExpectNothingLeft(img, mnt);
}

TEST_P(LoopFsTest, TornDownAfterAFailureAtEveryStep) {
  const int loops_before = loop_devices_backed_by(dir_->path());
  for (const char* step : {"losetup", "mkfs", "mount", "scheduler"}) {
    SCOPED_TRACE(step);
    LoopFsOptions o = options(std::string("loop-") + step);
    o.fail_after = step;
    std::string why;
    std::unique_ptr<LoopFs> l = LoopFs::Create(o, &why);
    EXPECT_FALSE(l);
    EXPECT_NE(why.find("simulated failure after"), std::string::npos) << why;
    EXPECT_EQ(why.find("clean-up"), std::string::npos) << why;
    ExpectNothingLeft(o.dir + "/loop.img", o.dir + "/mnt");
  }
  EXPECT_EQ(loop_devices_backed_by(dir_->path()), loops_before);
}

// A real failure part-way: the kernel refuses the mount options after
// losetup and mkfs succeeded.
TEST_P(LoopFsTest, RefusedMountLeavesNothing) {
  LoopFsOptions o = options("loop-bad-mount");
  o.mount_options = "no_such_option_fenec";
  std::string why;
  std::unique_ptr<LoopFs> l = LoopFs::Create(o, &why);
  EXPECT_FALSE(l);
  EXPECT_NE(why.find("mount -t " + GetParam()), std::string::npos) << why;
  EXPECT_EQ(why.find("clean-up"), std::string::npos) << why;
  ExpectNothingLeft(o.dir + "/loop.img", o.dir + "/mnt");
}

TEST_P(LoopFsTest, TeardownIsIdempotent) {
  std::string why;
  std::unique_ptr<LoopFs> l = LoopFs::Create(options("loop"), &why);
  ASSERT_TRUE(l) << why;
  const std::string img = l->backing_file(), mnt = l->mount_point();
  EXPECT_EQ(l->Teardown(), "");
  EXPECT_EQ(l->Teardown(), "");
  ExpectNothingLeft(img, mnt);
}

// udev, blkid or a monitor may hold a new loop device open; the kernel
// then defers the detach to the last close, and teardown waits for it.
TEST_P(LoopFsTest, TeardownWaitsForADetachTheKernelDefers) {
  std::string why;
  std::unique_ptr<LoopFs> l = LoopFs::Create(options("loop"), &why);
  ASSERT_TRUE(l) << why;
  const std::string img = l->backing_file(), mnt = l->mount_point();
  const int fd = ::open(("/dev/" + l->name()).c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0) << l->name() << ": " << std::strerror(errno);
  std::thread holder([fd] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::close(fd);
  });
  EXPECT_EQ(l->Teardown(), "");
  ExpectNothingLeft(img, mnt);  // before the holder's close: the wait is teardown's
  holder.join();
}

INSTANTIATE_TEST_SUITE_P(FileSystems, LoopFsTest, ::testing::Values("ext4", "xfs", "btrfs"),
                         [](const auto& info) { return info.param; });

// JR-3's set-up: ext4 with bfq on the loop device's queue.
TEST(LoopFs, SchedulerSetOnTheLoopDevice) {
  if (std::string why = fs_unavailable_reason("ext4"); !why.empty()) GTEST_SKIP() << why;
  base::ScratchDir dir("loopfs-bfq");
  ASSERT_TRUE(dir.ok()) << dir.error();
  LoopFsOptions o;
  o.dir = dir.path("loop");
  o.bytes = 256ull << 20;
  std::string why;
  std::unique_ptr<LoopFs> l = LoopFs::Create(o, &why);
  if (!l && why.find("does not offer") != std::string::npos) GTEST_SKIP() << why;
  ASSERT_TRUE(l) << why;
  EXPECT_EQ(l->scheduler(), "bfq");
  EXPECT_EQ(read_block_schedulers(l->name()).active, "bfq");
  const std::string img = l->backing_file(), mnt = l->mount_point();
  l.reset();
  ExpectNothingLeft(img, mnt);
}

TEST(LoopFs, UnknownFileSystemRefusedBeforeAnythingIsBuilt) {
  if (std::string why = loop_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  EXPECT_NE(fs_unavailable_reason("zfs-not-here").find("not a file system"), std::string::npos);
}

}  // namespace loopfs_test
}  // namespace fenec::kit
