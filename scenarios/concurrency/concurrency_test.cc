// The bench's own logic, checked by counts (never by time): the SQLite arm
// round-trips rows, the sync-counting VFS counts one WAL sync per commit at
// synchronous=FULL and none at NORMAL, and the workloads report what they did.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <random>

#include "engine/src/base/testing.h"
#include "scenarios/concurrency/store.h"
#include "scenarios/concurrency/sync_vfs.h"
#include "scenarios/concurrency/workload.h"

namespace fenec::scenarios::concurrency {
namespace {

uint64_t test_seed() { return base::BinarySeed("concurrency_test"); }

using ScratchDir = base::ScratchTest;

ArmSpec sqlite_arm(bool full) {
  return {full ? "sqlite-full" : "sqlite-normal", ArmSpec::Engine::kSqlite, full, false};
}

TEST_F(ScratchDir, SqliteRoundTripsRowsById) {
  std::string err;
  auto store = open_sqlite(sqlite_arm(true), path("db"), &err);
  ASSERT_TRUE(store) << err;
  auto s = store->session(&err);
  ASSERT_TRUE(s) << err;
  std::mt19937_64 rng(test_seed());
  std::vector<Doc> written;
  for (int i = 0; i < 50; ++i) {
    written.push_back(make_doc(rng, i, static_cast<int64_t>(rng() % 1000) - 500));
    ASSERT_EQ(s->put(written.back()), "");
  }
  std::vector<Doc> batch;
  for (int i = 0; i < 30; ++i) batch.push_back(make_doc(rng, 100 + i, i));
  ASSERT_EQ(s->put_batch(batch), "");
  written.insert(written.end(), batch.begin(), batch.end());

  // A second connection sees every committed row, under the ids given in order.
  auto other = store->session(&err);
  ASSERT_TRUE(other) << err;
  int64_t sum = 0;
  for (size_t i = 0; i < written.size(); ++i) {
    Doc got;
    bool found = false;
    ASSERT_EQ(other->get(i + 1, &got, &found), "");
    ASSERT_TRUE(found) << "id " << i + 1;
    EXPECT_EQ(got.body, written[i].body);
    EXPECT_EQ(got.n, written[i].n);
    sum += written[i].n;
  }
  bool found = true;
  Doc none;
  ASSERT_EQ(other->get(written.size() + 1, &none, &found), "");
  EXPECT_FALSE(found);

  Aggregate a;
  ASSERT_EQ(other->aggregate(&a), "");
  EXPECT_EQ(a.count, written.size());
  EXPECT_EQ(a.sum, sum);
  EXPECT_EQ(store->counters().commits, 51u);  // 50 puts and one batch
}

// CC-1's SQLite side: at synchronous=FULL each commit syncs the WAL once,
// while it holds the write lock; nothing shares a sync.
TEST_F(ScratchDir, FullSyncsTheWalOncePerCommit) {
  std::string err;
  auto store = open_sqlite(sqlite_arm(true), path("db"), &err);
  ASSERT_TRUE(store) << err;
  auto s = store->session(&err);
  ASSERT_TRUE(s) << err;
  std::mt19937_64 rng(test_seed());
  // The first commit into a fresh WAL also syncs its header: start after it.
  ASSERT_EQ(s->put(make_doc(rng, 0, 0)), "");
  store->reset_counters();
  const SyncCounts before = sync_counts();
  constexpr int kCommits = 100;  // 100 frames: far below the 1000-page autocheckpoint
  for (int i = 1; i <= kCommits; ++i) ASSERT_EQ(s->put(make_doc(rng, i, i)), "");
  const SyncCounts d = sync_counts() - before;
  EXPECT_EQ(d.wal, static_cast<uint64_t>(kCommits));
  EXPECT_EQ(d.main_db, 0u);
  const Counters c = store->counters();
  EXPECT_EQ(c.commits, static_cast<uint64_t>(kCommits));
  EXPECT_EQ(c.fsyncs, static_cast<uint64_t>(kCommits));
}

TEST_F(ScratchDir, NormalDoesNotSyncCommits) {
  std::string err;
  auto store = open_sqlite(sqlite_arm(false), path("db"), &err);
  ASSERT_TRUE(store) << err;
  auto s = store->session(&err);
  ASSERT_TRUE(s) << err;
  std::mt19937_64 rng(test_seed());
  ASSERT_EQ(s->put(make_doc(rng, 0, 0)), "");
  store->reset_counters();
  for (int i = 1; i <= 100; ++i) ASSERT_EQ(s->put(make_doc(rng, i, i)), "");
  const Counters c = store->counters();
  EXPECT_EQ(c.commits, 100u);
  EXPECT_EQ(c.fsyncs, 0u);
}

// The workloads' bookkeeping: counted writes are rows in the table, the
// commits the store counted are the writes, and the cap ends the cell.
TEST_F(ScratchDir, WritersCountWhatTheyWrote) {
  std::string err;
  auto store = open_sqlite(sqlite_arm(false), path("db"), &err);
  ASSERT_TRUE(store) << err;
  Budget b;
  b.seconds = 30;  // the cap, not the clock, ends this cell
  b.max_ops = 400;
  const WritersResult r = run_writers(*store, 4, b, test_seed());
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.writes, 400u);
  EXPECT_EQ(r.write_ns.count(), 400u);
  EXPECT_EQ(r.counters.commits, 400u);
  auto s = store->session(&err);
  ASSERT_TRUE(s) << err;
  Aggregate a;
  ASSERT_EQ(s->aggregate(&a), "");
  EXPECT_EQ(a.count, 400u);
  // Writer w writes n = w, so the table's sum says who wrote how much.
  ASSERT_EQ(r.per_writer.size(), 4u);
  int64_t expected = 0;
  for (size_t w = 0; w < 4; ++w) expected += static_cast<int64_t>(w * r.per_writer[w]);
  EXPECT_EQ(a.sum, expected);
}

TEST_F(ScratchDir, PreloadAndLongReadAgreeOnTheSum) {
  std::string err;
  auto store = open_sqlite(sqlite_arm(false), path("db"), &err);
  ASSERT_TRUE(store) << err;
  int64_t sum = 0;
  ASSERT_EQ(preload(*store, 2500, test_seed(), &sum), "");
  EXPECT_EQ(sum, 2 * 499500 + 124750);  // n = i % 1000: two runs of 0..999, then 0..499
  const LongReadResult r = run_long_read(*store, 1, 2500, sum, 2, 0.01, test_seed());
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(r.answers_ok) << r.answer_problem;
  EXPECT_EQ(r.long_read_ms.size(), 2u);
  EXPECT_EQ(r.counters.commits, r.writes);
  EXPECT_EQ(r.write_ns.count(), r.writes);
}

TEST_F(ScratchDir, ReadersBesideBatchesFindEveryPreloadedRow) {
  std::string err;
  auto store = open_sqlite(sqlite_arm(false), path("db"), &err);
  ASSERT_TRUE(store) << err;
  int64_t sum = 0;
  ASSERT_EQ(preload(*store, 1000, test_seed(), &sum), "");
  Budget b;
  b.seconds = 30;
  b.max_ops = 3;  // three batches, then the readers stop with the cell
  const MixedResult r = run_readers_beside_batches(*store, 1, 100, 1000, b, test_seed());
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.commits_done, 3u);
  EXPECT_EQ(r.writes, 300u);
  EXPECT_EQ(r.counters.commits, 3u);
  EXPECT_EQ(r.read_ns.count(), r.reads);
}


