#include "engine/src/base/histogram.h"
#include "engine/src/base/testing.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

namespace fenec::base {
namespace {

uint64_t test_seed() { return TestSeed(); }  // logged, and FENEC_SEED replays it

// Within one bucket's relative width (1/64) of the expected value.
void expect_near_rel(uint64_t got, double want) {
  EXPECT_NEAR(static_cast<double>(got), want, want / 64.0 + 1) << "want ~" << want;
}

TEST(Histogram, EmptyIsZero) {
  Histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.mean(), 0.0);
  EXPECT_EQ(h.Percentile(50), 0u);
  EXPECT_TRUE(h.Bins().empty());
  EXPECT_EQ(LatencySummary::Of(h).count, 0u);
}

TEST(Histogram, SmallValuesAreExact) {
  for (uint64_t v = 0; v < Histogram::kLinearLimit; ++v) {
    const int b = Histogram::BucketOf(v);
    EXPECT_EQ(Histogram::BucketLo(b), v);
    EXPECT_EQ(Histogram::BucketHi(b), v);
  }
  Histogram h;
  for (uint64_t v = 0; v < 64; ++v) h.Record(v);  // 64 samples, one each of 0..63
  for (uint64_t k = 1; k <= 64; ++k) {
    // Nearest rank: the k-th smallest sample is the (k/64*100)th percentile.
    EXPECT_EQ(h.Percentile(100.0 * static_cast<double>(k) / 64.0), k - 1);
  }
  EXPECT_EQ(h.Percentile(0), 0u);
  EXPECT_EQ(h.Percentile(100), 63u);
}

TEST(Histogram, BucketsTileTheRangeWithBoundedWidth) {
  for (int b = 0; b + 1 < Histogram::kBuckets; ++b) {
    ASSERT_EQ(Histogram::BucketHi(b) + 1, Histogram::BucketLo(b + 1)) << "bucket " << b;
    ASSERT_EQ(Histogram::BucketOf(Histogram::BucketLo(b)), b);
    ASSERT_EQ(Histogram::BucketOf(Histogram::BucketHi(b)), b);
    const uint64_t width = Histogram::BucketHi(b) - Histogram::BucketLo(b) + 1;
    ASSERT_LE(width * Histogram::kSubBuckets, std::max<uint64_t>(Histogram::BucketLo(b), 64));
  }
  EXPECT_EQ(Histogram::BucketOf(UINT64_MAX), Histogram::kBuckets - 1);
  EXPECT_EQ(Histogram::BucketHi(Histogram::kBuckets - 1), UINT64_MAX);
  Histogram h;
  h.Record(UINT64_MAX);
  EXPECT_EQ(h.Percentile(50), UINT64_MAX);
}

TEST(Histogram, UniformOneToAMillion) {
  Histogram h;
  for (uint64_t v = 1; v <= 1000000; ++v) h.Record(v);
  EXPECT_EQ(h.count(), 1000000u);
  EXPECT_EQ(h.min(), 1u);
  EXPECT_EQ(h.max(), 1000000u);
  EXPECT_DOUBLE_EQ(h.mean(), 500000.5);
  expect_near_rel(h.Percentile(50), 500000);
  expect_near_rel(h.Percentile(90), 900000);
  expect_near_rel(h.Percentile(99), 990000);
  expect_near_rel(h.Percentile(99.9), 999000);
  EXPECT_EQ(h.Percentile(0), 1u);
  EXPECT_EQ(h.Percentile(100), 1000000u);
  const LatencySummary s = LatencySummary::Of(h);
  EXPECT_EQ(s.count, 1000000u);
  EXPECT_DOUBLE_EQ(s.max_us, 1000.0);
  EXPECT_NEAR(s.p50_us, 500.0, 500.0 / 64);
  EXPECT_DOUBLE_EQ(s.mean_us, 500.0005);
}

TEST(Histogram, ConstantIsExactAtAnyMagnitude) {
  for (uint64_t v : {uint64_t{7}, uint64_t{12345}, uint64_t{987654321}}) {
    Histogram h;
    h.RecordN(v, 1000);
    EXPECT_EQ(h.count(), 1000u);
    for (double p : {0.0, 50.0, 99.0, 99.9, 100.0}) EXPECT_EQ(h.Percentile(p), v);
  }
}

TEST(Histogram, TwoPoint) {
  Histogram h;
  h.RecordN(100, 990);
  h.RecordN(5000000, 10);  // the 1% tail
  EXPECT_EQ(h.Percentile(50), 100u);
  EXPECT_EQ(h.Percentile(99), 100u);
  expect_near_rel(h.Percentile(99.5), 5000000);
  EXPECT_EQ(h.Percentile(100), 5000000u);
  EXPECT_EQ(h.max(), 5000000u);
  EXPECT_EQ(h.Bins().size(), 2u);
}

TEST(Histogram, MergeEqualsRecordingIntoOne) {
  std::mt19937_64 rng(test_seed());
  std::lognormal_distribution<double> dist(10.0, 2.0);
  Histogram all;
  Histogram parts[4];
  for (int i = 0; i < 200000; ++i) {
    const auto v = static_cast<uint64_t>(dist(rng));
    all.Record(v);
    parts[i % 4].Record(v);
  }
  Histogram merged;
  for (const auto& p : parts) merged.Merge(p);
  EXPECT_EQ(merged.count(), all.count());
  EXPECT_EQ(merged.sum(), all.sum());
  EXPECT_EQ(merged.min(), all.min());
  EXPECT_EQ(merged.max(), all.max());
  for (double p : {1.0, 50.0, 90.0, 99.0, 99.9, 99.99}) EXPECT_EQ(merged.Percentile(p), all.Percentile(p));
  const auto a = all.Bins(), b = merged.Bins();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].lo, b[i].lo);
    EXPECT_EQ(a[i].count, b[i].count);
  }
  Histogram empty;
  merged.Merge(empty);
  EXPECT_EQ(merged.count(), all.count());
  EXPECT_EQ(merged.min(), all.min());
}

TEST(Histogram, BinsRoundTrip) {
  std::mt19937_64 rng(test_seed());
  std::uniform_int_distribution<uint64_t> dist(0, uint64_t{1} << 40);
  Histogram h;
  for (int i = 0; i < 50000; ++i) h.Record(dist(rng) >> (i % 40));
  Histogram back;
  uint64_t total = 0;
  for (const auto& b : h.Bins()) {
    EXPECT_LE(b.lo, b.hi);
    back.RecordN(b.lo, b.count);
    total += b.count;
  }
  EXPECT_EQ(total, h.count());
  const auto a = h.Bins(), c = back.Bins();
  ASSERT_EQ(a.size(), c.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].lo, c[i].lo);
    EXPECT_EQ(a[i].hi, c[i].hi);
    EXPECT_EQ(a[i].count, c[i].count);
  }
}

TEST(Histogram, ResetForgetsEverything) {
  Histogram h;
  h.Record(5);
  h.Record(500);
  h.Reset();
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_TRUE(h.Bins().empty());
  h.Record(9);
  EXPECT_EQ(h.min(), 9u);
}

}  // namespace
}  // namespace fenec::base
