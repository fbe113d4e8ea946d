#include "engine/src/journal/group_commit.h"

#include <gtest/gtest.h>
#include <fmt/format.h>

#include <cerrno>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/src/io/fault_env.h"
#include "engine/src/journal/reader.h"
#include "engine/src/base/testing.h"

namespace fenec::journal {
namespace group_commit_test {

constexpr uint64_t kStorage = 42;

struct Rig {
  base::ScratchDir dir;
  FaultEnv env;
  FailStop fail;
  JournalWriter writer{&env, dir.path(), 64 << 20};
  GroupCommit gc;
  std::mutex write_lock;  // stands in for the database's exclusive lock

  explicit Rig(CommitPolicy policy) : gc(&writer, kStorage, 0, policy, &fail) {}

  // One commit as the database makes it: append under the lock, wait after it.
  Status Commit(const std::string& body, CommitterState* state = nullptr) {
    uint64_t lsn;
    Status under;
    {
      std::lock_guard lock(write_lock);
      lsn = gc.Append(std::span(reinterpret_cast<const uint8_t*>(body.data()), body.size()));
      if (policy() == CommitPolicy::kDurableNaive || policy() == CommitPolicy::kBufferedNaive)
        under = gc.CommitUnderLock();
    }
    if (!under.ok()) return under;
    return gc.AwaitDurable(lsn, state);
  }
  CommitPolicy policy() const { return policy_; }
  CommitPolicy policy_ = CommitPolicy::kDurableGroup;

  uint64_t RecordsOnDisk() {
    ReplayResult r;
    EXPECT_TRUE(ReplayJournals(&env, dir.path(), kStorage, 0, [](uint64_t, std::span<const uint8_t>) {
                  return Status::OK();
                }, &r).ok());
    return r.records;
  }
};

std::unique_ptr<Rig> MakeRig(CommitPolicy policy) {
  auto rig = std::make_unique<Rig>(policy);
  rig->policy_ = policy;
  return rig;
}

void RunCommitters(Rig* rig, int threads, int per_thread, std::atomic<int>* failures) {
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i)
        if (!rig->Commit("t" + std::to_string(t) + "-" + std::to_string(i)).ok()) ++*failures;
    });
  for (auto& t : ts) t.join();
}

TEST(GroupCommit, SixteenCommittersShareFsyncs) {
  auto rig = MakeRig(CommitPolicy::kDurableGroup);
  std::atomic<int> failures{0};
  constexpr int kThreads = 16, kEach = 40;
  RunCommitters(rig.get(), kThreads, kEach, &failures);
  EXPECT_EQ(failures.load(), 0);
  Stats c = rig->gc.counters();
  const uint64_t commits = kThreads * kEach;
  EXPECT_EQ(rig->gc.durable_lsn(), commits);
  EXPECT_EQ(rig->env.counters().syncs, c.journal_fsyncs);
  EXPECT_LT(c.journal_fsyncs, commits) << "no fsync was shared";
  EXPECT_EQ(c.journal_fsyncs, c.group_leads);  // each lead: one write, one fsync
  EXPECT_EQ(c.journal_writes, c.group_leads);
  EXPECT_EQ(c.group_leads + c.commits_already_durable + c.commits_covered_while_waiting, commits);
  EXPECT_EQ(rig->RecordsOnDisk(), commits);
  fmt::print(stderr, "16 committers: {} commits, {} fsyncs, {} already durable, {} covered while waiting\n",
             commits, c.journal_fsyncs, c.commits_already_durable, c.commits_covered_while_waiting);
}

TEST(GroupCommit, SingleCommitterOneFsyncEach) {
  auto rig = MakeRig(CommitPolicy::kDurableGroup);
  CommitterState state;
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(rig->Commit("x", &state).ok());
    EXPECT_EQ(state, CommitterState::kDurable);
  }
  EXPECT_EQ(rig->gc.counters().journal_fsyncs, 10u);
  EXPECT_EQ(rig->gc.counters().journal_write_commits_max, 1u);
}

// The commit window: counts and order, never times. A round whose leader
// finds fewer commits pending than were in flight at once since the last
// round began waits for them (at most the window), and ends its wait as
// soon as they are queued.
Status AppendOnly(Rig* rig, const std::string& body, uint64_t* lsn) {
  std::lock_guard lock(rig->write_lock);
  *lsn = rig->gc.Append(std::span(reinterpret_cast<const uint8_t*>(body.data()), body.size()));
  return Status::OK();
}

