// DROP COLLECTION: journaled, replayed, checkpointed away; its
// folders removed once the record is durable (and at the next open when a
// crash came between); its name and its place under kMaxCollections free
// again; its handles NotFound; readers that hold it unharmed.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <random>
#include <set>
#include <thread>

#include "engine/src/base/testing.h"
#include "engine/src/io/fault_env.h"
#include "fenec/database.h"

namespace fenec {
namespace drop_test {

namespace fs = std::filesystem;

Schema Indexed() {
  Schema s;
  s.fields.push_back(Field::Text("email").Unique());
  s.fields.push_back(Field::Text("body").TextIndexed());
  s.fields.push_back(Field::Vector("v", 4).Hnsw());
  return s;
}

Document Row(int64_t n) {
  Document d;
  d.emplace_back(fmt::format("u{}@example.com", n));
  d.emplace_back(fmt::format("word{} common", n));
  d.emplace_back(std::vector<float>{float(n), 1, 2, 3});
  return d;
}

Options Opts(Env* env, Journals mode = Journals::kShared) {
  Options o;
  o.env = env;
  o.journals = mode;
  return o;
}

std::set<std::string> IndexFolders(const std::string& db) {
  std::set<std::string> out;
  if (!fs::exists(db + "/Indexes")) return out;
  for (const auto& e : fs::directory_iterator(db + "/Indexes"))
    if (e.is_directory()) out.insert(e.path().filename().string());
  return out;
}

bool AnyFolderOf(const std::string& db, uint32_t id) {
  for (const auto& f : IndexFolders(db))
    if (f.rfind(fmt::format("c{}.", id), 0) == 0) return true;
  return false;
}

TEST(Drop, ThenRecreateUnderTheNameWithAnotherSchema) {
  base::ScratchDir dir;
  auto db = Database::Open(dir.path(), Opts(Env::Default()));
  ASSERT_TRUE(db.ok());
  auto old = (*db)->CreateCollection("users", Indexed());
  ASSERT_TRUE(old.ok());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE((*db)->Put(*old, Row(i)).ok());
  ASSERT_TRUE(AnyFolderOf(dir.path(), old->value));
  ASSERT_TRUE((*db)->DropCollection("users").ok());
  EXPECT_FALSE(AnyFolderOf(dir.path(), old->value)) << "its branch folders are removed";
  EXPECT_TRUE((*db)->FindCollection("users").status().IsNotFound());
  EXPECT_TRUE((*db)->DropCollection("users").IsNotFound());

  Schema other;
  other.fields.push_back(Field::Int("k").Unique());
  auto neu = (*db)->CreateCollection("users", other);
  ASSERT_TRUE(neu.ok()) << neu.status().ToString();
  EXPECT_NE(neu->value, old->value) << "a handle is never given twice";
  ASSERT_TRUE((*db)->Put(*neu, {Value(int64_t{7})}).ok());
  EXPECT_TRUE((*db)->Put(*neu, {Value(int64_t{7})}).status().IsConstraint());
  EXPECT_TRUE((*db)->Get(*old, 1).status().IsNotFound()) << "the old handle does not reach the new collection";
  ASSERT_TRUE((*db)->Close().ok());

  db = Database::Open(dir.path(), Opts(Env::Default()));
  ASSERT_TRUE(db.ok());
  auto found = (*db)->FindCollection("users");
  ASSERT_TRUE(found.ok());
  auto schema = (*db)->GetSchema(*found);
  ASSERT_TRUE(schema.ok());
  ASSERT_EQ(schema->fields.size(), 1u);
  EXPECT_EQ(schema->fields[0].name, "k");
  EXPECT_EQ(*(*db)->Count(*found), 1u);
  EXPECT_TRUE((*db)->Check().ok());
  EXPECT_EQ(IndexFolders(dir.path()).size(), 1u);
}

TEST(Drop, DroppedHandleReturnsNotFound) {
  base::ScratchDir dir;
  auto db = Database::Open(dir.path(), Opts(Env::Default()));
  ASSERT_TRUE(db.ok());
  auto c = (*db)->CreateCollection("c", Indexed());
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE((*db)->Put(*c, Row(1)).ok());
  ASSERT_TRUE((*db)->DropCollection("c").ok());
  std::vector<float> q{1, 1, 2, 3};
  EXPECT_TRUE((*db)->Put(*c, Row(2)).status().IsNotFound());
  std::vector<Document> docs;
  docs.push_back(Row(3));
  EXPECT_TRUE((*db)->PutBatch(*c, std::move(docs)).status().IsNotFound());
  EXPECT_TRUE((*db)->Delete(*c, 1).IsNotFound());
  EXPECT_TRUE((*db)->Get(*c, 1).status().IsNotFound());
  EXPECT_TRUE((*db)->Count(*c).status().IsNotFound());
  EXPECT_TRUE((*db)->Scan(*c, {}, 0).status().IsNotFound());
  EXPECT_TRUE((*db)->Aggregate(*c, "", {}).status().IsNotFound());
  EXPECT_TRUE((*db)->Near(*c, 2, q).status().IsNotFound());
  EXPECT_TRUE((*db)->GetSchema(*c).status().IsNotFound());
  EXPECT_TRUE((*db)->ListCollections().empty());
  EXPECT_EQ((*db)->GetStats().vector_indexes, 0u);
  EXPECT_EQ((*db)->GetStats().branches, 0u);
  EXPECT_TRUE((*db)->Check().ok());
}

TEST(Drop, SnapshotPinnedBeforeStillReadsIt) {
  base::ScratchDir dir;
  auto db = Database::Open(dir.path(), Opts(Env::Default()));
  ASSERT_TRUE(db.ok());
  auto c = (*db)->CreateCollection("c", Indexed());
  ASSERT_TRUE(c.ok());
  for (int i = 0; i < 4; ++i) ASSERT_TRUE((*db)->Put(*c, Row(i)).ok());
  auto snap = (*db)->Pin();
  ASSERT_TRUE(snap.ok());
  ASSERT_TRUE((*db)->DropCollection("c").ok());
  ReadOptions ro;
  ro.snapshot = *snap;
  auto doc = (*db)->Get(*c, 2, ro);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ((*doc)[0].text(), "u1@example.com");
  auto rows = (*db)->Scan(*c, {}, 0, ro);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->size(), 4u);
  auto agg = (*db)->Aggregate(*c, "", {}, ro);
  ASSERT_TRUE(agg.ok());
  EXPECT_EQ(agg->count, 4u);
  EXPECT_TRUE((*db)->Get(*c, 2).status().IsNotFound()) << "the live database no longer has it";
}

// Readers and writers on the collection while it is dropped: each answer is
// whole or NotFound, nothing is freed under them (ASan/TSan builds see it).
TEST(Drop, WhileReadersAndWritersRun) {
  base::ScratchDir dir;
  auto db = Database::Open(dir.path(), Opts(Env::Default()));
  ASSERT_TRUE(db.ok());
  for (int round = 0; round < 3; ++round) {
    auto c = (*db)->CreateCollection("c", Indexed());
    ASSERT_TRUE(c.ok());
    for (int i = 0; i < 50; ++i) ASSERT_TRUE((*db)->Put(*c, Row(i)).ok());
    std::atomic<bool> stop{false};
    std::atomic<uint64_t> bad{0};
    std::vector<std::thread> ts;
    ts.emplace_back([&] {
      std::vector<float> q{3, 1, 2, 3};
      while (!stop) {
        auto r = (*db)->Near(*c, 2, q);
        if (!r.ok() && !r.status().IsNotFound()) ++bad;
        auto s = (*db)->Scan(*c, {}, 0);
        if (!s.ok() && !s.status().IsNotFound()) ++bad;
        if (s.ok() && s->size() < 50) ++bad;
      }
    });
    ts.emplace_back([&] {
      for (int64_t i = 100; !stop; ++i) {
        auto r = (*db)->Put(*c, Row(i));
        if (!r.ok() && !r.status().IsNotFound()) ++bad;
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_TRUE((*db)->DropCollection("c").ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    stop = true;
    for (auto& t : ts) t.join();
    EXPECT_EQ(bad.load(), 0u);
  }
  ASSERT_TRUE((*db)->Close().ok());
  db = Database::Open(dir.path(), Opts(Env::Default()));
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_TRUE((*db)->ListCollections().empty());
  EXPECT_TRUE(IndexFolders(dir.path()).empty());
}

class DropCrash : public ::testing::TestWithParam<Journals> {};

// Dropped, then a power cut: after the reopen the drop holds, the other
// collection is whole, and only its folders are left.
TEST_P(DropCrash, DropSurvivesCrashAndReopen) {
  const uint64_t seed = base::TestSeed();
  for (bool checkpoint : {false, true}) {
    base::ScratchDir dir;
    FaultEnv env;
    auto db = Database::Open(dir.path(), Opts(&env, GetParam()));
    ASSERT_TRUE(db.ok());
    auto a = (*db)->CreateCollection("a", Indexed());
    auto b = (*db)->CreateCollection("b", Indexed());
    ASSERT_TRUE(a.ok() && b.ok());
    for (int i = 0; i < 6; ++i) {
      ASSERT_TRUE((*db)->Put(*a, Row(i)).ok());
      ASSERT_TRUE((*db)->Put(*b, Row(i)).ok());
    }
    if (checkpoint) {
      ASSERT_TRUE((*db)->Checkpoint().ok());
    }
    ASSERT_TRUE((*db)->DropCollection("a").ok());
    auto a2 = (*db)->CreateCollection("a", Indexed());  // the name again: a new id
    ASSERT_TRUE(a2.ok());
    ASSERT_TRUE((*db)->Put(*a2, Row(9)).ok());
    env.Crash();
    db->reset();
    env.ApplyCrash(seed);

    db = Database::Open(dir.path(), Opts(&env, GetParam()));
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    auto fa = (*db)->FindCollection("a");
    auto fb = (*db)->FindCollection("b");
    ASSERT_TRUE(fa.ok() && fb.ok());
    EXPECT_EQ(fa->value, a2->value);
    EXPECT_EQ(*(*db)->Count(*fa), 1u);
    EXPECT_EQ(*(*db)->Count(*fb), 6u);
    auto u = (*db)->Scan(*fb, Filter().Where("email", CompareOp::kEq, Value("u3@example.com")), 0);
    ASSERT_TRUE(u.ok());
    EXPECT_EQ(u->size(), 1u);
    EXPECT_TRUE((*db)->Check().ok());
    EXPECT_FALSE(AnyFolderOf(dir.path(), a->value));
    EXPECT_EQ(IndexFolders(dir.path()).size(), 6u);
    // A checkpoint after the reopen no longer lists it; a further reopen agrees.
    ASSERT_TRUE((*db)->Close().ok());
    db = Database::Open(dir.path(), Opts(&env, GetParam()));
    ASSERT_TRUE(db.ok());
    EXPECT_EQ((*db)->ListCollections(), (std::vector<std::string>{"b", "a"}));
    EXPECT_EQ((*db)->GetStats().recovered_records, 0u);
  }
}

// The record durable, the folders not removed (every unlink and rmdir under
// Indexes/ fails), then a crash: the next open removes them.
TEST_P(DropCrash, FoldersLeftByTheDropGoAtTheNextOpen) {
  const uint64_t seed = base::TestSeed();
  base::ScratchDir dir;
  FaultEnv env;
  auto db = Database::Open(dir.path(), Opts(&env, GetParam()));
  ASSERT_TRUE(db.ok());
  auto a = (*db)->CreateCollection("a", Indexed());
  auto b = (*db)->CreateCollection("b", Indexed());
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE((*db)->Put(*a, Row(1)).ok());
  ASSERT_TRUE((*db)->Put(*b, Row(1)).ok());
  env.FailNth(FaultOp::kWrite, 1, EIO, "/Indexes/c", /*sticky=*/true);
  ASSERT_TRUE((*db)->DropCollection("a").ok()) << "the drop is durable; the folders are left for the next open";
  env.ClearFaults();
  EXPECT_TRUE(AnyFolderOf(dir.path(), a->value));
  EXPECT_TRUE((*db)->FindCollection("a").status().IsNotFound());
  env.Crash();
  db->reset();
  env.ApplyCrash(seed);
  db = Database::Open(dir.path(), Opts(&env, GetParam()));
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_TRUE((*db)->FindCollection("a").status().IsNotFound());
  EXPECT_FALSE(AnyFolderOf(dir.path(), a->value));
  EXPECT_EQ(IndexFolders(dir.path()).size(), 3u);
  auto fb = (*db)->FindCollection("b");
  ASSERT_TRUE(fb.ok());
  EXPECT_EQ(*(*db)->Count(*fb), 1u);
  EXPECT_TRUE((*db)->Check().ok());
}

// The drop's own journal write fails: fail-stopped, and the reopen finds
// the collection whole or gone, never half.
TEST_P(DropCrash, FailedDropRecordIsFailStop) {
  base::ScratchDir dir;
  FaultEnv env;
  auto db = Database::Open(dir.path(), Opts(&env, GetParam()));
  ASSERT_TRUE(db.ok());
  auto a = (*db)->CreateCollection("a", Indexed());
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE((*db)->Put(*a, Row(1)).ok());
  env.FailNth(FaultOp::kSync, 1, EIO, "/Journals/");
  Status s = (*db)->DropCollection("a");
  env.ClearFaults();
  EXPECT_EQ(s.code(), StatusCode::kFailStopped) << s.ToString();
  EXPECT_TRUE((*db)->GetStats().fail_stopped);
  db->reset();
  db = Database::Open(dir.path(), Opts(&env, GetParam()));
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto fa = (*db)->FindCollection("a");
  if (fa.ok()) {
    EXPECT_EQ(*(*db)->Count(*fa), 1u);
    EXPECT_EQ(IndexFolders(dir.path()).size(), 3u);
  } else {
    EXPECT_TRUE(IndexFolders(dir.path()).empty());
  }
  EXPECT_TRUE((*db)->Check().ok());
}

INSTANTIATE_TEST_SUITE_P(Modes, DropCrash, ::testing::Values(Journals::kShared, Journals::kSeparate),
                         [](const auto& info) { return info.param == Journals::kShared ? "Shared" : "Separate"; });

// 5 000 creates and drops: more than kMaxCollections ever, never more than
// one live. Buffered and index-free, so no fsync is made for them.
TEST(Drop, CreateDropFiveThousandTimesStaysUnderTheLimit) {
  base::ScratchDir dir;
  Options o = Opts(Env::Default());
  o.durability = Durability::kBuffered;
  auto db = Database::Open(dir.path(), o);
  ASSERT_TRUE(db.ok());
  Schema plain;
  plain.fields.push_back(Field::Int("n"));
  auto keep = (*db)->CreateCollection("keep", plain);
  ASSERT_TRUE(keep.ok());
  ASSERT_TRUE((*db)->Put(*keep, {Value(int64_t{1})}).ok());
  uint32_t last = 0;
  for (int i = 0; i < 5000; ++i) {
    auto c = (*db)->CreateCollection("t", plain);
    ASSERT_TRUE(c.ok()) << i << ": " << c.status().ToString();
    ASSERT_GT(c->value, last) << "ids are never given twice";
    if (i == 4999) {
      ASSERT_TRUE((*db)->Put(*c, {Value(int64_t{i})}).ok());
    }
    last = c->value;
    if (i < 4999) {
      ASSERT_TRUE((*db)->DropCollection("t").ok()) << i;
    }
  }
  EXPECT_EQ(last, 5001u) << "id 4096 was skipped: its slot is keep's (id 0)";
  EXPECT_EQ((*db)->ListCollections(), (std::vector<std::string>{"keep", "t"}));
  ASSERT_TRUE((*db)->Sync().ok());
  ASSERT_TRUE((*db)->Close().ok());

  db = Database::Open(dir.path(), o);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto t = (*db)->FindCollection("t");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->value, last);
  EXPECT_EQ(*(*db)->Count(*t), 1u);
  EXPECT_EQ(*(*db)->Count(*keep), 1u);
  auto next = (*db)->CreateCollection("u", plain);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->value, last + 1) << "the checkpoint kept the next id";
}

// Replayed without a checkpoint between: create, put, drop, create again.
TEST(Drop, ReplayedFromTheJournal) {
  base::ScratchDir dir;
  Options o = Opts(Env::Default());
  o.checkpoint_on_close = false;
  {
    auto db = Database::Open(dir.path(), o);
    ASSERT_TRUE(db.ok());
    for (int round = 0; round < 3; ++round) {
      auto c = (*db)->CreateCollection("c", Indexed());
      ASSERT_TRUE(c.ok());
      for (int i = 0; i <= round; ++i) ASSERT_TRUE((*db)->Put(*c, Row(i)).ok());
      if (round < 2) {
        ASSERT_TRUE((*db)->DropCollection("c").ok());
      }
    }
    ASSERT_TRUE((*db)->Close().ok());
  }
  auto db = Database::Open(dir.path(), o);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_GT((*db)->GetStats().recovered_records, 0u);
  auto c = (*db)->FindCollection("c");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->value, 2u);
  EXPECT_EQ(*(*db)->Count(*c), 3u);
  EXPECT_TRUE((*db)->Check().ok());
  EXPECT_EQ(IndexFolders(dir.path()).size(), 3u);
}

}  // namespace drop_test
}  // namespace fenec
