// CREATE COLLECTION is all or nothing: a failure injected at
// every Env call the create makes, and at its linker threads' start, leaves
// either the whole collection or none of it - before and after a reopen,
// clean or after a simulated power cut - and never costs a write made before.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cerrno>
#include <filesystem>
#include <random>
#include <set>

#include "engine/src/base/testing.h"
#include "engine/src/db/vector_field.h"
#include "engine/src/io/fault_env.h"
#include "fenec/database.h"

namespace fenec {
namespace create_fault_test {

namespace fs = std::filesystem;

// A @unique, a @text and an @hnsw field: three branch storages and a linker.
Schema Indexed() {
  Schema s;
  s.fields.push_back(Field::Text("email").Unique());
  s.fields.push_back(Field::Text("body").TextIndexed());
  s.fields.push_back(Field::Vector("v", 4).Hnsw());
  s.fields.push_back(Field::Int("n"));
  return s;
}

// The collection made before: one @unique field, one branch.
Schema Plain() {
  Schema s;
  s.fields.push_back(Field::Text("email").Unique());
  s.fields.push_back(Field::Int("n"));
  return s;
}

Document PlainRow(int64_t n) { return {Value(fmt::format("u{}@example.com", n)), Value(n)}; }

void ExpectRows(Database* db, CollectionId c, int64_t rows, const std::string& what) {
  auto n = db->Count(c);
  ASSERT_TRUE(n.ok()) << what;
  EXPECT_EQ(*n, uint64_t(rows)) << what;
  for (int64_t i = 0; i < rows; ++i) {
    auto hit = db->Scan(c, Filter().Where("email", CompareOp::kEq, Value(fmt::format("u{}@example.com", i))), 0);
    ASSERT_TRUE(hit.ok()) << what;
    EXPECT_EQ(hit->size(), 1u) << what << ": row " << i;
  }
}

Document Row(int64_t n) {
  Document d;
  d.emplace_back(fmt::format("u{}@example.com", n));
  d.emplace_back(fmt::format("word{} common", n));
  d.emplace_back(std::vector<float>{float(n), 1, 2, 3});
  d.emplace_back(n);
  return d;
}

Options Opts(Env* env, Journals mode) {
  Options o;
  o.env = env;
  o.journals = mode;
  return o;
}

// The branch folders under Indexes/ (not the link probe).
std::set<std::string> IndexFolders(const std::string& db) {
  std::set<std::string> out;
  if (!fs::exists(db + "/Indexes")) return out;
  for (const auto& e : fs::directory_iterator(db + "/Indexes"))
    if (e.is_directory()) out.insert(e.path().filename().string());
  return out;
}

// The collection is whole: its rows, its @unique and @text lookups, a NEAR.
void ExpectWhole(Database* db, CollectionId c, int64_t rows, const std::string& what) {
  auto n = db->Count(c);
  ASSERT_TRUE(n.ok()) << what;
  EXPECT_EQ(*n, uint64_t(rows)) << what;
  for (int64_t i = 0; i < rows; ++i) {
    auto hit = db->Scan(c, Filter().Where("email", CompareOp::kEq, Value(fmt::format("u{}@example.com", i))), 0);
    ASSERT_TRUE(hit.ok()) << what;
    ASSERT_EQ(hit->size(), 1u) << what << ": @unique lookup of row " << i;
    auto text = db->Scan(c, Filter().Where("body", CompareOp::kContains, Value(fmt::format("word{}", i))), 0);
    ASSERT_TRUE(text.ok()) << what;
    EXPECT_EQ(text->size(), 1u) << what << ": @text lookup of row " << i;
  }
  if (rows > 0) {
    std::vector<float> q{0, 1, 2, 3};
    auto near = db->Near(c, "v", q, NearOptions{});
    ASSERT_TRUE(near.ok()) << what << ": " << near.status().ToString();
    ASSERT_FALSE(near->empty()) << what;
    EXPECT_EQ((*near)[0].doc[3].int_value(), 0) << what;
  }
  EXPECT_TRUE(db->Put(c, Row(1000)).ok()) << what << ": a put after";
  if (rows > 0) {
    EXPECT_TRUE(db->Put(c, Row(0)).status().IsConstraint()) << what << ": @unique still holds";
  }
  EXPECT_TRUE(db->Check().ok()) << what;
}

// One run: a database with a collection "before" (3 rows), then "c" created
// with the fault armed; then checks, a reopen (crash or clean), checks.
// Returns whether the fault fired (false: the create made fewer calls).
bool RunOnce(Journals mode, FaultOp op, uint64_t n, int err, bool crash, uint64_t seed) {
  const std::string what = fmt::format("op {} call {} errno {} crash {}", int(op), n, err, crash);
  base::ScratchDir dir;
  FaultEnv env;
  auto db = Database::Open(dir.path(), Opts(&env, mode));
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  auto before = (*db)->CreateCollection("before", Plain());
  EXPECT_TRUE(before.ok());
  for (int64_t i = 0; i < 3; ++i) EXPECT_TRUE((*db)->Put(*before, PlainRow(i)).ok());

  const uint64_t fired_before = env.faults_fired();
  env.FailNth(op, n, err);
  auto c = (*db)->CreateCollection("c", Indexed());
  const bool fired = env.faults_fired() > fired_before;
  env.ClearFaults();

  // false: "c" certainly absent; true: certainly there with c_rows rows;
  // unknown when the create's journal write failed (fail-stopped).
  enum { kAbsent, kPresent, kEither } expect = kAbsent;
  int64_t c_rows = 0;
  const bool stopped = (*db)->GetStats().fail_stopped;
  if (c.ok()) {
    expect = kPresent;
    EXPECT_TRUE((*db)->Put(*c, Row(0)).ok()) << what;
    c_rows = 1;
  } else if (stopped) {
    expect = kEither;  // the create's own journal record failed: the reopen decides
    EXPECT_EQ(c.status().code(), StatusCode::kFailStopped) << what << ": " << c.status().ToString();
  } else {
    EXPECT_TRUE((*db)->FindCollection("c").status().IsNotFound()) << what << ": " << c.status().ToString();
    EXPECT_EQ((*db)->ListCollections(), std::vector<std::string>{"before"}) << what;
    // The database goes on: a put elsewhere, and the name taken again.
    EXPECT_TRUE((*db)->Put(*before, PlainRow(3)).ok()) << what;
    auto again = (*db)->CreateCollection("c", Indexed());
    EXPECT_TRUE(again.ok()) << what << ": " << again.status().ToString();
    if (again.ok()) {
      EXPECT_TRUE((*db)->Put(*again, Row(0)).ok()) << what;
      expect = kPresent;
      c_rows = 1;
    }
  }
  const int64_t before_rows = stopped ? 3 : (c.ok() ? 3 : 4);
  if (crash) env.Crash();
  db->reset();
  if (crash) env.ApplyCrash(seed);

  db = Database::Open(dir.path(), Opts(&env, mode));
  EXPECT_TRUE(db.ok()) << what << ": " << db.status().ToString();
  if (!db.ok()) return fired;
  auto b = (*db)->FindCollection("before");
  EXPECT_TRUE(b.ok()) << what;
  if (b.ok()) ExpectRows(db->get(), *b, before_rows, what + " (before)");
  auto c2 = (*db)->FindCollection("c");
  if (expect == kAbsent) {
    EXPECT_TRUE(c2.status().IsNotFound()) << what;
  }
  if (expect == kPresent) {
    EXPECT_TRUE(c2.ok()) << what;
  }
  if (c2.ok()) ExpectWhole(db->get(), *c2, expect == kPresent ? c_rows : 0, what + " (c)");
  // Only live collections own folders: what a failed create left was removed.
  EXPECT_EQ(IndexFolders(dir.path()).size(), c2.ok() ? 4u : 1u) << what;
  EXPECT_TRUE((*db)->Close().ok()) << what;
  return fired;
}

class CreateFault : public ::testing::TestWithParam<Journals> {};

TEST_P(CreateFault, EveryEnvCallFailedLeavesAllOrNothing) {
  const uint64_t seed = base::TestSeed();
  std::mt19937_64 rng(seed);
  uint64_t runs = 0;
  std::string calls;
  for (FaultOp op : {FaultOp::kWrite, FaultOp::kSync, FaultOp::kSyncDir, FaultOp::kOpen}) {
    uint64_t n = 1;
    for (;; ++n) {
      const int err = n % 2 ? EIO : ENOSPC;
      const bool crash = n % 3 == 0;
      bool fired = RunOnce(GetParam(), op, n, err, crash, rng());
      if (HasFatalFailure()) return;
      if (!fired) break;
      ++runs;
      ASSERT_LT(n, 200u) << "the create never stops making calls";
    }
    calls += fmt::format(" {}", n - 1);
  }
  std::fprintf(stderr, "calls failed (write, sync, dir sync, open):%s\n", calls.c_str());
  // Each kind of call is made: folders, files, syncs, directory syncs.
  EXPECT_GE(runs, 12u);
}

TEST_P(CreateFault, LinkerThatCannotStartLeavesNothing) {
  base::ScratchDir dir;
  Schema two = Indexed();
  two.fields.push_back(Field::Vector("w", 4).Hnsw());
  FaultEnv env;
  for (uint64_t nth : {1, 2}) {
    auto db = Database::Open(dir.path(), Opts(&env, GetParam()));
    ASSERT_TRUE(db.ok());
    VectorField::FailNthLinkerStartForTest(nth);
    auto c = (*db)->CreateCollection("c", two);
    VectorField::FailNthLinkerStartForTest(0);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().code(), StatusCode::kIOError) << c.status().ToString();
    EXPECT_EQ(c.status().err(), EAGAIN);
    EXPECT_FALSE((*db)->GetStats().fail_stopped) << "nothing irrevocable happened";
    EXPECT_TRUE((*db)->FindCollection("c").status().IsNotFound());
    EXPECT_TRUE(IndexFolders(dir.path()).empty()) << "its branch folders were removed";
    EXPECT_EQ((*db)->GetStats().vector_indexes, 0u);
    // A power cut now: the reopen finds no trace of it either.
    env.Crash();
    db->reset();
    env.ApplyCrash(nth);
    db = Database::Open(dir.path(), Opts(&env, GetParam()));
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    EXPECT_TRUE((*db)->ListCollections().empty());
    EXPECT_TRUE(IndexFolders(dir.path()).empty());
    auto again = (*db)->CreateCollection("c", two);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    Document d = Row(0);
    d.emplace_back(std::vector<float>{0, 0, 0, 1});
    EXPECT_TRUE((*db)->Put(*again, std::move(d)).ok());
    EXPECT_EQ((*db)->GetStats().vector_indexes, 2u);
    ASSERT_TRUE((*db)->DropCollection("c").ok());
    ASSERT_TRUE((*db)->Close().ok());
  }
}

// An Env whose removals under Indexes/ fail while `refuse` is set.
class NoRemoveEnv final : public EnvWrapper {
 public:
  NoRemoveEnv() : EnvWrapper(Env::Default()) {}
  Status DeleteFile(const std::string& path) override {
    if (refuse && path.find("/Indexes/c") != std::string::npos) return Status::IOError("unlink", path, EIO);
    return EnvWrapper::DeleteFile(path);
  }
  Status DeleteDir(const std::string& path) override {
    if (refuse && path.find("/Indexes/c") != std::string::npos) return Status::IOError("rmdir", path, EIO);
    return EnvWrapper::DeleteDir(path);
  }
  bool refuse = false;
};

// A failed create whose cleanup fails too: its folders stay, harmless (its
// id is never given again), and the next open removes them.
TEST(CreateFaultCleanup, FoldersACleanupLeftGoAtTheNextOpen) {
  base::ScratchDir dir;
  NoRemoveEnv env;
  auto db = Database::Open(dir.path(), Opts(&env, Journals::kShared));
  ASSERT_TRUE(db.ok());
  env.refuse = true;
  VectorField::FailNthLinkerStartForTest(1);
  auto c = (*db)->CreateCollection("c", Indexed());
  VectorField::FailNthLinkerStartForTest(0);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(IndexFolders(dir.path()).size(), 3u) << "the cleanup could not remove them";
  auto again = (*db)->CreateCollection("c", Indexed());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->value, 1u) << "the failed create's id 0 is not given again";
  ASSERT_TRUE((*db)->Put(*again, Row(0)).ok());
  EXPECT_EQ(IndexFolders(dir.path()).size(), 6u);
  ASSERT_TRUE((*db)->Close().ok());
  env.refuse = false;
  db = Database::Open(dir.path(), Opts(&env, Journals::kShared));
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  std::set<std::string> left = IndexFolders(dir.path());
  EXPECT_EQ(left.size(), 3u);
  for (const auto& f : left) EXPECT_EQ(f.rfind("c1.", 0), 0u) << f;
  auto found = (*db)->FindCollection("c");
  ASSERT_TRUE(found.ok());
  ExpectWhole(db->get(), *found, 1, "after the reopen");
}

