// Storage: a folder holding one data file and its journals.
//
//   <folder>/data.fdb    two 4 KiB superblock slots, then the data region
//   <folder>/Journals/   journal files (engine/doc/journal.md)
//
// The data region (from 8 KiB) is append-only: row bytes, written in write
// buffers (CC-4), and at each checkpoint a catalog blob (what the database
// layer needs to rebuild its state: collections, schemas, id indexes). The
// data file is fdatasync'ed only by checkpoints: until then the journal is
// what makes rows durable, and recovery lands them again from it.
//
// A checkpoint ends by writing the superblock slot the older one occupies
// (seq alternates between slots) and fdatasync'ing: a torn superblock fails
// its checksum and the other slot, the previous checkpoint, is used. Both
// slots checksummed, the higher valid seq wins.
//
// A new folder is created as data.fdb.tmp, synced, renamed and the folder
// synced, so a crash during creation leaves either no database or a whole one.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/src/base/mutex.h"
#include "fenec/env.h"

namespace fenec {

struct Superblock {
  uint64_t storage_id = 0;
  uint64_t seq = 0;             // checkpoints written; the higher valid slot wins
  uint64_t checkpoint_lsn = 0;  // every record up to this LSN is in the data file
  uint64_t data_end = 0;        // end of the data region as of the checkpoint
  uint64_t catalog_offset = 0;  // 0: no catalog yet (empty database)
  uint64_t catalog_length = 0;
  uint64_t catalog_checksum = 0;
};

struct StorageCounters {
  uint64_t data_writes = 0, data_syncs = 0, data_bytes = 0;
};

class Storage {
 public:
  static constexpr uint64_t kSlotSize = 4096;
  static constexpr uint64_t kDataStart = 2 * kSlotSize;
#if defined(__SANITIZE_THREAD__)
  // ThreadSanitizer leaves an application about 1.5 TiB of address space in
  // all (its shadow takes the rest): 1 TiB a storage failed the second
  // storage's mmap (ENOMEM). 16 GiB a storage holds every test's files.
  static constexpr uint64_t kMapReserve = 1ull << 34;
#else
  static constexpr uint64_t kMapReserve = 1ull << 40;  // address space only (MAP_NORESERVE)
#endif

  // Opens the folder, creating it if allowed. storage_id: 0 for a random one
  // (used only at creation). Fails: kNotFound, kAlreadyExists, kCorruption
  // (no valid superblock), kIOError, kNoSpace, kNotSupported (mmap).
  static Status Open(Env* env, const std::string& folder, bool create_if_missing, bool error_if_exists,
                     uint64_t storage_id, std::unique_ptr<Storage>* out);
  ~Storage();

  const Superblock& superblock() const { return sb_; }
  const std::string& folder() const { return folder_; }
  std::string journal_dir() const { return folder_ + "/Journals"; }
  Env* env() const { return env_; }
  bool created() const { return created_; }
  // The whole data file, mapped read-only; bytes below what was written are readable.
  const uint8_t* map() const { return map_; }

  // The last checkpoint's catalog blob, checksum verified. Empty if none (and on failure).
  // Fails: kCorruption, kIOError.
  Status ReadCatalog(std::vector<uint8_t>* out) const;
  // Writes into the data region. Thread-safe (distinct ranges). Fails: kIOError, kNoSpace.
  Status WriteData(uint64_t offset, std::span<const uint8_t> bytes);
  // The data file has blocks (written, or reserved by MakeDataRoom) up to
  // here: rows written below it need no new block, so a full disk cannot
  // refuse them (where the file system overwrites in place).
  uint64_t data_room() const { return data_room_.load(std::memory_order_acquire); }
  // Reserves the data file's blocks up to `end` and kDataRoomAhead past it
  // (Env's Allocate). Thread-safe. Where the file system cannot reserve
  // (kNotSupported), room becomes unbounded: writes then meet a full disk
  // as they come. Fails: kNoSpace, kIOError.
  Status MakeDataRoom(uint64_t end) FENEC_EXCLUDES(room_mu_);
  static constexpr uint64_t kDataRoomAhead = 8ull << 20;
  // The data file's descriptor for the global ring (-1: write through WriteData).
  int data_fd() const { return file_->fd(); }
  void CountRingWrite(uint64_t bytes) {
    writes_.fetch_add(1, std::memory_order_relaxed);
    bytes_.fetch_add(bytes, std::memory_order_relaxed);
  }
  // Writes the catalog at catalog_offset, fdatasyncs, then the next
  // superblock, fdatasyncs. Not concurrent with itself. Fails: kIOError, kNoSpace.
  Status CommitCheckpoint(uint64_t checkpoint_lsn, uint64_t catalog_offset, std::span<const uint8_t> catalog,
                          uint64_t data_end);
  // Deletes journal files all of whose records are at or before lsn.
  Status DeleteJournalsThrough(uint64_t lsn, uint64_t* deleted);

  StorageCounters counters() const;
  void ResetCounters();

 private:
  Storage(Env* env, std::string folder) : env_(env), folder_(std::move(folder)) {}
  Status Create(uint64_t storage_id);
  Status Load();

  Env* env_;
  std::string folder_;
  std::unique_ptr<File> file_;
  const uint8_t* map_ = nullptr;
  Superblock sb_;
  bool created_ = false;
  std::atomic<uint64_t> writes_{0}, syncs_{0}, bytes_{0};
  std::atomic<uint64_t> data_room_{0};
  base::Mutex room_mu_;  // one MakeDataRoom at a time (data_room_ is read without it)
};

}  // namespace fenec
