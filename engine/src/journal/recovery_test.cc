// The recovery policy (reader.h, RecoveryMode): a torn tail is the end; a
// record that cannot be read although a later one says it was durable is
// corruption (kTolerateTornTail) or where point-in-time recovery stops.
// Records are written by GroupCommit, as the database writes them, so each
// carries the durable LSN it was appended with.
#include <gtest/gtest.h>

#define XXH_STATIC_LINKING_ONLY  // XXH3_state_t
#include <xxhash.h>

#include <algorithm>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "engine/src/base/coding.h"
#include "engine/src/base/testing.h"
#include "engine/src/io/fault_env.h"
#include "engine/src/journal/format.h"
#include "engine/src/journal/group_commit.h"
#include "engine/src/journal/reader.h"
#include "engine/src/journal/writer.h"

namespace fenec::journal {
namespace recovery_test {

constexpr uint64_t kRoot = 0x1001, kBranch = 0x2002;

std::vector<uint8_t> Payload(uint64_t lsn) {
  std::string s = "commit-" + std::to_string(lsn) + std::string(lsn % 40, 'y');
  return {s.begin(), s.end()};
}

struct Replayed {
  std::vector<uint64_t> lsns;
  ReplayResult result;
  Status status;
};

Replayed Replay(Env* env, const std::string& dir, uint64_t storage, RecoveryMode mode) {
  Replayed r;
  r.status = ReplayJournals(
      env, dir, storage, 0,
      [&](uint64_t lsn, std::span<const uint8_t>) {
        r.lsns.push_back(lsn);
        return Status::OK();
      },
      &r.result, mode);
  return r;
}

std::vector<uint64_t> Range(uint64_t a, uint64_t b) {
  std::vector<uint64_t> v;
  for (uint64_t i = a; i <= b; ++i) v.push_back(i);
  return v;
}

// n durable commits, each acknowledged before the next (so record k says k - 1 was synced);
// with_branch: each also carries a branch record (JR-1's shared journal).
struct Journal {
  base::ScratchDir dir;
  std::string root_dir, branch_dir;
  FailStop fail;
  std::unique_ptr<JournalWriter> writer;
  std::unique_ptr<GroupCommit> gc;
  uint32_t stream = 0;

