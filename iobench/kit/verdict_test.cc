// Verdicts from intervals: clear, miss, straddle, and the outcome every way
// a straddling check could fall agrees on.
#include "iobench/kit/verdict.h"

#include <gtest/gtest.h>

namespace fenec::kit {
namespace verdict_test {

Check C(double lo, double value, double hi, double line = 1.5, bool above = true) {
  Check c;
  c.what = "x";
  c.ratio.value = value;
  c.ratio.ci95 = {lo, hi};
  c.ratio.reps = 5;
  c.line = line;
  c.above = above;
  return c;
}

TEST(Verdict, ACheckClearsMissesOrStraddles) {
  EXPECT_EQ(check_result(C(1.6, 1.8, 2.0)), CheckResult::kCleared);
  EXPECT_EQ(check_result(C(1.1, 1.2, 1.4)), CheckResult::kMissed);
  EXPECT_EQ(check_result(C(1.4, 1.6, 1.8)), CheckResult::kStraddles);
  EXPECT_EQ(check_result(C(1.5, 1.6, 1.8)), CheckResult::kCleared);  // the line itself is on the finding's side
  // A "below" line: the finding holds when the ratio is under it.
  EXPECT_EQ(check_result(C(0.2, 0.3, 0.4, 0.5, false)), CheckResult::kCleared);
  EXPECT_EQ(check_result(C(0.6, 0.7, 0.8, 0.5, false)), CheckResult::kMissed);
  Check none;
  none.ratio.value = 2;  // one repetition: no interval
  EXPECT_EQ(check_result(none), CheckResult::kUnknown);
}

TEST(Verdict, OutcomesAreWhatEveryResolutionOfTheStraddlesAgreesOn) {
  const Check clear = C(1.6, 1.8, 2.0), miss = C(1.1, 1.2, 1.4), open = C(1.4, 1.6, 1.8);
  EXPECT_EQ(judge({clear}).outcome, Outcome::kReproduced);
  EXPECT_EQ(judge({clear, clear}).outcome, Outcome::kReproduced);
  EXPECT_EQ(judge({miss}).outcome, Outcome::kNotReproduced);
  EXPECT_EQ(judge({miss, miss}).outcome, Outcome::kNotReproduced);
  EXPECT_EQ(judge({clear, miss}).outcome, Outcome::kPartly);
  EXPECT_EQ(judge({clear, miss, open}).outcome, Outcome::kPartly);  // partly whichever way it falls
  EXPECT_EQ(judge({open}).outcome, Outcome::kInconclusive);
  EXPECT_EQ(judge({clear, open}).outcome, Outcome::kInconclusive);  // reproduced or partly
  EXPECT_EQ(judge({miss, open}).outcome, Outcome::kInconclusive);   // not or partly
  EXPECT_EQ(judge({}).outcome, Outcome::kInconclusive);
}

TEST(Verdict, ExactPartsCountAsChecksThatClearedOrMissed) {
  const Check clear = C(1.6, 1.8, 2.0), miss = C(1.1, 1.2, 1.4), open = C(1.4, 1.6, 1.8);
  const ExactPart holds{"no write waited", true}, fails{"no write waited", false};
  EXPECT_EQ(judge({clear}, {holds}).outcome, Outcome::kReproduced);
  EXPECT_EQ(judge({clear}, {fails}).outcome, Outcome::kPartly);
  EXPECT_EQ(judge({miss}, {fails}).outcome, Outcome::kNotReproduced);
  EXPECT_EQ(judge({open}, {holds}).outcome, Outcome::kInconclusive);
  EXPECT_EQ(judge({}, {holds}).outcome, Outcome::kReproduced);  // a rule alone decides
  const Judgement j = judge({clear}, {fails});
  EXPECT_NE(j.reason.find("no write waited: does not hold"), std::string::npos) << j.reason;
}

TEST(Verdict, TheReasonShowsEachCheckWithItsInterval) {
  const Judgement j = judge({C(1.4, 1.6, 1.8)});
  EXPECT_NE(j.reason.find("1.60x [1.40, 1.80] >= 1.5: straddles the line"), std::string::npos) << j.reason;
  EXPECT_STREQ(outcome_name(Outcome::kPartly), "partly reproduced");
}

TEST(Verdict, AShownCheckIsDescribedButNeverCounted) {
  Check shown = C(1.1, 1.2, 1.4);  // would miss
  shown.shown = "shown, not judged in quick mode: too few rows";
  const Check clear = C(1.6, 1.8, 2.0);
  const Judgement j = judge({clear, shown});
  EXPECT_EQ(j.outcome, Outcome::kReproduced);
  EXPECT_NE(j.reason.find("too few rows"), std::string::npos) << j.reason;
  EXPECT_EQ(judge({shown}).outcome, Outcome::kNotApplicable);
  EXPECT_EQ(judge({shown}, {{"no vector read", true}}).outcome, Outcome::kReproduced);
}

}  // namespace verdict_test
}  // namespace fenec::kit
