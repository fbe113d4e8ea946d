// The bench's own logic, checked by counts (never by time): the SQLite arm
// round-trips rows, the sync-counting VFS counts one WAL sync per commit at
// synchronous=FULL and none at NORMAL, the workloads report what they did,
// and the verdicts of CC-1..CC-5 follow from synthetic figures as their
// checks say (cleared, missed, straddling the line, categorical).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <atomic>
#include <chrono>
#include <thread>

#include "engine/src/base/testing.h"
#include "scenarios/concurrency/report.h"
#include "scenarios/engines/store.h"
#include "scenarios/engines/store_test_util.h"
#include "scenarios/engines/sync_vfs.h"
#include "scenarios/engines/workload.h"

namespace fenec::scenarios::concurrency {
using namespace engines;
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
  RoundTrip(*store, test_seed());
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

// Each store starts as a live database: its -wal file already grown to the
// checkpoint size and restarted, so commits overwrite it from its start
// (no new size to sync) instead of growing a new file.
TEST_F(ScratchDir, SqliteStoreStartsWithItsWalGrownAndReused) {
  std::string err;
  auto store = open_sqlite(sqlite_arm(true), path("db"), &err);
  ASSERT_TRUE(store) << err;
  const std::string wal = path("db") + "/bench.sqlite-wal";
  const uint64_t grown = std::filesystem::file_size(wal);
  EXPECT_GE(grown, 1000u * 4096u);  // wal_autocheckpoint pages of 4 KiB
  auto s = store->session(&err);
  ASSERT_TRUE(s) << err;
  std::mt19937_64 rng(test_seed());
  for (int i = 0; i < 50; ++i) ASSERT_EQ(s->put(make_doc(rng, i, i)), "");
  EXPECT_EQ(std::filesystem::file_size(wal), grown);
  const Counters c = store->counters();
  EXPECT_EQ(c.extra.at("wal_bytes").first, static_cast<double>(grown));
  EXPECT_EQ(c.extra.at("db_syncs").first, 0.0);  // the warm-up's checkpoint is not the cell's
  s.reset();
  EXPECT_EQ(store->close(), "");
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

// A store whose writer 0 is still inside its first put when the budget ends
// (a SQLite writer asleep in its busy handler): the rate counts only what
// was acknowledged by the deadline, over the time to it.
class SlowFirstPutStore : public Store {
  class S : public Session {
   public:
    S(SlowFirstPutStore* st, bool slow) : st_(st), slow_(slow) {}
    std::string put(const Doc&) override {
      if (slow_ && !slept_) {
        slept_ = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
      }
      ++st_->commits;
      return "";
    }
    std::string put_batch(const std::vector<Doc>&) override { return "unused"; }
    std::string get(uint64_t, Doc*, bool*) override { return "unused"; }
    std::string aggregate(Aggregate*) override { return "unused"; }

   private:
    SlowFirstPutStore* st_;
    bool slow_, slept_ = false;
  };

 public:
  std::unique_ptr<Session> session(std::string*) override { return std::make_unique<S>(this, sessions++ == 0); }
  void reset_counters() override { commits = 0; }
  Counters counters() const override { return Counters{commits.load(), 0, {}}; }
  std::string close() override { return ""; }
  std::atomic<uint64_t> commits{0};
  int sessions = 0;
};

TEST(Workload, WritersRateEndsAtTheDeadline) {
  SlowFirstPutStore store;
  const WritersResult r = run_writers(store, 2, Budget{0.1, UINT64_MAX / 2}, test_seed());
  ASSERT_EQ(r.error, "");
  EXPECT_LT(r.writes_in_budget, r.writes);  // the slow writer's put, returned past the deadline, is not in the rate
  EXPECT_EQ(r.budget_seconds, 0.1);         // the rate's span
  EXPECT_EQ(r.per_writer[0], 1u);           // acknowledged after the deadline ...
  // ... so only writer 1's count, less its last put if that returned past the deadline.
  EXPECT_LE(r.writes_in_budget, r.per_writer[1]);
  EXPECT_GE(r.writes_in_budget + 1, r.per_writer[1]);
  EXPECT_EQ(r.writes, r.per_writer[0] + r.per_writer[1]);
  EXPECT_EQ(r.counters.commits, r.writes);
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
  // A window per read, during it and before it; a write is counted in a
  // read's window only if it overlapped it, so never more than were written.
  EXPECT_EQ(r.wait_during_read_us.size(), 2u);
  EXPECT_EQ(r.wait_before_read_us.size(), 2u);
  EXPECT_LE(r.during_read_ns.count(), r.writes);
  EXPECT_LE(r.before_read_ns.count(), r.writes);
}

// CC-5's reads alone alternate between the stores, each answers the
// preloaded count and sum, and a pinning store reports its first pin.
TEST_F(ScratchDir, AloneReadsAlternateAndAnswerRight) {
  std::string err;
  const ArmSpec pinned{"fenecdb-buffered", ArmSpec::Engine::kFenecdb, false, false};
  auto a = open_fenecdb(pinned, "long-read", path("a"), &err);
  ASSERT_TRUE(a) << err;
  auto b = open_sqlite(sqlite_arm(false), path("b"), &err);
  ASSERT_TRUE(b) << err;
  int64_t sum = 0;
  ASSERT_EQ(preload(*a, 3000, test_seed(), &sum), "");
  ASSERT_EQ(preload(*b, 3000, test_seed(), &sum), "");
  const std::vector<AloneReads> r = run_alone_reads({a.get(), b.get()}, 3000, sum, 3);
  ASSERT_EQ(r.size(), 2u);
  for (const AloneReads& x : r) {
    EXPECT_EQ(x.error, "");
    EXPECT_TRUE(x.answers_ok) << x.answer_problem;
    EXPECT_EQ(x.ms.size(), 3u);
  }
  EXPECT_TRUE(r[0].pinned);   // fenecdb pins its long reads
  EXPECT_FALSE(r[1].pinned);  // SQLite does not
  // A wrong expected sum is a wrong answer, said so.
  const std::vector<AloneReads> wrong = run_alone_reads({b.get()}, 3000, sum + 1, 1);
  EXPECT_FALSE(wrong[0].answers_ok);
  EXPECT_NE(wrong[0].answer_problem, "");
  EXPECT_EQ(a->close(), "");
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
    EXPECT_EQ(r.wait_during_read_us.size(), 3u);
    // Pinned reads pin (one per aggregate); reads under the lock never do.
    auto pins = r.counters.extra.find("pins");
    ASSERT_NE(pins, r.counters.extra.end());
    EXPECT_EQ(pins->second.first, naive ? 0.0 : 3.0) << arm.name;
    EXPECT_EQ(store->close(), "");
  }
}

// ---- The verdicts, from synthetic figures (report.h). Each check's ratio
// has its 95% interval from the repetitions (kit::paired_ratio), so three
// repetitions that agree clear or miss a line, and three that scatter
// across it straddle it.

using kit::Outcome;

Reps<WriterFig> writer_reps(const std::vector<double>& wps, double fsyncs_per_commit) {
  Reps<WriterFig> r;
  for (size_t i = 0; i < wps.size(); ++i) {
    WriterFig f;
    f.writes_per_s = wps[i];
    f.commits = 1000;
    f.fsyncs = 1000 * fsyncs_per_commit;
    f.store_min = f.store_max = wps[i];
    r[static_cast<int>(i)] = f;
  }
  return r;
}

Report cc1_report(const std::vector<double>& one, const std::vector<double>& sixteen, double per_commit,
                  const std::vector<double>& sqlite16) {
  Report rep;
  rep.writers["fenecdb-durable"][1] = writer_reps(one, 1);
  rep.writers["fenecdb-durable"][16] = writer_reps(sixteen, per_commit);
  rep.writers["sqlite-full"][16] = writer_reps(sqlite16, 1);
  return rep;
}

TEST(Verdicts, Cc1ReproducedWhenEveryCheckClears) {
  const Judged j = judge_cc1(cc1_report({1000, 1010, 990}, {6000, 6100, 5900}, 0.12, {500, 510, 490}));
  EXPECT_EQ(j.verdict.outcome, Outcome::kReproduced) << j.verdict.reason;
  // Each check in the reason, each ratio in the CSV with its interval.
  EXPECT_NE(j.verdict.reason.find("cleared"), std::string::npos);
  ASSERT_EQ(j.ratios.size(), 3u);
  EXPECT_TRUE(j.ratios[0].ratio.ci95.known());
  EXPECT_NEAR(j.ratios[0].ratio.value, 6.0, 0.1);
}

TEST(Verdicts, Cc1NotReproducedWhenEveryCheckMisses) {
  // Unshared fsyncs, 16 writers slower than one, SQLite ahead.
  const Judged j = judge_cc1(cc1_report({1000, 1010, 990}, {800, 810, 790}, 1.0 + 1e-3, {2000, 2020, 1980}));
  EXPECT_EQ(j.verdict.outcome, Outcome::kNotReproduced) << j.verdict.reason;
}

TEST(Verdicts, Cc1NotApplicableWithoutItsCells) {
  Report rep = cc1_report({1000, 1010, 990}, {6000, 6100, 5900}, 0.12, {500, 510, 490});
  rep.writers.erase("sqlite-full");
  EXPECT_EQ(judge_cc1(rep).verdict.outcome, Outcome::kNotApplicable);
}

Report cc2_report(const std::vector<double>& one, const std::vector<double>& sixteen,
                  const std::vector<double>& sqlite_one) {
  Report rep;
  rep.writers["fenecdb-buffered"][1] = writer_reps(one, 0);
  rep.writers["fenecdb-buffered"][16] = writer_reps(sixteen, 0);
  rep.writers["sqlite-normal"][1] = writer_reps(sqlite_one, 0);
  return rep;
}

TEST(Verdicts, Cc2PartlyWhenTheRatioHoldsAndTheHandoverCostsNothing) {
  // 16x SQLite NORMAL (line 6x: cleared); 16 writers as fast as one (line < 0.5x: missed).
  const Judged j = judge_cc2(cc2_report({1.6e6, 1.62e6, 1.58e6}, {1.6e6, 1.5e6, 1.7e6}, {1e5, 1e5, 1e5}));
  EXPECT_EQ(j.verdict.outcome, Outcome::kPartly) << j.verdict.reason;
  EXPECT_NE(j.verdict.reason.find("missed"), std::string::npos);
}

TEST(Verdicts, Cc2ReproducedWhenTheHandoverCostsMoreThanHalf) {
  const Judged j = judge_cc2(cc2_report({1.6e6, 1.62e6, 1.58e6}, {5e5, 5.2e5, 4.9e5}, {1e5, 1e5, 1e5}));
  EXPECT_EQ(j.verdict.outcome, Outcome::kReproduced) << j.verdict.reason;
}

TEST(Verdicts, Cc2InconclusiveWhenTheHandoverStraddlesItsLine) {
  // 16 writers at 0.3x, 0.9x and 0.5x one: the interval holds 0.5.
  const Judged j = judge_cc2(cc2_report({1e6, 1e6, 1e6}, {3e5, 9e5, 5e5}, {1e5, 1e5, 1e5}));
  EXPECT_EQ(j.verdict.outcome, Outcome::kInconclusive) << j.verdict.reason;
  EXPECT_NE(j.verdict.reason.find("straddles"), std::string::npos);
}

// Rounds kept (as a run keeps them): the handover is judged on the median of
// the round pairs. One repetition whose 16-writer stores met a slow
// stretch in 4 of its 10 rounds (0.3x) moves the repetitions' interval
// across 0.5; the median round stays at the typical 0.8x: missed, partly.
// Every round slow: the handover costs more than half, reproduced.
TEST(Verdicts, Cc2HandoverIsJudgedOnTheMedianRound) {
  auto with_rounds = [](Reps<WriterFig>& reps, const std::vector<std::vector<double>>& rounds) {
    for (size_t r = 0; r < rounds.size(); ++r) {
      WriterFig& f = reps[static_cast<int>(r)];
      f.round_rates = rounds[r];
      double sum = 0;
      for (double x : rounds[r]) sum += x;
      f.writes_per_s = sum / static_cast<double>(rounds[r].size());
    }
  };
  const std::vector<double> one(10, 1e6), typical(10, 8e5);
  std::vector<double> stretch = typical;
  for (int k = 0; k < 4; ++k) stretch[k] = 3e5;
  Report rep = cc2_report({1e6, 1e6, 1e6}, {8e5, 8e5, 8e5}, {1e5, 1e5, 1e5});
  with_rounds(rep.writers["fenecdb-buffered"][1], {one, one, one});
  with_rounds(rep.writers["fenecdb-buffered"][16], {stretch, typical, typical});
  Judged j = judge_cc2(rep);
  EXPECT_EQ(j.verdict.outcome, Outcome::kPartly) << j.verdict.reason;
  EXPECT_NE(j.verdict.reason.find("median round"), std::string::npos) << j.verdict.reason;
  EXPECT_NE(j.verdict.ours.find("median of 30 round pairs (4 of them in a slow stretch"), std::string::npos)
      << j.verdict.ours;
  ASSERT_GE(j.ratios.size(), 2u);
  EXPECT_EQ(j.ratios[1].ratio.reps, 30u);
  const std::vector<double> slow(10, 3.5e5);
  with_rounds(rep.writers["fenecdb-buffered"][16], {slow, slow, slow});
  j = judge_cc2(rep);
  EXPECT_EQ(j.verdict.outcome, Outcome::kReproduced) << j.verdict.reason;
}

TEST(Verdicts, Cc2PairsOnlyTheRepetitionsBothArmsRan) {
  Report rep = cc2_report({1.6e6, 1.6e6, 1.6e6}, {1.6e6, 1.6e6, 1.6e6}, {1e5, 1e5, 1e5});
  rep.writers["sqlite-normal"][1].erase(1);  // that cell was a skip
  const Judged j = judge_cc2(rep);
  ASSERT_FALSE(j.ratios.empty());
  EXPECT_EQ(j.ratios[0].ratio.reps, 2u);
}

Reps<MixedFig> batch_reps(const std::vector<double>& hold_p50_us) {
  Reps<MixedFig> r;
  for (size_t i = 0; i < hold_p50_us.size(); ++i) {
    MixedFig f;
    f.batch_hold_p50_us = hold_p50_us[i];
    f.lock_hold_mean_us = hold_p50_us[i];
    r[static_cast<int>(i)] = f;
  }
  return r;
}

TEST(Verdicts, Cc3ClearsAndMissesItsLine) {
  Report rep;
  rep.batches["fenecdb-buffered-naive"] = batch_reps({500, 510, 490});
  rep.batches["fenecdb-buffered"] = batch_reps({150, 152, 148});  // 3.3x: clears 1.65
  EXPECT_EQ(judge_cc3(rep).verdict.outcome, Outcome::kReproduced);
  rep.batches["fenecdb-buffered"] = batch_reps({450, 460, 440});  // 1.1x: misses
  EXPECT_EQ(judge_cc3(rep).verdict.outcome, Outcome::kNotReproduced);
  rep.batches.clear();
  EXPECT_EQ(judge_cc3(rep).verdict.outcome, Outcome::kNotApplicable);
}

Reps<MixedFig> reader_reps(const std::vector<double>& hold_max_us, double flushes, double under) {
  Reps<MixedFig> r;
  for (size_t i = 0; i < hold_max_us.size(); ++i) {
    MixedFig f;
    f.lock_hold_max_us = hold_max_us[i];
    f.buffer_flushes = flushes;
    f.buffer_flushes_under_lock = under;
    f.read_p99_us = f.read_p999_us = f.read_max_us = 100;
    r[static_cast<int>(i)] = f;
  }
  return r;
}

TEST(Verdicts, Cc4CountsLongHoldsAndFlushesUnderTheLock) {
  Report rep;
  rep.readers["fenecdb-buffered"] = reader_reps({400, 500, 450}, 10, 0);
  EXPECT_EQ(judge_cc4(rep).verdict.outcome, Outcome::kReproduced);
  // One repetition's holder preempted for 5 ms: still no single wait reaches 17 ms.
  rep.readers["fenecdb-buffered"] = reader_reps({400, 5000, 450}, 10, 0);
  EXPECT_EQ(judge_cc4(rep).verdict.outcome, Outcome::kReproduced);
  // One hold of 17 ms or more refutes "no single wait reaches 17 ms".
  rep.readers["fenecdb-buffered"] = reader_reps({400, 17000, 450}, 10, 0);
  EXPECT_EQ(judge_cc4(rep).verdict.outcome, Outcome::kNotReproduced);
  EXPECT_NE(judge_cc4(rep).verdict.reason.find(">= 17 ms"), std::string::npos);
  // Categorical: a buffer written under the lock is not reproduced, however short the holds.
  rep.readers["fenecdb-buffered"] = reader_reps({400, 500, 450}, 10, 1);
  EXPECT_EQ(judge_cc4(rep).verdict.outcome, Outcome::kNotReproduced);
  rep.readers["fenecdb-buffered"] = reader_reps({400, 500, 450}, 0, 0);
  EXPECT_EQ(judge_cc4(rep).verdict.outcome, Outcome::kNotApplicable);
}

Reps<LongFig> long_reps(const std::vector<double>& during_p999_us, const std::vector<double>& alone_ms,
                        bool answers_ok = true) {
  Reps<LongFig> r;
  for (size_t i = 0; i < during_p999_us.size(); ++i) {
    LongFig f;
    f.during_p999_us = during_p999_us[i];
    f.during_p99_us = f.during_max_us = f.write_wait_max_us = during_p999_us[i];
    f.before_p999_us = f.before_max_us = 3;
    f.alone_ms = alone_ms[i];
    f.answers_ok = answers_ok;
    r[static_cast<int>(i)] = f;
  }
  return r;
}

TEST(Verdicts, Cc5ReproducedWhenWritesStopWaitingAtTheSameSpeed) {
  Report rep;
  rep.long_read["fenecdb-buffered-naive"] = long_reps({30000, 31000, 29000}, {20, 20.2, 19.8});
  rep.long_read["fenecdb-buffered"] = long_reps({3, 3.1, 2.9}, {20.1, 20.3, 19.9});
  const Judged j = judge_cc5(rep);
  EXPECT_EQ(j.verdict.outcome, Outcome::kReproduced) << j.verdict.reason;
  EXPECT_NE(j.verdict.reason.find("p99.9"), std::string::npos);  // says which figure it used
}

TEST(Verdicts, Cc5PartsAndStraddles) {
  Report rep;
  // Writes no longer wait, but the pinned read is 3x slower: partly.
  rep.long_read["fenecdb-buffered-naive"] = long_reps({30000, 31000, 29000}, {20, 20.2, 19.8});
  rep.long_read["fenecdb-buffered"] = long_reps({3, 3.1, 2.9}, {60, 61, 59});
  EXPECT_EQ(judge_cc5(rep).verdict.outcome, Outcome::kPartly);
  // The pinned writers' wait scattered from 1/100 to 1/3 of the locked: the 10x line straddled.
  rep.long_read["fenecdb-buffered"] = long_reps({300, 10000, 2000}, {20, 20.2, 19.8});
  EXPECT_EQ(judge_cc5(rep).verdict.outcome, Outcome::kInconclusive);
}

TEST(Verdicts, Cc5AWrongAnswerIsNotReproduced) {
  Report rep;
  rep.long_read["fenecdb-buffered-naive"] = long_reps({30000, 31000, 29000}, {20, 20.2, 19.8});
  rep.long_read["fenecdb-buffered"] = long_reps({3, 3.1, 2.9}, {20.1, 20.3, 19.9}, false);
  const Judged j = judge_cc5(rep);
  EXPECT_EQ(j.verdict.outcome, Outcome::kNotReproduced);
  EXPECT_NE(j.verdict.reason.find("answered wrong"), std::string::npos);
}

}  // namespace
}  // namespace fenec::scenarios::concurrency
