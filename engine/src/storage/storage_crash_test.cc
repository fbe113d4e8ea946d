// Storage under crashes: seeded FaultEnv power cuts during a checkpoint and
// during creation (see storage_test.cc for what the storage tests prove).
#include "engine/src/storage/storage_test_util.h"

namespace fenec {
namespace storage_crash_test {
using namespace storage_testing;  // storage_test_util.h

// Its own suite name, so these tests are told apart from storage_test.cc's;
// the fixture is the header's (storage_testing), shared by both files.
class StorageCrashTest : public StorageTest {};

TEST_F(StorageCrashTest, CrashDuringCheckpointFindsOldOrNewCheckpointWhole) {
  const uint64_t seed = base::TestSeed();
  std::mt19937_64 rng(seed);
  // Where the power goes. A failed call is followed by the cut, as on a
  // dying machine. kSlotSyncFails leaves the new superblock unsynced, so
  // ApplyCrash keeps, drops or garbles its sector: the torn-superblock case,
  // drawn three times as often as the others.
  enum Cut { kBeforeRows, kRowWriteFails, kCatalogWriteFails, kCatalogSyncFails, kSlotWriteFails, kSlotSyncFails,
             kAfterCommit };
  constexpr Cut kPlan[] = {kBeforeRows,     kRowWriteFails, kCatalogWriteFails, kCatalogSyncFails, kSlotWriteFails,
                           kSlotSyncFails, kSlotSyncFails, kSlotSyncFails,     kAfterCommit};
  constexpr int kRounds = 200;
  const std::string data = "data.fdb";
  FaultEnv env;
  std::unique_ptr<Storage> s;
  ASSERT_OK(OpenStorage(&env, Folder(), true, &s));
  Ckpt cur = Fresh();
  std::vector<Ckpt> survived;
  int old_count = 0, new_count = 0, torn_old = 0, torn_new = 0;
  for (int round = 0; round < kRounds; ++round) {
    const Cut cut = kPlan[rng() % std::size(kPlan)];
    SCOPED_TRACE(fmt::format("round {}, cut {}, seed {}", round, static_cast<int>(cut), seed));
    Bytes rows = Blob(rng, rng() % 6000);
    Bytes catalog = Blob(rng, 1 + rng() % 2000);
    const uint64_t lsn = cur.lsn + 1 + rng() % 100;
    switch (cut) {
      case kBeforeRows: env.Crash(); break;
      case kRowWriteFails: env.FailNth(FaultOp::kWrite, 1, EIO, data); break;
      case kCatalogWriteFails: env.FailNth(FaultOp::kWrite, 2, EIO, data); break;
      case kCatalogSyncFails: env.FailNth(FaultOp::kSync, 1, EIO, data); break;
      case kSlotWriteFails: env.FailNth(FaultOp::kWrite, 3, EIO, data); break;
      case kSlotSyncFails: env.FailNth(FaultOp::kSync, 2, EIO, data); break;
      case kAfterCommit: break;
    }
    Ckpt next;
    Status st = Commit(s.get(), lsn, std::move(rows), std::move(catalog), &next);
    EXPECT_EQ(st.ok(), cut == kAfterCommit) << st.ToString();
    env.Crash();
    s.reset();
    env.ClearFaults();
    env.ApplyCrash(rng());
    ASSERT_OK(OpenStorage(&env, Folder(), false, &s));
    const bool is_new = s->superblock().seq == next.seq;
    ExpectAt(*s, is_new ? next : cur);
    if (cut < kSlotSyncFails) {
      EXPECT_FALSE(is_new) << "the new superblock never reached the file whole";
    } else if (cut == kAfterCommit) {
      EXPECT_TRUE(is_new) << "a committed checkpoint was lost";
    }
    if (HasFailure()) return;
    (is_new ? new_count : old_count)++;
    if (cut == kSlotSyncFails) (is_new ? torn_new : torn_old)++;
    if (is_new) {
      cur = next;
      survived.push_back(next);
    }
  }
  fmt::print(stderr, "{} power cuts: {} found the old checkpoint, {} the new one; torn superblock: {} old, {} new\n",
             kRounds, old_count, new_count, torn_old, torn_new);
  EXPECT_EQ(old_count + new_count, kRounds);
  EXPECT_GT(old_count, 0);
  EXPECT_GT(new_count, 0);
  EXPECT_GT(torn_old, 0) << "no torn superblock fell back";
  EXPECT_GT(torn_new, 0) << "no unsynced superblock survived";
  // The data region is append-only: every checkpoint that survived still holds its rows and catalog.
  for (const Ckpt& c : survived) {
    EXPECT_TRUE(Mapped(*s, c.rows_at, c.rows.size()) == c.rows) << "rows of checkpoint " << c.seq;
    EXPECT_TRUE(Mapped(*s, c.catalog_at, c.catalog.size()) == c.catalog) << "catalog of checkpoint " << c.seq;
  }
}

TEST_F(StorageCrashTest, LeftoverTmpWithoutDataFileIsNoDatabase) {
  Env* env = Env::Default();
  // What a crash during creation may leave: the folder, Journals/, and a
  // data.fdb.tmp never synced or renamed (here junk longer than a fresh file).
  const std::string tmp = DataFile() + ".tmp";
  ASSERT_OK(env->CreateDir(Folder()));
  ASSERT_OK(env->CreateDir(Folder() + "/Journals"));
  WriteFile(tmp, 0, Pattern(0xee, 3 * kSlot));
  std::unique_ptr<Storage> s;
  Status st = OpenStorage(env, Folder(), false, &s);
  EXPECT_EQ(st.code(), StatusCode::kNotFound) << st.ToString();
  EXPECT_FALSE(env->Exists(DataFile()));
  ASSERT_OK(OpenStorage(env, Folder(), true, &s, kId, /*error_if_exists=*/true));
  EXPECT_TRUE(s->created());
  ExpectAt(*s, Fresh());
  EXPECT_FALSE(env->Exists(tmp)) << "renamed into data.fdb";
  EXPECT_EQ(FileSize(DataFile()), kDataStart) << "nothing of the leftover's bytes is kept";
  s.reset();
  ASSERT_OK(OpenStorage(env, Folder(), false, &s));
  ExpectAt(*s, Fresh());
}

TEST_F(StorageCrashTest, CrashDuringCreationLeavesNoDatabaseOrAWholeOne) {
  const uint64_t seed = base::TestSeed();
  std::mt19937_64 rng(seed);
  enum Outcome { kNone, kWhole, kEither };
  // Open's steps on a new folder, in order, each failed and followed by a power cut.
  struct Step {
    const char* what;
    FaultOp op;
    uint64_t nth;  // 0: no fault, the cut comes after Open returned
    Outcome expect;
  };
  const Step kSteps[] = {
      {"mkdir folder", FaultOp::kWrite, 1, kNone},
      {"fsync parent", FaultOp::kSyncDir, 1, kNone},
      {"mkdir Journals", FaultOp::kWrite, 2, kNone},
      {"open data.fdb.tmp", FaultOp::kOpen, 1, kNone},
      {"truncate data.fdb.tmp", FaultOp::kWrite, 3, kNone},
      {"write the superblock", FaultOp::kWrite, 4, kNone},
      {"fdatasync data.fdb.tmp", FaultOp::kSync, 1, kNone},
      {"rename to data.fdb", FaultOp::kWrite, 5, kNone},
      {"fsync folder", FaultOp::kSyncDir, 2, kEither},  // the rename may not survive
      {"Load's mkdir Journals", FaultOp::kWrite, 6, kWhole},
      {"none", FaultOp::kWrite, 0, kWhole},
  };
  FaultEnv env;
  int runs = 0, none = 0, whole = 0;
  for (const Step& step : kSteps) {
    for (int i = 0; i < 6; ++i) {
      SCOPED_TRACE(fmt::format("{}, run {}, seed {}", step.what, runs, seed));
      const std::string folder = Folder(fmt::format("c{}", runs++));
      if (step.nth > 0) env.FailNth(step.op, step.nth, EIO);
      const uint64_t fired = env.faults_fired();
      std::unique_ptr<Storage> s;
      Status st = OpenStorage(&env, folder, true, &s);
      EXPECT_EQ(st.ok(), step.nth == 0) << st.ToString();
      EXPECT_EQ(env.faults_fired(), fired + (step.nth > 0 ? 1 : 0)) << "the fault hit the step it names";
      env.Crash();
      s.reset();
      env.ClearFaults();
      env.ApplyCrash(rng());
      st = OpenStorage(&env, folder, false, &s, kId + 1);
      const bool found = st.code() != StatusCode::kNotFound;
      if (found) {
        ASSERT_OK(st);
        ExpectAt(*s, Fresh());  // whole: kId, seq 0
        ++whole;
      } else {
        EXPECT_FALSE(env.Exists(folder + "/data.fdb"));
        ++none;
      }
      if (step.expect != kEither) {
        EXPECT_EQ(found, step.expect == kWhole);
      }
      s.reset();
      // Either way the folder opens with create_if_missing: the whole database, or a fresh one.
      ASSERT_OK(OpenStorage(&env, folder, true, &s, kId));
      EXPECT_EQ(s->created(), !found);
      ExpectAt(*s, Fresh());
      EXPECT_FALSE(env.Exists(folder + "/data.fdb.tmp"));
      if (HasFailure()) return;
    }
  }
  fmt::print(stderr, "{} crashes during creation: {} left no database, {} a whole one\n", runs, none, whole);
  EXPECT_EQ(none + whole, runs);
  EXPECT_GT(none, 0);
  EXPECT_GT(whole, 0);
}

// --- journals and counters --------------------------------------------------------

}  // namespace storage_crash_test
}  // namespace fenec
