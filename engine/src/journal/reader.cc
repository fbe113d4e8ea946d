#include "engine/src/journal/reader.h"

#include <fmt/format.h>

#include "engine/src/base/coding.h"

#include <algorithm>

namespace fenec::journal {

Status ListJournalFiles(Env* env, const std::string& dir, std::vector<JournalFile>* files) {
  files->clear();
  std::vector<std::string> names;
  if (Status s = env->ListDir(dir, &names); !s.ok()) return s;
  for (const std::string& name : names) {
    uint64_t first = 0;
    if (ParseJournalFileName(name, &first)) files->push_back({dir + "/" + name, first});
  }
  std::sort(files->begin(), files->end(), [](const auto& a, const auto& b) { return a.first_lsn < b.first_lsn; });
  return Status::OK();
}

static Status ReadWholeFile(Env* env, const std::string& path, std::vector<uint8_t>* out) {
  std::unique_ptr<File> f;
  if (Status s = env->Open(path, OpenMode::kRead, &f); !s.ok()) return s;
  uint64_t size = 0;
  if (Status s = f->Size(&size); !s.ok()) return s;
  out->resize(size);
  size_t got = 0;
  if (Status s = f->Read(0, *out, &got); !s.ok()) return s;
  out->resize(got);
  return Status::OK();
}

static bool AllZero(std::span<const uint8_t> bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; });
}

// A record this build cannot read (a newer format version or record type):
// the folder is refused as it is, whatever the recovery mode, so a newer
// build's records are neither misread nor dropped as a torn tail.
static bool Unsupported(ReadResult r) { return r == ReadResult::kUnknownVersion || r == ReadResult::kUnknownType; }

namespace {

// What follows a bad point: this storage's intact records, found by
// scanning forward for the magic (the bytes at the bad point say nothing
// trustworthy about where the next record starts).
struct After {
  uint64_t records = 0;
  bool proof = false;  // a record says need was durable
  // A checksummed record of a type this build does not know: a newer
  // build's, refused like one at a record boundary. (A newer version found
  // by the byte scan proves nothing: it may be payload bytes.)
  std::string unsupported;
};

void ScanAfter(std::span<const uint8_t> data, size_t from, uint64_t storage_id, uint64_t need, After* after,
               const std::string& file) {
  // A forged run of magics with long lengths would hash the file once per
  // byte; past this budget the scan gives up (no proof from the rest).
  uint64_t budget = 8 * uint64_t{data.size()} + (1u << 20);
  size_t pos = from;
  while (pos + 4 <= data.size()) {
    const uint32_t m = base::LoadFixed32(data.data() + pos);
    if (m != kMagic && m != kMagicV2 && m != kMagicV1) {
      ++pos;
      continue;
    }
    RecordHeader h;
    std::span<const uint8_t> payload;
    ReadResult r = ParseRecord(data.subspan(pos), storage_id, &h, &payload);
    if (r == ReadResult::kOk || r == ReadResult::kWrongStorage) {
      if (r == ReadResult::kOk && h.lsn >= need) {
        ++after->records;
        if (h.version == 1 ? h.lsn > need : h.synced >= need) after->proof = true;
      }
      pos += h.header_size + h.length;
      continue;
    }
    if (r == ReadResult::kUnknownType && after->unsupported.empty())
      after->unsupported = UnsupportedRecordMessage(r, h, file, pos);
    if (r == ReadResult::kBadChecksum) {
      if (budget < h.length) return;
      budget -= h.length;
    }
    ++pos;
  }
}

// Bytes of data[from..] before its trailing zeros (zeros written ahead are not records).
uint64_t BeforeZeros(std::span<const uint8_t> data, size_t from) {
  size_t end = data.size();
  while (end > from && data[end - 1] == 0) --end;
  return end - from;
}

uint64_t FileSizeOr0(Env* env, const std::string& path) {
  uint64_t size = 0;
  std::unique_ptr<File> f;
  if (env->Open(path, OpenMode::kRead, &f).ok() && f->Size(&size).ok()) return size;
  return 0;
}

}  // namespace

JournalState StateOf(const ReplayResult& r) {
  if (r.lost) return JournalState::kLost;
  return r.stopped || r.discarded_bytes > 0 ? JournalState::kTornTail : JournalState::kClean;
}

const char* JournalStateName(JournalState s) {
  switch (s) {
    case JournalState::kClean: return "clean";
    case JournalState::kTornTail: return "torn tail";
    case JournalState::kLost: return "mid-log corruption";
  }
  return "?";
}

