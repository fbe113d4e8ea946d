// Each durability mode keeps the promise Options states for it, by count:
// what a kill -9 loses, what a power cut loses, and - in every mode, after
// any crash - no acknowledged id ever names another document: it answers
// the document it was acknowledged for, or (a write the mode may lose)
// nothing, and ids given after the reopen are past every acknowledged one.
//
// Every test logs its seed and takes FENEC_SEED.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <random>
#include <thread>

#include "engine/src/base/kill_nine.h"
#include "engine/src/base/testing.h"
#include "engine/src/db/crash_log.h"
#include "engine/src/io/fault_env.h"
#include "fenec/database.h"

namespace fenec {
namespace modes_test {

Options ModeOptions(Durability d, Journals j = Journals::kShared) {
  Options o;
  o.durability = d;
  o.journals = j;
  o.sync_ms = 50;
  return o;
}

// What a reopen finds of the acknowledged writes: how many are gone. An id
// that answers must answer its own document; ids put now are past them all.
struct Found {
  uint64_t lost = 0;
  uint64_t max_acked = 0;
};
Found CheckAcks(Database* db, CollectionId c, const std::vector<Ack>& acks, uint64_t seed, DocMaker make = Expected) {
  Found f;
  for (const Ack& a : acks) {
    f.max_acked = std::max<uint64_t>(f.max_acked, a.id);
    auto got = db->Get(c, a.id);
    if (got.status().IsNotFound()) {
      ++f.lost;
      continue;
    }
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    if (!got.ok()) continue;
    EXPECT_EQ(*got, make(a.writer, a.seq)) << "acknowledged id " << a.id << " names another document (seed " << seed
                                           << ")";
  }
  auto next = db->Put(c, make(99, 0));
  EXPECT_TRUE(next.ok()) << next.status().ToString();
  if (next.ok()) {
    EXPECT_GT(*next, f.max_acked) << "an id acknowledged before the crash was given again (seed " << seed << ")";
    EXPECT_TRUE(db->Delete(c, *next).ok());
  }
  EXPECT_TRUE(db->Check().ok());
  return f;
}

// The child: four writers put and report each acknowledgement; a
// checkpointer beside them, so a kill lands in checkpoints too (whose
// catalogs must carry the ids reserved). Never returns.
[[noreturn]] void Child(const std::string& dir, int fd, int64_t first_seq, const Options& o) {
  auto db = Database::Open(dir, o);
  if (!db.ok()) _exit(3);
  auto c = (*db)->FindCollection("log");
  if (!c.ok()) c = (*db)->CreateCollection("log", LogSchema());
  if (!c.ok()) _exit(4);
  std::vector<std::thread> ts;
  for (int w = 0; w < 4; ++w) {
    ts.emplace_back([&, w] {
      for (int64_t seq = first_seq;; ++seq) {
        auto id = (*db)->Put(*c, Expected(w, seq));
        if (!id.ok()) _exit(5);
        base::ReportAck(fd, {static_cast<int64_t>(*id), w, seq});
      }
    });
  }
  std::thread([&] {
    while (true) {
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      if (!(*db)->Checkpoint().ok()) _exit(7);
    }
  }).detach();
  for (auto& t : ts) t.join();
  _exit(0);
}

class UnsyncedModes : public ::testing::TestWithParam<Durability> {};
INSTANTIATE_TEST_SUITE_P(Modes, UnsyncedModes, ::testing::Values(Durability::kWriteThrough, Durability::kBuffered),
                         [](const auto& info) { return info.param == Durability::kWriteThrough ? "WriteThrough" : "Buffered"; });

// kill -9: write-through loses nothing (its records were written to the
// kernel before the acknowledgement); buffered may lose what was still in
// the process, never more than each writer's last commits (what survives
// is a prefix), and neither ever hands an acknowledged id to another document.
TEST_P(UnsyncedModes, KillNineKeepsThePromiseAndNoIdNamesAnotherDocument) {
  const uint64_t seed = base::TestSeed();
  std::mt19937_64 rng(seed);
  base::ScratchDir dir;
  const std::string path = dir.path() + "/db";
  const Options o = ModeOptions(GetParam());
  std::vector<Ack> acks;
  int64_t first_seq = 0;
  uint64_t lost = 0;
  for (int round = 0; round < 4; ++round) {
    base::ChildRunOptions co;
    co.kill_after = 200 + rng() % 3000;
    co.seed = rng();
    const base::ChildRun run = base::RunAckingChild(co, [&](int fd) { Child(path, fd, first_seq, o); });
    ASSERT_TRUE(run.killed) << run.error << " (seed " << seed << ")";
    std::vector<Ack> round_acks;
    for (const base::WriteAck& a : run.acks) round_acks.push_back({static_cast<uint64_t>(a.id), a.writer, a.seq});
    acks.insert(acks.end(), round_acks.begin(), round_acks.end());
    auto db = Database::Open(path, o);
    ASSERT_TRUE(db.ok()) << db.status().ToString() << " (seed " << seed << ")";
    auto c = (*db)->FindCollection("log");
    ASSERT_TRUE(c.ok());
    const Found f = CheckAcks(db->get(), *c, acks, seed);
    if (HasFailure()) return;
    lost += f.lost;
    fmt::print(stderr, "{} round {}: {} acks this round, {} lost in all, {} records replayed\n",
               DurabilityName(GetParam()), round, round_acks.size(), lost, (*db)->GetStats().recovered_records);
    if (GetParam() == Durability::kWriteThrough) {
      EXPECT_EQ(f.lost, 0u) << "(seed " << seed << ")";
    }
    // What survived of each writer is a prefix of its commits (seqs restart past every acknowledged one).
    for (const Ack& a : acks) first_seq = std::max(first_seq, a.seq + 1);
  }
}

// A power cut (FaultEnv): each mode may lose what its period had not synced,
// never an id: every acknowledged id answers its document or nothing, and
// the ids put after the reopen are past them all. Checkpoints between the
// writes in every other round move the reservations into the catalog.
TEST_P(UnsyncedModes, PowerCutNeverReissuesAnAcknowledgedId) {
  const uint64_t seed = base::TestSeed();
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 4; ++round) {
    base::ScratchDir dir;
    const std::string path = dir.path() + "/db";
    FaultEnv env;
    Options o = ModeOptions(GetParam(), round < 2 ? Journals::kShared : Journals::kSeparate);
    o.write_buffer_bytes = 8192;
    std::vector<Ack> all;
    for (int crash = 0; crash < 3; ++crash) {
      {
        Options with = o;
        with.env = &env;
        auto db = Database::Open(path, with);
        ASSERT_TRUE(db.ok()) << db.status().ToString();
        auto c = (*db)->FindCollection("log");
        if (!c.ok()) c = (*db)->CreateCollection("log", LogSchema());
        ASSERT_TRUE(c.ok());
        const bool checkpoints = round % 2 == 1;
        auto acks = WritersUntilCrash(
            db->get(), *c, 100 + rng() % 2000, [&env] { env.Crash(); }, -1, [&](int w, int64_t seq) {
              if (w == 0 && checkpoints && seq % 97 == 0) (void)(*db)->Checkpoint();
            });
        all.insert(all.end(), acks.begin(), acks.end());
      }
      env.ApplyCrash(rng());
      Options with = o;
      with.env = &env;
      auto db = Database::Open(path, with);
      ASSERT_TRUE(db.ok()) << db.status().ToString() << " (seed " << seed << ")";
      auto c = (*db)->FindCollection("log");
      ASSERT_TRUE(c.ok());
      const Found f = CheckAcks(db->get(), *c, all, seed);
      if (HasFailure()) return;
      // A lost id stays lost in the later rounds: it answers nothing, ever.
      fmt::print(stderr, "{} round {} crash {}: {} acks, {} lost to power cuts\n", DurabilityName(GetParam()), round,
                 crash, all.size(), f.lost);
    }
  }
}

// The reservation's bookkeeping: a put's ids are acknowledged only once a
// reservation covering them is fdatasync'ed; the syncer, woken at each,
// mostly has it durable before a put needs it.
TEST(UnsyncedIds, ReservationsRunAheadOfThePuts) {
  base::ScratchDir dir;
  auto db = Database::Open(dir.path(), ModeOptions(Durability::kBuffered));
  ASSERT_TRUE(db.ok());
  auto c = (*db)->CreateCollection("log", LogSchema());
  ASSERT_TRUE(c.ok());
  constexpr int kPuts = 20000;
  for (int i = 0; i < kPuts; ++i) ASSERT_TRUE((*db)->Put(*c, Expected(0, i)).ok());
  const Stats st = (*db)->GetStats();
  // One reservation per half of kIdsReservedAhead ids, the first at once.
  EXPECT_GE(st.id_reservations, 2u * kPuts / 8192);
  EXPECT_LE(st.id_reservations, 2u * kPuts / 8192 + 2);
  // One writer: a put waits only for a reservation the syncer has not synced
  // yet, and the next finds it durable, so at most one wait a reservation.
  EXPECT_LE(st.id_reservation_waits, st.id_reservations);
  // Durable mode needs none: its acknowledgements wait for the records themselves.
  base::ScratchDir d2;
  auto durable = Database::Open(d2.path(), Options{});
  auto c2 = (*durable)->CreateCollection("log", LogSchema());
  for (int i = 0; i < 100; ++i) ASSERT_TRUE((*durable)->Put(*c2, Expected(0, i)).ok());
  EXPECT_EQ((*durable)->GetStats().id_reservations, 0u);
}

// A clean close keeps no reserved ids: the next open gives ids right after
// the last one landed.
TEST(UnsyncedIds, CleanCloseLeavesNoGap) {
  base::ScratchDir dir;
  const Options o = ModeOptions(Durability::kWriteThrough);
  uint64_t last = 0;
  {
    auto db = Database::Open(dir.path(), o);
    auto c = (*db)->CreateCollection("log", LogSchema());
    for (int i = 0; i < 50; ++i) last = *(*db)->Put(*c, Expected(0, i));
    ASSERT_TRUE((*db)->Close().ok());
  }
  auto db = Database::Open(dir.path(), o);
  auto c = (*db)->FindCollection("log");
  auto next = (*db)->Put(*c, Expected(0, 50));
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(*next, last + 1);
}

}  // namespace modes_test
}  // namespace fenec
