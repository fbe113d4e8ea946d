// Distance kernels: every dispatch level this CPU runs gives the scalar
// result within 1e-4 relative, over the dims that exercise every tail.
#include "engine/src/index/vector/distance.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "engine/src/base/testing.h"

namespace fenec::index::vec {
namespace distance_test {

constexpr SimdLevel kLevels[] = {SimdLevel::kScalar, SimdLevel::kSse, SimdLevel::kAvx2, SimdLevel::kAvx512};

void ExpectNear(float got, float want, const char* what, SimdLevel level, size_t dim) {
  float tol = 1e-4f * std::max(1.0f, std::fabs(want));
  EXPECT_NEAR(got, want, tol) << what << " at " << SimdLevelName(level) << ", dim " << dim;
}

TEST(Distance, EveryLevelMatchesScalar) {
  std::mt19937_64 rng(base::TestSeed());
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  const Kernels& ref = KernelsFor(SimdLevel::kScalar);
  int levels_run = 0;
  for (SimdLevel level : kLevels) {
    if (!Supported(level)) {
      std::printf("level %s: not supported here, skipped\n", std::string(SimdLevelName(level)).c_str());
      continue;
    }
    ++levels_run;
    const Kernels& k = KernelsFor(level);
    EXPECT_EQ(k.level, level);
    for (size_t dim : {1, 3, 16, 17, 128, 768}) {
      for (int rep = 0; rep < 20; ++rep) {
        // Offsets 0..3 floats: unaligned loads, as a query copy may be.
        std::vector<float> a(dim + 4), b(dim + 4);
        for (float& x : a) x = u(rng);
        for (float& x : b) x = u(rng);
        const float* pa = a.data() + rep % 4;
        const float* pb = b.data() + (rep / 4) % 4;
        ExpectNear(k.l2(pa, pb, dim), ref.l2(pa, pb, dim), "l2", level, dim);
        ExpectNear(k.dot(pa, pb, dim), ref.dot(pa, pb, dim), "dot", level, dim);
        ExpectNear(k.one_minus_dot(pa, pb, dim), 1.0f - ref.dot(pa, pb, dim), "1-dot", level, dim);
      }
    }
  }
  EXPECT_GE(levels_run, 2);  // scalar and SSE run on every x86-64
}

TEST(Distance, HammingCountsDifferingBits) {
  std::mt19937_64 rng(base::TestSeed());
  for (SimdLevel level : kLevels) {
    if (!Supported(level)) continue;
    const Kernels& k = KernelsFor(level);
    for (size_t words : {1, 2, 3, 12}) {
      std::vector<uint64_t> a(words), b(words);
      uint32_t want = 0;
      for (size_t w = 0; w < words; ++w) {
        a[w] = rng();
        b[w] = rng();
        for (int bit = 0; bit < 64; ++bit) want += ((a[w] ^ b[w]) >> bit) & 1;
      }
      EXPECT_EQ(k.hamming(a.data(), b.data(), words), want) << SimdLevelName(level);
    }
  }
}

TEST(Distance, BestIsTheHighestSupported) {
  const Kernels& best = BestKernels();
  EXPECT_TRUE(Supported(best.level));
  for (SimdLevel level : kLevels) {
    if (Supported(level)) {
      EXPECT_GE(static_cast<int>(best.level), static_cast<int>(level));
    }
  }
  std::printf("dispatch: %s\n", std::string(SimdLevelName(best.level)).c_str());
}

}  // namespace distance_test
}  // namespace fenec::index::vec