  Journal(Env* env, uint64_t file_bytes = 1 << 20) {
    root_dir = dir.path() + "/root";
    branch_dir = dir.path() + "/branch";
    EXPECT_TRUE(env->CreateDir(root_dir).ok());
    EXPECT_TRUE(env->CreateDir(branch_dir).ok());
    writer = std::make_unique<JournalWriter>(env, root_dir, file_bytes);
    gc = std::make_unique<GroupCommit>(writer.get(), kRoot, 0, CommitPolicy::kDurableGroup, &fail);
    stream = gc->AddStream(kBranch, 0, branch_dir);
  }
  void Commit(uint64_t n, bool with_branch) {
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t root = gc->last_lsn() + 1;
      std::vector<uint8_t> bp = Payload(root + 1000);
      GroupCommit::StreamRecord rec{stream, bp};
      uint64_t lsn = gc->Append(Payload(root), with_branch ? std::span(&rec, 1) : std::span<const GroupCommit::StreamRecord>{});
      ASSERT_EQ(lsn, root);
      ASSERT_TRUE(gc->AwaitDurable(lsn).ok());
    }
  }
  std::string File(uint64_t first = 1) const { return root_dir + "/" + JournalFileName(first); }
};

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

void Patch(const std::string& path, uint64_t at, const std::vector<uint8_t>& bytes) {
  std::unique_ptr<File> f;
  ASSERT_TRUE(Env::Default()->Open(path, OpenMode::kReadWrite, &f).ok());
  ASSERT_TRUE(f->Write(at, bytes).ok());
}

// Byte offset of the record of `storage` with `lsn` in a file.
uint64_t OffsetOf(const std::string& path, uint64_t storage, uint64_t lsn) {
  std::vector<uint8_t> data = ReadAll(path);
  size_t off = 0;
  while (off < data.size()) {
    RecordHeader h;
    std::span<const uint8_t> payload;
    ReadResult r = ParseRecord(std::span(data).subspan(off), storage, &h, &payload);
    if (r == ReadResult::kOk && h.lsn == lsn) return off;
    if (r != ReadResult::kOk && r != ReadResult::kWrongStorage) break;
    off += h.header_size + h.length;
  }
  ADD_FAILURE() << "no record " << lsn << " of " << storage << " in " << path;
  return 0;
}

enum class Damage { kChecksum, kLength, kMagic, kZeroed };

// Damages the record at `off` the way each kind of corruption would.
void DamageAt(const std::string& path, uint64_t off, Damage d) {
  switch (d) {
    case Damage::kChecksum: Patch(path, off + kHeaderSize + 1, {'#'}); break;
    case Damage::kLength: {
      std::vector<uint8_t> len(4);
      base::StoreFixed32(len.data(), 0xfffffff0u);
      Patch(path, off + kLengthOffset, len);
      break;
    }
    case Damage::kMagic: Patch(path, off, {'X', 'X', 'X', 'X'}); break;
    case Damage::kZeroed: Patch(path, off, std::vector<uint8_t>(kHeaderSize + 3, 0)); break;
  }
}

TEST(Recovery, CorruptRecordFollowedByDurableOnesIsCorruptionNamingFileAndOffset) {
  for (Damage d : {Damage::kChecksum, Damage::kLength, Damage::kMagic, Damage::kZeroed}) {
    Journal j(Env::Default());
    j.Commit(20, false);
    const uint64_t off = OffsetOf(j.File(), kRoot, 10);
    DamageAt(j.File(), off, d);
    Replayed r = Replay(Env::Default(), j.root_dir, kRoot, RecoveryMode::kTolerateTornTail);
    ASSERT_EQ(r.status.code(), StatusCode::kCorruption) << int(d) << ": " << r.status.ToString();
    EXPECT_EQ(r.status.path(), j.File());
    EXPECT_NE(r.status.message().find("byte " + std::to_string(off) + " of " + j.File()), std::string::npos)
        << r.status.message();
    EXPECT_EQ(r.result.bad_offset, off);
    EXPECT_EQ(r.result.need_lsn, 10u);
    EXPECT_EQ(r.result.records_after, 10u);
    EXPECT_TRUE(r.result.lost);
    EXPECT_EQ(StateOf(r.result), JournalState::kLost);
  }
}

TEST(Recovery, PointInTimeStopsAtTheBadRecordAndSaysWhatItDropped) {
  Journal j(Env::Default());
  j.Commit(20, false);
  const uint64_t off = OffsetOf(j.File(), kRoot, 12);
  DamageAt(j.File(), off, Damage::kChecksum);
  Replayed r = Replay(Env::Default(), j.root_dir, kRoot, RecoveryMode::kPointInTime);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.lsns, Range(1, 11));
  EXPECT_TRUE(r.result.lost);
  EXPECT_EQ(r.result.records_after, 8u);  // 13..20
  EXPECT_EQ(r.result.bytes_after, ReadAll(j.File()).size() - off) << "no zeros written ahead here";
  EXPECT_EQ(r.result.set_aside, std::vector<std::string>{j.File()});
  ASSERT_TRUE(SetAsideDropped(Env::Default(), j.root_dir, r.result.set_aside).ok());
  EXPECT_TRUE(Env::Default()->Exists(j.File() + ".dropped"));
  Replayed again = Replay(Env::Default(), j.root_dir, kRoot, RecoveryMode::kTolerateTornTail);
  EXPECT_TRUE(again.status.ok());
  EXPECT_TRUE(again.lsns.empty());
}

TEST(Recovery, LastRecordDamagedIsATornTail) {
  Journal j(Env::Default());
  j.Commit(20, false);
  DamageAt(j.File(), OffsetOf(j.File(), kRoot, 20), Damage::kChecksum);
  Replayed r = Replay(Env::Default(), j.root_dir, kRoot, RecoveryMode::kTolerateTornTail);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.lsns, Range(1, 19));
  EXPECT_FALSE(r.result.lost);
  EXPECT_EQ(StateOf(r.result), JournalState::kTornTail);
}

// Records appended after the last fdatasync say so: a bad one among them,
// intact ones after it, is a torn tail however the crash left the sectors.
TEST(Recovery, UnsyncedRecordsAfterABadOneAreATornTail) {
  Journal j(Env::Default());
  j.Commit(10, false);
  for (int i = 0; i < 10; ++i) j.gc->Append(Payload(11 + i));  // 11..20, one write, never synced
  ASSERT_TRUE(j.gc->SyncAll().ok());
  // Every record 11..20 was appended with synced = 10: damage 12, keep the rest.
  DamageAt(j.File(), OffsetOf(j.File(), kRoot, 12), Damage::kZeroed);
  Replayed r = Replay(Env::Default(), j.root_dir, kRoot, RecoveryMode::kTolerateTornTail);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.lsns, Range(1, 11));
  EXPECT_FALSE(r.result.lost);
  EXPECT_EQ(r.result.records_after, 8u);
}

