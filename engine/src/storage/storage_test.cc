// Storage (engine/src/storage): what a database folder's data file promises.
//
// Proves: a created folder reopens with its storage_id and superblock as
// written; each checkpoint raises seq, writes the slot the older superblock
// occupies and its catalog round-trips; a garbled, zeroed, bit-flipped or
// truncated newer slot falls back to the previous checkpoint whole, while two
// bad slots or a bad catalog are kCorruption, never garbage; over many seeded
// FaultEnv power cuts during a checkpoint a reopen finds the old checkpoint or
// the new one, never a mix; a crash during creation leaves no database or a
// whole one (a leftover data.fdb.tmp is no database); DeleteJournalsThrough
// deletes exactly the journals a checkpoint covers; the counters count what
// reached the Env. Randomized tests log their seed and take FENEC_SEED.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/src/base/testing.h"
#include "engine/src/io/fault_env.h"
#include "engine/src/journal/format.h"
#include "engine/src/journal/reader.h"
#include "engine/src/storage/storage.h"
#include "fenec/env.h"

#define ASSERT_OK(...)                                             \
  do {                                                             \
    const ::fenec::Status st_ = (__VA_ARGS__);                     \
    ASSERT_TRUE(st_.ok()) << #__VA_ARGS__ << ": " << st_.ToString(); \
  } while (0)

