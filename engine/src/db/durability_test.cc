// Never lose an acknowledged write: kill -9, power loss, EIO and ENOSPC.
//
// Every test here logs its seed and takes FENEC_SEED. Writers tag each
// document with (writer, seq) and write in seq order, so beyond "every
// acknowledged id is there with its exact value" a test can check that what
// survived is a prefix of each writer's commits: recovery never keeps a
// later commit and drops an earlier one.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <cerrno>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "fenec/database.h"
#include "engine/src/io/fault_env.h"
#include "engine/src/db/crash_log.h"
#include "engine/src/base/kill_nine.h"
#include "engine/src/base/testing.h"

namespace fenec {
namespace durability_test {

// --- kill -9 --------------------------------------------------------------

// The child: writers commit durable puts and report each acknowledged one
// through the pipe; a checkpointer runs beside them so kills land inside
// checkpoints too. It never returns: the parent kills it.
// vectors: the log holds an @hnsw vector too (VectorLogSchema).
[[noreturn]] void ChildWriter(const std::string& dir, int fd, int writers, int64_t first_seq, bool vectors = false,
                              const Options& options = {}) {
  auto db = Database::Open(dir, options);
  if (!db.ok()) _exit(3);
  auto c = (*db)->FindCollection("log");
  if (!c.ok()) c = (*db)->CreateCollection("log", vectors ? VectorLogSchema() : LogSchema());
  if (!c.ok()) _exit(4);
  const DocMaker make = vectors ? ExpectedWithVector : Expected;
  std::vector<std::thread> ts;
  for (int w = 0; w < writers; ++w) {
    ts.emplace_back([&, w] {
      for (int64_t seq = first_seq;; ++seq) {
        auto id = (*db)->Put(*c, make(w, seq));
        if (!id.ok()) _exit(5);
        base::ReportAck(fd, {static_cast<int64_t>(*id), w, seq});
      }
    });
  }
  std::thread([&] {
    while (true) {
      std::this_thread::sleep_for(std::chrono::milliseconds(40));
      if (!(*db)->Checkpoint().ok()) _exit(7);
    }
  }).detach();
  for (auto& t : ts) t.join();
  _exit(0);
}

TEST(Durability, KillNineLosesNoAcknowledgedWrite) {
  const uint64_t seed = base::TestSeed();
  std::mt19937_64 rng(seed);
  base::ScratchDir dir;
  std::string path = dir.path() + "/db";
  constexpr int kRounds = 5, kWriters = 4;
  std::vector<Ack> acks;
  std::map<int64_t, int64_t> next_seq;  // per writer, over all rounds
  for (int round = 0; round < kRounds; ++round) {
    int64_t first_seq = 0;
    for (int w = 0; w < kWriters; ++w) first_seq = std::max(first_seq, next_seq[w]);
    // Each round's writers start at the highest seq any writer reached, so
    // the per-writer prefix check spans rounds: seqs skipped by a killed
    // round are filled by nobody, so only the round's own range is checked.
    base::ChildRunOptions co;
    co.kill_after = 20 + rng() % 400;
    co.seed = rng();
    const base::ChildRun run =
        base::RunAckingChild(co, [&](int fd) { ChildWriter(path, fd, kWriters, first_seq); });
    ASSERT_TRUE(run.killed) << run.error << " (seed " << seed << ")";
    const uint64_t got = run.acks_at_kill;
    for (const base::WriteAck& a : run.acks) acks.push_back({static_cast<uint64_t>(a.id), a.writer, a.seq});

    auto db = Database::Open(path, Options{});
    ASSERT_TRUE(db.ok()) << db.status().ToString() << " (seed " << seed << ", round " << round << ")";
    auto c = (*db)->FindCollection("log");
    ASSERT_TRUE(c.ok());
    for (const Ack& a : acks) {
      auto doc = (*db)->Get(*c, a.id);
      ASSERT_TRUE(doc.ok()) << "round " << round << ": acknowledged id " << a.id << " lost (seed " << seed << ")";
      ASSERT_EQ(*doc, Expected(a.writer, a.seq)) << "round " << round << " id " << a.id << " (seed " << seed << ")";
    }
    ASSERT_TRUE((*db)->Check().ok());
    auto rows = (*db)->Scan(*c, {}, 0);
    for (const Row& r : *rows) next_seq[r.doc[0].int_value()] = std::max(next_seq[r.doc[0].int_value()], r.doc[1].int_value() + 1);
    fmt::print(stderr, "round {}: killed after {} acks, {} acks so far, {} rows stored, {} records replayed\n", round,
               got, acks.size(), rows->size(), (*db)->GetStats().recovered_records);
  }
}

// The @hnsw tests run on both places a field's full vectors live: anonymous
// memory and the branch's vectors file (rebuilt at every open).
class VectorDurability : public ::testing::TestWithParam<VectorStorage> {
 protected:
  static Options WithStorage(Options o) {
    o.hnsw.storage = GetParam();
    return o;
  }
  // Under kFile, the vectors file must have been made (the test ran on it).
  static void ExpectVectorFile(const std::string& db) {
    bool any = false;
    for (const auto& e : std::filesystem::recursive_directory_iterator(db))
      any = any || e.path().filename() == "vectors.fvec";
    EXPECT_EQ(any, GetParam() == VectorStorage::kFile);
  }
};
INSTANTIATE_TEST_SUITE_P(Storage, VectorDurability, ::testing::Values(VectorStorage::kMemory, VectorStorage::kFile),
                         [](const auto& info) { return info.param == VectorStorage::kFile ? "File" : "Memory"; });

// An @hnsw collection: after each kill every acknowledged document is there
// with its exact vector bytes, and a NEAR for its vector finds it. Kills
// land anywhere: in a graph's checkpoint, with vectors queued unlinked.
TEST_P(VectorDurability, KillNineLosesNoAcknowledgedVector) {
  const uint64_t seed = base::TestSeed();
  std::mt19937_64 rng(seed);
  base::ScratchDir dir;
  std::string path = dir.path() + "/db";
  constexpr int kWriters = 4;
  std::vector<Ack> acks;
  int64_t first_seq = 0;
  for (int round = 0; round < 3; ++round) {
    base::ChildRunOptions co;
    co.kill_after = 50 + rng() % 400;
    co.seed = rng();
    const base::ChildRun run =
        base::RunAckingChild(co, [&](int fd) { ChildWriter(path, fd, kWriters, first_seq, /*vectors=*/true, WithStorage({})); });
    ASSERT_TRUE(run.killed) << run.error << " (seed " << seed << ")";
    for (const base::WriteAck& a : run.acks) acks.push_back({static_cast<uint64_t>(a.id), a.writer, a.seq});

    auto db = Database::Open(path, WithStorage({}));
    ASSERT_TRUE(db.ok()) << db.status().ToString() << " (seed " << seed << ", round " << round << ")";
    auto c = (*db)->FindCollection("log");
    ASSERT_TRUE(c.ok());
    for (const Ack& a : acks) {
      auto doc = (*db)->Get(*c, a.id);
      ASSERT_TRUE(doc.ok()) << "round " << round << ": acknowledged id " << a.id << " lost (seed " << seed << ")";
      ASSERT_EQ(*doc, ExpectedWithVector(a.writer, a.seq)) << "round " << round << " id " << a.id;
    }
    ASSERT_TRUE((*db)->Check().ok()) << (*db)->Check().ToString();  // each graph holds exactly the rows' vectors
    const double found = NearFindsAcked(db->get(), *c, acks, 200, seed + round);
    Stats st = (*db)->GetStats();
    fmt::print(stderr, "round {}: {} acks, NEAR found {:.4f} of a sample; graph loaded {} / rebuilt {}, {} linked at open\n",
               round, acks.size(), found, st.branches_recovered, st.branches_rebuilt, st.vector_linked);
    EXPECT_GE(found, 0.99) << "(seed " << seed << ")";
    auto rows = (*db)->Scan(*c, {}, 0);
    for (const Row& r : *rows) first_seq = std::max(first_seq, r.doc[1].int_value() + 1);
  }
  ExpectVectorFile(path);
}

// --- power loss (FaultEnv) ------------------------------------------------

struct Crashed {
  std::vector<Ack> acks;
};

// Writers commit until the simulated power cut; returns what was acknowledged.
std::vector<Ack> WriteUntilCrash(FaultEnv* env, const std::string& path, Options o, uint64_t crash_after,
                                 bool checkpoints, std::mt19937_64* rng, bool vectors = false) {
  o.env = env;
  auto db = Database::Open(path, o);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  if (!db.ok()) return {};
  auto c = (*db)->FindCollection("log");
  if (!c.ok()) c = (*db)->CreateCollection("log", vectors ? VectorLogSchema() : LogSchema());
  const int ckpt_every = 30 + static_cast<int>((*rng)() % 60);
  std::vector<Ack> acks = WritersUntilCrash(
      db->get(), *c, crash_after, [env] { env->Crash(); }, /*batched=*/vectors ? 1 : -1,
      [&](int w, int64_t seq) {
        if (w == 0 && checkpoints && seq % ckpt_every == 0) (void)(*db)->Checkpoint();
      },
      vectors ? ExpectedWithVector : Expected);
  db->reset();  // torn down with every write refused: nothing more reaches the files
  return acks;
}

TEST(Durability, PowerLossKeepsEveryAcknowledgedCommit) {
  const uint64_t seed = base::TestSeed();
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 6; ++round) {
    base::ScratchDir dir;
    std::string path = dir.path() + "/db";
    FaultEnv env;
    std::vector<Ack> all;
    Options o;
    o.write_buffer_bytes = 8192;  // buffers written (unsynced) to the data file often
    // The last rounds with a commit window: a leader that waits holds the
    // journal; the cut may come while it waits, and must cost nothing acknowledged.
    o.commit_window_us = round >= 3 ? 300 : 0;
    for (int crash = 0; crash < 3; ++crash) {
      auto acks = WriteUntilCrash(&env, path, o, 30 + rng() % 150, /*checkpoints=*/round % 2 == 1, &rng);
      all.insert(all.end(), acks.begin(), acks.end());
      CrashReport r = env.ApplyCrash(rng());
      o.env = &env;
      auto db = Database::Open(path, o);
      ASSERT_TRUE(db.ok()) << db.status().ToString() << " (seed " << seed << ")";
      auto c = (*db)->FindCollection("log");
      ASSERT_TRUE(c.ok());
      VerifyAfterRecovery(db->get(), *c, all, seed);
      if (HasFatalFailure()) return;
      fmt::print(stderr, "round {} crash {}: {} acks, {} unsynced writes ({} kept, {} dropped, {} garbled sectors)\n",
                 round, crash, all.size(), r.writes, r.sectors_kept, r.sectors_dropped, r.sectors_garbled);
    }
  }
}

// The same with an @hnsw field: both journal modes, checkpoints (graphs
// serialized) among the writes in every other round.
TEST_P(VectorDurability, PowerLossKeepsEveryAcknowledgedVector) {
  const uint64_t seed = base::TestSeed();
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 4; ++round) {
    base::ScratchDir dir;
    std::string path = dir.path() + "/db";
    FaultEnv env;
    std::vector<Ack> all;
    Options o = WithStorage({});
    o.write_buffer_bytes = 8192;
    o.journals = round < 2 ? Journals::kShared : Journals::kSeparate;
    for (int crash = 0; crash < 2; ++crash) {
      auto acks = WriteUntilCrash(&env, path, o, 40 + rng() % 200, /*checkpoints=*/round % 2 == 1, &rng,
                                  /*vectors=*/true);
      all.insert(all.end(), acks.begin(), acks.end());
      CrashReport r = env.ApplyCrash(rng());
      o.env = &env;
      auto db = Database::Open(path, o);
      ASSERT_TRUE(db.ok()) << db.status().ToString() << " (seed " << seed << ")";
      auto c = (*db)->FindCollection("log");
      ASSERT_TRUE(c.ok());
      VerifyAfterRecovery(db->get(), *c, all, seed, ExpectedWithVector);  // and Check: graphs hold the rows' vectors
      if (HasFatalFailure()) return;
      const double found = NearFindsAcked(db->get(), *c, all, 200, seed + round * 2 + crash);
      fmt::print(stderr, "round {} crash {}: {} acks, NEAR found {:.4f} of a sample, {} unsynced writes, "
                 "graph loaded {} / rebuilt {}\n",
                 round, crash, all.size(), found, r.writes, (*db)->GetStats().branches_recovered,
                 (*db)->GetStats().branches_rebuilt);
      EXPECT_GE(found, 0.99) << "(seed " << seed << ")";
    }
    ExpectVectorFile(path);
  }
}

