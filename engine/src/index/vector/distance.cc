// Distance kernels: see distance.h for the levels and why they are chosen
// at run time.
#include "engine/src/index/vector/distance.h"

#include <immintrin.h>

namespace fenec::index::vec {
namespace {

// ---- kScalar: the reference, one float at a time in index order.

float L2Scalar(const float* a, const float* b, size_t n) {
  float s = 0;
  for (size_t i = 0; i < n; ++i) {
    float d = a[i] - b[i];
    s += d * d;
  }
  return s;
}

float DotScalar(const float* a, const float* b, size_t n) {
  float s = 0;
  for (size_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

uint32_t HammingScalar(const uint64_t* a, const uint64_t* b, size_t words) {
  uint32_t s = 0;
  for (size_t i = 0; i < words; ++i) s += static_cast<uint32_t>(__builtin_popcountll(a[i] ^ b[i]));
  return s;
}

// ---- kSse: SSE2 is part of x86-64, so no target attribute is needed.

float HorizontalSum(__m128 v) {
  __m128 hi = _mm_movehl_ps(v, v);
  __m128 s = _mm_add_ps(v, hi);
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 0x55));
  return _mm_cvtss_f32(s);
}

float L2Sse(const float* a, const float* b, size_t n) {
  __m128 s0 = _mm_setzero_ps(), s1 = _mm_setzero_ps(), s2 = _mm_setzero_ps(), s3 = _mm_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128 d0 = _mm_sub_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i));
    __m128 d1 = _mm_sub_ps(_mm_loadu_ps(a + i + 4), _mm_loadu_ps(b + i + 4));
    __m128 d2 = _mm_sub_ps(_mm_loadu_ps(a + i + 8), _mm_loadu_ps(b + i + 8));
    __m128 d3 = _mm_sub_ps(_mm_loadu_ps(a + i + 12), _mm_loadu_ps(b + i + 12));
    s0 = _mm_add_ps(s0, _mm_mul_ps(d0, d0));
    s1 = _mm_add_ps(s1, _mm_mul_ps(d1, d1));
    s2 = _mm_add_ps(s2, _mm_mul_ps(d2, d2));
    s3 = _mm_add_ps(s3, _mm_mul_ps(d3, d3));
  }
  for (; i + 4 <= n; i += 4) {
    __m128 d = _mm_sub_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i));
    s0 = _mm_add_ps(s0, _mm_mul_ps(d, d));
  }
  float s = HorizontalSum(_mm_add_ps(_mm_add_ps(s0, s1), _mm_add_ps(s2, s3)));
  for (; i < n; ++i) {
    float d = a[i] - b[i];
    s += d * d;
  }
  return s;
}

float DotSse(const float* a, const float* b, size_t n) {
  __m128 s0 = _mm_setzero_ps(), s1 = _mm_setzero_ps(), s2 = _mm_setzero_ps(), s3 = _mm_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 = _mm_add_ps(s0, _mm_mul_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i)));
    s1 = _mm_add_ps(s1, _mm_mul_ps(_mm_loadu_ps(a + i + 4), _mm_loadu_ps(b + i + 4)));
    s2 = _mm_add_ps(s2, _mm_mul_ps(_mm_loadu_ps(a + i + 8), _mm_loadu_ps(b + i + 8)));
    s3 = _mm_add_ps(s3, _mm_mul_ps(_mm_loadu_ps(a + i + 12), _mm_loadu_ps(b + i + 12)));
  }
  for (; i + 4 <= n; i += 4) s0 = _mm_add_ps(s0, _mm_mul_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i)));
  float s = HorizontalSum(_mm_add_ps(_mm_add_ps(s0, s1), _mm_add_ps(s2, s3)));
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}

// ---- kAvx2: AVX2 + FMA.

__attribute__((target("avx2,fma"))) float HorizontalSum256(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  __m128 hi = _mm_movehl_ps(s, s);
  s = _mm_add_ps(s, hi);
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 0x55));
  return _mm_cvtss_f32(s);
}

__attribute__((target("avx2,fma"))) float L2Avx2(const float* a, const float* b, size_t n) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(),
         s3 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
    __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8));
    __m256 d2 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16));
    __m256 d3 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24));
    s0 = _mm256_fmadd_ps(d0, d0, s0);
    s1 = _mm256_fmadd_ps(d1, d1, s1);
    s2 = _mm256_fmadd_ps(d2, d2, s2);
    s3 = _mm256_fmadd_ps(d3, d3, s3);
  }
  for (; i + 8 <= n; i += 8) {
    __m256 d = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
    s0 = _mm256_fmadd_ps(d, d, s0);
  }
  float s = HorizontalSum256(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
  for (; i < n; ++i) {
    float d = a[i] - b[i];
    s += d * d;
  }
  return s;
}

__attribute__((target("avx2,fma"))) float DotAvx2(const float* a, const float* b, size_t n) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(),
         s3 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
    s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16), s2);
    s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24), s3);
  }
  for (; i + 8 <= n; i += 8) s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
  float s = HorizontalSum256(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}

