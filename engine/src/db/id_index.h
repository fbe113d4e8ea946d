// IdIndex: a collection's id index, 12 bytes a row, in chunks of 65 536.
//
// A flat vector doubling under the write lock would copy the whole index
// at each doubling: 12 MB and ~19 ms at a million rows, every writer
// waiting (the growth stall GR-1 describes, here in the id index). Chunks
// never move: growth allocates one 768 KiB chunk, and a pin (CC-5) copies
// chunk by chunk. Chunks come from calloc: an absent entry is all zeros, and
// calloc's fresh pages are zero without being touched, so the write that
// adds a chunk does not fault in 192 pages under the lock.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <memory>
#include <vector>

#include "db/row_store.h"

namespace fenec {

class IdIndex {
 public:
  static constexpr size_t kChunkBits = 16;
  static constexpr size_t kChunk = size_t{1} << kChunkBits;

  struct Free {
    void operator()(IdEntry* p) const { std::free(p); }
  };
  using Chunk = std::unique_ptr<IdEntry[], Free>;
  static Chunk NewChunk() {
    auto* p = static_cast<IdEntry*>(std::calloc(kChunk, sizeof(IdEntry)));
    if (p == nullptr) throw std::bad_alloc();
    return Chunk(p);
  }

  IdIndex() = default;
  IdIndex(IdIndex&&) noexcept = default;
  IdIndex& operator=(IdIndex&&) noexcept = default;

  size_t size() const { return size_; }
  IdEntry& operator[](uint64_t id) { return chunks_[id >> kChunkBits][id & (kChunk - 1)]; }
  const IdEntry& operator[](uint64_t id) const { return chunks_[id >> kChunkBits][id & (kChunk - 1)]; }

  // Grows to n entries (never shrinks); new entries are absent.
  void resize(size_t n) {
    while (chunks_.size() * kChunk < n) chunks_.push_back(NewChunk());
    size_ = std::max(size_, n);
  }

  // A copy of entries [0, size): what a pin takes under the shared lock.
  IdIndex Clone() const {
    IdIndex out;
    out.size_ = size_;
    out.chunks_.reserve(chunks_.size());
    for (size_t k = 0; k < chunks_.size(); ++k) {
      size_t n = std::min(kChunk, size_ - std::min(size_, k * kChunk));
      Chunk chunk = NewChunk();
      std::memcpy(static_cast<void*>(chunk.get()), chunks_[k].get(), n * sizeof(IdEntry));
      out.chunks_.push_back(std::move(chunk));
    }
    return out;
  }

 private:
  std::vector<Chunk> chunks_;
  size_t size_ = 0;
};

}  // namespace fenec
