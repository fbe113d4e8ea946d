#include "engine/src/journal/writer.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "engine/src/journal/format.h"

namespace fenec::journal {
namespace {

// The zeros a write carries: one shared MiB, named as often as needed.
constexpr uint64_t kZeroBuffer = 1u << 20;
// The least a reservation (Allocate) makes room for.
constexpr uint64_t kReserveChunk = 1u << 20;
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
  room_to_ = 0;
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
  return WriteAt(parts, zeros);
}

Status JournalWriter::WriteAt(std::span<const iovec> parts, uint64_t zeros) {
  uint64_t total = 0;
  for (const iovec& p : parts) total += p.iov_len;
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
  if (parts.empty()) return Status::OK();
  ++counters_.writes;
  Status s = parts.size() == 1
                 ? file_->Write(offset_, std::span(static_cast<const uint8_t*>(parts[0].iov_base), parts[0].iov_len))
                 : file_->WriteV(offset_, parts);
  if (!s.ok()) return s;
  const uint64_t end = offset_ + total;
  offset_ = end;
  zeroed_to_ = std::max(zeroed_to_, end + zeros);
  room_to_ = std::max(room_to_, zeroed_to_);
  counters_.bytes += total;
  counters_.zero_bytes += zeros;
  dirty_ = true;
  return Status::OK();
}

Status JournalWriter::WriteInRoom(std::span<const iovec> parts) {
  if (parts.empty()) return Status::OK();
  if (!file_) return Status::IOError("journal write before its first file", dir_, EBADF);
  return WriteAt(parts, 0);
}

Status JournalWriter::Grow(std::span<const iovec> parts, uint64_t next_lsn, uint64_t need, Status* grown) {
  *grown = Status::OK();
  uint64_t total = 0;
  for (const iovec& p : parts) total += p.iov_len;
  if (total > 0) {
    if (!file_) return Status::IOError("journal write before its first file", dir_, EBADF);
    const uint64_t end = offset_ + total;
    const bool new_file = WouldStartFile(total);
    // The zeros ride in the records' write when they stay in this file.
    if (!new_file && zero_ahead_ > 0 && need <= zero_ahead_ && end + need > room_to_) {
      const uint64_t zeros = std::max(need, std::min(zero_ahead_, std::max(max_file_bytes_, end) - end));
      Status s = WriteAt(parts, zeros);
      if (s.ok() || !s.IsNoSpace()) return s;
      *grown = s;  // the disk is full: the records alone, into the room they were admitted to
    }
    if (Status s = WriteInRoom(parts); !s.ok()) return s;
    if (!grown->ok()) return Status::OK();
  }
  bool fatal = false;
  Status g = GrowRoom(next_lsn, need, &fatal);
  if (fatal) return g;
  *grown = g;
  return Status::OK();
}

Status JournalWriter::GrowRoom(uint64_t next_lsn, uint64_t need, bool* fatal) {
  if (file_ && !rotate_ && room() >= need) return Status::OK();
  if (WouldStartFile(0)) {
    // As Prepare: the old file is synced before the next starts, so
    // recovery's "next file starts at the next LSN" holds.
    if (file_ && dirty_) {
      if (Status s = Sync(); !s.ok()) {
        *fatal = true;
        return s;
      }
    }
    if (Status s = Start(next_lsn); !s.ok()) return s;  // the old file stays current
  }
  if (room() >= need) return Status::OK();
  if (zero_ahead_ > 0 && need <= zero_ahead_) {
    const uint64_t zeros = std::max(need, std::min(zero_ahead_, std::max(max_file_bytes_, offset_) - offset_));
    return WriteAt({}, zeros);
  }
  // A reservation: no zeros to write (a large record, or append only,
  // whose fdatasyncs keep committing the file's size as that arm measures).
  // At least kReserveChunk, so small needs reserve once per chunk.
  const uint64_t bytes = std::max(need, kReserveChunk);
  Status s = file_->Allocate(offset_, bytes);
  if (s.ok()) {
    room_to_ = std::max(room_to_, offset_ + bytes);
    return s;
  }
  if (s.code() != StatusCode::kNotSupported) return s;
  return WriteAt({}, need);
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