TEST(GroupCommit, WindowOffOrOneWriterNeverWaits) {
  for (uint32_t window : {0u, 1000000u}) {
    auto rig = MakeRig(CommitPolicy::kDurableGroup);
    rig->gc.SetCommitWindow(window);
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(rig->Commit("x").ok());
    Stats c = rig->gc.counters();
    EXPECT_EQ(c.commit_window_waits, 0u) << window;  // one in flight at a time: the peak is 1
    EXPECT_EQ(c.journal_fsyncs, 10u);
    EXPECT_EQ(rig->RecordsOnDisk(), 10u);
  }
}

TEST(GroupCommit, WindowWaitsForTheWritersTheLastRoundReleased) {
  auto rig = MakeRig(CommitPolicy::kDurableGroup);
  rig->gc.SetCommitWindow(1000000);  // the count ends it, long before the bound
  // Two commits in flight at once, made durable by one round: the peak is 2.
  uint64_t a = 0, b = 0;
  ASSERT_TRUE(AppendOnly(rig.get(), "a1", &a).ok());
  ASSERT_TRUE(AppendOnly(rig.get(), "b1", &b).ok());
  ASSERT_TRUE(rig->gc.AwaitDurable(b).ok());
  ASSERT_TRUE(rig->gc.AwaitDurable(a).ok());
  EXPECT_EQ(rig->gc.counters().journal_fsyncs, 1u);
  // Writer a commits again alone and leads; whether writer b's record lands
  // before a's round starts or while a waits, the one round carries both.
  std::thread ta([&] { EXPECT_TRUE(rig->Commit("a2").ok()); });
  ASSERT_TRUE(rig->Commit("b2").ok());
  ta.join();
  Stats c = rig->gc.counters();
  EXPECT_EQ(c.journal_fsyncs, 2u);
  EXPECT_EQ(c.journal_write_commits_max, 2u);
  EXPECT_EQ(c.commit_window_waits, c.commit_window_filled);  // a wait, if any, ended by the count
  EXPECT_EQ(rig->gc.durable_lsn(), 4u);
  EXPECT_EQ(rig->RecordsOnDisk(), 4u);
}

TEST(GroupCommit, WindowForgetsAWriterThatStoppedAfterOneWait) {
  auto rig = MakeRig(CommitPolicy::kDurableGroup);
  rig->gc.SetCommitWindow(2000);
  uint64_t a = 0, b = 0;
  ASSERT_TRUE(AppendOnly(rig.get(), "a1", &a).ok());
  ASSERT_TRUE(AppendOnly(rig.get(), "b1", &b).ok());
  ASSERT_TRUE(rig->gc.AwaitDurable(b).ok());
  ASSERT_TRUE(rig->gc.AwaitDurable(a).ok());
  // b has stopped: a's next round waits out the window (bounded), and the
  // one after it no longer waits at all.
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(rig->Commit("a").ok());
  Stats c = rig->gc.counters();
  EXPECT_EQ(c.commit_window_waits, 1u);
  EXPECT_EQ(c.commit_window_filled, 0u);
  EXPECT_EQ(c.journal_fsyncs, 6u);
  EXPECT_EQ(rig->RecordsOnDisk(), 7u);
}

TEST(GroupCommit, WindowKeepsEveryCommitAndItsOrder) {
  auto rig = MakeRig(CommitPolicy::kDurableGroup);
  rig->gc.SetCommitWindow(20000);
  std::atomic<int> failures{0};
  constexpr int kThreads = 16, kEach = 40;
  RunCommitters(rig.get(), kThreads, kEach, &failures);
  EXPECT_EQ(failures.load(), 0);
  Stats c = rig->gc.counters();
  const uint64_t commits = kThreads * kEach;
  EXPECT_EQ(rig->gc.durable_lsn(), commits);
  EXPECT_EQ(c.group_leads + c.commits_already_durable + c.commits_covered_while_waiting, commits);
  EXPECT_LE(c.commit_window_filled, c.commit_window_waits);
  EXPECT_LE(c.commit_window_waits, c.group_leads);
  std::vector<uint64_t> lsns;
  ReplayResult r;
  ASSERT_TRUE(ReplayJournals(&rig->env, rig->dir.path(), kStorage, 0, [&](uint64_t lsn, std::span<const uint8_t>) {
                lsns.push_back(lsn);
                return Status::OK();
              }, &r).ok());
  ASSERT_EQ(lsns.size(), commits);
  for (size_t i = 0; i < lsns.size(); ++i) EXPECT_EQ(lsns[i], i + 1);
  fmt::print(stderr, "16 committers, window: {} rounds ({:.1f} commits a round), {} waited, {} ended by the count\n",
             c.group_leads, static_cast<double>(commits) / static_cast<double>(c.journal_fsyncs),
             c.commit_window_waits, c.commit_window_filled);
}