// Power cuts at random: whatever the crash kept of the unsynced write,
// recovery opens with every synced record and never calls it corruption.
TEST(Recovery, PowerLossIsNeverCorruption) {
  const uint64_t seed = base::TestSeed();
  uint64_t intact_after_bad = 0;  // rounds whose crash kept records past a lost one
  for (int round = 0; round < 30; ++round) {
    FaultEnv env;
    Journal j(&env);
    j.Commit(15, round % 2 == 1);
    for (int i = 0; i < 20; ++i) {
      uint64_t root = j.gc->last_lsn() + 1;
      std::vector<uint8_t> bp = Payload(root + 1000);
      GroupCommit::StreamRecord rec{j.stream, bp};
      j.gc->Append(Payload(root), round % 2 == 1 ? std::span(&rec, 1) : std::span<const GroupCommit::StreamRecord>{});
    }
    env.FailNth(FaultOp::kSync, 1, EIO, "", /*sticky=*/true);  // written, never synced
    EXPECT_FALSE(j.gc->SyncAll().ok());
    j.writer->Close();
    env.Crash();
    env.ApplyCrash(seed + round);
    env.ClearFaults();
    for (auto [dir, storage] : {std::pair{j.root_dir, kRoot}, std::pair{j.branch_dir, kBranch}}) {
      if (storage == kBranch && round % 2 == 0) continue;
      Replayed r = Replay(&env, dir, storage, RecoveryMode::kTolerateTornTail);
      ASSERT_TRUE(r.status.ok()) << r.status.ToString() << " seed " << seed + round;
      ASSERT_GE(r.lsns.size(), 15u) << "seed " << seed + round;
      EXPECT_EQ(r.lsns, Range(1, r.lsns.size()));
      intact_after_bad += r.result.records_after > 0;
    }
  }
  // Else the test never met the case a rule without `synced` gets wrong.
  EXPECT_GT(intact_after_bad, 0u) << "seed " << seed;
}

// The file before a later one was synced through its end before the later
// one was created: a gap is lost records, not a tail.
TEST(Recovery, GapBeforeALaterFileIsCorruptionOrWherePointInTimeStops) {
  Journal j(Env::Default(), 600);  // small files: several rotations
  j.Commit(40, false);
  std::vector<JournalFile> files;
  ASSERT_TRUE(ListJournalFiles(Env::Default(), j.root_dir, &files).ok());
  ASSERT_GE(files.size(), 3u);
  ASSERT_TRUE(Env::Default()->DeleteFile(files[1].path).ok());
  Replayed r = Replay(Env::Default(), j.root_dir, kRoot, RecoveryMode::kTolerateTornTail);
  EXPECT_EQ(r.status.code(), StatusCode::kCorruption) << r.status.ToString();
  EXPECT_EQ(r.status.path(), files[2].path);
  Replayed p = Replay(Env::Default(), j.root_dir, kRoot, RecoveryMode::kPointInTime);
  ASSERT_TRUE(p.status.ok());
  EXPECT_EQ(p.lsns, Range(1, files[1].first_lsn - 1));
  EXPECT_EQ(p.result.records_after, 40 - files[2].first_lsn + 1);
  EXPECT_EQ(p.result.set_aside.size(), files.size() - 2);
}

// A later file that starts at the needed LSN resumes: the bad point was a
// crashed session's tail, and the next session started there.
TEST(Recovery, AFileResumingTheSequenceEndsTheTornTail) {
  Journal j(Env::Default());
  j.Commit(10, false);
  DamageAt(j.File(), OffsetOf(j.File(), kRoot, 10), Damage::kZeroed);
  j.writer->Close();
  FailStop fail;
  JournalWriter w2(Env::Default(), j.root_dir, 1 << 20);
  GroupCommit gc2(&w2, kRoot, 9, CommitPolicy::kDurableGroup, &fail);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(gc2.AwaitDurable(gc2.Append(Payload(10 + i))).ok());
  Replayed r = Replay(Env::Default(), j.root_dir, kRoot, RecoveryMode::kTolerateTornTail);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.lsns, Range(1, 14));
  EXPECT_FALSE(r.result.lost);
}