namespace fenec {
namespace {

using Bytes = std::vector<uint8_t>;

constexpr uint64_t kId = 0x5703a6e;
constexpr uint64_t kSlot = Storage::kSlotSize;
constexpr uint64_t kDataStart = Storage::kDataStart;

Bytes Pattern(uint8_t salt, size_t n) {
  Bytes b(n);
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<uint8_t>(i * 131 + salt);
  return b;
}

Bytes Blob(std::mt19937_64& rng, size_t n) {
  Bytes b(n);
  for (auto& byte : b) byte = static_cast<uint8_t>(rng());
  return b;
}

Status OpenStorage(Env* env, const std::string& folder, bool create, std::unique_ptr<Storage>* out, uint64_t id = kId,
                   bool error_if_exists = false) {
  return Storage::Open(env, folder, create, error_if_exists, id, out);
}

// Raw access to a file through the default Env: the disk as a tool sees it.
Bytes ReadFile(const std::string& path, uint64_t offset, uint64_t length) {
  std::unique_ptr<File> f;
  Bytes out(length);
  size_t got = 0;
  EXPECT_TRUE(Env::Default()->Open(path, OpenMode::kRead, &f).ok() && f->Read(offset, out, &got).ok()) << path;
  out.resize(got);
  return out;
}

void WriteFile(const std::string& path, uint64_t offset, const Bytes& bytes) {
  std::unique_ptr<File> f;
  ASSERT_TRUE(Env::Default()->Open(path, OpenMode::kCreate, &f).ok()) << path;
  ASSERT_TRUE(f->Write(offset, bytes).ok());
}

uint64_t FileSize(const std::string& path) {
  std::unique_ptr<File> f;
  uint64_t size = 0;
  EXPECT_TRUE(Env::Default()->Open(path, OpenMode::kRead, &f).ok() && f->Size(&size).ok()) << path;
  return size;
}

void TruncateFile(const std::string& path, uint64_t size) {
  std::unique_ptr<File> f;
  ASSERT_TRUE(Env::Default()->Open(path, OpenMode::kReadWrite, &f).ok()) << path;
  ASSERT_TRUE(f->Truncate(size).ok());
}

Bytes Mapped(const Storage& s, uint64_t at, uint64_t length) { return Bytes(s.map() + at, s.map() + at + length); }

// One checkpoint as the database layer makes one: rows appended at the
// current data_end, then the catalog right after them.
struct Ckpt {
  uint64_t seq = 0, lsn = 0, rows_at = kDataStart, catalog_at = 0, data_end = kDataStart;
  Bytes rows, catalog;
};

Ckpt Fresh() { return Ckpt{}; }  // a freshly created database: seq 0, no catalog

Status Commit(Storage* s, uint64_t lsn, Bytes rows, Bytes catalog, Ckpt* out) {
  Ckpt c;
  c.seq = s->superblock().seq + 1;
  c.lsn = lsn;
  c.rows_at = s->superblock().data_end;
  c.catalog_at = c.rows_at + rows.size();
  c.data_end = c.catalog_at + catalog.size();
  c.rows = std::move(rows);
  c.catalog = std::move(catalog);
  *out = c;
  if (Status st = s->WriteData(c.rows_at, c.rows); !st.ok()) return st;
  return s->CommitCheckpoint(c.lsn, c.catalog_at, c.catalog, c.data_end);
}

// The storage is at checkpoint c, whole: superblock fields, catalog and rows.
void ExpectAt(const Storage& s, const Ckpt& c) {
  const Superblock& sb = s.superblock();
  EXPECT_EQ(sb.storage_id, kId);
  EXPECT_EQ(sb.seq, c.seq);
  EXPECT_EQ(sb.checkpoint_lsn, c.lsn);
  EXPECT_EQ(sb.data_end, c.data_end);
  EXPECT_EQ(sb.catalog_offset, c.catalog_at);
  EXPECT_EQ(sb.catalog_length, c.catalog.size());
  Bytes catalog;
  Status st = s.ReadCatalog(&catalog);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(catalog == c.catalog) << "catalog of checkpoint " << c.seq;
  EXPECT_TRUE(Mapped(s, c.rows_at, c.rows.size()) == c.rows) << "rows of checkpoint " << c.seq;
}

class StorageTest : public base::ScratchTest {
 protected:
  std::string Folder(const std::string& name = "db") const { return path(name); }
  std::string DataFile(const std::string& name = "db") const { return path(name) + "/data.fdb"; }
};

// --- create and reopen --------------------------------------------------------

TEST_F(StorageTest, CreateThenReopenKeepsIdAndSuperblock) {
  Env* env = Env::Default();
  {
    std::unique_ptr<Storage> s;
    ASSERT_OK(OpenStorage(env, Folder() + "/", true, &s));
    EXPECT_TRUE(s->created());
    EXPECT_EQ(s->folder(), Folder()) << "a trailing slash is dropped";
    ExpectAt(*s, Fresh());
  }
  EXPECT_EQ(FileSize(DataFile()), kDataStart) << "two superblock slots, no data yet";
  EXPECT_TRUE(env->Exists(Folder() + "/Journals"));
  EXPECT_FALSE(env->Exists(DataFile() + ".tmp"));

  std::unique_ptr<Storage> s;
  ASSERT_OK(OpenStorage(env, Folder(), false, &s, kId + 1));  // the id matters only at creation
  EXPECT_FALSE(s->created());
  ExpectAt(*s, Fresh());

  std::unique_ptr<Storage> r;
  ASSERT_OK(OpenStorage(env, Folder("random"), true, &r, /*id=*/0));
  EXPECT_NE(r->superblock().storage_id, 0u) << "id 0 asks for a random one";
}

TEST_F(StorageTest, OpenWithoutCreateOnEmptyFolderIsNotFound) {
  Env* env = Env::Default();
  std::unique_ptr<Storage> s;
  Status st = OpenStorage(env, dir(), false, &s);  // exists, empty
  EXPECT_EQ(st.code(), StatusCode::kNotFound) << st.ToString();
  EXPECT_EQ(s, nullptr);
  EXPECT_FALSE(env->Exists(dir() + "/data.fdb"));
  EXPECT_FALSE(env->Exists(dir() + "/Journals")) << "a refused open creates nothing";
  st = OpenStorage(env, Folder("missing"), false, &s);
  EXPECT_EQ(st.code(), StatusCode::kNotFound) << st.ToString();
  EXPECT_FALSE(env->Exists(Folder("missing")));
}

TEST_F(StorageTest, ErrorIfExistsOnExistingDatabaseIsAlreadyExists) {
  Env* env = Env::Default();
  Ckpt c;
  {
    std::unique_ptr<Storage> s;
    ASSERT_OK(OpenStorage(env, Folder(), true, &s, kId, /*error_if_exists=*/true));  // none yet: created
    ASSERT_OK(Commit(s.get(), 5, Pattern(1, 100), Pattern(2, 50), &c));
  }
  std::unique_ptr<Storage> s;
  Status st = OpenStorage(env, Folder(), true, &s, kId + 1, /*error_if_exists=*/true);
  EXPECT_EQ(st.code(), StatusCode::kAlreadyExists) << st.ToString();
  EXPECT_EQ(s, nullptr);
  ASSERT_OK(OpenStorage(env, Folder(), true, &s));
  ExpectAt(*s, c);  // untouched
}

// --- checkpoints ----------------------------------------------------------------

TEST_F(StorageTest, CheckpointCatalogRoundTripsThroughReopen) {
  Env* env = Env::Default();
  // seq, lsn, rows_at, catalog_at, data_end, rows, catalog
  const Ckpt c{1, 42, kDataStart, kDataStart + 10000, kDataStart + 13000, Pattern(1, 10000), Pattern(2, 3000)};
  {
    std::unique_ptr<Storage> s;
    ASSERT_OK(OpenStorage(env, Folder(), true, &s));
    ASSERT_OK(s->WriteData(kDataStart, c.rows));
    EXPECT_TRUE(Mapped(*s, kDataStart, c.rows.size()) == c.rows) << "readable through the map before any sync";
    ASSERT_OK(s->CommitCheckpoint(c.lsn, c.catalog_at, c.catalog, c.data_end));
    ExpectAt(*s, c);
  }
  std::unique_ptr<Storage> s;
  ASSERT_OK(OpenStorage(env, Folder(), false, &s));
  ExpectAt(*s, c);
}

TEST_F(StorageTest, CheckpointsRaiseSeqAndAlternateSlots) {
  Env* env = Env::Default();
  std::unique_ptr<Storage> s;
  ASSERT_OK(OpenStorage(env, Folder(), true, &s));
  Ckpt c;
  for (uint64_t k = 1; k <= 4; ++k) {
    SCOPED_TRACE(fmt::format("checkpoint {}", k));
    const Bytes before = ReadFile(DataFile(), 0, kDataStart);
    ASSERT_OK(Commit(s.get(), 10 * k, Pattern(k, 100 * k), Pattern(k + 50, 300), &c));
    EXPECT_EQ(s->superblock().seq, k);
    const Bytes after = ReadFile(DataFile(), 0, kDataStart);
    ASSERT_EQ(after.size(), kDataStart);
    const uint64_t written = (k % 2) * kSlot, other = kSlot - written;
    EXPECT_FALSE(std::equal(before.begin() + written, before.begin() + written + kSlot, after.begin() + written))
        << "the slot the older superblock held is rewritten";
    EXPECT_TRUE(std::equal(before.begin() + other, before.begin() + other + kSlot, after.begin() + other))
        << "the newer superblock (the previous checkpoint) is left alone";
    std::unique_ptr<Storage> r;
    ASSERT_OK(OpenStorage(env, Folder(), false, &r));
    ExpectAt(*r, c);
  }
}

// --- torn and corrupt superblocks and catalogs -------------------------------

TEST_F(StorageTest, TornNewerSlotFallsBackToPreviousCheckpoint) {
  Env* env = Env::Default();
  struct Damage {
    const char* name;
    void (*apply)(const std::string& data_file, uint64_t slot_at);
  };
  const Damage kDamages[] = {
      {"garbled", [](const std::string& f, uint64_t at) { WriteFile(f, at, Pattern(0x5a, kSlot)); }},
      {"zeroed", [](const std::string& f, uint64_t at) { WriteFile(f, at, Bytes(kSlot, 0)); }},
      {"one bit of checkpoint_lsn flipped",
       [](const std::string& f, uint64_t at) {
         Bytes b = ReadFile(f, at + 24, 1);  // magic, version, storage_id, seq; then checkpoint_lsn
         ASSERT_EQ(b.size(), 1u);
         b[0] ^= 1;
         WriteFile(f, at + 24, b);
       }},
  };
  for (const Damage& d : kDamages) {
    for (uint64_t n : {2, 3}) {  // the newer superblock in slot 0, then in slot 1
      SCOPED_TRACE(fmt::format("{} slot after {} checkpoints", d.name, n));
      const std::string name = fmt::format("db-{}-{}", n, d.name[0]);
      Ckpt prev, last;
      {
        std::unique_ptr<Storage> s;
        ASSERT_OK(OpenStorage(env, Folder(name), true, &s));
        for (uint64_t k = 1; k <= n; ++k) {
          prev = last;
          ASSERT_OK(Commit(s.get(), 100 * k, Pattern(k, 500 + k), Pattern(k + 9, 200 + k), &last));
        }
      }
      const uint64_t newer_at = (n % 2) * kSlot, older_at = kSlot - newer_at;
      d.apply(DataFile(name), newer_at);
      std::unique_ptr<Storage> s;
      ASSERT_OK(OpenStorage(env, Folder(name), false, &s));
      ExpectAt(*s, prev);
      // Recovery goes on from there: the next checkpoint takes the torn slot and wins.
      const Bytes older = ReadFile(DataFile(name), older_at, kSlot);
      Ckpt next;
      ASSERT_OK(Commit(s.get(), 1000, Pattern(77, 64), Pattern(78, 64), &next));
      EXPECT_EQ(next.seq, n);
      EXPECT_TRUE(ReadFile(DataFile(name), older_at, kSlot) == older);
      s.reset();
      ASSERT_OK(OpenStorage(env, Folder(name), false, &s));
      ExpectAt(*s, next);
    }
  }
}

TEST_F(StorageTest, TruncatedNewerSlotFallsBackToPreviousCheckpoint) {
  Env* env = Env::Default();
  // One checkpoint: seq 1 in slot 1, the creation's seq 0 in slot 0. A cut
  // inside slot 1, whether or not the superblock's own bytes survive it,
  // leaves the data region gone: only seq 0, which needs none, is whole.
  for (uint64_t size : {kSlot + 30, kSlot + 100, kDataStart - 1}) {
    SCOPED_TRACE(fmt::format("truncated to {}", size));
    const std::string name = fmt::format("db-{}", size);
    {
      std::unique_ptr<Storage> s;
      ASSERT_OK(OpenStorage(env, Folder(name), true, &s));
      Ckpt c;
      ASSERT_OK(Commit(s.get(), 7, Pattern(1, 900), Pattern(2, 90), &c));
    }
    TruncateFile(DataFile(name), size);
    std::unique_ptr<Storage> s;
    ASSERT_OK(OpenStorage(env, Folder(name), false, &s));
    ExpectAt(*s, Fresh());
    Ckpt next;
    ASSERT_OK(Commit(s.get(), 8, Pattern(3, 900), Pattern(4, 90), &next));
    s.reset();
    ASSERT_OK(OpenStorage(env, Folder(name), false, &s));
    ExpectAt(*s, next);
  }
}

TEST_F(StorageTest, BothSlotsBadIsCorruption) {
  Env* env = Env::Default();
  {
    std::unique_ptr<Storage> s;
    ASSERT_OK(OpenStorage(env, Folder(), true, &s));
    Ckpt c;
    ASSERT_OK(Commit(s.get(), 1, Pattern(1, 10), Pattern(2, 10), &c));
    ASSERT_OK(Commit(s.get(), 2, Pattern(3, 10), Pattern(4, 10), &c));
  }
  WriteFile(DataFile(), 0, Pattern(0x11, kSlot));
  WriteFile(DataFile(), kSlot, Bytes(kSlot, 0));
  std::unique_ptr<Storage> s;
  Status st = OpenStorage(env, Folder(), /*create=*/true, &s);
  EXPECT_EQ(st.code(), StatusCode::kCorruption) << st.ToString();
  EXPECT_EQ(st.message(), "no valid superblock");
  EXPECT_EQ(st.path(), DataFile());
  EXPECT_EQ(s, nullptr);
  EXPECT_TRUE(ReadFile(DataFile(), 0, kSlot) == Pattern(0x11, kSlot)) << "a damaged database is never recreated over";

  TruncateFile(DataFile(), 1000);  // not even one whole slot
  st = OpenStorage(env, Folder(), false, &s);
  EXPECT_EQ(st.code(), StatusCode::kCorruption) << st.ToString();
}

TEST_F(StorageTest, BadCatalogIsCorruptionNeverGarbage) {
  Env* env = Env::Default();
  Ckpt c;
  {
    std::unique_ptr<Storage> s;
    ASSERT_OK(OpenStorage(env, Folder(), true, &s));
    ASSERT_OK(Commit(s.get(), 3, Pattern(1, 700), Pattern(2, 2000), &c));
  }
  Bytes flipped = ReadFile(DataFile(), c.catalog_at + 1234, 1);
  flipped[0] ^= 0x80;
  WriteFile(DataFile(), c.catalog_at + 1234, flipped);
  std::unique_ptr<Storage> s;
  ASSERT_OK(OpenStorage(env, Folder(), false, &s));  // the superblock itself is fine
  EXPECT_EQ(s->superblock().seq, c.seq);
  Bytes out = {1, 2, 3};
  Status st = s->ReadCatalog(&out);
  EXPECT_EQ(st.code(), StatusCode::kCorruption) << st.ToString();
  EXPECT_NE(st.message().find(fmt::format("catalog at {} fails its checksum", c.catalog_at)), std::string::npos)
      << st.ToString();
  EXPECT_TRUE(out.empty()) << "bytes that fail their checksum are not handed out";

  s.reset();
  TruncateFile(DataFile(), c.catalog_at + 100);  // the catalog's end lost
  ASSERT_OK(OpenStorage(env, Folder(), false, &s));
  out = {1, 2, 3};
  st = s->ReadCatalog(&out);
  EXPECT_EQ(st.code(), StatusCode::kCorruption) << st.ToString();
  EXPECT_TRUE(out.empty());
}

// --- power cuts -------------------------------------------------------------------

TEST_F(StorageTest, CrashDuringCheckpointFindsOldOrNewCheckpointWhole) {
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

TEST_F(StorageTest, LeftoverTmpWithoutDataFileIsNoDatabase) {
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

TEST_F(StorageTest, CrashDuringCreationLeavesNoDatabaseOrAWholeOne) {
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

TEST_F(StorageTest, DeleteJournalsThroughDeletesExactlyTheFilesItCovers) {
  Env* env = Env::Default();
  std::unique_ptr<Storage> s;
  ASSERT_OK(OpenStorage(env, Folder(), true, &s));
  // Records 1-10, 11-20, 21-30 and 31-35; the newest file is the one being written.
  const std::vector<std::pair<uint64_t, uint64_t>> kFiles = {{1, 10}, {11, 20}, {21, 30}, {31, 35}};
  for (auto [first, last] : kFiles) {
    Bytes records;
    for (uint64_t lsn = first; lsn <= last; ++lsn) {
      const std::string payload = fmt::format("record {}", lsn);
      journal::AppendRecord(&records, kId, lsn, Bytes(payload.begin(), payload.end()));
    }
    WriteFile(s->journal_dir() + "/" + journal::JournalFileName(first), 0, records);
  }
  WriteFile(s->journal_dir() + "/notes.txt", 0, {'x'});  // not a journal: never touched
  struct Step {
    uint64_t lsn, deleted;
    std::vector<uint64_t> left;  // first LSNs of the files left
  };
  const Step kSteps[] = {
      {0, 0, {1, 11, 21, 31}},  {9, 0, {1, 11, 21, 31}}, {10, 1, {11, 21, 31}}, {10, 0, {11, 21, 31}},
      {29, 1, {21, 31}},        {30, 1, {31}},
      {1000, 0, {31}},  // the newest file is kept: its last record is unknown, and it may be being written
  };
  for (const Step& step : kSteps) {
    SCOPED_TRACE(fmt::format("through {}", step.lsn));
    uint64_t deleted = 99;
    ASSERT_OK(s->DeleteJournalsThrough(step.lsn, &deleted));
    EXPECT_EQ(deleted, step.deleted);
    std::vector<journal::JournalFile> files;
    ASSERT_OK(journal::ListJournalFiles(env, s->journal_dir(), &files));
    std::vector<uint64_t> left;
    for (const auto& f : files) left.push_back(f.first_lsn);
    EXPECT_EQ(left, step.left);
    if (step.lsn > 35) continue;
    // Nothing recovery from that checkpoint needs is gone: every later record replays.
    journal::ReplayResult result;
    std::vector<uint64_t> lsns;
    auto apply = [&](uint64_t lsn, std::span<const uint8_t>) {
      lsns.push_back(lsn);
      return Status::OK();
    };
    ASSERT_OK(journal::ReplayJournals(env, s->journal_dir(), kId, step.lsn, apply, &result));
    EXPECT_EQ(lsns.size(), 35 - step.lsn);
    if (!lsns.empty()) {
      EXPECT_EQ(lsns.front(), step.lsn + 1);
    }
  }
  EXPECT_TRUE(env->Exists(s->journal_dir() + "/notes.txt"));
}

TEST_F(StorageTest, CountersCountDataWritesSyncsAndBytes) {
  FaultEnv env;  // counts what reached the Env
  std::unique_ptr<Storage> s;
  ASSERT_OK(OpenStorage(&env, Folder(), true, &s));
  auto expect = [&](uint64_t writes, uint64_t syncs, uint64_t bytes) {
    const StorageCounters c = s->counters();
    EXPECT_EQ(c.data_writes, writes);
    EXPECT_EQ(c.data_syncs, syncs);
    EXPECT_EQ(c.data_bytes, bytes);
  };
  expect(0, 0, 0);  // creating the file is no checkpoint
  const EnvCounters before = env.counters();
  ASSERT_OK(s->WriteData(kDataStart, Pattern(1, 5000)));
  ASSERT_OK(s->WriteData(kDataStart + 5000, Pattern(2, 123)));
  expect(2, 0, 5123);  // not synced: the journal makes rows durable until a checkpoint
  ASSERT_OK(s->CommitCheckpoint(9, kDataStart + 5123, Pattern(3, 777), kDataStart + 5123 + 777));
  expect(4, 2, 5123 + 777 + kSlot);  // the catalog and a whole superblock slot, each fdatasync'ed
  const EnvCounters after = env.counters();
  EXPECT_EQ(after.writes - before.writes, 4u);
  EXPECT_EQ(after.write_bytes - before.write_bytes, 5123 + 777 + kSlot);
  EXPECT_EQ(after.syncs - before.syncs, 2u);
  // Writes the global ring makes on data_fd() bypass the Env but count the same.
  s->CountRingWrite(8192);
  expect(5, 2, 5123 + 777 + kSlot + 8192);
  EXPECT_EQ(env.counters().writes, after.writes);
  s->ResetCounters();
  expect(0, 0, 0);
}

}  // namespace
}  // namespace fenec
