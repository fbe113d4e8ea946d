#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/src/io/fault_env.h"
#include "engine/src/journal/format.h"
#include "engine/src/journal/reader.h"
#include "engine/src/journal/writer.h"
#include "engine/src/base/testing.h"
#include "engine/src/base/coding.h"

namespace fenec::journal {
namespace journal_test {

constexpr uint64_t kStorage = 0xfe7ec;

std::vector<uint8_t> Payload(uint64_t lsn) {
  std::string s = "record-" + std::to_string(lsn) + std::string(lsn % 50, 'x');
  return {s.begin(), s.end()};
}

// Writes records first..last into `dir` through a JournalWriter, one write each, synced.
void WriteRecords(Env* env, const std::string& dir, uint64_t first, uint64_t last, JournalWriter* w = nullptr) {
  JournalWriter own(env, dir, 1 << 20);
  if (w == nullptr) {
    w = &own;
    ASSERT_TRUE(w->Start(first).ok());
  }
  for (uint64_t lsn = first; lsn <= last; ++lsn) {
    std::vector<uint8_t> rec;
    AppendRecord(&rec, kStorage, lsn, Payload(lsn));
    ASSERT_TRUE(w->Write(rec, lsn).ok());
  }
  ASSERT_TRUE(w->Sync().ok());
}

struct Replayed {
  std::vector<uint64_t> lsns;
  ReplayResult result;
  Status status;
};

Replayed Replay(Env* env, const std::string& dir, uint64_t after = 0) {
  Replayed r;
  r.status = ReplayJournals(env, dir, kStorage, after, [&](uint64_t lsn, std::span<const uint8_t> payload) {
    auto want = Payload(lsn);
    EXPECT_EQ(std::vector<uint8_t>(payload.begin(), payload.end()), want) << "payload of " << lsn;
    r.lsns.push_back(lsn);
    return Status::OK();
  }, &r.result);
  return r;
}

std::vector<uint64_t> Range(uint64_t a, uint64_t b) {
  std::vector<uint64_t> v;
  for (uint64_t i = a; i <= b; ++i) v.push_back(i);
  return v;
}

// Overwrites bytes of the one journal file at `offset` (from the end if negative).
void Patch(const std::string& path, int64_t offset, std::vector<uint8_t> bytes) {
  std::unique_ptr<File> f;
  ASSERT_TRUE(Env::Default()->Open(path, OpenMode::kReadWrite, &f).ok());
  uint64_t size = 0;
  ASSERT_TRUE(f->Size(&size).ok());
  uint64_t at = offset < 0 ? size + offset : static_cast<uint64_t>(offset);
  ASSERT_TRUE(f->Write(at, bytes).ok());
}

void TruncateBy(const std::string& path, uint64_t bytes) {
  std::unique_ptr<File> f;
  ASSERT_TRUE(Env::Default()->Open(path, OpenMode::kReadWrite, &f).ok());
  uint64_t size = 0;
  ASSERT_TRUE(f->Size(&size).ok());
  ASSERT_TRUE(f->Truncate(size - bytes).ok());
}

// Offset of record `lsn` in a file written by WriteRecords(first=1).
uint64_t OffsetOf(uint64_t lsn) {
  uint64_t off = 0;
  for (uint64_t l = 1; l < lsn; ++l) off += kHeaderSize + Payload(l).size();
  return off;
}

TEST(JournalFormat, RoundTripAndNames) {
  std::vector<uint8_t> buf;
  AppendRecord(&buf, kStorage, 7, Payload(7));
  RecordHeader h;
  std::span<const uint8_t> payload;
  ASSERT_EQ(ParseRecord(buf, kStorage, &h, &payload), ReadResult::kOk);
  EXPECT_EQ(base::LoadFixed32(buf.data()), kMagic);
  EXPECT_EQ(h.version, kVersion);
  EXPECT_EQ(buf[kVersionOffset + 1], static_cast<uint8_t>(~kVersion));
  EXPECT_EQ(h.type, RecordType::kCommit);
  EXPECT_EQ(h.header_size, kHeaderSize);
  EXPECT_EQ(buf.size(), kHeaderSize + Payload(7).size());
  EXPECT_EQ(h.lsn, 7u);
  EXPECT_EQ(payload.size(), Payload(7).size());
  EXPECT_EQ(ParseRecord(buf, kStorage + 1, &h, &payload), ReadResult::kWrongStorage);
  uint64_t first = 0;
  EXPECT_TRUE(ParseJournalFileName(JournalFileName(123456), &first));
  EXPECT_EQ(first, 123456u);
  EXPECT_FALSE(ParseJournalFileName("123.journal", &first));
  EXPECT_FALSE(ParseJournalFileName("0000000000000000012x.journal", &first));
}

TEST(JournalReplay, AllRecordsInOrder) {
  base::ScratchDir dir;
  WriteRecords(Env::Default(), dir.path(), 1, 100);
  Replayed r = Replay(Env::Default(), dir.path());
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.lsns, Range(1, 100));
  EXPECT_EQ(r.result.stop, "end");
  EXPECT_EQ(r.result.discarded_bytes, 0u);
}

TEST(JournalReplay, SkipsRecordsTheCheckpointCovers) {
  base::ScratchDir dir;
  WriteRecords(Env::Default(), dir.path(), 1, 50);
  Replayed r = Replay(Env::Default(), dir.path(), 30);
  EXPECT_EQ(r.lsns, Range(31, 50));
  EXPECT_EQ(r.result.skipped, 30u);
}

TEST(JournalReplay, TornLastRecordStopsThere) {
  base::ScratchDir dir;
  WriteRecords(Env::Default(), dir.path(), 1, 20);
  std::string path = dir.path() + "/" + JournalFileName(1);
  TruncateBy(path, 5);  // the last record's payload loses its end
  Replayed r = Replay(Env::Default(), dir.path());
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.lsns, Range(1, 19));
  EXPECT_NE(r.result.stop.find("torn payload"), std::string::npos) << r.result.stop;
  EXPECT_EQ(r.result.discarded_bytes, kHeaderSize + Payload(20).size() - 5);
}

