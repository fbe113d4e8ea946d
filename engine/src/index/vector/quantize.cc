// BinaryCodes: see quantize.h.
#include "engine/src/index/vector/quantize.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace fenec::index::vec {

void BinaryCodes::Encode(const float* v, uint64_t* out) const {
  std::memset(out, 0, size_t{words_} * 8);
  for (uint32_t i = 0; i < dim_; ++i)
    if (v[i] > center_[i]) out[i >> 6] |= uint64_t{1} << (i & 63);
}

void BinaryCodes::Activate(const VectorArena& arena, uint32_t n, std::span<const float> center,
                           std::span<const float> levels) {
  if (!center.empty()) {
    center_.assign(center.begin(), center.end());
  } else if (n > 0) {
    std::vector<double> sum(dim_, 0.0);
    for (uint32_t node = 0; node < n; ++node) {
      const float* v = arena.At(node);
      for (uint32_t i = 0; i < dim_; ++i) sum[i] += v[i];
    }
    for (uint32_t i = 0; i < dim_; ++i) center_[i] = static_cast<float>(sum[i] / n);
  }
  if (!levels.empty()) {
    levels_.assign(levels.begin(), levels.end());
  } else {
    // Each side's mean and variance, in double (a float sum of squares
    // over thousands of vectors loses the variance to cancellation). A side
    // no vector fell on gets the threshold itself and no spread.
    std::vector<double> acc(size_t{dim_} * 6, 0.0);  // per dim: count, sum, sum of squares, below then above
    for (uint32_t node = 0; node < n; ++node) {
      const float* v = arena.At(node);
      for (uint32_t i = 0; i < dim_; ++i) {
        double* a = &acc[size_t{i} * 6 + (v[i] > center_[i] ? 3 : 0)];
        a[0] += 1;
        a[1] += v[i];
        a[2] += double(v[i]) * v[i];
      }
    }
    levels_.assign(size_t{dim_} * 4, 0.0f);
    for (uint32_t i = 0; i < dim_; ++i) {
      for (int side = 0; side < 2; ++side) {
        const double* a = &acc[size_t{i} * 6 + side * 3];
        const double mean = a[0] > 0 ? a[1] / a[0] : center_[i];
        const double var = a[0] > 0 ? std::max(0.0, a[2] / a[0] - mean * mean) : 0.0;
        levels_[size_t{i} * 4 + side] = static_cast<float>(mean);
        levels_[size_t{i} * 4 + 2 + side] = static_cast<float>(var);
      }
    }
  }
  codes_.Grow(n);
  for (uint32_t node = 0; node < n; ++node)
    Encode(arena.At(node), reinterpret_cast<uint64_t*>(codes_.At(node)));
  ready_.store(true, std::memory_order_release);
}

void BinaryCodes::Add(const VectorArena& arena, uint32_t node) {
  codes_.Grow(size_t{node} + 1);
  Encode(arena.At(node), reinterpret_cast<uint64_t*>(codes_.At(node)));
}

float BinaryCodes::FillTable(const float* query, float* table) const {
  // w_j: what bit j set adds to the estimate; base: the estimate of the
  // all-zero code. Dimensions past dim (the last word's padding) add 0.
  double base = l2_ ? 0.0 : 1.0;
  float w[4];
  for (uint32_t g = 0; g < words_ * 16; ++g) {
    for (uint32_t a = 0; a < 4; ++a) {
      const uint32_t i = g * 4 + a;
      w[a] = 0.0f;
      if (i >= dim_) continue;
      const float* l = &levels_[size_t{i} * 4];
      const double q = query[i];
      if (l2_) {
        const double below = (q - l[0]) * (q - l[0]) + l[2], above = (q - l[1]) * (q - l[1]) + l[3];
        base += below;
        w[a] = static_cast<float>(above - below);
      } else {
        base -= q * l[0];
        w[a] = static_cast<float>(-q * (double(l[1]) - l[0]));
      }
    }
    // Entry `nib` is the sum of w over nib's set bits: the entry without
    // its lowest bit, plus that bit's w.
    float* t = table + size_t{g} * 16;
    t[0] = 0.0f;
    for (uint32_t nib = 1; nib < 16; ++nib) t[nib] = t[nib & (nib - 1)] + w[std::countr_zero(nib)];
  }
  return static_cast<float>(base);
}

}  // namespace fenec::index::vec