TEST(Durability, BufferedModeKeepsEverythingSynced) {
  const uint64_t seed = base::TestSeed();
  std::mt19937_64 rng(seed);
  base::ScratchDir dir;
  std::string path = dir.path() + "/db";
  FaultEnv env;
  Options o;
  o.env = &env;
  o.durability = Durability::kBuffered;
  o.sync_ms = 100000;  // only the explicit Sync makes writes durable here
  std::vector<Ack> synced;
  {
    auto db = Database::Open(path, o);
    ASSERT_TRUE(db.ok());
    auto c = (*db)->CreateCollection("log", LogSchema());
    int n = 50 + static_cast<int>(rng() % 200);
    for (int i = 0; i < n; ++i) synced.push_back({*(*db)->Put(*c, Expected(0, i)), 0, i});
    ASSERT_TRUE((*db)->Sync().ok());
    for (int i = n; i < n + 100; ++i) ASSERT_TRUE((*db)->Put(*c, Expected(0, i)).ok());
    env.Crash();
  }
  env.ApplyCrash(rng());
  auto db = Database::Open(path, o);
  ASSERT_TRUE(db.ok());
  VerifyAfterRecovery(db->get(), *(*db)->FindCollection("log"), synced, seed);
}

// --- EIO and ENOSPC: fail-stop ------------------------------------------------

