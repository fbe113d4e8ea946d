// BinaryCodes: see quantize.h.
#include "engine/src/index/vector/quantize.h"

#include <cstring>

namespace fenec::index::vec {

void BinaryCodes::Encode(const float* v, uint64_t* out) const {
  std::memset(out, 0, size_t{words_} * 8);
  for (uint32_t i = 0; i < dim_; ++i)
    if (v[i] > center_[i]) out[i >> 6] |= uint64_t{1} << (i & 63);
}

void BinaryCodes::Activate(const VectorArena& arena, uint32_t n, std::span<const float> center) {
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
  codes_.Grow(n);
  for (uint32_t node = 0; node < n; ++node)
    Encode(arena.At(node), reinterpret_cast<uint64_t*>(codes_.At(node)));
  ready_.store(true, std::memory_order_release);
}

void BinaryCodes::Add(const VectorArena& arena, uint32_t node) {
  codes_.Grow(size_t{node} + 1);
  Encode(arena.At(node), reinterpret_cast<uint64_t*>(codes_.At(node)));
}

}  // namespace fenec::index::vec
