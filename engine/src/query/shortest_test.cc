// WriteShortest writes what fmt's "{}" writes, character for character:
// every decade's edges, the notation's switch points, the extremes, and
// random bit patterns (FENEC_SEED, logged); and the text reads back as the
// same number.
#include "engine/src/query/shortest.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include <fmt/compile.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "engine/src/base/seed.h"
#include "engine/src/query/json_out.h"

namespace fenec::query {
namespace shortest_test {

template <typename T>
std::string Ours(T v) {
  char buf[kShortestMax];
  return std::string(buf, WriteShortest(buf, v));
}
template <typename T>
std::string Fmts(T v) {
  return fmt::format(FMT_COMPILE("{}"), v);
}

// Same text as fmt's, and it parses back to the same bits.
template <typename T>
::testing::AssertionResult Agrees(T v) {
  const std::string ours = Ours(v), theirs = Fmts(v);
  if (ours != theirs) return ::testing::AssertionFailure() << "ours " << ours << ", fmt's " << theirs;
  T back{};
  auto r = std::from_chars(ours.data(), ours.data() + ours.size(), back);
  if (r.ec != std::errc() || r.ptr != ours.data() + ours.size() || std::memcmp(&back, &v, sizeof(T)) != 0)
    return ::testing::AssertionFailure() << ours << " does not read back";
  return ::testing::AssertionSuccess();
}

template <typename T>
void EdgesAgree() {
  using L = std::numeric_limits<T>;
  for (T v : {T(0), -T(0), L::min(), L::max(), L::denorm_min(), L::lowest(), L::epsilon(), T(1), T(0.1), T(0.3)})
    EXPECT_TRUE(Agrees(v)) << sizeof(T);
  // Every decade of the type, its powers of ten and their neighbours: the
  // switches between 0.000x, x.y, xyz and x.ye±n sit there.
  for (int e = L::min_exponent10 - 20; e <= L::max_exponent10; ++e) {
    for (int m : {1, 9, 11, 99, 123, 999999}) {
      const T v = static_cast<T>(m * std::pow(10.0L, e));
      if (!std::isfinite(v) || v == 0) continue;
      for (T w : {v, std::nextafter(v, T(0)), std::nextafter(v, L::infinity()), -v}) ASSERT_TRUE(Agrees(w)) << e;
    }
  }
}
TEST(Shortest, EdgesAgreeWithFmtFloat) { EdgesAgree<float>(); }
TEST(Shortest, EdgesAgreeWithFmtDouble) { EdgesAgree<double>(); }

// Random bit patterns cover every exponent and digit count alike.
TEST(Shortest, RandomBitsAgreeWithFmt) {
  std::mt19937_64 rng(base::SeedFromEnv("query_shortest_test"));
  for (int i = 0; i < 400000; ++i) {
    const uint64_t bits = rng();
    float f;
    const uint32_t low = static_cast<uint32_t>(bits);
    std::memcpy(&f, &low, sizeof f);
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (std::isfinite(f)) {
      ASSERT_TRUE(Agrees(f)) << "float bits " << low;
    }
    if (std::isfinite(d)) {
      ASSERT_TRUE(Agrees(d)) << "double bits " << bits;
    }
  }
}

// The JSON writers around it: a vector in place, -0.0 and non-finite
// elements, a FLOAT's ".0" on whole numbers.
TEST(Shortest, JsonAroundIt) {
  std::string out;
  AppendJsonValue(out, Value(std::vector<float>{0.5f, -0.0f, 1.0f, 1e-7f, std::numeric_limits<float>::infinity(), -3.25f}));
  EXPECT_EQ(out, "[0.5,-0.0,1,1e-07,null,-3.25]");
  out.clear();
  AppendJsonValue(out, Value(std::vector<float>{}));
  EXPECT_EQ(out, "[]");
  out.clear();
  AppendJsonDouble(out, 2.0);
  out += ' ';
  AppendJsonDouble(out, -0.0);
  out += ' ';
  AppendJsonDouble(out, 1e300);
  out += ' ';
  AppendJsonDouble(out, std::nan(""));
  out += ' ';
  AppendJsonFloating(out, 0.3f);
  EXPECT_EQ(out, "2.0 -0.0 1e+300 null 0.3");
}

}  // namespace shortest_test
}  // namespace fenec::query
