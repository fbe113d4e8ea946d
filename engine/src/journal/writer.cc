#include "engine/src/journal/writer.h"

#include "engine/src/journal/format.h"

namespace fenec::journal {

JournalWriter::JournalWriter(Env* env, std::string dir, uint64_t max_file_bytes)
    : env_(env), dir_(std::move(dir)), max_file_bytes_(max_file_bytes) {}

Status JournalWriter::Start(uint64_t first_lsn) {
  std::string path = dir_ + "/" + JournalFileName(first_lsn);
  std::unique_ptr<File> file;
  if (Status s = env_->Open(path, OpenMode::kCreate, &file); !s.ok()) return s;
  if (Status s = file->Truncate(0); !s.ok()) return s;
  if (Status s = env_->SyncDir(dir_); !s.ok()) return s;
  file_ = std::move(file);
  first_lsn_ = first_lsn;
  offset_ = 0;
  dirty_ = false;
  rotate_ = false;
  ++counters_.files;
  return Status::OK();
}

Status JournalWriter::Write(std::span<const uint8_t> records, uint64_t first_lsn) {
  iovec part{const_cast<uint8_t*>(records.data()), records.size()};
  return WriteV(std::span(&part, 1), first_lsn);
}

Status JournalWriter::Prepare(uint64_t total, uint64_t first_lsn) {
  if (file_ && offset_ > 0 && (rotate_ || offset_ + total > max_file_bytes_)) {
    if (dirty_) {
      if (Status s = Sync(); !s.ok()) return s;
    }
    if (Status s = Start(first_lsn); !s.ok()) return s;
  }
  if (!file_) {
    if (Status s = Start(first_lsn); !s.ok()) return s;
  }
  return Status::OK();
}

std::string JournalWriter::current_path() const { return dir_ + "/" + JournalFileName(first_lsn_); }

Status JournalWriter::WriteV(std::span<const iovec> parts, uint64_t first_lsn) {
  uint64_t total = 0;
  for (const iovec& p : parts) total += p.iov_len;
  if (Status s = Prepare(total, first_lsn); !s.ok()) return s;
  ++counters_.writes;
  Status s = parts.size() == 1
                 ? file_->Write(offset_, std::span(static_cast<const uint8_t*>(parts[0].iov_base), parts[0].iov_len))
                 : file_->WriteV(offset_, parts);
  if (!s.ok()) return s;
  offset_ += total;
  counters_.bytes += total;
  dirty_ = true;
  return Status::OK();
}

Status JournalWriter::Sync() {
  if (!file_) return Status::OK();
  ++counters_.syncs;
  if (Status s = file_->Sync(); !s.ok()) return s;
  dirty_ = false;
  return Status::OK();
}

}  // namespace fenec::journal
