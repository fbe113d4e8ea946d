#include "engine/src/journal/writer.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "engine/src/journal/format.h"

namespace fenec::journal {
namespace {

// The zeros a write carries: one shared MiB, named as often as needed.
constexpr uint64_t kZeroBuffer = 1u << 20;
const uint8_t* Zeros() {
  static const auto* zeros = new std::vector<uint8_t>(kZeroBuffer, 0);
  return zeros->data();
}

}  // namespace

JournalWriter::JournalWriter(Env* env, std::string dir, uint64_t max_file_bytes, uint64_t zero_ahead)
    : env_(env), dir_(std::move(dir)), max_file_bytes_(max_file_bytes), zero_ahead_(zero_ahead) {}

Status JournalWriter::Start(uint64_t first_lsn) {
  std::string path = dir_ + "/" + JournalFileName(first_lsn);
  std::unique_ptr<File> file;
  if (Status s = env_->Open(path, OpenMode::kCreate, &file); !s.ok()) return s;
  if (Status s = file->Truncate(0); !s.ok()) return s;
  if (Status s = env_->SyncDir(dir_); !s.ok()) return s;
  file_ = std::move(file);
  first_lsn_ = first_lsn;
  offset_ = 0;
  zeroed_to_ = 0;
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
  // Zero ahead: a small write past the zeros extends them (writer.h).
  uint64_t zeros = 0;
  const uint64_t end = offset_ + total;
  if (zero_ahead_ > 0 && end > zeroed_to_ && total < zero_ahead_) {
    // Not past the file's rotation size: the next file gets its own.
    zeros = std::min(zero_ahead_, std::max(max_file_bytes_, end) - end);
  }
  std::vector<iovec> with_zeros;
  if (zeros > 0) {
    with_zeros.assign(parts.begin(), parts.end());
    for (uint64_t left = zeros; left > 0;) {
      uint64_t n = std::min(left, kZeroBuffer);
      with_zeros.push_back({const_cast<uint8_t*>(Zeros()), n});
      left -= n;
    }
    parts = with_zeros;
  }
  ++counters_.writes;
  Status s = parts.size() == 1
                 ? file_->Write(offset_, std::span(static_cast<const uint8_t*>(parts[0].iov_base), parts[0].iov_len))
                 : file_->WriteV(offset_, parts);
  if (!s.ok()) return s;
  offset_ = end;
  zeroed_to_ = std::max(zeroed_to_, end + zeros);
  counters_.bytes += total;
  counters_.zero_bytes += zeros;
  dirty_ = true;
  return Status::OK();
}

Status JournalWriter::Sync() {
  if (!file_) return Status::OK();
  ++counters_.syncs;
  const auto t0 = std::chrono::steady_clock::now();
  Status s = file_->Sync();
  counters_.sync_ns += static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  if (!s.ok()) return s;
  dirty_ = false;
  return Status::OK();
}

}  // namespace fenec::journal
