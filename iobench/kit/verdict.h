// Verdicts from intervals: a finding is judged by one or more checks, each a
// ratio with its 95% interval (stats.h) against a line the finding draws
// ("16 writers at least 2x one writer"). A check whose whole interval is on
// the finding's side of the line is cleared; one whose whole interval is on
// the other side is missed; one whose interval holds the line straddles it,
// and noise alone could move it either way.
//
// The outcome is the one every way the straddling checks could fall agrees on:
//   every check cleared                         reproduced
//   some cleared, some missed                   partly reproduced
//   every check missed                          not reproduced
//   anything else (a straddle could decide it)  inconclusive
// So noise cannot flip a verdict between reproduced and not reproduced: at
// worst it moves one to or from inconclusive, which says so and prints the
// interval that straddles.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "iobench/kit/stats.h"

namespace fenec::kit {

enum class Outcome { kReproduced, kPartly, kNotReproduced, kInconclusive, kNotApplicable, kSkipped };

// "reproduced", "partly reproduced", "not reproduced", "inconclusive",
// "not applicable", "skipped": the fixed set of the verdict column.
const char* outcome_name(Outcome o);

struct Check {
  Check() = default;
  Check(std::string what_, Ratio ratio_, double line_, bool above_ = true, std::string shown_ = {})
      : what(std::move(what_)), ratio(ratio_), line(line_), above(above_), shown(std::move(shown_)) {}

  std::string what;   // "16 writers / 1 writer, durable writes/s"
  Ratio ratio;
  double line = 1;    // the finding's line
  bool above = true;  // the finding holds above the line (false: below it)
  // Not empty: the check is shown beside the verdict, not counted in it, for
  // this reason (a quick run's size cannot settle it; findings/finding.h).
  std::string shown;
  // How many repetitions judged it, in a sequential run (sequential.h):
  // "decided after 3 repetitions", "still straddles after 12 (budget spent)".
  std::string note;
};

enum class CheckResult { kCleared, kMissed, kStraddles, kUnknown };
CheckResult check_result(const Check& c);
// "16w/1w 6.10x [5.80, 6.40] >= 2: cleared", then the note in brackets if any.
std::string describe(const Check& c);

struct Judgement {
  Outcome outcome = Outcome::kInconclusive;
  std::string reason;  // the checks that decided it, each with its interval
};
// An empty list, or a check with no interval (one repetition, a zero
// figure), is inconclusive: a verdict needs an interval. Shown checks are
// described in the reason and counted nowhere; a list of nothing else is
// not applicable.
Judgement judge(const std::vector<Check>& checks);

// A part of a claim that is a count or a rule, not a figure: it holds or it
// does not, with no noise to straddle a line ("no growth hashes a key
// again", "most pinned runs have no wait past 50 ms").
struct ExactPart {
  std::string what;
  bool holds = false;
};
// judge() over checks and exact parts together: a part that holds counts as
// a cleared check, one that does not as a missed one, under the same rule.
Judgement judge(const std::vector<Check>& checks, const std::vector<ExactPart>& exact);

// One finding's judgement, for the console table, verdicts.md and REPORT.md.
struct Verdict {
  std::string finding;   // "IO-1"
  std::string claim;     // one line: what the finding says
  std::string source;    // the source's figure, as quoted in findings/CATALOGUE.md
  std::string ours;      // our figures from this run, ratios with their intervals
  Outcome outcome = Outcome::kInconclusive;
  std::string reason;    // why: the checks and their intervals; for n/a and skipped, why not
  std::string plot;      // path of the plot that shows it, relative to the repo root

  void set(const Judgement& j) {
    outcome = j.outcome;
    reason = j.reason;
  }
  void not_applicable(std::string why) {
    outcome = Outcome::kNotApplicable;
    reason = std::move(why);
  }
  void skipped(std::string why) {
    outcome = Outcome::kSkipped;
    reason = std::move(why);
  }
};

}  // namespace fenec::kit
