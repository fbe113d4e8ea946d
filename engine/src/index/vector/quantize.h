// BinaryCodes (VS-2): each vector kept as one bit a dimension, the sign of
// (vector - center), in ceil(dim/64) 64-bit words (dim/8 bytes when dim is
// a multiple of 64; 32x smaller than float32).
//
// The center. Sign bits of data that sits away from the origin are nearly
// the same for every vector, so the codes are of the vectors minus their
// mean. The mean is taken once, over the vectors held when the index first
// holds kCenterSample (1024) nodes (all of them, when one batch crosses it),
// or given by a loaded graph, and then frozen: codes never change after
// they are written, so searches read them with no lock while inserts add
// more. Until that many vectors are held there are no codes and
// searches use the full vectors (a small index is cheap to search exactly
// anyway). A mean over the first 1024 vectors is a good center when they
// are a fair sample; if a collection arrives sorted by cluster, it is not,
// and recall with rescore = false suffers first (Cleanup does not re-center).
//
// Writer (the index's write lock): Activate() once, then Add() for each new
// node, before the node is linked. Readers: ready() (acquire), then
// Encode() and At() on nodes they reached through the graph.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "engine/src/index/vector/chunked.h"

namespace fenec::index::vec {

class BinaryCodes {
 public:
  static constexpr uint32_t kCenterSample = 1024;

  explicit BinaryCodes(uint32_t dim)
      : dim_(dim), words_((dim + 63) / 64), center_(dim, 0.0f), codes_(size_t{(dim + 63) / 64} * 8) {}

  uint32_t words() const { return words_; }
  bool ready() const { return ready_.load(std::memory_order_acquire); }

  // Writer: sets the center (the mean of nodes [0, n) of the arena, or
  // `center` when given) and encodes nodes [0, n). Then ready().
  void Activate(const VectorArena& arena, uint32_t n, std::span<const float> center = {});
  // Writer: encodes node `node` (its vector in the arena), once ready().
  void Add(const VectorArena& arena, uint32_t node);

  void Encode(const float* v, uint64_t* out) const;
  const uint64_t* At(uint32_t node) const { return reinterpret_cast<const uint64_t*>(codes_.At(node)); }
  const std::vector<float>& center() const { return center_; }

  // Bytes of codes for n nodes, and what the chunks reserve.
  size_t bytes(uint32_t n) const { return size_t{n} * words_ * 8; }
  size_t reserved_bytes() const { return codes_.reserved_bytes(); }

 private:
  uint32_t dim_, words_;
  std::vector<float> center_;  // written before ready_ is set, never after
  ChunkedStore codes_;
  std::atomic<bool> ready_{false};
};

}  // namespace fenec::index::vec
