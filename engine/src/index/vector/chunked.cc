// ChunkedStore: see chunked.h.
#include "engine/src/index/vector/chunked.h"

#include <sys/mman.h>

#include <algorithm>
#include <cassert>
#include <cstring>
#include <new>

namespace fenec::index::vec {

ChunkedStore::ChunkedStore(size_t stride) : stride_(stride) { assert(stride % 8 == 0 || stride < 8); }

ChunkedStore::~ChunkedStore() {
  uint8_t** dir = dir_.load(std::memory_order_relaxed);
  for (size_t c = 0; c < chunks_; ++c) munmap(dir[c], stride_ * kPerChunk);
}

void ChunkedStore::Grow(size_t n) {
  while (capacity() < n) {
    if (chunks_ == dir_capacity_) {
      size_t cap = std::max<size_t>(16, dir_capacity_ * 2);
      auto next = std::make_unique<uint8_t*[]>(cap);
      if (chunks_ != 0) std::memcpy(next.get(), dir_.load(std::memory_order_relaxed), chunks_ * sizeof(uint8_t*));
      dirs_.push_back(std::move(next));
      dir_capacity_ = cap;
    }
    void* p = mmap(nullptr, stride_ * kPerChunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    uint8_t** dir = dirs_.back().get();
    dir[chunks_++] = static_cast<uint8_t*>(p);
    // Publishes the chunk (and, after a doubling, the new directory).
    dir_.store(dir, std::memory_order_release);
  }
}

size_t ChunkedStore::reserved_bytes() const {
  size_t dirs = 0;
  for (size_t i = 0, cap = 16; i < dirs_.size(); ++i, cap *= 2) dirs += cap * sizeof(uint8_t*);
  return chunks_ * stride_ * kPerChunk + dirs;
}

}  // namespace fenec::index::vec
