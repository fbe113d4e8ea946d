// The recovery policy at open (Options::recovery, engine/doc/journal.md
// "Recovery"), for the root storage and an index's branch storage, with
// shared and separate journals:
//  (a) a torn tail (a power cut during a commit's write) opens with every
//      acknowledged commit;
//  (b) a damaged record followed by acknowledged ones fails the open with
//      kCorruption naming the file and the byte offset, changing nothing;
//  (c) kPointInTime opens without the records from there, says what it
//      dropped, sets the files aside, and the database goes on.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <cerrno>
#include <string>
#include <vector>

#include "engine/src/base/coding.h"
#include "engine/src/base/testing.h"
#include "engine/src/io/fault_env.h"
#include "engine/src/journal/format.h"
#include "engine/src/journal/reader.h"
#include "fenec/database.h"

namespace fenec {
namespace recovery_policy_test {

constexpr int kDocs = 20;

Schema Docs() { return {{Field::Text("name").Unique(), Field::Int("n")}}; }
Document Doc(int64_t n) {
  Document d;
  d.emplace_back(fmt::format("doc-{}", n));
  d.emplace_back(n);
  return d;
}

Options Opts(Env* env, Journals j, RecoveryMode mode = RecoveryMode::kTolerateTornTail) {
  Options o;
  o.env = env;
  o.journals = j;
  o.recovery = mode;
  o.checkpoint_on_close = false;  // every commit stays in the journal
  return o;
}

const char* Name(Journals j) { return j == Journals::kShared ? "shared" : "separate"; }

std::string BranchDir(const std::string& path) { return path + "/Indexes/c0.f0.unique"; }

// kDocs durable puts, each acknowledged before the next; the folder closed.
void Fill(const std::string& path, const Options& o) {
  auto db = Database::Open(path, o);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto c = (*db)->CreateCollection("docs", Docs());
  ASSERT_TRUE(c.ok());
  for (int n = 1; n <= kDocs; ++n) {
    auto id = (*db)->Put(*c, Doc(n));
    ASSERT_TRUE(id.ok());
    ASSERT_EQ(*id, static_cast<DocId>(n));
  }
  ASSERT_TRUE((*db)->Close().ok());
}

std::vector<uint8_t> ReadAll(const std::string& path) {
  std::unique_ptr<File> f;
  EXPECT_TRUE(Env::Default()->Open(path, OpenMode::kRead, &f).ok());
  uint64_t size = 0;
  EXPECT_TRUE(f->Size(&size).ok());
  std::vector<uint8_t> data(size);
  size_t got = 0;
  EXPECT_TRUE(f->Read(0, data, &got).ok());
  return data;
}

// The storage's one journal file, and the offset of the nth record of the
// which'th storage to write in it (0: the first; a shared file starts with
// the root's create, so a branch's records are the second storage's).
struct Found {
  std::string file;
  uint64_t offset = 0;
};
Found NthRecord(const std::string& storage_folder, uint64_t nth, int which = 0) {
  std::vector<journal::JournalFile> files;
  EXPECT_TRUE(journal::ListJournalFiles(Env::Default(), storage_folder + "/Journals", &files).ok());
  EXPECT_EQ(files.size(), 1u);
  Found f{files.at(0).path};
  std::vector<uint8_t> data = ReadAll(f.file);
  uint64_t owner = 0, seen = 0;
  for (size_t off = 0; off < data.size();) {
    journal::RecordHeader h;
    std::span<const uint8_t> payload;
    journal::ReadResult r = journal::ParseRecord(std::span(data).subspan(off), owner, &h, &payload);
    if (r == journal::ReadResult::kWrongStorage && owner == 0) {
      if (which-- == 0) {
        owner = h.storage_id;
        continue;  // parsed again as the owner's
      }
      uint64_t other = h.storage_id;  // skip the rest of this storage's records
      while (which >= 0 && off < data.size() &&
             journal::ParseRecord(std::span(data).subspan(off), other, &h, &payload) == journal::ReadResult::kOk)
        off += h.header_size + h.length;
      continue;
    }
    if (r == journal::ReadResult::kOk && ++seen == nth) {
      f.offset = off;
      return f;
    }
    if (r != journal::ReadResult::kOk && r != journal::ReadResult::kWrongStorage) break;
    off += h.header_size + h.length;
  }
  ADD_FAILURE() << "no record " << nth << " in " << f.file;
  return f;
}

void Garble(const Found& at) {
  std::unique_ptr<File> f;
  ASSERT_TRUE(Env::Default()->Open(at.file, OpenMode::kReadWrite, &f).ok());
  ASSERT_TRUE(f->Write(at.offset + journal::kHeaderSize + 2, std::vector<uint8_t>{'#', '#'}).ok());
}

void ExpectDocs(Database* db, int first, int last) {
  auto c = db->FindCollection("docs");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(*db->Count(*c), static_cast<uint64_t>(last - first + 1));
  for (int n = first; n <= last; ++n) {
    auto doc = db->Get(*c, n);
    ASSERT_TRUE(doc.ok()) << "doc " << n;
    EXPECT_EQ(*doc, Doc(n));
  }
  EXPECT_TRUE(db->Check().ok()) << db->Check().ToString();
}

// (a) A power cut while a commit's write was unsynced.
TEST(RecoveryPolicy, TornTailOpensWithEveryAcknowledgedCommit) {
  const uint64_t seed = base::TestSeed();
  for (Journals j : {Journals::kShared, Journals::kSeparate}) {
    for (int round = 0; round < 4; ++round) {
      SCOPED_TRACE(fmt::format("{} round {}", Name(j), round));
      base::ScratchDir dir;
      const std::string path = dir.path() + "/db";
      FaultEnv env;
      Options o = Opts(&env, j);
      {
        auto db = Database::Open(path, o);
        ASSERT_TRUE(db.ok());
        auto c = (*db)->CreateCollection("docs", Docs());
        ASSERT_TRUE(c.ok());
        for (int n = 1; n <= kDocs; ++n) ASSERT_TRUE((*db)->Put(*c, Doc(n)).ok());
        env.FailNth(FaultOp::kSync, 1, EIO, "Journals", /*sticky=*/true);
        std::vector<Document> tail;  // one write of several records' bytes, never synced
        for (int n = kDocs + 1; n <= kDocs + 8; ++n) tail.push_back(Doc(n));
        EXPECT_FALSE((*db)->PutBatch(*c, tail).ok());
        env.Crash();
      }
      env.ApplyCrash(seed + round);
      env.ClearFaults();
      auto db = Database::Open(path, o);
      ASSERT_TRUE(db.ok()) << db.status().ToString() << " seed " << seed + round;
      auto c = (*db)->FindCollection("docs");
      const uint64_t count = *(*db)->Count(*c);
      ASSERT_TRUE(count == kDocs || count == kDocs + 8) << count;  // the batch is all or nothing
      ExpectDocs(db->get(), 1, static_cast<int>(count));
      EXPECT_EQ((*db)->GetStats().recovery_dropped_records, 0u);
    }
  }
}

// (b) and (c) for a damaged record of `storage` ("root" or "branch").
void MidLogRound(Journals j, const std::string& storage) {
  SCOPED_TRACE(fmt::format("{} journals, {} record", Name(j), storage));
  base::ScratchDir dir;
  const std::string path = dir.path() + "/db";
  Fill(path, Opts(Env::Default(), j));
  if (::testing::Test::HasFatalFailure()) return;
  // Root record 11 is doc 10's put (1 is the create); a branch's 10th is doc 10's too.
  const bool branch_own_file = storage == "branch" && j == Journals::kSeparate;
  const Found root = NthRecord(path, 11);
  const Found at = storage == "root" ? root : NthRecord(BranchDir(path), 10, j == Journals::kShared ? 1 : 0);
  Garble(at);

  auto failed = Database::Open(path, Opts(Env::Default(), j));
  ASSERT_EQ(failed.status().code(), StatusCode::kCorruption) << failed.status().ToString();
  // A shared file is one file: the root reads the damaged branch record first.
  const std::string named = branch_own_file ? at.file : root.file;
  EXPECT_EQ(failed.status().path(), named) << failed.status().ToString();
  if (storage == "root" || branch_own_file) {
    EXPECT_NE(failed.status().message().find(fmt::format("byte {} of {}", at.offset, at.file)), std::string::npos)
        << failed.status().message();
  }
  EXPECT_NE(failed.status().message().find("records of this storage follow it"), std::string::npos);
  auto again = Database::Open(path, Opts(Env::Default(), j));
  EXPECT_EQ(again.status().code(), StatusCode::kCorruption) << "a failed open changes nothing";

  auto pit = Database::Open(path, Opts(Env::Default(), j, RecoveryMode::kPointInTime));
  ASSERT_TRUE(pit.ok()) << pit.status().ToString();
  const Stats st = (*pit)->GetStats();
  EXPECT_GT(st.recovery_dropped_records, 0u);
  EXPECT_GT(st.recovery_dropped_bytes, 0u);
  if (branch_own_file) {
    ExpectDocs(pit->get(), 1, kDocs);  // the root is whole; the index is rebuilt from it
    EXPECT_GE(st.branches_rebuilt, 1u);
    EXPECT_EQ(st.recovery_dropped_records, static_cast<uint64_t>(kDocs - 10));
  } else {
    // Up to the damaged commit; a commit's root record precedes its branch
    // records in a shared file, so a damaged branch record keeps its root's.
    ExpectDocs(pit->get(), 1, storage == "root" ? 9 : 10);
  }
  auto c = (*pit)->FindCollection("docs");
  auto id = (*pit)->Put(*c, Doc(100));
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  ASSERT_TRUE((*pit)->Close().ok());
  pit->reset();

  // The dropped files are set aside: the default mode opens, with the new put.
  auto reopened = Database::Open(path, Opts(Env::Default(), j));
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ((*reopened)->GetStats().recovery_dropped_records, 0u);
  auto doc = (*reopened)->Get(*(*reopened)->FindCollection("docs"), *id);
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(*doc, Doc(100));
  EXPECT_TRUE((*reopened)->Check().ok());
  EXPECT_TRUE(Env::Default()->Exists(at.file + ".dropped") ||
              Env::Default()->Exists(named + ".dropped")) << "kept for a post-mortem";
}

// Record format versions (engine/doc/journal.md, "Versions").
//
// Every journal file of a storage folder rewritten in place, each record in
// version 2's layout ("FEJS", before records carried a version), the zeros
// after the records kept: the folder as a build of that format left it.
// In place: a shared file's other names (hard links) see the same bytes.
void RewriteAsVersion2(const std::string& journal_dir) {
  std::vector<journal::JournalFile> files;
  ASSERT_TRUE(journal::ListJournalFiles(Env::Default(), journal_dir, &files).ok());
  ASSERT_FALSE(files.empty());
  for (const journal::JournalFile& jf : files) {
    std::vector<uint8_t> data = ReadAll(jf.path), out;
    size_t off = 0;
    while (off < data.size()) {
      journal::RecordHeader h;
      std::span<const uint8_t> payload;
      journal::ReadResult r = journal::ParseRecord(std::span(data).subspan(off), 0, &h, &payload);
      if (r != journal::ReadResult::kWrongStorage) break;  // the zeros written ahead
      ASSERT_TRUE(journal::AppendRecordV2(&out, h.storage_id, h.lsn, payload, h.synced).ok());
      off += h.header_size + h.length;
    }
    ASSERT_GT(out.size(), 0u) << jf.path;
    out.resize(std::max(out.size(), data.size()), 0);
    std::unique_ptr<File> f;
    ASSERT_TRUE(Env::Default()->Open(jf.path, OpenMode::kReadWrite, &f).ok());
    ASSERT_TRUE(f->Write(0, out).ok());
    ASSERT_TRUE(f->Truncate(out.size()).ok());
  }
}

// What users have on disk today opens whole, root and index, and the next
// session writes version 3 after it.
TEST(RecordVersions, AFolderOfVersion2RecordsOpens) {
  for (Journals j : {Journals::kShared, Journals::kSeparate}) {
    SCOPED_TRACE(Name(j));
    base::ScratchDir dir;
    const std::string path = dir.path() + "/db";
    Fill(path, Opts(Env::Default(), j));
    ASSERT_NO_FATAL_FAILURE(RewriteAsVersion2(path + "/Journals"));
    ASSERT_NO_FATAL_FAILURE(RewriteAsVersion2(BranchDir(path) + "/Journals"));
    const Found first = NthRecord(path, 1);
    ASSERT_EQ(base::LoadFixed32(ReadAll(first.file).data()), journal::kMagicV2);
    {
      auto db = Database::Open(path, Opts(Env::Default(), j));
      ASSERT_TRUE(db.ok()) << db.status().ToString();
      EXPECT_EQ((*db)->GetStats().recovery_discarded_bytes, 0u);
      ExpectDocs(db->get(), 1, kDocs);
      auto c = (*db)->FindCollection("docs");
      ASSERT_TRUE((*db)->Put(*c, Doc(kDocs + 1)).ok());
      ASSERT_TRUE((*db)->Close().ok());
    }
    auto db = Database::Open(path, Opts(Env::Default(), j));
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    ExpectDocs(db->get(), 1, kDocs + 1);
  }
}

// A record of a newer version: the open fails naming it, in every recovery
// mode, and nothing on disk changes (no file set aside, no byte dropped).
TEST(RecordVersions, ANewerVersionRefusesTheOpenInEveryMode) {
  base::ScratchDir dir;
  const std::string path = dir.path() + "/db";
  Fill(path, Opts(Env::Default(), Journals::kShared));
  for (uint64_t nth : {uint64_t{5}, uint64_t{kDocs + 1}}) {  // mid-log, and the last record (where a torn tail is)
    SCOPED_TRACE(nth);
    const Found at = NthRecord(path, nth);
    const std::vector<uint8_t> original = ReadAll(at.file);
    std::unique_ptr<File> f;
    ASSERT_TRUE(Env::Default()->Open(at.file, OpenMode::kReadWrite, &f).ok());
    ASSERT_TRUE(f->Write(at.offset + journal::kVersionOffset, std::vector<uint8_t>{9, 0xff ^ 9}).ok());
    const std::vector<uint8_t> before = ReadAll(at.file);
    for (RecoveryMode mode : {RecoveryMode::kTolerateTornTail, RecoveryMode::kPointInTime}) {
      auto db = Database::Open(path, Opts(Env::Default(), Journals::kShared, mode));
      ASSERT_FALSE(db.ok());
      EXPECT_EQ(db.status().code(), StatusCode::kNotSupported) << db.status().ToString();
      EXPECT_NE(db.status().message().find("format version 9; this build reads versions 1 to 3"), std::string::npos)
          << db.status().ToString();
      EXPECT_NE(db.status().message().find(fmt::format("byte {} of {}", at.offset, at.file)), std::string::npos)
          << db.status().ToString();
      EXPECT_EQ(ReadAll(at.file), before) << "nothing changed";
      EXPECT_FALSE(Env::Default()->Exists(at.file + ".dropped"));
    }
    ASSERT_TRUE(f->Write(0, original).ok());  // the next round damages another record
  }
}

TEST(RecoveryPolicy, RootRecordDamagedMidLogShared) { MidLogRound(Journals::kShared, "root"); }
TEST(RecoveryPolicy, RootRecordDamagedMidLogSeparate) { MidLogRound(Journals::kSeparate, "root"); }
TEST(RecoveryPolicy, BranchRecordDamagedMidLogShared) { MidLogRound(Journals::kShared, "branch"); }
TEST(RecoveryPolicy, BranchRecordDamagedMidLogSeparate) { MidLogRound(Journals::kSeparate, "branch"); }

}  // namespace recovery_policy_test
}  // namespace fenec
