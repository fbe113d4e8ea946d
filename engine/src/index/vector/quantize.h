// BinaryCodes (VS-2): each vector kept as one bit a dimension, whether it
// lies above its dimension's threshold, in ceil(dim/64) 64-bit words (dim/8
// bytes when dim is a multiple of 64; 32x smaller than float32).
//
// The thresholds. Sign bits of data that sits away from the origin are
// nearly the same for every vector, so a dimension's bit says whether the
// vector is above that dimension's mean. The means are taken once, over the
// vectors held when the index first holds kCenterSample (1024) nodes (all
// of them, when one batch crosses it), or given by a loaded graph, and then
// frozen: codes never change after they are written, so searches read them
// with no lock while inserts add more. Until that many vectors are held
// there are no codes and searches use the full vectors (a small index is
// cheap to search exactly anyway). A mean over the first 1024 vectors is a
// good threshold when they are a fair sample; if a collection arrives
// sorted by cluster, it is not, and recall suffers (Cleanup does not
// re-center).
//
// The estimate (asymmetric: a full-precision query against a code). Over
// the same sample each dimension also keeps, for each side of its
// threshold, the mean and the variance of the values there: a code then
// stands for the vector whose dimension j is the mean of its side, give or
// take that side's variance. A query's estimated distance to a code is its
// expected distance to such a vector:
//   L2:             sum_j (q_j - mean_j[b_j])^2 + var_j[b_j]
//   cosine, ip:     1 - sum_j q_j * mean_j[b_j]
// Both are base(q) + sum_j b_j * w_j(q), linear in the bits, so a search
// fills one table per 4 dimensions (16 sums of w, one per nibble value)
// once, and then an estimate is one table lookup a nibble (dim/4 of them).
// Why not the Hamming distance between the query's bits and the code: it
// throws away how far the query lies from each threshold, so every
// disagreeing dimension costs the same, and on clustered data, where most
// dimensions of a cluster sit on one side and only a few tell its members
// apart, the few that matter drown (measured in quantize_test.cc and
// engine/doc/vectors.md). The estimate is also in the metric's own units,
// so an answer not rescored can be merged with exact distances.
//
// Writer (the index's write lock): Activate() once, then Add() for each new
// node, before the node is linked. Readers: ready() (acquire), then
// FillTable() once a query and Estimate() on nodes reached through the graph.
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

  // l2: estimates are squared L2; else 1 - dot (cosine on normalized
  // vectors, inner product).
  BinaryCodes(uint32_t dim, bool l2)
      : dim_(dim), words_((dim + 63) / 64), l2_(l2), center_(dim, 0.0f), codes_(size_t{(dim + 63) / 64} * 8) {}

  uint32_t words() const { return words_; }
  bool ready() const { return ready_.load(std::memory_order_acquire); }

  // Writer: sets the thresholds (the means of nodes [0, n) of the arena, or
  // `center` when given) and each side's mean and variance (`levels`, as
  // levels() returns them, or taken over nodes [0, n) when empty), encodes
  // nodes [0, n). Then ready().
  void Activate(const VectorArena& arena, uint32_t n, std::span<const float> center = {},
                std::span<const float> levels = {});
  // Writer: encodes node `node` (its vector in the arena), once ready().
  void Add(const VectorArena& arena, uint32_t node);

  void Encode(const float* v, uint64_t* out) const;
  const uint64_t* At(uint32_t node) const { return reinterpret_cast<const uint64_t*>(codes_.At(node)); }
  const std::vector<float>& center() const { return center_; }
  // Per dimension: mean below, mean above, variance below, variance above
  // (4 * dim floats, in that order a dimension).
  const std::vector<float>& levels() const { return levels_; }

  // The query's table: table_floats() floats (16 a group of 4 dimensions).
  // Returns base(q); Estimate(table, base, node) is then the estimate.
  size_t table_floats() const { return size_t{words_} * 256; }
  float FillTable(const float* query, float* table) const;
  float Estimate(const float* table, float base, uint32_t node) const {
    const uint64_t* code = At(node);
    // Eight sums, each over every eighth nibble, in named locals: one sum
    // (or an array the compiler keeps in memory) is a chain of dependent
    // adds, 4-5 cycles each (an add's latency), where eight chains overlap.
    // A fixed order keeps the result the same on every run.
    float s0 = base, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f, s4 = 0.0f, s5 = 0.0f, s6 = 0.0f, s7 = 0.0f;
    for (uint32_t w = 0; w < words_; ++w) {
      uint64_t c = code[w];
      for (const float* t = table + size_t{w} * 256; t < table + size_t{w + 1} * 256; t += 128, c >>= 32) {
        s0 += t[0 * 16 + (c & 15)];
        s1 += t[1 * 16 + ((c >> 4) & 15)];
        s2 += t[2 * 16 + ((c >> 8) & 15)];
        s3 += t[3 * 16 + ((c >> 12) & 15)];
        s4 += t[4 * 16 + ((c >> 16) & 15)];
        s5 += t[5 * 16 + ((c >> 20) & 15)];
        s6 += t[6 * 16 + ((c >> 24) & 15)];
        s7 += t[7 * 16 + ((c >> 28) & 15)];
      }
    }
    return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
  }

  // Bytes of codes for n nodes, and what the chunks reserve.
  size_t bytes(uint32_t n) const { return size_t{n} * words_ * 8; }
  size_t reserved_bytes() const { return codes_.reserved_bytes(); }

 private:
  uint32_t dim_, words_;
  bool l2_;
  std::vector<float> center_;  // written before ready_ is set, never after
  std::vector<float> levels_;  // the same
  ChunkedStore codes_;
  std::atomic<bool> ready_{false};
};

}  // namespace fenec::index::vec
