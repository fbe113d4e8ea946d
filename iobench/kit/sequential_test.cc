// Sequential repetitions (sequential.h): the reps text, the plan, what a
// site runs and how its checks are judged, and, measured rather than
// trusted, the coverage of its intervals under optional stopping: on
// seeded synthetic arms of known ratio, the share of judged intervals that
// hold the true ratio. Counts, never times.
#include "iobench/kit/sequential.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "engine/src/base/testing.h"

namespace fenec::kit {
namespace sequential_test {

TEST(Reps, TextIsACountOrAutoWithABudgetAndACap) {
  RepsPlan p;
  EXPECT_EQ(parse_reps("5", &p), "");
  EXPECT_FALSE(p.automatic);
  EXPECT_EQ(p.fixed, 5);
  EXPECT_EQ(parse_reps("auto", &p), "");
  EXPECT_TRUE(p.automatic);
  EXPECT_LT(p.budget_s, 0);  // the scenario's default
  EXPECT_EQ(parse_reps("auto:90", &p), "");
  EXPECT_EQ(p.budget_s, 90);
  EXPECT_EQ(parse_reps("auto:2m:20", &p), "");
  EXPECT_EQ(p.budget_s, 120);
  EXPECT_EQ(p.cap, 20);
  EXPECT_EQ(parse_reps("auto:45s", &p), "");
  EXPECT_EQ(p.budget_s, 45);
  for (const char* bad : {"0", "1001", "", "x", "auto:", "auto:x", "auto:10:1", "auto:10:x", "auto10", "-3"})
    EXPECT_NE(parse_reps(bad, &p), "") << bad;
}

Check straddling(double value, double lo, double hi, double line, double level) {
  Ratio r;
  r.value = value;
  r.ci95 = {lo, hi};
  r.level = level;
  r.reps = 3;
  return Check("r", r, line);
}

TEST(Reps, PlanGrowsAsThePilotLandsNearerTheLineAndIsZeroWithNoSpread) {
  // A pilot of 3 at 1.10x [1.00, 1.21] against 1.15.
  const int near = plan_main_reps(straddling(1.10, 1.00, 1.21, 1.15, kPilotLevel), 3);
  const int nearer = plan_main_reps(straddling(1.13, 1.03, 1.24, 1.15, kPilotLevel), 3);
  EXPECT_GE(near, kMinMainReps);
  EXPECT_GT(nearer, near);
  // What the plan promises: at the pilot's spread, its interval fits 3/4 of the distance.
  const double sd = std::log(1.21 / 1.00) / 2 * std::sqrt(3.0) / t_quantile(0.98, 2);
  EXPECT_LE(t_quantile(0.995, near - 1) * sd / std::sqrt(near), 0.75 * std::log(1.15 / 1.10));
  EXPECT_GT(t_quantile(0.995, near - 2) * sd / std::sqrt(near - 1), 0.75 * std::log(1.15 / 1.10));
  EXPECT_EQ(plan_main_reps(straddling(1.15, 1.15, 1.15, 1.15, kPilotLevel), 3), 0);
  EXPECT_EQ(plan_main_reps(straddling(1.1499, 1.0, 1.3, 1.15, kPilotLevel), 3, 20), 21);  // more than allowed
  Check none("r", Ratio{}, 1.15);
  EXPECT_EQ(plan_main_reps(none, 3), 0);
}

// Two arms of true ratio `ratio` (log noise `sd` on the ratio), each
// repetition's machine drift hitting both alike; the judge's one check is
// their paired ratio against `line`.
struct Arms {
  Arms(double ratio, double sd, double line, uint64_t seed) : ratio(ratio), line(line), rng(seed), noise(0, sd / std::sqrt(2.0)) {}
  void cell(size_t arm, int rep) {
    if (static_cast<size_t>(rep) >= drift.size()) drift.push_back(std::exp(std::normal_distribution<double>(0, 0.3)(rng)));
    (arm == 0 ? a : b).push_back((arm == 0 ? ratio : 1.0) * drift[static_cast<size_t>(rep)] * std::exp(noise(rng)));
  }
  std::vector<Check> judge(const Window& w) const { return {Check("a/b", paired_ratio(a, b, w), line)}; }
  double ratio, line;
  std::mt19937_64 rng;
  std::normal_distribution<double> noise;
  std::vector<double> drift, a, b;
};

TEST(Sequence, FixedRunsItsCountAndJudgesEveryRepetitionAt95) {
  Arms arms(1.3, 0.05, 1.15, 1);
  RepsBudget budget(1000);
  Sequence s("x", SequencePolicy{false, 5, 30}, &budget);
  auto judge = [&](const Window& w) { return arms.judge(w); };
  EXPECT_EQ(s.run(2, [&](size_t k, int r) { arms.cell(k, r); }, judge), 5);
  EXPECT_EQ(arms.a.size(), 5u);
  const std::vector<Check> c = s.checks(judge);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].ratio.level, 0.95);
  EXPECT_EQ(c[0].ratio.reps, 5u);
  EXPECT_EQ(c[0].note, "");
}