TEST(JournalReplay, TornHeaderStopsThere) {
  base::ScratchDir dir;
  WriteRecords(Env::Default(), dir.path(), 1, 20);
  TruncateBy(dir.path() + "/" + JournalFileName(1), Payload(20).size() + 10);
  Replayed r = Replay(Env::Default(), dir.path());
  EXPECT_EQ(r.lsns, Range(1, 19));
  EXPECT_NE(r.result.stop.find("torn header"), std::string::npos) << r.result.stop;
}

TEST(JournalReplay, BadLengthStopsThere) {
  base::ScratchDir dir;
  WriteRecords(Env::Default(), dir.path(), 1, 20);
  std::vector<uint8_t> huge(4);
  base::StoreFixed32(huge.data(), 0xfffffff0u);
  Patch(dir.path() + "/" + JournalFileName(1), static_cast<int64_t>(OffsetOf(12) + kLengthOffset), huge);
  Replayed r = Replay(Env::Default(), dir.path());
  EXPECT_EQ(r.lsns, Range(1, 11));
  EXPECT_NE(r.result.stop.find("bad length"), std::string::npos) << r.result.stop;
}

TEST(JournalReplay, BadChecksumStopsThere) {
  base::ScratchDir dir;
  WriteRecords(Env::Default(), dir.path(), 1, 20);
  Patch(dir.path() + "/" + JournalFileName(1), static_cast<int64_t>(OffsetOf(15) + kHeaderSize + 2), {'?'});
  Replayed r = Replay(Env::Default(), dir.path());
  EXPECT_EQ(r.lsns, Range(1, 14));
  EXPECT_NE(r.result.stop.find("bad checksum"), std::string::npos) << r.result.stop;
}

TEST(JournalReplay, ZeroedTailIsTheEnd) {
  base::ScratchDir dir;
  WriteRecords(Env::Default(), dir.path(), 1, 5);
  Patch(dir.path() + "/" + JournalFileName(1), static_cast<int64_t>(OffsetOf(6)), std::vector<uint8_t>(4096, 0));
  Replayed r = Replay(Env::Default(), dir.path());
  EXPECT_EQ(r.lsns, Range(1, 5));
  EXPECT_EQ(r.result.stop, "end");
  EXPECT_EQ(r.result.discarded_bytes, 0u);
  EXPECT_EQ(r.result.zeroed_bytes, 4096u);
}

