// The interval method of stats.h, measured rather than trusted: on seeded
// synthetic arms whose true ratio is known, the share of 95% intervals that
// hold it (coverage). Counts, never times.
#include "iobench/kit/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "engine/src/base/testing.h"

namespace fenec::kit {
namespace stats_test {

TEST(Stats, MedianOfOddEvenAndEmpty) {
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median({}), 0);
}

TEST(Stats, PairedRatioOfExactRepetitionsIsExactWithAPointInterval) {
  const Ratio r = paired_ratio({2, 4, 8}, {1, 2, 4});
  EXPECT_DOUBLE_EQ(r.value, 2);
  ASSERT_TRUE(r.ci95.known());
  EXPECT_NEAR(r.ci95.lo, 2, 1e-12);
  EXPECT_NEAR(r.ci95.hi, 2, 1e-12);
  EXPECT_EQ(r.reps, 3u);
}

TEST(Stats, OneRepetitionHasNoIntervalAndAZeroIsUnknown) {
  const Ratio one = paired_ratio({3}, {1});
  EXPECT_DOUBLE_EQ(one.value, 3);
  EXPECT_FALSE(one.ci95.known());
  EXPECT_FALSE(paired_ratio({3, 0}, {1, 1}).known());
  EXPECT_FALSE(of_reps({}).known());
  EXPECT_EQ(format_ratio(paired_ratio({2, 4}, {1, 2})), "2.00x [2.00, 2.00]");
  EXPECT_EQ(format_ratio(one), "3.00x (1 rep, no interval)");
}

TEST(Stats, TQuantilesAreStudents) {
  EXPECT_NEAR(t975(2), 4.303, 1e-3);  // 3 repetitions
  EXPECT_NEAR(t975(4), 2.776, 1e-3);  // 5 repetitions
  EXPECT_NEAR(t975(1000), 1.96, 1e-3);
}

// A trial: arms A and B with true ratio R, `reps` interleaved repetitions.
// Each repetition's machine drift hits both arms alike (lognormal, sd 0.3);
// each figure has its own noise (lognormal, sd drawn in [0.02, 0.2]); with
// `slow` > 0, a repetition of A is that much slower with probability 10%
// (a preempted run: the skew real benches show). Returns whether the
// interval held the true ratio: the geometric mean ratio, E[ln a/b].
bool covers(std::mt19937_64& rng, size_t reps, double slow) {
  std::uniform_real_distribution<double> pick_r(0.3, 5), pick_sd(0.02, 0.2), u(0, 1);
  const double R = pick_r(rng), sd = pick_sd(rng);
  std::normal_distribution<double> drift(0, 0.3), noise(0, sd);
  std::vector<double> a, b;
  for (size_t i = 0; i < reps; ++i) {
    const double d = std::exp(drift(rng));
    double ai = R * d * std::exp(noise(rng));
    if (slow > 0 && u(rng) < 0.1) ai *= slow;
    a.push_back(ai);
    b.push_back(d * std::exp(noise(rng)));
  }
  const double truth = slow > 0 ? R * std::exp(0.1 * std::log(slow)) : R;
  const Ratio r = paired_ratio(a, b);
  return r.ci95.known() && r.ci95.lo <= truth && truth <= r.ci95.hi;
}

double coverage(uint64_t seed, size_t reps, double slow, int trials = 1000) {
  std::mt19937_64 rng(seed);
  int held = 0;
  for (int t = 0; t < trials; ++t) held += covers(rng, reps, slow);
  return static_cast<double>(held) / trials;
}

// Coverage is an estimate over 1 000 trials (its standard error is ~0.7
// points), so with a new seed every run a method whose true coverage is 95%
// falls under 93% about once in 300 runs: the trials are seeded with a fixed
// seed (FENEC_SEED still replaces it, logged) so the test is a count, not a
// lottery. The 3-repetition figure is the "reported": held only to a
// looser bound that catches a broken method.
constexpr uint64_t kCoverageSeed = 20261130;

TEST(Stats, IntervalsHoldTheTrueRatioAtLeast93PercentAtFiveRepetitions) {
  const uint64_t seed = std::getenv("FENEC_SEED") != nullptr ? base::TestSeed() : kCoverageSeed;
  std::printf("coverage trials seeded with %llu\n", static_cast<unsigned long long>(seed));
  const double c5 = coverage(seed, 5, 0), c3 = coverage(seed + 1, 3, 0);
  const double s5 = coverage(seed + 2, 5, 0.6), s3 = coverage(seed + 3, 3, 0.6);
  std::printf("coverage of 1000 trials: lognormal noise %.1f%% at 5 reps, %.1f%% at 3; "
              "with 10%% of A's reps 0.6x slow %.1f%% at 5, %.1f%% at 3\n",
              100 * c5, 100 * c3, 100 * s5, 100 * s3);
  RecordProperty("coverage_5", std::to_string(c5));
  RecordProperty("coverage_3", std::to_string(c3));
  EXPECT_GE(c5, 0.93);
  EXPECT_GE(c3, 0.90);
  // Skewed noise is not the method's model: reported, and held to a looser bound.
  EXPECT_GE(s5, 0.85);
  EXPECT_GE(s3, 0.85);
}

TEST(Stats, MedianRankIsTheOrderStatisticOfA95PercentInterval) {
  EXPECT_EQ(median_rank(5), 0u);  // 2 / 32 > 5%: no interval
  EXPECT_EQ(median_rank(6), 1u);
  EXPECT_EQ(median_rank(8), 1u);
  EXPECT_EQ(median_rank(16), 4u);
  EXPECT_EQ(median_rank(24), 7u);
  EXPECT_EQ(median_rank(32), 10u);
  const Ratio few = median_ratio({2, 2, 2}, {1, 1, 1});
  EXPECT_DOUBLE_EQ(few.value, 2);
  EXPECT_FALSE(few.ci95.known());
  EXPECT_FALSE(median_ratio({1, 0, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1}).known());
}

// The median's interval over 1 000 seeded trials of 32 repetitions (the
// arms' noise is symmetric in the log, so the true median ratio is R).
TEST(Stats, MedianIntervalHoldsTheTrueMedianAtLeast95Percent) {
  const uint64_t seed = std::getenv("FENEC_SEED") != nullptr ? base::TestSeed() : kCoverageSeed;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> pick_r(0.3, 5), pick_sd(0.02, 0.2);
  int held = 0;
  for (int t = 0; t < 1000; ++t) {
    const double R = pick_r(rng);
    std::normal_distribution<double> drift(0, 0.3), noise(0, pick_sd(rng));
    std::vector<double> a, b;
    for (int i = 0; i < 32; ++i) {
      const double d = std::exp(drift(rng));
      a.push_back(R * d * std::exp(noise(rng)));
      b.push_back(d * std::exp(noise(rng)));
    }
    const Ratio r = median_ratio(a, b);
    held += r.ci95.known() && r.ci95.lo <= R && R <= r.ci95.hi;
  }
  std::printf("median interval coverage of 1000 trials at 32 reps: %.1f%% (seed %llu)\n", held / 10.0,
              static_cast<unsigned long long>(seed));
  EXPECT_GE(held, 950);
}

// MM-4's case: of 32 repetitions, `odd` ran in a regime where arm A cost
// 1.7x (1.1x otherwise). The geometric mean's interval reaches across a 1.5
// line; the median's stays with the typical repetition while the odd regime
// holds at most 9 of the 32 (k = 10).
void regime_arms(int odd, std::vector<double>* a, std::vector<double>* b) {
  std::mt19937_64 rng(kCoverageSeed + odd);
  std::normal_distribution<double> noise(0, 0.02);
  for (int i = 0; i < 32; ++i) {
    a->push_back((i < odd ? 1.7 : 1.1) * std::exp(noise(rng)));
    b->push_back(std::exp(noise(rng)));
  }
}

TEST(Stats, MedianIntervalIgnoresAMinorityRegime) {
  std::vector<double> a, b;
  regime_arms(8, &a, &b);
  EXPECT_GT(paired_ratio(a, b).ci95.hi, 1.3);  // the regimes widen the t interval
  const Ratio med = median_ratio(a, b);
  EXPECT_LT(med.ci95.hi, 1.3);
  EXPECT_NEAR(med.value, 1.1, 0.05);
  std::vector<double> a9, b9;
  regime_arms(9, &a9, &b9);
  EXPECT_LT(median_ratio(a9, b9).ci95.hi, 1.3);
  std::vector<double> a10, b10;
  regime_arms(10, &a10, &b10);
  EXPECT_GT(median_ratio(a10, b10).ci95.hi, 1.5);  // r(23) is now an odd one
}

}  // namespace stats_test
}  // namespace fenec::kit
