// RowStore: where stored rows live, and the id index entry that finds one.
//
// An id index holds one IdEntry per document id: 12 bytes (CC-5 copies
// these to pin a collection). The entry names the row's place in the data
// file (offset, length); while the row is still in a write buffer the top
// bit of the offset says so and the bytes are read from the buffer instead.
//
// Rows land (under the write lock) by being copied into the current 1 MB
// write buffer at the data file offset they will occupy: placement is
// decided under the lock, the disk is not touched. A buffer that fills is
// sealed and written by the committer that sealed it once the lock is let
// go (CC-4; BufferWrite::kUnderLock writes it before). A written buffer's
// entries are then handed over to the file - the in-buffer bit cleared - a
// piece of at most handover_piece entries per write-lock hold, at the start
// of later writes; once all of a buffer's entries are handed over it leaves
// the list and its memory goes with the last pin that shares it. The bit is
// what makes freeing a buffer safe: no live entry can point into a buffer
// that has left the list.
//
// A new buffer's pages would fault one by one under the write lock as rows
// land (256 faults a 1 MB buffer); a spare buffer is allocated and its pages
// touched outside the lock (RefillSpare, after the write that used it), and
// NewBuffer takes it.
//
// Thread-safety: Land, SealCurrent, Reserve and Handover need the write
// lock; RefillSpare needs none; Resolve and buffers() need at least the shared lock, or work on a
// pinned copy. Writing a buffer out needs no lock (claimed once). (The
// database's lock is DbImpl's, which this class cannot name: these rules
// stay comments. Its own locks are annotated.)
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "engine/src/base/mutex.h"
#include "engine/src/io/stat_counters.h"
#include "engine/src/base/thread_annotations.h"
#include "fenec/status.h"

namespace fenec {

class Storage;

struct IdEntry {
  static constexpr uint64_t kInBuffer = 1ull << 63;
  uint32_t lo = 0, hi = 0, len = 0;  // three u32s: 12 bytes, 4-byte aligned

  uint64_t loc() const { return (uint64_t{hi} << 32) | lo; }
  void set(uint64_t loc, uint32_t length) {
    lo = static_cast<uint32_t>(loc);
    hi = static_cast<uint32_t>(loc >> 32);
    len = length;
  }
  bool present() const { return len != 0; }
  bool in_buffer() const { return (loc() & kInBuffer) != 0; }
  uint64_t offset() const { return loc() & ~kInBuffer; }
};
static_assert(sizeof(IdEntry) == 12, "the id index is 12 bytes a row");

struct WriteBuffer {
  uint64_t base = 0;  // data file offset of bytes[0]
  uint32_t capacity = 0;
  uint32_t size = 0;
  std::unique_ptr<uint8_t[]> bytes;
  std::vector<std::pair<uint32_t, uint64_t>> rows;  // (collection, id) landed here, for the handover
  size_t handed_over = 0;
  bool sealed = false;
  std::atomic<bool> claimed{false};  // someone is writing (or wrote) it
  std::atomic<bool> written{false};
};
using BufferList = std::vector<std::shared_ptr<WriteBuffer>>;  // by base

class RowStore {
 public:
  // stats: where it counts write_buffers_prefaulted (the database's).
  RowStore(uint32_t buffer_bytes, uint64_t data_end, const uint8_t* map, StatCounters* stats);

  // Copies row into the current buffer; a buffer this fills is appended to *sealed.
  IdEntry Land(uint32_t collection, uint64_t id, std::span<const uint8_t> row, BufferList* sealed);
  // Seals the current buffer if it holds anything; returns it (or null).
  std::shared_ptr<WriteBuffer> SealCurrent();
  // Skips `bytes` of the data region (the checkpoint's catalog); the current buffer must be sealed.
  uint64_t Reserve(uint64_t bytes);
  uint64_t data_end() const { return data_end_; }

  // The row's bytes, looking in-buffer entries up in `buffers`.
  static std::span<const uint8_t> Resolve(const IdEntry& e, const BufferList& buffers, const uint8_t* map);
  std::span<const uint8_t> Resolve(const IdEntry& e) const { return Resolve(e, buffers_, map_); }
  const BufferList& buffers() const { return buffers_; }
  const uint8_t* map() const { return map_; }

  // Hands over up to `budget` entries of written buffers; entry_of finds an
  // entry (null if the collection is gone). Buffers fully handed over leave
  // the list into *retired, for the caller to drop once the lock is let go
  // (freeing 1 MB is an munmap). Returns the entries examined.
  size_t Handover(size_t budget, const std::function<IdEntry*(uint32_t, uint64_t)>& entry_of, BufferList* retired);
  bool handover_pending() const;

  // Writes a sealed buffer to the data file unless someone already claimed it.
  // Fails: kIOError, kNoSpace.
  Status Write(Storage* storage, WriteBuffer* buffer);
  // The two halves of Write, for a write done elsewhere (the global ring):
  // Claim is false if someone already claimed it; Completed publishes it.
  static bool Claim(WriteBuffer* buffer) { return !buffer->claimed.exchange(true, std::memory_order_acq_rel); }
  void Completed(WriteBuffer* buffer, bool ok);
  // Waits until every buffer in `list` is written, or stop() holds (fail-stop).
  void WaitWritten(const BufferList& list, const std::function<bool()>& stop) FENEC_EXCLUDES(written_mu_);
  // Wakes WaitWritten callers (after a fail-stop).
  void NotifyWritten() FENEC_EXCLUDES(written_mu_);
  // Buffers sealed but not yet claimed, for the checkpoint and close.
  BufferList Unwritten() const;

  // No lock held: makes a spare buffer ready, its pages faulted in, if the
  // last one was taken. Cheap when one is ready.
  void RefillSpare() FENEC_EXCLUDES(spare_mu_);

 private:
  void NewBuffer(uint32_t min_capacity) FENEC_EXCLUDES(spare_mu_);

  const uint32_t buffer_bytes_;
  const uint8_t* map_;
  uint64_t data_end_;
  BufferList buffers_;  // sealed ones awaiting handover, then the current one (unsealed) last
  base::Mutex spare_mu_;
  std::unique_ptr<uint8_t[]> spare_ FENEC_GUARDED_BY(spare_mu_);  // buffer_bytes_, pages touched
  std::atomic<bool> spare_wanted_{false}, refilling_{false};
  StatCounters* const stats_;
  // WriteBuffer::written is atomic; written_mu_ guards no state, it only
  // orders a store of it before the wakeup a WaitWritten caller waits for.
  base::Mutex written_mu_;
  base::CondVar written_cv_;
};

}  // namespace fenec