TEST(JournalReplay, ZerosBeforeOtherBytesAreBadMagic) {
  base::ScratchDir dir;
  WriteRecords(Env::Default(), dir.path(), 1, 5);
  std::vector<uint8_t> tail(4096, 0);
  tail.back() = 1;  // a later block written, an earlier one not: not a clean end
  Patch(dir.path() + "/" + JournalFileName(1), static_cast<int64_t>(OffsetOf(6)), tail);
  Replayed r = Replay(Env::Default(), dir.path());
  EXPECT_EQ(r.lsns, Range(1, 5));
  EXPECT_NE(r.result.stop.find("bad magic"), std::string::npos) << r.result.stop;
  EXPECT_EQ(r.result.discarded_bytes, 4096u);
  EXPECT_EQ(r.result.zeroed_bytes, 0u);
}

uint64_t FileSize(const std::string& path) {
  std::unique_ptr<File> f;
  uint64_t size = 0;
  EXPECT_TRUE(Env::Default()->Open(path, OpenMode::kRead, &f).ok());
  EXPECT_TRUE(f->Size(&size).ok());
  return size;
}

// A small write past the zeros carries zero_ahead bytes of zeros; the writes
// after it overwrite them, so the file does not grow again until they are used.
TEST(JournalZeroAhead, SmallWritesOverwriteZerosWrittenAhead) {
  base::ScratchDir dir;
  constexpr uint64_t kAhead = 4096;
  JournalWriter w(Env::Default(), dir.path(), 1 << 20, kAhead);
  ASSERT_TRUE(w.Start(1).ok());
  const std::string path = dir.path() + "/" + JournalFileName(1);
  WriteRecords(Env::Default(), dir.path(), 1, 1, &w);
  EXPECT_EQ(FileSize(path), OffsetOf(2) + kAhead);
  EXPECT_EQ(w.counters().zero_bytes, kAhead);
  uint64_t last = 1;
  while (OffsetOf(last + 2) <= OffsetOf(2) + kAhead) ++last;  // records that still fit the zeros
  WriteRecords(Env::Default(), dir.path(), 2, last, &w);
  EXPECT_EQ(FileSize(path), OffsetOf(2) + kAhead) << "writes into the zeros do not grow the file";
  EXPECT_EQ(w.counters().zero_bytes, kAhead);
  WriteRecords(Env::Default(), dir.path(), last + 1, last + 1, &w);  // past them: a new run of zeros
  EXPECT_EQ(FileSize(path), OffsetOf(last + 2) + kAhead);
  EXPECT_EQ(w.counters().zero_bytes, 2 * kAhead);
  EXPECT_EQ(w.counters().writes, last + 1) << "the zeros ride in the records' own write";
  EXPECT_EQ(w.counters().bytes, OffsetOf(last + 2)) << "bytes counts records only";

  Replayed r = Replay(Env::Default(), dir.path());
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.lsns, Range(1, last + 1));
  EXPECT_EQ(r.result.stop, "end");
  EXPECT_EQ(r.result.discarded_bytes, 0u);
  EXPECT_EQ(r.result.zeroed_bytes, kAhead);
}

TEST(JournalZeroAhead, LargeWritesAppendAndZerosStopAtTheRotationSize) {
  base::ScratchDir dir;
  JournalWriter w(Env::Default(), dir.path(), 1 << 20, 256);
  ASSERT_TRUE(w.Start(1).ok());
  std::vector<uint8_t> recs;
  for (uint64_t lsn = 1; lsn <= 10; ++lsn) AppendRecord(&recs, kStorage, lsn, Payload(lsn));
  ASSERT_GE(recs.size(), 256u);
  ASSERT_TRUE(w.Write(recs, 1).ok());
  EXPECT_EQ(w.counters().zero_bytes, 0u) << "a write of zero_ahead bytes or more carries no zeros";
  EXPECT_EQ(FileSize(dir.path() + "/" + JournalFileName(1)), recs.size());

  base::ScratchDir small;
  JournalWriter w2(Env::Default(), small.path(), 4096, 1 << 20);
  ASSERT_TRUE(w2.Start(1).ok());
  WriteRecords(Env::Default(), small.path(), 1, 1, &w2);
  EXPECT_EQ(FileSize(small.path() + "/" + JournalFileName(1)), 4096u) << "zeros end at the rotation size";
}

