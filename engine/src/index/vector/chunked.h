// ChunkedStore: fixed-size records in chunks that never move, readable
// without a lock while the store grows. VectorArena: the vectors, in one.
//
// Invariants.
//  - Records live in chunks of kPerChunk (4096) records, each chunk one
//    anonymous mapping (zero pages, faulted in as records are written: a
//    new chunk costs no memset under the writer's lock). A record's address
//    never changes, so a pointer to node i's vector or links stays valid
//    while the store grows.
//  - The chunk directory is an array of chunk pointers published through
//    one atomic pointer. Growing past it publishes a copy twice the size;
//    the old copy is kept until the store is destroyed, because a reader
//    may still be indexing it (a few KB at most: 8 bytes a chunk).
//  - Only one writer grows a store (the index's write lock); any number of
//    readers call At() for records they reached through a published link,
//    which the writer made addressable before publishing.
//  - File-backed (VectorArena's kFile storage): chunk c is the mapping
//    (MAP_SHARED) of bytes [c, c + 1) * chunk of one file, fallocated before
//    it is mapped, so a store through it never meets a hole or ENOSPC. The
//    file is truncated when opened: it is a cache of what the journal and
//    the branch's catalog hold, never read back at open (vectors.md, "Vectors
//    in a file").
// Why 4096 records a chunk: a chunk of 128-d vectors is 2 MB (one huge page
// if the kernel grants it); the directory of a 4 G-node index is 8 MB.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "fenec/status.h"

namespace fenec::index::vec {

class ChunkedStore {
 public:
  static constexpr uint32_t kChunkShift = 12;
  static constexpr uint32_t kPerChunk = uint32_t{1} << kChunkShift;

  // stride: bytes a record (a multiple of 8, so 64-bit fields stay aligned).
  // file: the file backing the chunks ("": anonymous memory), created or
  // truncated by the first growth.
  explicit ChunkedStore(size_t stride, std::string file = {});
  ~ChunkedStore();
  ChunkedStore(const ChunkedStore&) = delete;
  ChunkedStore& operator=(const ChunkedStore&) = delete;

  // Writer only: makes records [0, n) addressable (zeroed). Never moves one.
  // Fails: kIOError (the file could not be opened, allocated or mapped),
  // kNoSpace; nothing is addressable then that was not before.
  Status TryGrow(size_t n);
  // TryGrow that throws std::bad_alloc on failure (anonymous stores, and a
  // file store whose caller grew it with TryGrow first).
  void Grow(size_t n);
  uint8_t* At(uint32_t i) const {
    uint8_t* const* dir = dir_.load(std::memory_order_acquire);
    return dir[i >> kChunkShift] + size_t{i & (kPerChunk - 1)} * stride_;
  }
  size_t stride() const { return stride_; }
  size_t capacity() const { return chunks_ * size_t{kPerChunk}; }
  // Bytes mapped for chunks plus the directories (what the store reserves;
  // pages never written stay unbacked).
  size_t reserved_bytes() const;
  bool file_backed() const { return !file_.empty(); }
  // File-backed: the file's descriptor (-1 before the first growth) and a
  // record's offset in it.
  int fd() const { return fd_; }
  // The same file opened O_DIRECT for reads past the page cache (-1: not
  // yet grown, or the file system refuses O_DIRECT).
  int direct_fd() const { return direct_fd_; }
  // Offsets, lengths and buffers of its reads are multiples of this.
  uint32_t direct_align() const { return direct_align_; }
  uint64_t Offset(uint32_t i) const { return uint64_t{i} * stride_; }

 private:
  size_t stride_;
  std::string file_;
  int fd_ = -1, direct_fd_ = -1;
  uint32_t direct_align_ = 4096;
  std::atomic<uint8_t**> dir_{nullptr};
  size_t chunks_ = 0, dir_capacity_ = 0;
  std::vector<std::unique_ptr<uint8_t*[]>> dirs_;  // every directory published, newest last
};

// The vectors: dim floats a node, padded to a multiple of 4 floats (16
// bytes; dims that are multiples of 16 stay 64-byte aligned: whole cache
// lines, no AVX-512 load split across two).
//
// In a file (file non-empty): the same chunks mapped from the file, which
// the page cache holds or not (a memory limit makes a cold vector a page
// read). A new vector is written with pwrite (no fault on a page not yet
// cached), and every kWriteback vectors this run's writeback is started and
// the one kWritebackRuns before waited for (no durability: the file is rebuilt at
// open), so dirty pages stay bounded: under a cgroup limit, dirty pages
// the reclaim cannot write make it kill instead. Reads are advised
// MADV_RANDOM (a fault reads its own pages, not 128 KB around them); the
// batch arm reads a step's cold vectors past the cache (cold_read.h).
class VectorArena {
 public:
  explicit VectorArena(uint32_t dim, std::string file = {}) : dim_(dim), store_(Stride(dim), std::move(file)) {}
  static size_t Stride(uint32_t dim) { return (size_t{dim} * sizeof(float) + 15) / 16 * 16; }

  uint32_t dim() const { return dim_; }
  Status TryGrow(size_t n) { return store_.TryGrow(n); }
  void Grow(size_t n) { store_.Grow(n); }
  bool file_backed() const { return store_.file_backed(); }
  static constexpr uint32_t kWriteback = 64, kWritebackRuns = 8;
  // Writer: node's vector (the node addressable). Fails only in a file (pwrite: kIOError, kNoSpace).
  Status Write(uint32_t node, const float* v);
  // File-backed: starts writeback of nodes [first, first + n) (no wait).
  void Flush(uint32_t first, uint32_t n) const;
  int direct_fd() const { return store_.direct_fd(); }
  uint32_t direct_align() const { return store_.direct_align(); }
  uint64_t Offset(uint32_t node) const { return store_.Offset(node); }
  size_t capacity() const { return store_.capacity(); }
  float* At(uint32_t node) const { return reinterpret_cast<float*>(store_.At(node)); }
  size_t stride() const { return store_.stride(); }
  size_t reserved_bytes() const { return store_.reserved_bytes(); }

 private:
  uint32_t dim_;
  ChunkedStore store_;
};

}  // namespace fenec::index::vec
