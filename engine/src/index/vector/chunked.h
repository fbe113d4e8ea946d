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
// Why 4096 records a chunk: a chunk of 128-d vectors is 2 MB (one huge page
// if the kernel grants it); the directory of a 4 G-node index is 8 MB.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace fenec::index::vec {

class ChunkedStore {
 public:
  static constexpr uint32_t kChunkShift = 12;
  static constexpr uint32_t kPerChunk = uint32_t{1} << kChunkShift;

  // stride: bytes a record (a multiple of 8, so 64-bit fields stay aligned).
  explicit ChunkedStore(size_t stride);
  ~ChunkedStore();
  ChunkedStore(const ChunkedStore&) = delete;
  ChunkedStore& operator=(const ChunkedStore&) = delete;

  // Writer only: makes records [0, n) addressable (zeroed). Never moves one.
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

 private:
  size_t stride_;
  std::atomic<uint8_t**> dir_{nullptr};
  size_t chunks_ = 0, dir_capacity_ = 0;
  std::vector<std::unique_ptr<uint8_t*[]>> dirs_;  // every directory published, newest last
};

// The vectors: dim floats a node, padded to a multiple of 4 floats (16
// bytes; dims that are multiples of 16 stay 64-byte aligned: whole cache
// lines, no AVX-512 load split across two).
class VectorArena {
 public:
  explicit VectorArena(uint32_t dim) : dim_(dim), store_(Stride(dim)) {}
  static size_t Stride(uint32_t dim) { return (size_t{dim} * sizeof(float) + 15) / 16 * 16; }

  uint32_t dim() const { return dim_; }
  void Grow(size_t n) { store_.Grow(n); }
  size_t capacity() const { return store_.capacity(); }
  float* At(uint32_t node) const { return reinterpret_cast<float*>(store_.At(node)); }
  size_t stride() const { return store_.stride(); }
  size_t reserved_bytes() const { return store_.reserved_bytes(); }

 private:
  uint32_t dim_;
  ChunkedStore store_;
};

}  // namespace fenec::index::vec
