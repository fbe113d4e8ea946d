// Scalar4Codes (VS-2's multi-bit code): each vector kept as 4 bits a
// dimension, a uniform quantizer per dimension: 16 levels lo_j + step_j * c,
// c in 0..15 (dim/2 bytes: 8x smaller than float32).
//
// Why this code and not RaBitQ's 1 bit + corrections or its extended
// (multi-bit) form: at 1 000 vectors a cluster the true top-10 of a query
// sit only a little nearer than their cluster-mates (vectors.md, VS-2), so
// what matters is the error of each estimated distance against those small
// gaps, not the bound on it. A 4-bit uniform quantizer's error a dimension
// is step^2 / 12, about 1/110 of the dimension's variance at the step
// below, far under one bit's, and it needs no rotation, no per-vector
// factor and no search-time table: the estimate is a plain distance to the
// decoded vector, computed 8 dimensions at a time (AVX2) from the nibbles.
// RaBitQ's unbiased estimator and error bound buy a provable rescoring pool;
// here the pool is fixed (oversample * k) and measured instead.
//
// The quantizer. Over the first kSample (1024) vectors held (as the binary
// codes' thresholds), each dimension's mean m and standard deviation s:
// lo = m - 2.68 s, step = 5.36 s / 15 (the uniform 16-level quantizer that
// minimizes the squared error of a Gaussian: Max, 1960); values outside are
// clamped. Frozen then: codes never change once written, searches read them
// with no lock. Not serialized: Load recomputes it from nodes [0, 1024) of
// the loaded vectors, which gives the same quantizer unless one of those
// nodes is dead (its vector is gone; the codes are then slightly different,
// never wrong: rescoring ranks on the full vectors).
//
// Layout: dimensions in blocks of 32 (the dim padded with zeros), a block's
// 16 bytes holding dimension i of the block in byte i's low nibble and
// dimension i + 16 in its high one, so a block decodes with two masks.
//
// Estimates (asymmetric: the query in full): L2 sum_j (q_j - x^_j)^2;
// cosine and ip 1 - sum_j q_j x^_j, with x^_j = lo_j + step_j c_j.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "engine/src/index/vector/chunked.h"

namespace fenec::index::vec {

class Scalar4Codes {
 public:
  static constexpr uint32_t kSample = 1024;
  Scalar4Codes(uint32_t dim, bool l2);

  bool ready() const { return ready_.load(std::memory_order_acquire); }
  // Writer: the quantizer from nodes [0, min(n, kSample)) of the arena, then
  // codes for nodes [0, n). Then ready().
  void Activate(const VectorArena& arena, uint32_t n);
  // Writer: the code of node `node` (its vector in the arena), once ready().
  void Add(const VectorArena& arena, uint32_t node);
  const uint8_t* At(uint32_t node) const { return codes_.At(node); }

  // A query's state: its floats padded to blocks (and, for L2, less lo).
  struct Query {
    std::vector<float> a;  // L2: q - lo; else q * step
    float base = 0;        // else: 1 - q . lo
  };
  void Prepare(const float* q, Query* out) const;
  float Estimate(const Query& q, uint32_t node) const;

  uint32_t bytes_per_vector() const { return blocks_ * 16; }
  size_t bytes(uint32_t n) const { return size_t{n} * bytes_per_vector(); }
  size_t reserved_bytes() const { return codes_.reserved_bytes(); }

 private:
  void Encode(const float* v, uint8_t* out) const;

  uint32_t dim_, blocks_;
  bool l2_;
  std::vector<float> lo_, step_;  // padded to blocks_ * 32 (zeros past dim)
  ChunkedStore codes_;
  std::atomic<bool> ready_{false};
};

}  // namespace fenec::index::vec
