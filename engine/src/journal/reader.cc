#include "engine/src/journal/reader.h"

#include <fmt/format.h>

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

Status ReplayJournals(Env* env, const std::string& dir, uint64_t storage_id, uint64_t after_lsn, const ApplyFn& apply,
                      ReplayResult* result) {
  *result = ReplayResult{};
  result->last_lsn = after_lsn;
  result->stop = "end";
  std::vector<JournalFile> files;
  if (Status s = ListJournalFiles(env, dir, &files); !s.ok()) return s;

  // The next LSN recovery needs. A file may begin before it (records a
  // checkpoint already covers, or a torn file's successor overlapping
  // nothing) but never after it: that would be a gap.
  uint64_t need = after_lsn + 1;
  bool stopped = false;
  bool any_read = false;
  std::vector<uint8_t> data;
  for (size_t i = 0; i < files.size(); ++i) {
    const JournalFile& file = files[i];
    // A later file that does not continue the sequence was never reached by
    // a consistent writer: everything from here on is discarded.
    bool continues = file.first_lsn <= need;
    if (stopped || !continues) {
      if (!stopped) {
        if (!any_read && file.first_lsn > after_lsn + 1) {
          return Status::Corruption(fmt::format("journals start at LSN {}, after the checkpoint's {}: records missing",
                                                file.first_lsn, after_lsn),
                                    file.path);
        }
        result->stop = fmt::format("LSN gap before {}", file.path);
        stopped = true;
      }
      uint64_t size = 0;
      std::unique_ptr<File> f;
      if (env->Open(file.path, OpenMode::kRead, &f).ok() && f->Size(&size).ok()) result->discarded_bytes += size;
      continue;
    }
    if (Status s = ReadWholeFile(env, file.path, &data); !s.ok()) return s;
    size_t off = 0;
    uint64_t expect = file.first_lsn;
    while (true) {
      RecordHeader h;
      std::span<const uint8_t> payload;
      ReadResult r = ParseRecord(std::span(data).subspan(off), storage_id, &h, &payload);
      if (r == ReadResult::kWrongStorage) {
        // JR-1: a shared journal holds every storage's records; another
        // storage's whole, checksummed record is stepped over. A torn one
        // (any storage's) ends the file for everyone, as it must: nothing
        // after it was ever acknowledged.
        off += kHeaderSize + h.length;
        continue;
      }
      if (r == ReadResult::kOk && h.lsn != expect) {
        result->stop = fmt::format("LSN {} where {} was due in {} at {}", h.lsn, expect, file.path, off);
        result->discarded_bytes += data.size() - off;
        break;
      }
      if (r != ReadResult::kOk && AllZero(std::span(data).subspan(off))) {
        // Zeros to the file's end: the zeros a writer writes ahead of its
        // records (writer.h), or blocks never written. Either way no record
        // was acknowledged there, and nothing was cut short.
        result->zeroed_bytes += data.size() - off;
        break;
      }
      if (r != ReadResult::kOk) {
        if (r != ReadResult::kEnd) {
          result->stop = fmt::format("{} in {} at {}", ReadResultName(r), file.path, off);
          result->discarded_bytes += data.size() - off;
        }
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
      off += kHeaderSize + h.length;
    }
  }
  return Status::OK();
}

}  // namespace fenec::journal
