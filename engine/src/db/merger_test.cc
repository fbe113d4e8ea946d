// The transaction merger (JR-2) and the slow-disk Env its bench runs on.
//
// What must hold whatever the completion: no put is acknowledged before its
// journal record is durable, so a power cut keeps every acknowledged put; a
// put's failure is its own; and the merger's counters say what it did.
// Counts and outcomes only, never times. Randomized tests log their seed and
// take FENEC_SEED.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <atomic>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "engine/src/db/db_impl.h"
#include "engine/src/db/merger.h"
#include "fenec/database.h"
#include "engine/src/io/fault_env.h"
#include "engine/src/io/slow_env.h"
#include "engine/src/db/crash_log.h"
#include "engine/src/base/testing.h"

namespace fenec {
namespace merger_test {

const char* Name(Completion c) {
  switch (c) {
    case Completion::kDirect: return "direct";
    case Completion::kMergerSync: return "merger_sync";
    case Completion::kMergerAsync: return "merger_async";
  }
  return "?";
}

MergerCounters CountersOf(Database* db) {
  const TxMerger* m = dynamic_cast<DbImpl*>(db)->merger();
  return m ? m->counters() : MergerCounters{};
}

class MergerModes : public ::testing::TestWithParam<Completion> {};

// --- power loss: every acknowledged put survives ----------------------------

// Four writers put until the simulated power cut, writer 3 in batches of 3
// (one merged operation each). Each writer goes on from its own last stored
// seq, so what survives must be a prefix of its seqs.
std::vector<Ack> WriteUntilCrash(FaultEnv* env, const std::string& path, Options o, uint64_t crash_after,
                                 MergerCounters* counters) {
  o.env = env;
  auto db = Database::Open(path, o);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  if (!db.ok()) return {};
  auto c = (*db)->FindCollection("log");
  if (!c.ok()) c = (*db)->CreateCollection("log", LogSchema());
  std::vector<Ack> acks = WritersUntilCrash(db->get(), *c, crash_after, [env] { env->Crash(); }, /*batched=*/3);
  *counters = CountersOf(db->get());
  db->reset();  // torn down with every write refused: nothing more reaches the files
  return acks;
}

TEST_P(MergerModes, PowerLossKeepsEveryAcknowledgedPut) {
  const uint64_t seed = base::TestSeed();
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 3; ++round) {
    base::ScratchDir dir;
    std::string path = dir.path() + "/db";
    FaultEnv env;
    // A slow fsync keeps commits in flight when the power goes: with
    // kMergerAsync the next batch is landing while the last one syncs.
    env.SetSyncDelay(static_cast<uint32_t>(100 + rng() % 400));
    Options o;
    o.completion = GetParam();
    o.write_buffer_bytes = 8192;  // buffers written (unsynced) to the data file often
    std::vector<Ack> all;
    for (int crash = 0; crash < 2; ++crash) {
      MergerCounters m;
      auto acks = WriteUntilCrash(&env, path, o, 40 + rng() % 200, &m);
      all.insert(all.end(), acks.begin(), acks.end());
      EXPECT_EQ(m.acks_before_durable, 0u) << "seed " << seed;
      CrashReport r = env.ApplyCrash(rng());
      o.env = &env;
      auto db = Database::Open(path, o);
      ASSERT_TRUE(db.ok()) << db.status().ToString() << " (seed " << seed << ")";
      auto c = (*db)->FindCollection("log");
      ASSERT_TRUE(c.ok());
      VerifyAfterRecovery(db->get(), *c, all, seed);
      if (HasFatalFailure()) return;
      fmt::print(stderr, "{} round {} crash {}: {} acks, {} merger batches ({} async), {} unsynced writes at the cut\n",
                 Name(GetParam()), round, crash, all.size(), m.batches, m.async_completions, r.writes);
    }
  }
}

// --- acknowledged only once durable, by count ----------------------------------

TEST_P(MergerModes, NoPutIsAcknowledgedBeforeItsLsnIsDurable) {
  const uint64_t seed = base::TestSeed();
  std::mt19937_64 rng(seed);
  base::ScratchDir dir;
  SlowSyncEnv env(Env::Default(), static_cast<uint32_t>(200 + rng() % 300));
  Options o;
  o.env = &env;
  o.completion = GetParam();
  auto db = Database::Open(dir.path(), o);
  ASSERT_TRUE(db.ok());
  auto c = (*db)->CreateCollection("log", LogSchema());  // LSN 1
  ASSERT_TRUE(c.ok());
  (*db)->ResetStats();
  constexpr int kWriters = 6, kEach = 60;
  std::atomic<uint64_t> acked{0};
  std::vector<std::thread> ts;
  for (int w = 0; w < kWriters; ++w) {
    ts.emplace_back([&, w] {
      for (int64_t seq = 0; seq < kEach; ++seq) {
        ASSERT_TRUE((*db)->Put(*c, Expected(w, seq)).ok());
        // n puts acknowledged (each after its own LSN was durable, if the
        // merger is right) hold n distinct LSNs above the collection's 1, so
        // the durable LSN is at least n + 1 by now.
        const uint64_t n = acked.fetch_add(1) + 1;
        ASSERT_GE((*db)->GetStats().durable_lsn, n + 1) << "seed " << seed;
      }
    });
  }
  for (auto& t : ts) t.join();
  const uint64_t puts = kWriters * kEach;
  Stats st = (*db)->GetStats();
  EXPECT_EQ(st.commits, puts);
  MergerCounters m = CountersOf(db->get());
  if (GetParam() == Completion::kDirect) {
    EXPECT_EQ(st.merger_ops, 0u);
    EXPECT_EQ(m.acks, 0u);
  } else {
    EXPECT_EQ(m.acks, puts);
    EXPECT_EQ(m.acks_checked, puts);  // every put landed, so every ack was checked
    EXPECT_EQ(m.acks_before_durable, 0u);
  }
  fmt::print(stderr, "{}: {} puts, {} journal fsyncs, {} merger batches\n", Name(GetParam()), puts, st.journal_fsyncs,
             st.merger_batches);
}

// --- fail-stop fails the whole batch, and every later put ---------------------

TEST_P(MergerModes, FailedJournalFsyncFailsTheBatchAndStops) {
  const uint64_t seed = base::TestSeed();
  std::mt19937_64 rng(seed);
  base::ScratchDir dir;
  FaultEnv env;
  Options o;
  o.env = &env;
  o.completion = GetParam();
  std::vector<Ack> acks;
  {
    auto db = Database::Open(dir.path(), o);
    ASSERT_TRUE(db.ok());
    auto c = (*db)->CreateCollection("log", LogSchema());
    ASSERT_TRUE(c.ok());
    env.FailNth(FaultOp::kSync, 5 + rng() % 20, EIO, "Journals");
    std::mutex mu;
    std::vector<std::thread> ts;
    for (int w = 0; w < 4; ++w) {
      ts.emplace_back([&, w] {
        for (int64_t seq = 0; seq < 5000; ++seq) {
          auto id = (*db)->Put(*c, Expected(w, seq));
          if (!id.ok()) {
            EXPECT_EQ(id.status().code(), StatusCode::kFailStopped) << id.status().ToString();
            return;
          }
          std::lock_guard lock(mu);
          acks.push_back({*id, w, seq});
        }
        ADD_FAILURE() << "the fault never fired (seed " << seed << ")";
      });
    }
    for (auto& t : ts) t.join();
    EXPECT_EQ(CountersOf(db->get()).acks_before_durable, 0u);
    EXPECT_EQ((*db)->Put(*c, Expected(9, 0)).status().code(), StatusCode::kFailStopped);
  }
  env.ClearFaults();
  auto db = Database::Open(dir.path(), o);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  VerifyAfterRecovery(db->get(), *(*db)->FindCollection("log"), acks, seed);
}

INSTANTIATE_TEST_SUITE_P(Completion, MergerModes,
                         ::testing::Values(Completion::kDirect, Completion::kMergerSync, Completion::kMergerAsync),
                         [](const auto& info) { return std::string(Name(info.param)); });

// --- counters -------------------------------------------------------------------

// One writer never finds more queued: kMergerSync waits for every commit
// itself (no async completion), kMergerAsync hands every batch over.
TEST(Merger, OneWriterBatchCountsPerCompletion) {
  for (Completion mode : {Completion::kMergerSync, Completion::kMergerAsync}) {
    base::ScratchDir dir;
    Options o;
    o.completion = mode;
    auto db = Database::Open(dir.path(), o);
    ASSERT_TRUE(db.ok());
    auto c = (*db)->CreateCollection("log", LogSchema());
    (*db)->ResetStats();
    for (int64_t i = 0; i < 40; ++i) ASSERT_TRUE((*db)->Put(*c, Expected(0, i)).ok());
    ASSERT_TRUE((*db)->PutBatch(*c, {Expected(1, 0), Expected(1, 1)}).ok());  // one operation
    Stats st = (*db)->GetStats();
    EXPECT_EQ(st.merger_ops, 41u) << Name(mode);
    EXPECT_EQ(st.merger_batches, 41u) << Name(mode);
    EXPECT_EQ(st.merger_async_completions, mode == Completion::kMergerAsync ? 41u : 0u) << Name(mode);
    EXPECT_EQ(st.merger_self_completions, mode == Completion::kMergerSync ? 41u : 0u) << Name(mode);
    // One writer waits for its own put: nothing can queue while the merger waits.
    EXPECT_EQ(st.merger_self_completions_with_work, 0u) << Name(mode);
    EXPECT_EQ(st.commits, 41u);
    EXPECT_EQ(*(*db)->Count(*c), 42u);
    (*db)->ResetStats();
    st = (*db)->GetStats();
    EXPECT_EQ(st.merger_ops + st.merger_batches + st.merger_async_completions + st.merger_self_completions, 0u);
  }
}

TEST(Merger, ManyWritersAreMergedAndEveryPutCounted) {
  for (Completion mode : {Completion::kMergerSync, Completion::kMergerAsync}) {
    base::ScratchDir dir;
    SlowSyncEnv env(Env::Default(), 1000);  // a 1 ms disk: puts queue up behind each commit
    Options o;
    o.env = &env;
    o.completion = mode;
    auto db = Database::Open(dir.path(), o);
    ASSERT_TRUE(db.ok());
    auto c = (*db)->CreateCollection("log", LogSchema());
    (*db)->ResetStats();
    constexpr int kWriters = 8, kEach = 40;
    std::vector<std::thread> ts;
    for (int w = 0; w < kWriters; ++w)
      ts.emplace_back([&, w] {
        for (int64_t i = 0; i < kEach; ++i) ASSERT_TRUE((*db)->Put(*c, Expected(w, i)).ok());
      });
    for (auto& t : ts) t.join();
    Stats st = (*db)->GetStats();
    EXPECT_EQ(st.merger_ops, static_cast<uint64_t>(kWriters * kEach)) << Name(mode);
    EXPECT_GT(st.merger_batches, 0u);
    EXPECT_LE(st.merger_batches, st.merger_ops);
    EXPECT_LE(st.merger_async_completions, st.merger_batches);
    // Every batch is completed once: handed over, or by the merger itself.
    EXPECT_EQ(st.merger_async_completions + st.merger_self_completions, st.merger_batches) << Name(mode);
    EXPECT_LE(st.merger_self_completions_with_work, st.merger_self_completions);
    if (mode == Completion::kMergerAsync) {
      EXPECT_EQ(st.merger_async_completions, st.merger_batches);
    }
    EXPECT_EQ(st.commits, st.merger_ops);
    EXPECT_EQ(*(*db)->Count(*c), st.merger_ops);
    fmt::print(stderr, "{}: {} ops in {} batches ({} async, {} by the merger, {} with work waiting), {} journal fsyncs\n",
               Name(mode), st.merger_ops, st.merger_batches, st.merger_async_completions, st.merger_self_completions,
               st.merger_self_completions_with_work, st.journal_fsyncs);
  }
}

// A @unique clash fails only the clashing put, not the batch it was merged
// into. kMergerSync waits for the first put's slow commit itself, so the next
// three queue behind it and are executed as one batch; the count of batches
// confirms it (on a machine too loaded to queue them in time, it tries again).
TEST(Merger, UniqueClashInAMergedBatchFailsOnlyThatPut) {
  Schema users{{Field::Text("email").Unique(), Field::Int("n")}};
  bool merged = false;
  for (int attempt = 0; attempt < 5 && !merged; ++attempt) {
    base::ScratchDir dir;
    SlowSyncEnv env(Env::Default(), 0);
    Options o;
    o.env = &env;
    o.completion = Completion::kMergerSync;
    auto db = Database::Open(dir.path(), o);
    ASSERT_TRUE(db.ok());
    auto c = (*db)->CreateCollection("users", users);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    (*db)->ResetStats();
    env.SetSyncDelay(200000);  // 200 ms: the first commit's fsync
    std::thread first([&] { EXPECT_TRUE((*db)->Put(*c, {Value("a@x"), Value(int64_t{0})}).ok()); });
    while ((*db)->GetStats().merger_batches == 0) std::this_thread::yield();
    Result<DocId> got[3] = {Status::Closed(), Status::Closed(), Status::Closed()};
    const char* emails[3] = {"b@x", "c@x", "b@x"};
    std::vector<std::thread> ts;
    for (int k = 0; k < 3; ++k)
      ts.emplace_back([&, k] { got[k] = (*db)->Put(*c, {Value(emails[k]), Value(int64_t{k + 1})}); });
    for (auto& t : ts) t.join();
    first.join();
    // Whatever the batching: one "b@x" won, the other clashed, "c@x" landed.
    EXPECT_TRUE(got[1].ok()) << got[1].status().ToString();
    EXPECT_NE(got[0].ok(), got[2].ok());
    const Result<DocId>& loser = got[0].ok() ? got[2] : got[0];
    EXPECT_TRUE(loser.status().IsConstraint()) << loser.status().ToString();
    Stats st = (*db)->GetStats();
    EXPECT_EQ(st.merger_ops, 4u);
    EXPECT_EQ(st.commits, 3u);  // the clash is no commit
    EXPECT_EQ(*(*db)->Count(*c), 3u);
    merged = st.merger_batches == 2;
    fmt::print(stderr, "attempt {}: 4 puts in {} batches\n", attempt, st.merger_batches);
    env.SetSyncDelay(0);
  }
  EXPECT_TRUE(merged) << "the three puts never shared a batch in 5 attempts";
}

// --- SlowSyncEnv ----------------------------------------------------------------

TEST(SlowSyncEnv, DelaysEachFileSyncOnceAndNothingElse) {
  base::ScratchDir dir;
  SlowSyncEnv env(Env::Default(), 50);
  const EnvCounters before = env.counters();
  std::unique_ptr<File> f;
  ASSERT_TRUE(env.Open(dir.path() + "/a", OpenMode::kCreate, &f).ok());
  std::vector<uint8_t> bytes(4096, 7);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(f->Write(static_cast<uint64_t>(i) * 4096, bytes).ok());
  EXPECT_EQ(env.delayed_syncs(), 0u);  // writes pass straight through
  for (int i = 0; i < 7; ++i) ASSERT_TRUE(f->Sync().ok());
  ASSERT_TRUE(env.SyncDir(dir.path()).ok());
  EXPECT_EQ(env.delayed_syncs(), 7u);
  EXPECT_EQ(env.delayed_us(), 7u * 50);
  const EnvCounters after = env.counters();  // the wrapped Env's: the syscalls really made
  EXPECT_EQ(after.syncs - before.syncs, 7u);
  EXPECT_EQ(after.writes - before.writes, 5u);
  env.SetSyncDelay(0);
  ASSERT_TRUE(f->Sync().ok());
  EXPECT_EQ(env.delayed_syncs(), 7u);  // no delay, no sleep counted
  std::vector<uint8_t> back(4096);
  size_t got = 0;
  ASSERT_TRUE(f->Read(4096, back, &got).ok());
  EXPECT_EQ(got, 4096u);
  EXPECT_EQ(back, bytes);
}

TEST(SlowSyncEnv, UnderADatabaseEveryFsyncIsDelayed) {
  base::ScratchDir dir;
  SlowSyncEnv env(Env::Default(), 100);
  Options o;
  o.env = &env;
  auto db = Database::Open(dir.path(), o);
  ASSERT_TRUE(db.ok());
  auto c = (*db)->CreateCollection("log", LogSchema());
  (*db)->ResetStats();
  const uint64_t delayed0 = env.delayed_syncs();
  for (int64_t i = 0; i < 30; ++i) ASSERT_TRUE((*db)->Put(*c, Expected(0, i)).ok());
  ASSERT_TRUE((*db)->Checkpoint().ok());
  Stats st = (*db)->GetStats();
  EXPECT_EQ(st.journal_fsyncs, 30u);  // one writer: one fsync a put
  EXPECT_GT(st.data_fsyncs, 0u);
  EXPECT_EQ(env.delayed_syncs() - delayed0, st.fsyncs);
}

}  // namespace merger_test
}  // namespace fenec
