// JournalWriter: appends whole records to the current journal file.
//
// Not thread-safe: GroupCommit hands its use to one thread at a time (the
// I/O owner). A file is only ever written at its end. Before a new file is
// started the old one is fdatasync'ed (so recovery's "next file starts at
// the next LSN" holds even in buffered mode) and the new file's directory
// entry is fsync'ed before any record in it can be acknowledged.
//
// Zero ahead. An fdatasync of a write that grows the file must also
// commit the file's new size (and on ext4 its newly allocated blocks) to
// the file system's journal: a second device write and a cache flush, on
// the commit's path. A write into blocks the file already has is data
// only. So with zero_ahead > 0 a small write that reaches past the zeros
// already written carries zero_ahead bytes of zeros behind its records (in
// the same pwritev): that write's fdatasync commits the new size once, and
// the commits after it, up to the next extension, overwrite zeros. Recovery
// reads a run of zeros to a file's end as its end (reader.h). A write of
// zero_ahead bytes or more appends without zeros: its size change is paid
// once for many records, and zeros would double its bytes. 0: append only.
//
// Room (a full disk). Records written over zeros the file already has, or
// into blocks reserved for it (Env's Allocate), need no new blocks, so a
// full disk cannot refuse their write (on file systems that overwrite in
// place: ext4, xfs; not btrfs, which copies on write). room() is what the
// file has past its last record. GroupCommit admits a commit only into room
// (WriteInRoom then never grows the file) and makes room with Grow, whose
// zeros or reservation are the only writes a full disk refuses: a commit in
// flight never meets ENOSPC.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "fenec/env.h"

namespace fenec::journal {

struct WriterCounters {
  uint64_t writes = 0, syncs = 0, bytes = 0, files = 0;
  uint64_t zero_bytes = 0;  // zeros written ahead of the records (zero ahead); not in bytes
  uint64_t sync_ns = 0;     // time spent in fdatasync
};

class JournalWriter {
 public:
  JournalWriter(Env* env, std::string dir, uint64_t max_file_bytes, uint64_t zero_ahead = 0);

  // Starts a new file whose first record will be first_lsn. An existing
  // file of that name holds no good record (recovery would have read it)
  // and is truncated. Fails: kIOError, kNoSpace.
  Status Start(uint64_t first_lsn);
  // Writes records (first LSN first_lsn) in one write at the end of the
  // current file, after rotating if the file is full or a rotation was
  // asked for. Fails: kIOError, kNoSpace.
  Status Write(std::span<const uint8_t> records, uint64_t first_lsn);
  // As Write, the records given as buffers written back to back by one pwritev (IO-7).
  Status WriteV(std::span<const iovec> parts, uint64_t first_lsn);
  // Rotates or starts a file now if a write of `bytes` starting at
  // first_lsn would, so the caller can act on the file the write will go to
  // (JR-1: link it into branches) before writing. Fails: as Start.
  Status Prepare(uint64_t bytes, uint64_t first_lsn);
  // The current file's path and a number that changes with each file started.
  std::string current_path() const;
  // The current file, kept open for a caller that syncs it while the I/O
  // owner goes on writing (write-through's periodic fdatasync); null before
  // the first file. Called by the I/O owner.
  std::shared_ptr<File> current_file() const { return file_; }
  uint64_t generation() const { return counters_.files; }
  Env* env() const { return env_; }
  // fdatasync of the current file. Fails: kIOError.
  Status Sync();

  // Bytes past the last record that the current file already has (zeros
  // written ahead) or has reserved (Allocate); 0 before the first file.
  uint64_t room() const { return file_ && room_to_ > offset_ ? room_to_ - offset_ : 0; }
  // Writes records that fit room() at the end of the current file, in one
  // write: no rotation, no zeros. Fails: kIOError (kNoSpace only where the
  // file system does not overwrite in place).
  Status WriteInRoom(std::span<const iovec> parts);
  // Writes parts (records that fit room(); may be empty), then makes room()
  // at least `need`: a new file first (named next_lsn) if this one is full
  // (past max_file_bytes with need) or a rotation was asked for, then zeros
  // ahead (need up to zero_ahead, in the records' own write when no file
  // starts) or a reservation of need bytes (Allocate; zeros where it is not
  // supported). *grown is the growth's outcome alone: kNoSpace (the disk is
  // full; room() is what it was, in this file or the new one) leaves the
  // records written. Fails: kIOError (the records' write, the old file's
  // fdatasync before a new one: the caller stops).
  Status Grow(std::span<const iovec> parts, uint64_t next_lsn, uint64_t need, Status* grown);
  // Whether Grow(parts of `total` bytes) would start a new file: the
  // records reach past max_file_bytes (the room a file keeps may lie past
  // it), or a rotation was asked for.
  bool WouldStartFile(uint64_t total) const {
    return !file_ || (offset_ + total > 0 && (rotate_ || offset_ + total > max_file_bytes_));
  }
  bool dirty() const { return dirty_; }
  // The next Write starts a new file, so a checkpoint can delete this one.
  void RequestRotation() { rotate_ = true; }
  uint64_t current_first_lsn() const { return first_lsn_; }
  const WriterCounters& counters() const { return counters_; }
  void Close() { file_.reset(); }

 private:
  Env* env_;
  std::string dir_;
  uint64_t max_file_bytes_;
  uint64_t zero_ahead_;
  std::shared_ptr<File> file_;
  uint64_t first_lsn_ = 0;
  uint64_t offset_ = 0;
  uint64_t zeroed_to_ = 0;  // the file's zeros (written, not yet overwritten) end here
  uint64_t room_to_ = 0;    // zeros or reserved blocks end here (>= zeroed_to_)
  bool dirty_ = false;  // bytes written since the last Sync
  bool rotate_ = false;
  WriterCounters counters_;

  // Grow's growth, with no records left to write. Fails: as Grow's *grown.
  Status GrowRoom(uint64_t next_lsn, uint64_t need, bool* fatal);
  // One write at offset_ of parts then `zeros` zeros; advances offset_ past
  // parts and the zeros' end past them. Fails: kIOError, kNoSpace.
  Status WriteAt(std::span<const iovec> parts, uint64_t zeros);
};

}  // namespace fenec::journal