// Shared journals: a branch's damaged record is a bad point for every
// storage reading the file; the branch's own later records prove it durable.
TEST(Recovery, BranchRecordInASharedFileIsCorruptionForBoth) {
  Journal j(Env::Default());
  j.Commit(20, true);
  const std::string branch_file = j.branch_dir + "/" + JournalFileName(1);
  ASSERT_TRUE(Env::Default()->Exists(branch_file));
  const uint64_t off = OffsetOf(branch_file, kBranch, 8);
  DamageAt(branch_file, off, Damage::kChecksum);
  Replayed b = Replay(Env::Default(), j.branch_dir, kBranch, RecoveryMode::kTolerateTornTail);
  ASSERT_EQ(b.status.code(), StatusCode::kCorruption) << b.status.ToString();
  EXPECT_EQ(b.result.bad_offset, off);
  EXPECT_EQ(b.result.records_after, 12u);
  Replayed r = Replay(Env::Default(), j.root_dir, kRoot, RecoveryMode::kTolerateTornTail);
  EXPECT_EQ(r.status.code(), StatusCode::kCorruption) << r.status.ToString();
  Replayed p = Replay(Env::Default(), j.branch_dir, kBranch, RecoveryMode::kPointInTime);
  ASSERT_TRUE(p.status.ok());
  EXPECT_EQ(p.lsns, Range(1, 7));
}

// Files written before the synced field: 32-byte "FEJR" headers. They still
// read, and for them any later intact record past the needed LSN is proof.
std::vector<uint8_t> V1Record(uint64_t storage, uint64_t lsn, std::span<const uint8_t> payload) {
  std::vector<uint8_t> rec(kHeaderSizeV1 + payload.size());
  base::StoreFixed32(rec.data(), kMagicV1);
  base::StoreFixed32(rec.data() + 4, static_cast<uint32_t>(payload.size()));
  base::StoreFixed64(rec.data() + 8, storage);
  base::StoreFixed64(rec.data() + 16, lsn);
  std::copy(payload.begin(), payload.end(), rec.begin() + kHeaderSizeV1);
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, rec.data() + 4, 20);
  XXH3_64bits_update(&state, payload.data(), payload.size());
  base::StoreFixed64(rec.data() + 24, XXH3_64bits_digest(&state));
  return rec;
}

TEST(Recovery, OldRecordsReadAndALaterOneProvesLoss) {
  base::ScratchDir dir;
  std::vector<uint8_t> file;
  std::vector<uint64_t> offsets;
  for (uint64_t lsn = 1; lsn <= 10; ++lsn) {
    offsets.push_back(file.size());
    std::vector<uint8_t> rec = V1Record(kRoot, lsn, Payload(lsn));
    file.insert(file.end(), rec.begin(), rec.end());
  }
  const std::string path = dir.path() + "/" + JournalFileName(1);
  {
    std::unique_ptr<File> f;
    ASSERT_TRUE(Env::Default()->Open(path, OpenMode::kCreate, &f).ok());
    ASSERT_TRUE(f->Write(0, file).ok());
  }
  Replayed whole = Replay(Env::Default(), dir.path(), kRoot, RecoveryMode::kTolerateTornTail);
  ASSERT_TRUE(whole.status.ok()) << whole.status.ToString();
  EXPECT_EQ(whole.lsns, Range(1, 10));
  Patch(path, offsets[9] + kHeaderSizeV1 + 1, {'#'});  // the last: a torn tail
  Replayed tail = Replay(Env::Default(), dir.path(), kRoot, RecoveryMode::kTolerateTornTail);
  ASSERT_TRUE(tail.status.ok()) << tail.status.ToString();
  EXPECT_EQ(tail.lsns, Range(1, 9));
  Patch(path, offsets[4] + kHeaderSizeV1 + 1, {'#'});  // the fifth, with 6..9 intact after it
  Replayed lost = Replay(Env::Default(), dir.path(), kRoot, RecoveryMode::kTolerateTornTail);
  EXPECT_EQ(lost.status.code(), StatusCode::kCorruption) << lost.status.ToString();
  EXPECT_EQ(lost.result.records_after, 4u);
}