TEST(Sequence, ADecidedPilotStopsAndSaysSo) {
  Arms arms(3.0, 0.05, 1.15, 2);
  RepsBudget budget(1000);
  Sequence s("x", SequencePolicy{true, 3, 12}, &budget);
  auto judge = [&](const Window& w) { return arms.judge(w); };
  EXPECT_EQ(s.run(2, [&](size_t k, int r) { arms.cell(k, r); }, judge), 3);
  const std::vector<Check> c = s.checks(judge);
  EXPECT_EQ(check_result(c[0]), CheckResult::kCleared);
  EXPECT_EQ(c[0].ratio.level, kPilotLevel);
  EXPECT_EQ(c[0].note, "decided after 3 repetitions");
  EXPECT_EQ(s.summary(), "pilot 3");
}

TEST(Sequence, AStraddlingPilotRunsAMainExperimentJudgedAlone) {
  // 1.25x with a log spread of 0.15 against 1.15: 3 repetitions cannot
  // decide it, a main experiment of fresh ones can.
  Arms arms(1.25, 0.15, 1.15, 3);
  RepsBudget budget(1000);
  Sequence s("x", SequencePolicy{true, 3, 40}, &budget);
  std::vector<int> reps_seen;
  auto judge = [&](const Window& w) { return arms.judge(w); };
  const int n = s.run(2, [&](size_t k, int r) { reps_seen.push_back(r); arms.cell(k, r); }, judge);
  ASSERT_GT(s.main_reps(), 0) << s.summary();
  EXPECT_EQ(n, 3 + s.main_reps());
  EXPECT_EQ(reps_seen.back(), n - 1);  // numbered on from the pilot's
  EXPECT_EQ(arms.a.size(), static_cast<size_t>(n));
  const std::vector<Check> c = s.checks(judge);
  EXPECT_EQ(c[0].ratio.reps, static_cast<size_t>(s.main_reps()));  // the pilot's repetitions left out
  EXPECT_EQ(c[0].ratio.level, kMainLevel);
  EXPECT_NE(c[0].note.find(fmt::format("after {} ", n)), std::string::npos) << c[0].note;
  std::printf("%s; %s\n", s.summary().c_str(), describe(c[0]).c_str());
}

TEST(Sequence, NoBudgetNoMainExperimentAndTheNoteSaysWhy) {
  Arms arms(1.25, 0.15, 1.15, 3);
  RepsBudget budget(0);
  Sequence s("x", SequencePolicy{true, 3, 40}, &budget);
  auto judge = [&](const Window& w) { return arms.judge(w); };
  EXPECT_EQ(s.run(2, [&](size_t k, int r) { arms.cell(k, r); }, judge), 3);
  const std::vector<Check> c = s.checks(judge);
  EXPECT_EQ(check_result(c[0]), CheckResult::kStraddles);
  EXPECT_NE(c[0].note.find("still straddles after 3 (budget spent)"), std::string::npos) << c[0].note;
}

TEST(Sequence, EachSiteTakesAnEvenShareOfWhatIsLeft) {
  RepsBudget b(90);
  b.expect(3);
  EXPECT_DOUBLE_EQ(b.share(), 30);
  b.started();
  b.spend(10);
  EXPECT_DOUBLE_EQ(b.share(), 40);  // 80 left between the two to come
  b.started();
  b.spend(80);
  EXPECT_DOUBLE_EQ(b.share(), 0);
}

// --- coverage under optional stopping ------------------------------------

