// The probe finds out by trying: tmpfs (/dev/shm) is memory-backed with no
// device and O_DIRECT skipped; the work directory's disk filesystem has a
// device, an O_DIRECT alignment that a trial write confirms, and so on.
#include <gtest/gtest.h>

#include <fcntl.h>

#include <algorithm>

#include "iobench/kit/block_device.h"
#include "iobench/kit/results.h"
#include "iobench/src/files.h"
#include "iobench/src/probe.h"
#include "engine/src/base/testing.h"

namespace fenec::iobench {
namespace probe_test {

TEST(Probe, TmpfsIsMemoryBackedWithNoDevice) {
  if (access("/dev/shm", W_OK) != 0) GTEST_SKIP() << "/dev/shm not writable";
  ProbeResult p = probe("/dev/shm");
  ASSERT_TRUE(p.error.empty()) << p.error;
  if (p.fs_type != "tmpfs") GTEST_SKIP() << "/dev/shm is " << p.fs_type << " here";
  EXPECT_TRUE(p.memory_backed);
  EXPECT_EQ(p.device, "none");
  EXPECT_NE(p.direct_skip_reason().find("memory-backed"), std::string::npos);
  EXPECT_TRUE(p.fallocate);
  EXPECT_TRUE(p.hard_links);
  std::string table = probe_table(p);
  EXPECT_NE(table.find("tmpfs"), std::string::npos);
}

TEST(Probe, DiskFilesystemHasDeviceAndTriedAlignment) {
  base::ScratchDir dir("probe");
  ProbeResult p = probe(dir.path());
  ASSERT_TRUE(p.error.empty()) << p.error;
  if (p.memory_backed) GTEST_SKIP() << dir.path() << " is memory-backed; set FENEC_TEST_DIR to a disk";
  EXPECT_NE(p.fs_type, "unknown");
  EXPECT_NE(p.device, "none") << "a disk filesystem has a block device below it";
  EXPECT_GT(p.logical_block, 0u);
  EXPECT_TRUE(p.fallocate) << p.fallocate_note;
  EXPECT_EQ(dir.entries(), 0u) << "probe files are removed";
  // A whole disk lists its schedulers; the active one is among them.
  if (!p.schedulers.empty()) {
    EXPECT_NE(std::find(p.schedulers.begin(), p.schedulers.end(), p.scheduler), p.schedulers.end());
    EXPECT_NE(probe_table(p).find("offered:"), std::string::npos);
  }
  if (!p.o_direct) GTEST_SKIP() << "no O_DIRECT on " << p.fs_type << ": " << p.o_direct_note;
  EXPECT_TRUE(p.direct_skip_reason().empty());
  // What the probe claims must hold: a write at the alignment succeeds and
  // one at half of it (if above 1) fails with EINVAL.
  ASSERT_GE(p.direct_io_align, 1u);
  ASSERT_GE(p.direct_mem_align, 1u);
  std::string f = dir.path() + "/check";
  ScratchFile guard(f);
  bool fell = false;
  ASSERT_TRUE(create_preallocated(f, 1 << 16, &fell).ok());
  Fd fd;
  ASSERT_TRUE(open_file(f, O_WRONLY | O_DIRECT, &fd).ok());
  AlignedBuffer buf(1 << 16);
  buf.fill_random(1);
  size_t a = std::max<uint32_t>(p.direct_io_align, 512);
  EXPECT_EQ(pwrite(fd.get(), buf.data(), a, a), static_cast<ssize_t>(a));
  if (p.direct_io_align > 1) {
    EXPECT_EQ(pwrite(fd.get(), buf.data(), p.direct_io_align / 2, 0), -1);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_FALSE(p.direct_size_problem(p.direct_io_align / 2).empty());
  }
  kit::Results r("io", kit::Metadata{});
  add_probe_rows(r, p);
  bool found = false;
  for (const auto& row : r.rows())
    if (row.metric == "direct_io_align") found = row.value == p.direct_io_align;
  EXPECT_TRUE(found);
  EXPECT_NE(probe_json(p).find("\"o_direct\":true"), std::string::npos);
}

TEST(Probe, SchedulerLineParsed) {
  const kit::BlockSchedulers b = kit::parse_block_schedulers("none [mq-deadline] kyber bfq\n");
  EXPECT_EQ(b.active, "mq-deadline");
  EXPECT_EQ(b.joined(), "none,mq-deadline,kyber,bfq");
  EXPECT_TRUE(b.offers("bfq"));
  EXPECT_FALSE(b.offers("cfq"));
  EXPECT_EQ(kit::parse_block_schedulers("[none] \n").offered.size(), 1u);
  EXPECT_TRUE(kit::parse_block_schedulers("").offered.empty());
}

TEST(Probe, MissingDirectoryIsAnError) {
  ProbeResult p = probe("/nonexistent/fenec/dir");
  EXPECT_FALSE(p.error.empty());
}

}  // namespace probe_test
}  // namespace fenec::iobench
