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
#include "engine/src/storage/storage_test_util.h"

namespace fenec {
namespace storage_test {
using namespace storage_testing;  // storage_test_util.h

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

}  // namespace storage_test
}  // namespace fenec