TEST(JournalReplay, RotationAndTornFileFollowedByItsSuccessor) {
  base::ScratchDir dir;
  Env* env = Env::Default();
  {
    JournalWriter w(env, dir.path(), 600);  // small files: several rotations
    ASSERT_TRUE(w.Start(1).ok());
    WriteRecords(env, dir.path(), 1, 40, &w);
    EXPECT_GT(w.counters().files, 3u);
  }
  std::vector<JournalFile> files;
  ASSERT_TRUE(ListJournalFiles(env, dir.path(), &files).ok());
  ASSERT_GE(files.size(), 2u);
  // A session that crashed mid-record, then a new session starting at the next good LSN.
  std::vector<uint8_t> partial;
  AppendRecord(&partial, kStorage, 41, Payload(41));
  partial.resize(partial.size() / 2);
  {
    std::unique_ptr<File> f;
    ASSERT_TRUE(env->Open(files.back().path, OpenMode::kReadWrite, &f).ok());
    uint64_t size = 0;
    ASSERT_TRUE(f->Size(&size).ok());
    ASSERT_TRUE(f->Write(size, partial).ok());
  }
  JournalWriter w2(env, dir.path(), 1 << 20);
  ASSERT_TRUE(w2.Start(41).ok());
  WriteRecords(env, dir.path(), 41, 45, &w2);
  Replayed r = Replay(env, dir.path());
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.lsns, Range(1, 45));
  EXPECT_EQ(r.result.discarded_bytes, partial.size());
}

// A later file proves the one before it was synced through its end, so a
// gap before it is lost records: corruption (recovery_test.cc has the policy).
TEST(JournalReplay, GapIsCorruption) {
  base::ScratchDir dir;
  Env* env = Env::Default();
  WriteRecords(env, dir.path(), 1, 10);
  JournalWriter w(env, dir.path(), 1 << 20);
  ASSERT_TRUE(w.Start(12).ok());  // LSN 11 never written
  WriteRecords(env, dir.path(), 12, 15, &w);
  Replayed r = Replay(env, dir.path());
  EXPECT_EQ(r.status.code(), StatusCode::kCorruption) << r.status.ToString();
  EXPECT_EQ(r.lsns, Range(1, 10));
  EXPECT_NE(r.result.stop.find("gap"), std::string::npos);
  EXPECT_EQ(r.result.records_after, 4u);
}

TEST(JournalReplay, MissingStartIsCorruption) {
  base::ScratchDir dir;
  WriteRecords(Env::Default(), dir.path(), 20, 25);
  Replayed r = Replay(Env::Default(), dir.path(), 10);
  EXPECT_EQ(r.status.code(), StatusCode::kCorruption);
}

// Unsynced writes torn or lost at random; with zeros written ahead too.
TEST(JournalReplay, PowerLossKeepsAPrefixOfSyncedRecords) {
  uint64_t seed = base::TestSeed();
  for (uint64_t zero_ahead : {uint64_t{0}, uint64_t{4096}}) {
    for (int round = 0; round < 20; ++round) {
      base::ScratchDir dir;
      FaultEnv env;
      JournalWriter w(&env, dir.path(), 1 << 20, zero_ahead);
      ASSERT_TRUE(w.Start(1).ok());
      WriteRecords(&env, dir.path(), 1, 30, &w);  // synced
      for (uint64_t lsn = 31; lsn <= 60; ++lsn) {  // written, never synced
        std::vector<uint8_t> rec;
        AppendRecord(&rec, kStorage, lsn, Payload(lsn));
        ASSERT_TRUE(w.Write(rec, lsn).ok());
      }
      w.Close();
      env.Crash();
      env.ApplyCrash(seed + round);
      Replayed r = Replay(&env, dir.path());
      ASSERT_TRUE(r.status.ok());
      ASSERT_GE(r.lsns.size(), 30u) << "seed " << seed + round << " zero_ahead " << zero_ahead;
      EXPECT_EQ(r.lsns, Range(1, r.lsns.size()));
    }
  }
}

}  // namespace journal_test
}  // namespace fenec::journal
