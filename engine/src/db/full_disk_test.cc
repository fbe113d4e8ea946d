// A full disk (FaultEnv::SetFull, a file system that overwrites in place):
// a write is refused with kNoSpace before it lands - never acknowledged and
// lost, never a fail-stop - reads go on, WriteState and the stats say so, a
// checkpoint or a reopen on the full disk changes nothing acknowledged, and
// writes resume by themselves once space returns. In every mode, with the
// journal or the data file the first to run out of room.
//
// Every test logs its seed and takes FENEC_SEED.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <mutex>
#include <random>
#include <thread>
#include <tuple>

#include "engine/src/base/testing.h"
#include "engine/src/db/crash_log.h"
#include "engine/src/io/fault_env.h"
#include "fenec/database.h"

namespace fenec {
namespace full_disk_test {

// A unique index, so the branch journals (shared or separate) need room too.
Schema KeyedSchema() {
  Field key = Field::Text("key");
  key.unique = true;
  return Schema{{Field::Int("writer"), Field::Int("seq"), Field::Text("body"), key}};
}
Document Keyed(int64_t writer, int64_t seq) {
  return {Value(writer), Value(seq), Value(std::string(1000, static_cast<char>('a' + (seq % 26)))),
          Value(fmt::format("{}-{}", writer, seq))};
}

struct Tally {
  std::mutex mu;
  std::vector<Ack> acks;
  uint64_t refused = 0;
  std::string unexpected;  // the first failure that is not kNoSpace
};

// Four writers put from `first` until each has made `each` puts; a put is
// acknowledged (noted) or refused kNoSpace (counted), nothing else.
void Put(Database* db, CollectionId c, int64_t first, int64_t each, Tally* t) {
  std::vector<std::thread> ts;
  for (int w = 0; w < 4; ++w) {
    ts.emplace_back([&, w] {
      for (int64_t seq = first; seq < first + each; ++seq) {
        auto id = db->Put(c, Keyed(w, seq));
        std::lock_guard lock(t->mu);
        if (id.ok()) {
          t->acks.push_back({*id, w, seq});
        } else if (id.status().IsNoSpace()) {
          ++t->refused;
        } else if (t->unexpected.empty()) {
          t->unexpected = id.status().ToString();
        }
      }
    });
  }
  for (auto& th : ts) th.join();
}

void ExpectAcked(Database* db, CollectionId c, const std::vector<Ack>& acks, uint64_t seed) {
  for (const Ack& a : acks) {
    auto got = db->Get(c, a.id);
    ASSERT_TRUE(got.ok()) << "acknowledged id " << a.id << " lost (seed " << seed << "): " << got.status().ToString();
    ASSERT_EQ(*got, Keyed(a.writer, a.seq)) << "id " << a.id;
  }
  EXPECT_EQ(*db->Count(c), acks.size()) << "a refused put left a row";
  EXPECT_TRUE(db->Check().ok()) << db->Check().ToString();
}

// Puts once a moment until one is taken (bounded: the refusal's retry period is short).
bool PutUntilTaken(Database* db, CollectionId c, int64_t seq, Tally* t) {
  for (int i = 0; i < 200; ++i) {
    auto id = db->Put(c, Keyed(7, seq));
    if (id.ok()) {
      t->acks.push_back({*id, 7, seq});
      return true;
    }
    if (!id.status().IsNoSpace()) {
      ADD_FAILURE() << id.status().ToString();
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// (durability, journal_zero_ahead): zero ahead 1 MiB runs the journal out
// of room first, 16 MiB the data file (its room runs 8 MiB ahead, the
// journal's 16), 0 the journal's reservations (append only).
class FullDisk : public ::testing::TestWithParam<std::tuple<Durability, uint64_t>> {};
INSTANTIATE_TEST_SUITE_P(
    Modes, FullDisk,
    ::testing::Combine(::testing::Values(Durability::kDurable, Durability::kWriteThrough, Durability::kBuffered),
                       ::testing::Values(uint64_t{0}, uint64_t{1} << 20, uint64_t{16} << 20)),
    [](const auto& info) {
      std::string mode = DurabilityName(std::get<0>(info.param));
      std::erase(mode, '-');
      return fmt::format("{}_ZeroAhead{}K", mode, std::get<1>(info.param) >> 10);
    });

TEST_P(FullDisk, RefusesBeforeLandingAndResumesWhenSpaceReturns) {
  const uint64_t seed = base::TestSeed();
  std::mt19937_64 rng(seed);
  const auto [mode, zero_ahead] = GetParam();
  base::ScratchDir dir;
  const std::string path = dir.path() + "/db";
  FaultEnv env;
  Options o;
  o.env = &env;
  o.durability = mode;
  o.sync_ms = 20;
  o.journal_zero_ahead = zero_ahead;
  o.journals = rng() % 2 ? Journals::kShared : Journals::kSeparate;
  o.write_buffer_bytes = 16 << 10;
  SCOPED_TRACE(fmt::format("seed {}, {} journals", seed, o.journals == Journals::kShared ? "shared" : "separate"));
  Tally t;
  {
    auto db = Database::Open(path, o);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    auto c = (*db)->CreateCollection("log", KeyedSchema());
    ASSERT_TRUE(c.ok());
    Put(db->get(), *c, 0, 50 + static_cast<int64_t>(rng() % 500), &t);
    env.SetFull(true);
    // Enough puts to use up every room the files had when the disk filled.
    Put(db->get(), *c, 1000, 4000, &t);
    ASSERT_EQ(t.unexpected, "");
    ASSERT_GT(t.refused, 0u) << "the disk never refused a write: the test covers less than it says";
    EXPECT_GT(env.refusals(), 0u);
    const Stats full = (*db)->GetStats();
    EXPECT_TRUE((*db)->WriteState().IsNoSpace()) << (*db)->WriteState().ToString();
    EXPECT_TRUE(full.no_space);
    EXPECT_FALSE(full.fail_stopped);
    EXPECT_EQ(full.no_space_episodes, 1u);
    EXPECT_GE(full.no_space_refusals, t.refused);
    // Reads go on; a checkpoint is refused at worst, and stops nothing.
    ExpectAcked(db->get(), *c, t.acks, seed);
    if (HasFatalFailure()) return;
    Status ck = (*db)->Checkpoint();
    EXPECT_TRUE(ck.ok() || ck.IsNoSpace()) << ck.ToString();
    EXPECT_FALSE((*db)->GetStats().fail_stopped);
    // Space is back: writes resume with no reopen.
    env.SetFull(false);
    ASSERT_TRUE(PutUntilTaken(db->get(), *c, 20000, &t)) << "writes never resumed";
    Put(db->get(), *c, 30000, 300, &t);
    EXPECT_EQ(t.unexpected, "");
    EXPECT_TRUE((*db)->WriteState().ok()) << (*db)->WriteState().ToString();
    EXPECT_FALSE((*db)->GetStats().no_space);
    ExpectAcked(db->get(), *c, t.acks, seed);
    if (HasFatalFailure()) return;
    if (mode == Durability::kDurable) {
      env.Crash();  // a power cut: every acknowledged durable write survives it
    } else {
      ASSERT_TRUE((*db)->Close().ok());  // the unsynced modes keep it all across a clean close
    }
  }
  if (mode == Durability::kDurable) env.ApplyCrash(rng());
  auto db = Database::Open(path, o);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ExpectAcked(db->get(), *(*db)->FindCollection("log"), t.acks, seed);
  fmt::print(stderr, "{} zero ahead {}: {} acknowledged, {} refused while full\n", DurabilityName(mode), zero_ahead,
             t.acks.size(), t.refused);
}

// A folder whose disk filled reopens while still full: what was
// acknowledged is read back, writes are refused, and resume once space returns.
TEST(FullDisk, ReopensWhileFull) {
  const uint64_t seed = base::TestSeed();
  base::ScratchDir dir;
  const std::string path = dir.path() + "/db";
  FaultEnv env;
  Options o;
  o.env = &env;
  o.write_buffer_bytes = 16 << 10;
  Tally t;
  {
    auto db = Database::Open(path, o);
    ASSERT_TRUE(db.ok());
    auto c = (*db)->CreateCollection("log", KeyedSchema());
    Put(db->get(), *c, 0, 200, &t);
    env.SetFull(true);
    Put(db->get(), *c, 1000, 4000, &t);
    ASSERT_GT(t.refused, 0u);
    Status closed = (*db)->Close();  // its checkpoint may be refused: the journals then stay
    EXPECT_TRUE(closed.ok() || closed.IsNoSpace()) << closed.ToString();
  }
  auto db = Database::Open(path, o);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto c = (*db)->FindCollection("log");
  ExpectAcked(db->get(), *c, t.acks, seed);
  auto refused = (*db)->Put(*c, Keyed(8, 0));
  EXPECT_TRUE(refused.status().IsNoSpace()) << refused.status().ToString();
  env.SetFull(false);
  EXPECT_TRUE(PutUntilTaken(db->get(), *c, 1, &t));
  ExpectAcked(db->get(), *c, t.acks, seed);
}

// A commit larger than the room left is refused whole while the disk is
// full: no row of the batch lands and its ids are not burned.
TEST(FullDisk, ABatchIsRefusedWhole) {
  base::ScratchDir dir;
  FaultEnv env;
  Options o;
  o.env = &env;
  auto db = Database::Open(dir.path(), o);
  ASSERT_TRUE(db.ok());
  auto c = (*db)->CreateCollection("log", KeyedSchema());
  auto first = (*db)->Put(*c, Keyed(0, 0));
  ASSERT_TRUE(first.ok());
  env.SetFull(true);
  std::vector<Document> batch;
  for (int i = 1; i <= 20000; ++i) batch.push_back(Keyed(0, i));  // 20 MB: past any room
  auto r = (*db)->PutBatch(*c, std::move(batch));
  EXPECT_TRUE(r.status().IsNoSpace()) << r.status().ToString();
  EXPECT_EQ(*(*db)->Count(*c), 1u);
  env.SetFull(false);
  Tally t;
  ASSERT_TRUE(PutUntilTaken(db->get(), *c, 1, &t));
  EXPECT_EQ(t.acks[0].id, *first + 1) << "the refused batch burned ids";
}

}  // namespace full_disk_test
}  // namespace fenec
