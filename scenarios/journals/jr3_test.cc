// JR-3's machinery (the loop device's own tests: iobench/kit/loopfs_test.cc):
// the I/O priority helpers set what they say, a cell's counts add up, and the
// verdict is gated by the positive control. Counts and rules, never times.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <linux/ioprio.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "engine/src/base/testing.h"
#include "iobench/kit/block_device.h"
#include "iobench/kit/loopfs.h"
#include "engine/src/ring/global_ring.h"
#include "scenarios/journals/priority.h"
#include "scenarios/journals/priority_report.h"

namespace fenec::scenarios::journals {
namespace {

namespace fs = std::filesystem;

TEST(Priority, ThreadIoprioSetAndRead) {
  int got = -1;
  std::string err;
  std::thread t([&] {
    err = set_thread_ioprio(ioprio_of(BgPrio::kIdle));
    got = thread_ioprio();
  });
  t.join();
  ASSERT_EQ(err, "");
  EXPECT_EQ(IOPRIO_PRIO_CLASS(got), IOPRIO_CLASS_IDLE);
  EXPECT_EQ(ioprio_of(BgPrio::kEqual), 0);
  EXPECT_EQ(IOPRIO_PRIO_CLASS(ioprio_of(BgPrio::kBe7)), IOPRIO_CLASS_BE);
  EXPECT_EQ(IOPRIO_PRIO_DATA(ioprio_of(BgPrio::kBe7)), 7);
  // iobench cannot include the engine's ring; its be7 is held to the ring's default here.
  EXPECT_EQ(ioprio_of(BgPrio::kBe7), ring::BackgroundIoprio());
  BgPrio p;
  EXPECT_TRUE(parse_bg_prio("be7", &p));
  EXPECT_EQ(p, BgPrio::kBe7);
  EXPECT_FALSE(parse_bg_prio("be8", &p));
  Flusher f;
  EXPECT_TRUE(parse_flusher("ring", &f));
  EXPECT_EQ(f, Flusher::kRing);
  EXPECT_FALSE(parse_flusher("pwrite", &f));
}

// A short cell of each kind on the test dir's disk: the counts agree with
// each other (every commit timed, background bytes whole writes).
TEST(Priority, CellsCountWhatTheyDid) {
  base::ScratchDir dir("jr3-cells");
  ASSERT_TRUE(dir.ok()) << dir.error();
  PrioConfig cfg;
  cfg.dir = dir.path("d");
  cfg.seconds = 0.05;
  cfg.warmup = 0.01;
  cfg.chunk = 64 << 10;
  cfg.depth = 2;
  cfg.data_bytes = 4 << 20;
  if (std::string e = prepare_data_file(cfg); !e.empty()) GTEST_SKIP() << "no O_DIRECT here: " << e;
  for (Flusher f : {Flusher::kThreads, Flusher::kRing}) {
    for (BgPrio p : {BgPrio::kNone, BgPrio::kBe7}) {
      SCOPED_TRACE(std::string(bg_prio_name(p)) + (f == Flusher::kRing ? " ring" : " threads"));
      const JournalCell c = run_journal_cell(cfg, p, f);
      ASSERT_EQ(c.error, "");
      EXPECT_GT(c.commits, 0u);
      EXPECT_EQ(c.sync_ns.count(), c.commits);
      EXPECT_EQ(c.bg_bytes % cfg.chunk, 0u);
      if (p == BgPrio::kNone) {
        EXPECT_EQ(c.bg_bytes, 0u);
      }
      EXPECT_FALSE(fs::exists(cfg.dir + "/journal.log")) << "the cell removes its journal";
    }
  }
  const ControlCell c = run_control_cell(cfg, true);
  ASSERT_EQ(c.error, "");
  EXPECT_GT(c.normal_bytes, 0u);
  EXPECT_EQ(c.normal_bytes % cfg.chunk, 0u);
  EXPECT_EQ(c.low_bytes % cfg.chunk, 0u);
}

JournalCell Cell(uint64_t p99_us, int n = 200) {
  JournalCell c;
  for (int i = 0; i < n; ++i) c.sync_ns.Record(i < n * 98 / 100 ? 100'000 : p99_us * 1000);
  c.commits = static_cast<uint64_t>(n);
  c.seconds = 1;
  c.bg_bytes = 100 << 20;
  return c;
}

ControlCell Control(uint64_t normal, uint64_t low) {
  ControlCell c;
  c.seconds = 1;
  c.normal_bytes = normal;
  c.low_bytes = low;
  return c;
}

PrioDevice Device(uint64_t idle_low_bytes, uint64_t be7_p99_us) {
  PrioDevice d;
  d.label = "loop-bfq";
  d.scheduler = "bfq";
  for (uint64_t jitter : {0, 1, 2}) {
    d.control[false].push_back(Control(100 + jitter, 100));
    d.control[true].push_back(Control(190 + jitter, idle_low_bytes + jitter));
    d.cells[{"ring", "equal"}].push_back(Cell(10'000 + jitter * 500));
    d.cells[{"ring", "be7"}].push_back(Cell(be7_p99_us + jitter * 250));
  }
  return d;
}

TEST(PrioVerdict, GatedByTheControl) {
  // Control shows priority (normal writer's share ~95% vs 50%), be7 halves the p99: reproduced.
  kit::Verdict v = prio_verdict(Device(10, 5'000), "p.png");
  EXPECT_EQ(v.outcome, kit::Outcome::kReproduced) << v.reason;
  // The same p99 cut, but the IDLE writer kept its share: the set-up shows
  // no priority, so JR-3 is not judged on it.
  v = prio_verdict(Device(190, 5'000), "p.png");
  EXPECT_EQ(v.outcome, kit::Outcome::kNotApplicable) << v.reason;
  // Control fine, no cut: not reproduced.
  v = prio_verdict(Device(10, 10'000), "p.png");
  EXPECT_EQ(v.outcome, kit::Outcome::kNotReproduced) << v.reason;
  // A scheduler that weighs no BE level: be7 is measured but not judged.
  PrioDevice d = Device(10, 5'000);
  d.judge_be7 = false;
  EXPECT_TRUE(p99_checks(d).empty());
  EXPECT_EQ(prio_verdict(d, "p.png").outcome, kit::Outcome::kNotApplicable);
  d.skip_reason = "not root";
  EXPECT_EQ(prio_verdict(d, "p.png").outcome, kit::Outcome::kSkipped);
}

}  // namespace
}  // namespace fenec::scenarios::journals