// Record format versions (format.h). A folder of version-2 records, as
// every folder written before versioned records is: read whole, its
// `synced` field proving loss as before, and a version-3 file after it
// (the next session's) continues the sequence.
void WriteFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::unique_ptr<File> f;
  ASSERT_TRUE(Env::Default()->Open(path, OpenMode::kCreate, &f).ok());
  ASSERT_TRUE(f->Write(0, bytes).ok());
}

TEST(RecordVersions, Version2FilesReadAndTheirSyncedFieldProvesLoss) {
  base::ScratchDir dir;
  std::vector<uint8_t> old, next;
  std::vector<uint64_t> offsets;
  for (uint64_t lsn = 1; lsn <= 10; ++lsn) {
    offsets.push_back(old.size());
    ASSERT_TRUE(AppendRecordV2(&old, kRoot, lsn, Payload(lsn), lsn - 1).ok());
  }
  for (uint64_t lsn = 11; lsn <= 15; ++lsn) ASSERT_TRUE(AppendRecord(&next, kRoot, lsn, Payload(lsn), lsn - 1).ok());
  const std::string path = dir.path() + "/" + JournalFileName(1);
  WriteFile(path, old);
  WriteFile(dir.path() + "/" + JournalFileName(11), next);
  RecordHeader h;
  std::span<const uint8_t> payload;
  ASSERT_EQ(ParseRecord(old, kRoot, &h, &payload), ReadResult::kOk);
  EXPECT_EQ(h.version, 2);
  EXPECT_EQ(h.header_size, kHeaderSizeV2);
  EXPECT_EQ(h.type, RecordType::kCommit);
  Replayed whole = Replay(Env::Default(), dir.path(), kRoot, RecoveryMode::kTolerateTornTail);
  ASSERT_TRUE(whole.status.ok()) << whole.status.ToString();
  EXPECT_EQ(whole.lsns, Range(1, 15));
  // The fifth damaged: the sixth says the fifth was synced, so it was acknowledged.
  Patch(path, offsets[4] + kHeaderSizeV2 + 1, {'#'});
  Replayed lost = Replay(Env::Default(), dir.path(), kRoot, RecoveryMode::kTolerateTornTail);
  EXPECT_EQ(lost.status.code(), StatusCode::kCorruption) << lost.status.ToString();
  EXPECT_EQ(lost.result.bad_offset, offsets[4]);
  EXPECT_EQ(lost.result.records_after, 10u);  // 6..10, and 11..15 in the next file
}

// Sets record `off`'s version byte and its complement, as a newer build would write them.
void StampVersion(const std::string& path, uint64_t off, uint8_t version) {
  Patch(path, off + kVersionOffset, {version, static_cast<uint8_t>(~version)});
}

TEST(RecordVersions, ANewerVersionIsRefusedNeverDroppedAsATornTail) {
  for (uint64_t lsn : {uint64_t{10}, uint64_t{20}}) {  // mid-log, and the last record (a torn tail's place)
    Journal j(Env::Default());
    j.Commit(20, false);
    const uint64_t off = OffsetOf(j.File(), kRoot, lsn);
    StampVersion(j.File(), off, 7);
    for (RecoveryMode mode : {RecoveryMode::kTolerateTornTail, RecoveryMode::kPointInTime}) {
      SCOPED_TRACE(fmt::format("LSN {}, mode {}", lsn, static_cast<int>(mode)));
      Replayed r = Replay(Env::Default(), j.root_dir, kRoot, mode);
      ASSERT_EQ(r.status.code(), StatusCode::kNotSupported) << r.status.ToString();
      EXPECT_EQ(r.status.path(), j.File());
      const std::string want = fmt::format("journal record at byte {} of {} has format version 7; this build reads "
                                           "versions 1 to 3",
                                           off, j.File());
      EXPECT_NE(r.status.message().find(want), std::string::npos) << r.status.message();
      EXPECT_TRUE(r.result.set_aside.empty());
    }
  }
}

