// diskcheck on loopback: a writer process is killed (SIGKILL) mid-run and
// verify finds no acknowledged page lost on this real filesystem; then a page
// forged back to an older value, and one zeroed, are reported as lost, which
// proves the check can fail.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "iobench/src/diskcheck.h"
#include "iobench/src/files.h"
#include "engine/src/base/testing.h"

namespace fenec::iobench {
namespace diskcheck_test {

TEST(Diskcheck, KilledWriterLosesNoAcknowledgedPageAndForgedLossIsCaught) {
  base::ScratchDir dir("diskcheck");
  uint64_t seed = base::TestSeed();
  DiskcheckServer server;
  ASSERT_EQ(server.listen("127.0.0.1", 0, dir.path() + "/server.log"), "");
  ASSERT_NE(server.port(), 0);

  // Fork before any thread exists, so the child is a clean copy.
  DiskcheckWriteOptions w;
  w.port = server.port();
  w.dir = dir.path();
  w.id = "t";
  w.pages = 64;
  w.page_size = 4096;
  w.seconds = 50;
  w.seed = seed;
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    DiskcheckWriteResult r = run_diskcheck_writer(w);
    _exit(r.error.empty() ? 0 : 3);
  }
  std::thread serving([&] { server.serve(); });
  auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (server.acks() < 300 && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the writer ended on its own (status " << status << ")";
  ASSERT_GE(server.acks(), 300u) << "the writer did not get going";

  PageMap expected = server.pages("t");
  EXPECT_GT(expected.size(), 32u);
  DiskcheckVerifyResult r = run_diskcheck_verify("127.0.0.1", server.port(), dir.path(), "t", 4096);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.checked, expected.size());
  EXPECT_EQ(r.lost, 0u) << (r.examples.empty() ? "" : r.examples[0]);
  EXPECT_EQ(r.torn, 0u);
  EXPECT_EQ(r.ok + r.in_flight, r.checked);

  // Forge a loss: one acknowledged page goes back to an older value, another to zeros.
  std::vector<uint64_t> acked;
  for (const auto& [p, s] : expected)
    if (s.acked > 1 && s.pending.empty()) acked.push_back(p);
  ASSERT_GE(acked.size(), 2u);
  std::string path = diskcheck_file(dir.path(), "t");
  Fd fd;
  ASSERT_TRUE(open_file(path, O_WRONLY, &fd).ok());
  std::vector<uint8_t> page(4096, 0);
  make_page(acked[0], expected[acked[0]].acked - 1, page.data(), 4096);
  uint64_t calls = 0;
  ASSERT_TRUE(pwrite_full(fd.get(), page.data(), 4096, acked[0] * 4096, path, &calls).ok());
  std::fill(page.begin(), page.end(), 0);
  ASSERT_TRUE(pwrite_full(fd.get(), page.data(), 4096, acked[1] * 4096, path, &calls).ok());
  r = run_diskcheck_verify("127.0.0.1", server.port(), dir.path(), "t", 4096);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.lost, 2u);

  // The server's log lets a restarted server verify the same way.
  server.stop();
  serving.join();
  DiskcheckServer again;
  ASSERT_EQ(again.listen("127.0.0.1", 0, dir.path() + "/server.log"), "");
  EXPECT_EQ(again.pages("t").size(), expected.size());
  EXPECT_EQ(verify_pages(path, 4096, again.pages("t")).lost, 2u);
}

TEST(Diskcheck, TornPageIsReported) {
  base::ScratchDir dir("diskcheck-torn");
  std::string path = dir.path() + "/diskcheck-x.dat";
  bool fell = false;
  ASSERT_TRUE(create_preallocated(path, 4 * 4096, &fell).ok());
  std::vector<uint8_t> page(4096);
  make_page(1, 7, page.data(), 4096);
  page[3000] ^= 0xff;  // half old, half new is what a torn write leaves
  Fd fd;
  ASSERT_TRUE(open_file(path, O_WRONLY, &fd).ok());
  uint64_t calls = 0;
  ASSERT_TRUE(pwrite_full(fd.get(), page.data(), 4096, 4096, path, &calls).ok());
  PageMap expected;
  expected[1].acked = 7;
  DiskcheckVerifyResult r = verify_pages(path, 4096, expected);
  EXPECT_EQ(r.torn, 1u);
  EXPECT_EQ(r.lost, 1u);
  expected[1].pending.insert(8);  // a write was in flight: torn, but nothing acknowledged lost
  r = verify_pages(path, 4096, expected);
  EXPECT_EQ(r.torn, 1u);
  EXPECT_EQ(r.lost, 0u);
}

}  // namespace diskcheck_test
}  // namespace fenec::iobench