// ---- kAvx512: AVX-512F; the tail is one masked load, so no scalar loop.

// Sum of 16 lanes by folding halves. The zero-masked forms on purpose:
// GCC 12's unmasked ones (and _mm512_reduce_add_ps) start from an
// "undefined" register and warn under -Wuninitialized.
__attribute__((target("avx512f"))) float HorizontalSum512(__m512 v) {
  constexpr __mmask16 kAll = 0xFFFF;
  __m512 t = _mm512_add_ps(v, _mm512_maskz_shuffle_f32x4(kAll, v, v, _MM_SHUFFLE(1, 0, 3, 2)));
  t = _mm512_add_ps(t, _mm512_maskz_shuffle_f32x4(kAll, t, t, _MM_SHUFFLE(2, 3, 0, 1)));
  return HorizontalSum(_mm512_maskz_extractf32x4_ps(0xF, t, 0));
}

__attribute__((target("avx512f"))) float L2Avx512(const float* a, const float* b, size_t n) {
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m512 d0 = _mm512_sub_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i));
    __m512 d1 = _mm512_sub_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16));
    s0 = _mm512_fmadd_ps(d0, d0, s0);
    s1 = _mm512_fmadd_ps(d1, d1, s1);
  }
  if (i + 16 <= n) {
    __m512 d = _mm512_sub_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i));
    s0 = _mm512_fmadd_ps(d, d, s0);
    i += 16;
  }
  if (i < n) {
    __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    __m512 d = _mm512_sub_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i));
    s1 = _mm512_fmadd_ps(d, d, s1);
  }
  return HorizontalSum512(_mm512_add_ps(s0, s1));
}

__attribute__((target("avx512f"))) float DotAvx512(const float* a, const float* b, size_t n) {
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
    s1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16), s1);
  }
  if (i + 16 <= n) {
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
    i += 16;
  }
  if (i < n) {
    __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    s1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i), s1);
  }
  return HorizontalSum512(_mm512_add_ps(s0, s1));
}

__attribute__((target("popcnt"))) uint32_t HammingPopcnt(const uint64_t* a, const uint64_t* b, size_t words) {
  uint32_t s = 0;
  for (size_t i = 0; i < words; ++i) s += static_cast<uint32_t>(__builtin_popcountll(a[i] ^ b[i]));
  return s;
}

// 1 - dot, per level: a function each, not a wrapper through a pointer, so
// the distance the search calls is one indirect call, as for L2.
template <FloatKernel kDot>
float OneMinus(const float* a, const float* b, size_t n) {
  return 1.0f - kDot(a, b, n);
}

bool CpuHas(const char* feature) {
  __builtin_cpu_init();
  // __builtin_cpu_supports needs a string literal: spelled out per feature.
  std::string_view f(feature);
  if (f == "avx512f") return __builtin_cpu_supports("avx512f");
  if (f == "avx2") return __builtin_cpu_supports("avx2");
  if (f == "fma") return __builtin_cpu_supports("fma");
  if (f == "popcnt") return __builtin_cpu_supports("popcnt");
  return false;
}

}  // namespace

std::string_view SimdLevelName(SimdLevel level) {
  switch (level) {
    case SimdLevel::kScalar: return "scalar";
    case SimdLevel::kSse: return "sse";
    case SimdLevel::kAvx2: return "avx2";
    case SimdLevel::kAvx512: return "avx512";
  }
  return "unknown";
}

bool Supported(SimdLevel level) {
  switch (level) {
    case SimdLevel::kScalar:
    case SimdLevel::kSse: return true;
    case SimdLevel::kAvx2: return CpuHas("avx2") && CpuHas("fma") && CpuHas("popcnt");
    case SimdLevel::kAvx512: return CpuHas("avx512f") && CpuHas("popcnt");
  }
  return false;
}

const Kernels& KernelsFor(SimdLevel level) {
  static const Kernels kTable[] = {
      {SimdLevel::kScalar, L2Scalar, DotScalar, OneMinus<DotScalar>, HammingScalar},
      {SimdLevel::kSse, L2Sse, DotSse, OneMinus<DotSse>, HammingScalar},
      {SimdLevel::kAvx2, L2Avx2, DotAvx2, OneMinus<DotAvx2>, HammingPopcnt},
      {SimdLevel::kAvx512, L2Avx512, DotAvx512, OneMinus<DotAvx512>, HammingPopcnt},
  };
  return kTable[static_cast<size_t>(level)];
}

const Kernels& BestKernels() {
  static const Kernels& best = []() -> const Kernels& {
    for (SimdLevel l : {SimdLevel::kAvx512, SimdLevel::kAvx2, SimdLevel::kSse})
      if (Supported(l)) return KernelsFor(l);
    return KernelsFor(SimdLevel::kScalar);
  }();
  return best;
}

}  // namespace fenec::index::vec
