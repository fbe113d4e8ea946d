// RunAckingChild: the kill comes after the acks asked for, every ack written
// before the kill is read, a clean run is read to its end, and a child that
// exits early or hangs is an error, never a silent pass.
#include "engine/src/base/kill_nine.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

namespace fenec::base {
namespace {

[[noreturn]] void AckForever(int fd) {
  for (int64_t seq = 0;; ++seq) ReportAck(fd, {seq + 1, 0, seq});
}

TEST(KillNine, KillsAfterTheAcksAskedAndReadsEveryAckWritten) {
  ChildRunOptions o;
  o.kill_after = 50;
  o.seed = 7;
  const ChildRun r = RunAckingChild(o, AckForever);
  EXPECT_EQ(r.error, "");
  EXPECT_TRUE(r.killed);
  EXPECT_GE(r.acks_at_kill, 50u);
  ASSERT_GE(r.acks.size(), r.acks_at_kill);
  for (size_t i = 0; i < r.acks.size(); ++i) {  // whole, in order, none lost or torn
    EXPECT_EQ(r.acks[i].seq, static_cast<int64_t>(i));
    EXPECT_EQ(r.acks[i].id, static_cast<int64_t>(i) + 1);
  }
}

TEST(KillNine, ACleanRunIsReadToItsEnd) {
  const ChildRun r = RunAckingChild({}, [](int fd) {
    for (int64_t i = 0; i < 10; ++i) ReportAck(fd, {i, 1, i});
    _exit(0);
  });
  EXPECT_EQ(r.error, "");
  EXPECT_FALSE(r.killed);
  EXPECT_EQ(r.acks.size(), 10u);
}

TEST(KillNine, AnEarlyExitOrAHangIsAnError) {
  ChildRunOptions kill;
  kill.kill_after = 100;
  const ChildRun early = RunAckingChild(kill, [](int fd) {
    ReportAck(fd, {1, 0, 0});
    _exit(3);
  });
  EXPECT_FALSE(early.killed);
  EXPECT_EQ(early.acks.size(), 1u);
  EXPECT_NE(early.error.find("exited early with status 3"), std::string::npos) << early.error;

  ChildRunOptions bounded;
  bounded.seconds = 0.2;
  const ChildRun hung = RunAckingChild(bounded, [](int) {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  });
  EXPECT_TRUE(hung.killed);
  EXPECT_NE(hung.error.find("did not finish"), std::string::npos) << hung.error;
}

}  // namespace
}  // namespace fenec::base