TEST(GroupCommit, NaiveArmFsyncsEveryCommitUnderTheLock) {
  auto rig = MakeRig(CommitPolicy::kDurableNaive);
  std::atomic<int> failures{0};
  RunCommitters(rig.get(), 8, 15, &failures);
  EXPECT_EQ(failures.load(), 0);
  Stats c = rig->gc.counters();
  EXPECT_EQ(c.journal_fsyncs, 120u);
  EXPECT_EQ(c.journal_writes, 120u);
  EXPECT_EQ(rig->RecordsOnDisk(), 120u);
}

TEST(GroupCommit, FailedFsyncStopsEveryLaterCommitAndIsNotRetried) {
  auto rig = MakeRig(CommitPolicy::kDurableGroup);
  rig->env.FailNth(FaultOp::kSync, 3, EIO);
  ASSERT_TRUE(rig->Commit("a").ok());
  ASSERT_TRUE(rig->Commit("b").ok());
  Status s = rig->Commit("c");
  EXPECT_EQ(s.code(), StatusCode::kFailStopped);
  EXPECT_EQ(s.err(), EIO);
  uint64_t syncs = rig->env.counters().syncs;
  std::atomic<int> failures{0};
  RunCommitters(rig.get(), 4, 5, &failures);
  EXPECT_EQ(failures.load(), 20);
  EXPECT_EQ(rig->env.counters().syncs, syncs) << "an fsync was retried after a failure";
  EXPECT_EQ(rig->gc.durable_lsn(), 2u);
  EXPECT_FALSE(rig->gc.SyncAll().ok());
}

TEST(GroupCommit, NoSpaceOnWriteFailStops) {
  auto rig = MakeRig(CommitPolicy::kDurableGroup);
  ASSERT_TRUE(rig->Commit("a").ok());
  rig->env.FailNth(FaultOp::kWrite, 1, ENOSPC);
  Status s = rig->Commit("b");
  EXPECT_EQ(s.code(), StatusCode::kFailStopped);
  EXPECT_EQ(s.err(), ENOSPC);
  EXPECT_EQ(rig->Commit("c").code(), StatusCode::kFailStopped);
}

TEST(GroupCommit, BufferedReturnsBeforeSyncAndSyncAllCatchesUp) {
  auto rig = MakeRig(CommitPolicy::kBufferedGroup);
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(rig->Commit("row").ok());
  EXPECT_EQ(rig->gc.counters().journal_fsyncs, 0u);
  EXPECT_EQ(rig->gc.durable_lsn(), 0u);
  ASSERT_TRUE(rig->gc.SyncAll().ok());
  EXPECT_EQ(rig->gc.durable_lsn(), 100u);
  EXPECT_EQ(rig->gc.counters().journal_fsyncs, 1u);
  EXPECT_EQ(rig->gc.counters().journal_writes, 1u);
}

TEST(GroupCommit, BufferedWritesEachMegabyteWithoutFsync) {
  auto rig = MakeRig(CommitPolicy::kBufferedGroup);
  std::string body(4000, 'v');
  for (int i = 0; i < 600; ++i) ASSERT_TRUE(rig->Commit(body).ok());  // ~2.4 MB
  Stats c = rig->gc.counters();
  EXPECT_EQ(c.journal_writes, 2u);
  EXPECT_EQ(c.journal_fsyncs, 0u);
  EXPECT_GT(c.journal_write_commits_max, 200u) << "a megabyte of 4 KB records is one write";
}

TEST(GroupCommit, PeriodicSyncMakesBufferedWritesDurable) {
  auto rig = MakeRig(CommitPolicy::kBufferedGroup);
  std::atomic<int> after{0};
  rig->gc.StartPeriodicSync(5, [&] { ++after; });
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(rig->Commit("row").ok());
  // Bounded wait for the background thread; the assertion is on the LSN, not on the time taken.
  for (int i = 0; i < 2000 && rig->gc.durable_lsn() < 50; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  rig->gc.StopPeriodicSync();
  EXPECT_EQ(rig->gc.durable_lsn(), 50u);
  EXPECT_GE(rig->gc.counters().periodic_syncs, 1u);
  EXPECT_GE(after.load(), 1);
}

TEST(GroupCommit, BufferedNaiveWritesEachRecordUnderTheLock) {
  auto rig = MakeRig(CommitPolicy::kBufferedNaive);
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(rig->Commit("row").ok());
  EXPECT_EQ(rig->gc.counters().journal_writes, 30u);
  EXPECT_EQ(rig->gc.counters().journal_fsyncs, 0u);
}

}  // namespace group_commit_test
}  // namespace fenec::journal