void FailStopRound(FaultOp op, int err, const std::string& path_part, uint64_t nth) {
  base::ScratchDir dir;
  std::string path = dir.path() + "/db";
  FaultEnv env;
  Options o;
  o.env = &env;
  o.write_buffer_bytes = 4096;
  std::vector<Ack> acks;
  {
    auto db = Database::Open(path, o);
    ASSERT_TRUE(db.ok());
    auto c = (*db)->CreateCollection("log", LogSchema());
    ASSERT_TRUE(c.ok());
    env.FailNth(op, nth, err, path_part);
    Status failure;
    int64_t seq = 0;
    for (; seq < 10000; ++seq) {
      auto id = (*db)->Put(*c, Expected(0, seq));
      if (!id.ok()) {
        failure = id.status();
        break;
      }
      acks.push_back({*id, 0, seq});
    }
    ASSERT_FALSE(failure.ok()) << "the fault never fired";
    EXPECT_EQ(failure.code(), StatusCode::kFailStopped) << failure.ToString();
    EXPECT_EQ(failure.err(), err) << failure.ToString();
    EXPECT_TRUE((*db)->GetStats().fail_stopped);
    const uint64_t syncs = env.counters().syncs;
    // Refused from now on, without touching the disk: no fsync retried.
    for (int i = 0; i < 5; ++i) EXPECT_EQ((*db)->Put(*c, Expected(0, seq + 1 + i)).status().code(), StatusCode::kFailStopped);
    EXPECT_EQ((*db)->Checkpoint().code(), StatusCode::kFailStopped);
    EXPECT_EQ(env.counters().syncs, syncs);
    // Reads still answer.
    if (!acks.empty()) {
      EXPECT_TRUE((*db)->Get(*c, acks.back().id).ok());
    }
    EXPECT_FALSE((*db)->Close().ok());
  }
  env.ClearFaults();
  auto db = Database::Open(path, o);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  VerifyAfterRecovery(db->get(), *(*db)->FindCollection("log"), acks, 0);
  EXPECT_TRUE((*db)->Put(*(*db)->FindCollection("log"), Expected(1, 0)).ok());
}

TEST(Durability, FailedJournalFsyncFailStops) { FailStopRound(FaultOp::kSync, EIO, "Journals", 25); }
TEST(Durability, JournalNoSpaceFailStops) { FailStopRound(FaultOp::kWrite, ENOSPC, "Journals", 40); }
TEST(Durability, DataFileNoSpaceFailStops) { FailStopRound(FaultOp::kWrite, ENOSPC, "data.fdb", 3); }

}  // namespace durability_test
}  // namespace fenec