// The first indexed collection probes for hard links; an EIO there says
// nothing about links, so the create fails alone and the next one decides.
TEST(CreateFaultProbe, FailedLinkProbeLeavesJournalsUndecided) {
  base::ScratchDir dir;
  FaultEnv env;
  auto db = Database::Open(dir.path(), Opts(&env, Journals::kShared));
  ASSERT_TRUE(db.ok());
  env.FailNth(FaultOp::kOpen, 1, EIO, ".link-probe");
  auto c = (*db)->CreateCollection("c", Indexed());
  env.ClearFaults();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kIOError) << c.status().ToString();
  EXPECT_FALSE((*db)->GetStats().fail_stopped);
  EXPECT_FALSE((*db)->GetStats().journals_shared);
  auto again = (*db)->CreateCollection("c", Indexed());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE((*db)->GetStats().journals_shared) << "not fallen back to separate journals for an EIO";
  ASSERT_TRUE((*db)->Put(*again, Row(0)).ok());
  EXPECT_EQ(IndexFolders(dir.path()).size(), 3u);
}

INSTANTIATE_TEST_SUITE_P(Modes, CreateFault, ::testing::Values(Journals::kShared, Journals::kSeparate),
                         [](const auto& info) { return info.param == Journals::kShared ? "Shared" : "Separate"; });

}  // namespace create_fault_test
}  // namespace fenec
