// Scalar4Codes: see scalar4.h.
#include "engine/src/index/vector/scalar4.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace fenec::index::vec {
namespace {

// The 16-level uniform quantizer of least squared error for a Gaussian
// spans +-2.68 standard deviations (Max, 1960).
constexpr double kHalfRange = 2.68;

// sum_j (a_j - step_j c_j)^2 (l2) or sum_j a_j c_j (else), over blocks of 32.
float ScalarSum(const float* a, const float* step, const uint8_t* code, uint32_t blocks, bool l2) {
  float s = 0;
  for (uint32_t b = 0; b < blocks; ++b)
    for (uint32_t i = 0; i < 32; ++i) {
      const uint32_t j = b * 32 + i;
      const float c = float(i < 16 ? code[b * 16 + i] & 15 : code[b * 16 + i - 16] >> 4);
      if (l2) {
        const float t = a[j] - step[j] * c;
        s += t * t;
      } else {
        s += a[j] * c;
      }
    }
  return s;
}

__attribute__((target("avx2,fma"))) float Avx2Sum(const float* a, const float* step, const uint8_t* code,
                                                  uint32_t blocks, bool l2) {
  __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
  const __m128i low = _mm_set1_epi8(15);
  for (uint32_t b = 0; b < blocks; ++b) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(code + b * 16));
    const __m128i lo = _mm_and_si128(v, low), hi = _mm_and_si128(_mm_srli_epi16(v, 4), low);
    const __m128i parts[2] = {lo, hi};
    for (int h = 0; h < 2; ++h) {
      for (int q = 0; q < 2; ++q) {
        const __m128i bytes = q == 0 ? parts[h] : _mm_srli_si128(parts[h], 8);
        const __m256 c = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes));
        const uint32_t j = b * 32 + h * 16 + q * 8;
        const __m256 av = _mm256_loadu_ps(a + j);
        if (l2) {
          const __m256 t = _mm256_fnmadd_ps(_mm256_loadu_ps(step + j), c, av);
          (q == 0 ? acc0 : acc1) = _mm256_fmadd_ps(t, t, q == 0 ? acc0 : acc1);
        } else {
          (q == 0 ? acc0 : acc1) = _mm256_fmadd_ps(av, c, q == 0 ? acc0 : acc1);
        }
      }
    }
  }
  const __m256 acc = _mm256_add_ps(acc0, acc1);
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
  return _mm_cvtss_f32(s);
}

using SumFn = float (*)(const float*, const float*, const uint8_t*, uint32_t, bool);
SumFn BestSum() {
  static const SumFn f = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? Avx2Sum : ScalarSum;
  return f;
}

}  // namespace

Scalar4Codes::Scalar4Codes(uint32_t dim, bool l2)
    : dim_(dim), blocks_((dim + 31) / 32), l2_(l2), lo_(size_t{blocks_} * 32, 0.0f), step_(size_t{blocks_} * 32, 0.0f),
      codes_(size_t{(dim + 31) / 32} * 16) {}

void Scalar4Codes::Encode(const float* v, uint8_t* out) const {
  std::memset(out, 0, bytes_per_vector());
  for (uint32_t j = 0; j < dim_; ++j) {
    int c = step_[j] > 0 ? static_cast<int>(std::lround((v[j] - lo_[j]) / step_[j])) : 0;
    c = std::clamp(c, 0, 15);
    const uint32_t b = j / 32, i = j % 32;
    out[b * 16 + (i & 15)] |= static_cast<uint8_t>(c << (i < 16 ? 0 : 4));
  }
}

void Scalar4Codes::Activate(const VectorArena& arena, uint32_t n) {
  const uint32_t sample = std::min(n, kSample);
  std::vector<double> sum(dim_, 0.0), sq(dim_, 0.0);
  for (uint32_t node = 0; node < sample; ++node) {
    const float* v = arena.At(node);
    for (uint32_t j = 0; j < dim_; ++j) {
      sum[j] += v[j];
      sq[j] += double(v[j]) * v[j];
    }
  }
  for (uint32_t j = 0; j < dim_ && sample > 0; ++j) {
    const double mean = sum[j] / sample, sd = std::sqrt(std::max(0.0, sq[j] / sample - mean * mean));
    lo_[j] = static_cast<float>(mean - kHalfRange * sd);
    step_[j] = static_cast<float>(2 * kHalfRange * sd / 15);
  }
  codes_.Grow(n);
  for (uint32_t node = 0; node < n; ++node) Encode(arena.At(node), codes_.At(node));
  ready_.store(true, std::memory_order_release);
}

void Scalar4Codes::Add(const VectorArena& arena, uint32_t node) {
  codes_.Grow(size_t{node} + 1);
  Encode(arena.At(node), codes_.At(node));
}

void Scalar4Codes::Prepare(const float* q, Query* out) const {
  out->a.assign(size_t{blocks_} * 32, 0.0f);
  double dot_lo = 0;
  for (uint32_t j = 0; j < dim_; ++j) {
    if (l2_) {
      out->a[j] = q[j] - lo_[j];
    } else {
      out->a[j] = q[j] * step_[j];
      dot_lo += double(q[j]) * lo_[j];
    }
  }
  out->base = static_cast<float>(1.0 - dot_lo);
}

float Scalar4Codes::Estimate(const Query& q, uint32_t node) const {
  const float s = BestSum()(q.a.data(), step_.data(), At(node), blocks_, l2_);
  return l2_ ? s : q.base - s;
}

}  // namespace fenec::index::vec