// A later file that begins with a newer version, after a gap: that file is
// a newer build's session, refused rather than scanned past.
TEST(RecordVersions, ALaterFileOfANewerVersionIsRefused) {
  Journal j(Env::Default(), 600);
  j.Commit(40, false);
  std::vector<JournalFile> files;
  ASSERT_TRUE(ListJournalFiles(Env::Default(), j.root_dir, &files).ok());
  ASSERT_GE(files.size(), 3u);
  ASSERT_TRUE(Env::Default()->DeleteFile(files[1].path).ok());
  StampVersion(files[2].path, 0, 4);
  Replayed r = Replay(Env::Default(), j.root_dir, kRoot, RecoveryMode::kPointInTime);
  ASSERT_EQ(r.status.code(), StatusCode::kNotSupported) << r.status.ToString();
  EXPECT_EQ(r.status.path(), files[2].path);
}

// A version byte without its complement is damage, read as any bad point:
// here the last record, so a torn tail.
TEST(RecordVersions, ADamagedVersionByteIsDamageNotANewerVersion) {
  Journal j(Env::Default());
  j.Commit(20, false);
  Patch(j.File(), OffsetOf(j.File(), kRoot, 20) + kVersionOffset, {9});
  Replayed r = Replay(Env::Default(), j.root_dir, kRoot, RecoveryMode::kTolerateTornTail);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.lsns, Range(1, 19));
  EXPECT_NE(r.result.stop.find("bad magic"), std::string::npos) << r.result.stop;
  EXPECT_EQ(StateOf(r.result), JournalState::kTornTail);
}

// A checksummed record of a type this build does not know: refused too.
TEST(RecordVersions, AnUnknownRecordTypeIsRefused) {
  Journal j(Env::Default());
  j.Commit(5, false);
  const uint64_t off = OffsetOf(j.File(), kRoot, 3);
  std::vector<uint8_t> data = ReadAll(j.File());
  RecordHeader h;
  std::span<const uint8_t> payload;
  ASSERT_EQ(ParseRecord(std::span(data).subspan(off), kRoot, &h, &payload), ReadResult::kOk);
  EXPECT_EQ(h.type, RecordType::kCommit);
  uint8_t* rec = data.data() + off;
  rec[kVersionOffset + 2] = 42;
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, rec + 4, kHeaderSize - 12);
  XXH3_64bits_update(&state, payload.data(), payload.size());
  base::StoreFixed64(rec + kHeaderSize - 8, XXH3_64bits_digest(&state));
  EXPECT_EQ(ParseRecord(std::span(data).subspan(off), kRoot, &h, &payload), ReadResult::kUnknownType);
  Patch(j.File(), off, std::vector<uint8_t>(rec, rec + kHeaderSize));
  Replayed r = Replay(Env::Default(), j.root_dir, kRoot, RecoveryMode::kPointInTime);
  ASSERT_EQ(r.status.code(), StatusCode::kNotSupported) << r.status.ToString();
  EXPECT_NE(r.status.message().find("record type 42"), std::string::npos) << r.status.message();
}

// The last guard: a payload over the reader's limit is refused whole.
TEST(Recovery, AppendRecordRefusesWhatTheReaderWouldRefuse) {
  std::vector<uint8_t> out;
  std::vector<uint8_t> big(kMaxPayload + 1, 'x');
  Status s = AppendRecord(&out, kRoot, 1, big);
  EXPECT_EQ(s.code(), StatusCode::kTooLarge) << s.ToString();
  EXPECT_TRUE(out.empty());
  big.pop_back();
  ASSERT_TRUE(AppendRecord(&out, kRoot, 1, big).ok());
  RecordHeader h;
  std::span<const uint8_t> payload;
  EXPECT_EQ(ParseRecord(out, kRoot, &h, &payload), ReadResult::kOk);
  EXPECT_EQ(payload.size(), kMaxPayload);
}

TEST(Recovery, GroupCommitFailStopsOnARecordOverTheLimit) {
  FaultEnv env;
  Journal j(&env);
  j.Commit(3, false);
  std::vector<uint8_t> big(kMaxPayload + 1, 'x');
  uint64_t lsn = j.gc->Append(big);
  EXPECT_EQ(j.gc->last_lsn(), 3u) << "nothing appended";
  Status s = j.gc->AwaitDurable(lsn);
  EXPECT_EQ(s.code(), StatusCode::kFailStopped) << s.ToString();
  EXPECT_NE(s.ToString().find("kMaxCommitBytes"), std::string::npos) << s.ToString();
  Replayed r = Replay(&env, j.root_dir, kRoot, RecoveryMode::kTolerateTornTail);
  EXPECT_EQ(r.lsns, Range(1, 3));
}

}  // namespace recovery_test
}  // namespace fenec::journal