// One simulated sequential run: true ratio at `distance` log-standard-
// deviations from the line (either side), judged as a scenario would.
// Returns whether the judged interval holds the true ratio; counts the
// repetitions run and whether it was decided.
bool covers(std::mt19937_64& rng, double distance, int pilot, int cap, int* reps, bool* decided) {
  constexpr double kLine = 1.15;
  const double sd = std::uniform_real_distribution<double>(0.02, 0.3)(rng);
  const double sign = rng() % 2 ? 1 : -1;
  const double truth = kLine * std::exp(sign * distance * sd);
  Arms arms(truth, sd, kLine, rng());
  Sequence s("coverage", SequencePolicy{true, pilot, cap}, nullptr);
  auto judge = [&](const Window& w) { return arms.judge(w); };
  *reps = s.run(2, [&](size_t k, int r) { arms.cell(k, r); }, judge);
  const Check c = s.checks(judge)[0];
  *decided = check_result(c) == CheckResult::kCleared || check_result(c) == CheckResult::kMissed;
  return c.ratio.ci95.known() && c.ratio.ci95.lo <= truth && truth <= c.ratio.ci95.hi;
}

// The naive rule this must not be: after each repetition past the pilot,
// the 95% interval over every repetition so far, stopping once it excludes
// the line. Returns whether the last interval holds the true ratio.
bool naive_covers(std::mt19937_64& rng, int pilot, int cap) {
  constexpr double kLine = 1.15;
  const double sd = std::uniform_real_distribution<double>(0.02, 0.3)(rng);
  Arms arms(kLine, sd, kLine, rng());
  Ratio r;
  for (int n = 0; n < cap; ++n) {
    arms.cell(0, n);
    arms.cell(1, n);
    if (n + 1 < pilot) continue;
    r = paired_ratio(arms.a, arms.b);
    if (check_result(Check("a/b", r, kLine)) != CheckResult::kStraddles) break;
  }
  return r.ci95.lo <= kLine && kLine <= r.ci95.hi;
}

constexpr uint64_t kCoverageSeed = 20261203;

// 1 000 sequential runs at each of six distances from the line (6 000 in
// all), at quick mode's pilot and cap (3, 12) and full mode's (5, 30).
// The procedure's promise is at least 95% whatever the distance; the test
// holds the whole at 95% +- 2% and each distance at >= 93% (1 000 trials'
// standard error is ~0.7 points; the seed is fixed unless FENEC_SEED).
TEST(Sequence, IntervalsHoldTheTrueRatio95PercentUnderOptionalStopping) {
  const uint64_t seed = std::getenv("FENEC_SEED") != nullptr ? base::TestSeed() : kCoverageSeed;
  std::printf("sequential coverage trials seeded with %llu\n", static_cast<unsigned long long>(seed));
  const double distances[] = {0, 0.5, 1, 2, 4, 8};
  for (auto [pilot, cap] : {std::pair{3, 12}, std::pair{5, 30}}) {
    std::mt19937_64 rng(seed + static_cast<uint64_t>(pilot));
    int held_all = 0, runs = 0;
    for (double d : distances) {
      int held = 0, reps = 0, decided = 0;
      for (int t = 0; t < 1000; ++t) {
        int n = 0;
        bool dec = false;
        held += covers(rng, d, pilot, cap, &n, &dec);
        reps += n;
        decided += dec;
      }
      std::printf("pilot %d, cap %d, truth %.1f sd from the line: coverage %.1f%%, %.1f repetitions a run, "
                  "%.1f%% decided\n", pilot, cap, d, held / 10.0, reps / 1000.0, decided / 10.0);
      EXPECT_GE(held, 930) << "distance " << d << ", pilot " << pilot;
      held_all += held;
      runs += 1000;
    }
    const double coverage = static_cast<double>(held_all) / runs;
    std::printf("pilot %d, cap %d: coverage %.2f%% over %d sequential runs\n", pilot, cap, 100 * coverage, runs);
    RecordProperty(fmt::format("coverage_pilot{}", pilot), std::to_string(coverage));
    EXPECT_GE(coverage, 0.93);
    EXPECT_LE(coverage, 0.97);
  }
}

// The test can fail: looking after every repetition and stopping once
// decided, with plain 95% intervals, holds a truth on the line far less often.
TEST(Sequence, NaiveOptionalStoppingFailsTheSameMeasure) {
  std::mt19937_64 rng(kCoverageSeed);
  int held = 0;
  for (int t = 0; t < 1000; ++t) held += naive_covers(rng, 3, 12);
  std::printf("naive looks, truth on the line: coverage %.1f%%\n", held / 10.0);
  EXPECT_LT(held, 930);
}

}  // namespace sequential_test
}  // namespace fenec::kit