Status ReplayJournals(Env* env, const std::string& dir, uint64_t storage_id, uint64_t after_lsn, const ApplyFn& apply,
                      ReplayResult* result, RecoveryMode mode) {
  *result = ReplayResult{};
  result->last_lsn = after_lsn;
  result->stop = "end";
  std::vector<JournalFile> files;
  if (Status s = ListJournalFiles(env, dir, &files); !s.ok()) return s;

  // The next LSN recovery needs. A file may begin before it (records a
  // checkpoint already covers, or a torn file's successor overlapping
  // nothing); one that begins after it leaves a gap.
  uint64_t need = after_lsn + 1;
  bool stopped = false;
  size_t bad_index = 0;  // files[bad_index] holds the bad point (or follows the gap)
  After after;
  bool any_read = false;
  std::vector<uint8_t> data;
  auto stop_at = [&](size_t i, uint64_t offset, std::string why) {
    stopped = true;
    bad_index = i;
    after = After{};
    result->stop = std::move(why);
    result->bad_file = files[i].path;
    result->bad_offset = offset;
    result->need_lsn = need;
    result->bytes_after = 0;
  };
  for (size_t i = 0; i < files.size(); ++i) {
    const JournalFile& file = files[i];
    // A file that starts at or before the needed LSN was begun by a session
    // that recovered up to it: the bad point before was its torn tail.
    if (stopped && file.first_lsn <= need) stopped = false;
    if (!stopped && file.first_lsn > need) {
      if (!any_read && file.first_lsn > after_lsn + 1) {
        return Status::Corruption(fmt::format("journals start at LSN {}, after the checkpoint's {}: records missing",
                                              file.first_lsn, after_lsn),
                                  file.path);
      }
      // The file before this one was synced through its end before this
      // one was created, so LSN need was durable.
      stop_at(i, 0, fmt::format("LSN gap before {}", file.path));
      after.proof = true;
    }
    if (stopped) {
      result->discarded_bytes += FileSizeOr0(env, file.path);
      if (ReadWholeFile(env, file.path, &data).ok()) {
        // A file begins with a record: one of a newer format there is a
        // newer build's session, not bytes to scan past.
        RecordHeader h;
        std::span<const uint8_t> payload;
        if (ReadResult r = ParseRecord(data, storage_id, &h, &payload); Unsupported(r))
          return Status::NotSupported(UnsupportedRecordMessage(r, h, file.path, 0), file.path);
        result->bytes_after += BeforeZeros(data, 0);
        ScanAfter(data, 0, storage_id, need, &after, file.path);
      }
      continue;
    }
    if (Status s = ReadWholeFile(env, file.path, &data); !s.ok()) return s;
    size_t off = 0;
    uint64_t expect = file.first_lsn;
    while (true) {
      RecordHeader h;
      std::span<const uint8_t> payload;
      ReadResult r = ParseRecord(std::span(data).subspan(off), storage_id, &h, &payload);
      if (Unsupported(r)) return Status::NotSupported(UnsupportedRecordMessage(r, h, file.path, off), file.path);
      if (r == ReadResult::kWrongStorage) {
        // JR-1: a shared journal holds every storage's records; another
        // storage's whole, checksummed record is stepped over. A torn one
        // (any storage's) is a bad point for everyone.
        off += h.header_size + h.length;
        continue;
      }
      if (r != ReadResult::kOk && AllZero(std::span(data).subspan(off))) {
        // Zeros to the file's end: the zeros a writer writes ahead of its
        // records (writer.h), or blocks never written. Either way no record
        // was acknowledged there, and nothing was cut short.
        result->zeroed_bytes += data.size() - off;
        break;
      }
      if (r == ReadResult::kEnd) break;
      if (r != ReadResult::kOk || h.lsn != expect) {
        stop_at(i, off,
                r != ReadResult::kOk ? fmt::format("{} in {} at {}", ReadResultName(r), file.path, off)
                                     : fmt::format("LSN {} where {} was due in {} at {}", h.lsn, expect, file.path, off));
        result->discarded_bytes += data.size() - off;
        result->bytes_after += BeforeZeros(data, off);
        // An intact record with the wrong LSN is itself looked at; else from the next byte.
        ScanAfter(data, r == ReadResult::kOk ? off : off + 1, storage_id, need, &after, file.path);
        break;
      }
      if (h.lsn == need) {
        if (Status s = apply(h.lsn, payload); !s.ok()) return s;
        ++result->records;
        result->last_lsn = h.lsn;
        ++need;
      } else {
        ++result->skipped;  // below need: the checkpoint or an earlier file had it
      }
      any_read = true;
      ++expect;
      off += h.header_size + h.length;
    }
  }
  if (!stopped) {  // replay went on past any bad point; result->stop still names the last one
    result->bad_file.clear();
    result->bad_offset = 0;
    result->need_lsn = 0;
    result->bytes_after = 0;
    return Status::OK();
  }
  if (!after.unsupported.empty()) return Status::NotSupported(after.unsupported, result->bad_file);
  result->stopped = true;
  result->records_after = after.records;
  result->lost = after.proof;
  if (!result->lost) return Status::OK();  // a torn tail: nothing after it was acknowledged
  if (mode == RecoveryMode::kTolerateTornTail) {
    return Status::Corruption(
        fmt::format("mid-log corruption: {} (byte {} of {}): LSN {} was durable and cannot be read; {} records of "
                    "this storage follow it; RecoveryMode::kPointInTime opens without them",
                    result->stop, result->bad_offset, result->bad_file, need, after.records),
        result->bad_file);
  }
  for (size_t i = bad_index; i < files.size(); ++i) result->set_aside.push_back(files[i].path);
  return Status::OK();
}

Status SetAsideDropped(Env* env, const std::string& dir, const std::vector<std::string>& files) {
  for (const std::string& path : files) {
    if (!env->Exists(path)) continue;  // set aside already (a crash after the rename)
    if (Status s = env->Rename(path, path + ".dropped"); !s.ok()) return s;
  }
  if (files.empty()) return Status::OK();
  return env->SyncDir(dir);
}

}  // namespace fenec::journal
