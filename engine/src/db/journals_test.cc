// JR-1: shared hard-linked journals, counted and crashed.
//
// Counts, not times: with 8 branches, one durable put is one vectored
// journal write and one fdatasync in shared mode (plus directory fsyncs
// when a link is made), and nine of each with separate journals. Crashes:
// after a FaultEnv power cut the root and every branch, each recovered from
// its own folder, hold every acknowledged put; a copied folder and a lone
// branch recover; a branch that is gone leaves the root's recovery alone.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <random>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>

#include "engine/src/db/branch.h"
#include "engine/src/db/row.h"
#include "fenec/database.h"
#include "engine/src/io/fault_env.h"
#include "engine/src/base/testing.h"

namespace fenec {
namespace journals_test {

namespace fs = std::filesystem;

// 6 @unique ints and 2 @text texts: 8 branches.
Schema EightIndexes() {
  Schema s;
  for (int k = 0; k < 6; ++k) s.fields.push_back(Field::Int("k" + std::to_string(k)).Unique());
  for (int k = 0; k < 2; ++k) s.fields.push_back(Field::Text("t" + std::to_string(k)).TextIndexed());
  s.fields.push_back(Field::Int("n"));
  return s;
}

Document Doc(int64_t n) {
  // Built in place: pushing temporaries made GCC 12 warn (-Wmaybe-uninitialized,
  // a false positive inside std::variant's move) in every build of this file.
  Document d;
  d.reserve(9);
  for (int k = 0; k < 6; ++k) d.emplace_back(n * 8 + k);
  for (int k = 0; k < 2; ++k) d.emplace_back(fmt::format("alpha{} beta{} common", n, k));
  d.emplace_back(n);
  return d;
}

Options Opts(Env* env, Journals mode) {
  Options o;
  o.env = env;
  o.journals = mode;
  return o;
}

struct Delta {
  uint64_t writes, syncs, dir_syncs;
};
Delta Since(const EnvCounters& a, const EnvCounters& b) { return {b.writes - a.writes, b.syncs - a.syncs, b.dir_syncs - a.dir_syncs}; }

// One put after a warm-up one (which makes the links): what reached the disk.
Delta OnePut(Journals mode, Stats* stats) {
  base::ScratchDir dir;
  Env* env = Env::Default();
  auto db = Database::Open(dir.path(), Opts(env, mode));
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  auto c = (*db)->CreateCollection("c", EightIndexes());
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE((*db)->Put(*c, Doc(0)).ok());
  EnvCounters before = env->counters();
  EXPECT_TRUE((*db)->Put(*c, Doc(1)).ok());
  Delta d = Since(before, env->counters());
  *stats = (*db)->GetStats();
  return d;
}

TEST(Journals, SharedPutIsOneWriteAndOneFsync) {
  Stats st;
  Delta d = OnePut(Journals::kShared, &st);
  EXPECT_TRUE(st.journals_shared);
  EXPECT_EQ(st.branches, 8u);
  EXPECT_EQ(d.writes, 1u) << "one vectored write for the root's and 8 branches' records";
  EXPECT_LE(d.syncs, 1u);
  EXPECT_EQ(d.dir_syncs, 0u) << "the file was linked by the first put";
  EXPECT_EQ(st.journal_links, 8u) << "each branch linked the journal file once";
  EXPECT_EQ(st.branch_journal_writes, 0u);
}

TEST(Journals, SeparatePutIsNineWritesAndNineFsyncs) {
  Stats st;
  Delta d = OnePut(Journals::kSeparate, &st);
  EXPECT_FALSE(st.journals_shared);
  EXPECT_EQ(d.writes, 9u);
  EXPECT_EQ(d.syncs, 9u);
  EXPECT_EQ(st.journal_links, 0u);
}

// An Env on which hard links fail, as across volumes.
class NoLinkEnv final : public EnvWrapper {
 public:
  NoLinkEnv() : EnvWrapper(Env::Default()) {}
  Status Link(const std::string&, const std::string&) override { return Status::NotSupported("no hard links here"); }
};

TEST(Journals, WithoutHardLinksFallsBackToSeparate) {
  base::ScratchDir dir;
  NoLinkEnv env;
  auto db = Database::Open(dir.path(), Opts(&env, Journals::kShared));
  ASSERT_TRUE(db.ok());
  auto c = (*db)->CreateCollection("c", EightIndexes());
  ASSERT_TRUE(c.ok());
  EnvCounters before = env.counters();
  ASSERT_TRUE((*db)->Put(*c, Doc(1)).ok());
  Delta d = Since(before, env.counters());
  EXPECT_FALSE((*db)->GetStats().journals_shared);
  EXPECT_EQ(d.writes, 9u);
  ASSERT_TRUE((*db)->Close().ok());
  db = Database::Open(dir.path(), Opts(&env, Journals::kShared));
  ASSERT_TRUE(db.ok());
  EXPECT_EQ((*db)->GetStats().branches_recovered, 8u);
}

// Every acknowledged n: its document by id, and each index answering for it.
void VerifyDb(Database* db, CollectionId c, const std::vector<std::pair<uint64_t, int64_t>>& acks) {
  for (auto [id, n] : acks) {
    auto got = db->Get(c, id);
    ASSERT_TRUE(got.ok()) << "acknowledged put " << id << " lost";
    ASSERT_EQ(*got, Doc(n));
    for (int k = 0; k < 6; ++k) {
      auto r = db->Scan(c, Filter().Where("k" + std::to_string(k), CompareOp::kEq, Value(n * 8 + k)), 0);
      ASSERT_TRUE(r.ok());
      ASSERT_EQ(r->size(), 1u) << "@unique k" << k << " lost put " << id;
      ASSERT_EQ(r->at(0).id, id);
    }
    for (int k = 0; k < 2; ++k) {
      auto r = db->Scan(c, Filter().Where("t" + std::to_string(k), CompareOp::kContains, Value(fmt::format("alpha{}", n))), 0);
      ASSERT_TRUE(r.ok());
      ASSERT_EQ(r->size(), 1u) << "@text t" << k << " lost put " << id;
    }
  }
  ASSERT_TRUE(db->Check().ok()) << db->Check().ToString();
}

// Each branch opened alone holds every acknowledged put's value.
void VerifyBranchesAlone(Env* env, const std::string& root, const std::vector<std::pair<uint64_t, int64_t>>& acks) {
  Schema schema = EightIndexes();
  for (int f = 0; f < 8; ++f) {
    FieldIndexes::BranchField b{f, f >= 6};
    BranchState st;
    Status s = OpenBranchAlone(env, BranchFolder(root, 0, b), &st);
    ASSERT_TRUE(s.ok()) << s.ToString();
    for (auto [id, n] : acks) {
      Document d = Doc(n);
      std::string want = b.text ? d[f].text() : UniqueKey(d[f]);
      ASSERT_TRUE(id < st.present.size() && st.present[id]) << "branch " << f << " alone lacks put " << id;
      ASSERT_EQ(st.values[id], want);
    }
  }
}

TEST(Journals, SharedCrashRecoversRootAndEveryBranch) {
  const uint64_t seed = base::TestSeed();
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 4; ++round) {
    base::ScratchDir dir;
    FaultEnv env;
    std::vector<std::pair<uint64_t, int64_t>> acks;
    {
      auto db = Database::Open(dir.path(), Opts(&env, Journals::kShared));
      ASSERT_TRUE(db.ok());
      auto c = (*db)->CreateCollection("c", EightIndexes());
      ASSERT_TRUE(c.ok());
      const size_t crash_at = 40 + rng() % 200;
      std::mutex mu;
      std::atomic<int64_t> next{0};
      std::vector<std::thread> writers;
      for (int w = 0; w < 4; ++w) {
        writers.emplace_back([&] {
          for (int64_t n; (n = next.fetch_add(1)) < 2000;) {
            auto id = (*db)->Put(*c, Doc(n));
            if (!id.ok()) return;
            std::lock_guard lock(mu);
            acks.emplace_back(*id, n);
            if (acks.size() == crash_at) env.Crash();
          }
        });
      }
      for (auto& t : writers) t.join();
    }
    env.ApplyCrash(seed + round);
    VerifyBranchesAlone(&env, dir.path(), acks);
    auto db = Database::Open(dir.path(), Opts(&env, Journals::kShared));
    ASSERT_TRUE(db.ok()) << db.status().ToString() << " (seed " << seed << ")";
    VerifyDb(db->get(), *(*db)->FindCollection("c"), acks);
    Stats st = (*db)->GetStats();
    EXPECT_EQ(st.branches_recovered + st.branches_rebuilt, 8u);
  }
}

TEST(Journals, CopiedFolderAndLoneBranchRecover) {
  base::ScratchDir dir;
  const std::string a = dir.path() + "/a", b = dir.path() + "/b";
  std::vector<std::pair<uint64_t, int64_t>> acks;
  {
    Options o = Opts(Env::Default(), Journals::kShared);
    o.checkpoint_on_close = false;  // leave the records in the shared journal
    auto db = Database::Open(a, o);
    auto c = (*db)->CreateCollection("c", EightIndexes());
    for (int64_t n = 0; n < 50; ++n) acks.emplace_back(*(*db)->Put(*c, Doc(n)), n);
    ASSERT_TRUE((*db)->Close().ok());
  }
  // The branch's journal is the root's file under another name: one inode.
  const std::string branch = BranchFolder(a, 0, {0, false});
  std::vector<std::string> names;
  ASSERT_TRUE(Env::Default()->ListDir(branch + "/Journals", &names).ok());
  ASSERT_EQ(names.size(), 1u);
  EXPECT_GE(fs::hard_link_count(branch + "/Journals/" + names[0]), 9u);
  VerifyBranchesAlone(Env::Default(), a, acks);

  fs::copy(a, b, fs::copy_options::recursive);  // links become copies
  EXPECT_EQ(fs::hard_link_count(BranchFolder(b, 0, {0, false}) + "/Journals/" + names[0]), 1u);
  for (const std::string& root : {a, b}) {
    auto db = Database::Open(root, Opts(Env::Default(), Journals::kShared));
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    EXPECT_EQ((*db)->GetStats().branches_recovered, 8u);
    CollectionId c = *(*db)->FindCollection("c");
    VerifyDb(db->get(), c, acks);
    // The next commit links a new file into every branch.
    auto more = acks;
    more.emplace_back(*(*db)->Put(c, Doc(1000)), 1000);
    ASSERT_TRUE((*db)->Close().ok());
    auto again = Database::Open(root, Opts(Env::Default(), Journals::kShared));
    VerifyDb(again->get(), c, more);
  }
}

// Each storage drops its own names for files its checkpoint covers, with no
// coordination: the shared file goes when its last name does.
TEST(Journals, CheckpointsDropOldLinksStorageByStorage) {
  base::ScratchDir dir;
  auto db = Database::Open(dir.path(), Opts(Env::Default(), Journals::kShared));
  ASSERT_TRUE(db.ok());
  auto c = (*db)->CreateCollection("c", EightIndexes());
  for (int round = 0; round < 3; ++round) {
    for (int64_t n = 0; n < 10; ++n) ASSERT_TRUE((*db)->Put(*c, Doc(round * 100 + n)).ok());
    ASSERT_TRUE((*db)->Checkpoint().ok());
  }
  auto names = [](const std::string& d) {
    std::vector<std::string> v;
    EXPECT_TRUE(Env::Default()->ListDir(d, &v).ok());
    return v;
  };
  std::vector<std::string> root = names(dir.path() + "/Journals");
  // Each checkpoint rotates and deletes the files before the current one.
  ASSERT_EQ(root.size(), 1u) << "the root kept only the current file";
  for (int f = 0; f < 8; ++f) {
    std::string j = BranchFolder(dir.path(), 0, {f, f >= 6}) + "/Journals";
    ASSERT_EQ(names(j).size(), 1u) << "branch " << f << " kept only its name for the current file";
  }
  EXPECT_EQ(fs::hard_link_count(dir.path() + "/Journals/" + root[0]), 9u) << "root + 8 branches, one inode";
  EXPECT_EQ((*db)->GetStats().journal_links, 8u * 3) << "each branch linked each of the 3 files once";
}

TEST(Journals, GoneBranchLeavesRootRecoveryAlone) {
  base::ScratchDir dir;
  std::vector<std::pair<uint64_t, int64_t>> acks;
  Options o = Opts(Env::Default(), Journals::kShared);
  o.checkpoint_on_close = false;
  {
    auto db = Database::Open(dir.path(), o);
    auto c = (*db)->CreateCollection("c", EightIndexes());
    for (int64_t n = 0; n < 30; ++n) acks.emplace_back(*(*db)->Put(*c, Doc(n)), n);
    ASSERT_TRUE((*db)->Close().ok());
  }
  fs::remove_all(BranchFolder(dir.path(), 0, {3, false}));            // a branch gone whole
  fs::remove_all(BranchFolder(dir.path(), 0, {6, true}) + "/Journals");  // one lost its links
  auto db = Database::Open(dir.path(), o);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  Stats st = (*db)->GetStats();
  EXPECT_EQ(st.branches_rebuilt, 2u);
  EXPECT_EQ(st.branches_recovered, 6u);
  EXPECT_EQ(st.recovered_records, 31u) << "the root replayed its own journal in full";
  VerifyDb(db->get(), *(*db)->FindCollection("c"), acks);
}

}  // namespace journals_test
}  // namespace fenec