// The fenecdb adapter: rows round-trip by id, and the counters the bench
// reports are the engine's: one writer alone commits once per write and
// syncs once per commit (nothing to share), with either commit mode.
TEST_F(ScratchDir, FenecdbRoundTripsAndCountsOneSyncPerLoneCommit) {
  for (bool naive : {false, true}) {
    const ArmSpec arm{naive ? "fenecdb-durable-naive" : "fenecdb-durable", ArmSpec::Engine::kFenecdb, true, naive};
    std::string err;
    auto store = open_fenecdb(arm, "writers", path(arm.name), &err);
    ASSERT_TRUE(store) << err;
    Budget b;
    b.seconds = 30;
    b.max_ops = 40;
    const WritersResult r = run_writers(*store, 1, b, test_seed());
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(r.writes, 40u);
    EXPECT_EQ(r.counters.commits, 40u) << arm.name;
    EXPECT_EQ(r.counters.fsyncs, 40u) << arm.name;
    auto s = store->session(&err);
    ASSERT_TRUE(s) << err;
    Doc d;
    bool found = false;
    ASSERT_EQ(s->get(40, &d, &found), "");
    EXPECT_TRUE(found);
    EXPECT_EQ(d.n, 0);  // writer 0 writes n = 0
    ASSERT_EQ(s->get(41, &d, &found), "");
    EXPECT_FALSE(found);
    EXPECT_EQ(store->close(), "");
  }
}

TEST_F(ScratchDir, FenecdbLongReadAnswersRightPinnedAndLocked) {
  for (bool naive : {false, true}) {
    const ArmSpec arm{naive ? "fenecdb-buffered-naive" : "fenecdb-buffered", ArmSpec::Engine::kFenecdb, false, naive};
    std::string err;
    auto store = open_fenecdb(arm, "long-read", path(arm.name), &err);
    ASSERT_TRUE(store) << err;
    int64_t sum = 0;
    ASSERT_EQ(preload(*store, 5000, test_seed(), &sum), "");
    const LongReadResult r = run_long_read(*store, 1, 5000, sum, 3, 0.005, test_seed());
    ASSERT_EQ(r.error, "");
    EXPECT_TRUE(r.answers_ok) << r.answer_problem;
    EXPECT_EQ(r.long_read_ms.size(), 3u);
    // Pinned reads pin (one per aggregate); reads under the lock never do.
    auto pins = r.counters.extra.find("pins");
    ASSERT_NE(pins, r.counters.extra.end());
    EXPECT_EQ(pins->second.first, naive ? 0.0 : 3.0) << arm.name;
    EXPECT_EQ(store->close(), "");
  }
}

}  // namespace
}  // namespace fenec::scenarios::concurrency
