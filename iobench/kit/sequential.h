// Sequential repetitions: `--reps auto[:BUDGET[:CAP]]` (or FENEC_REPS).
//
// A fixed count of repetitions is chosen for a quiet machine; on a noisy one
// a check's interval can straddle its line where a few more repetitions
// would decide it, and a check far from its line is decided by fewer. In
// auto mode each Sequence (a site: arms run interleaved, whose checks a
// judge function computes from the repetitions so far) runs
//   1. a pilot: the scenario's usual repetitions (Harness::reps());
//   2. if a check's pilot interval straddles its line, one main experiment
//      of fresh repetitions, still interleaved, planned from the pilot as
//      Kalibera and Jones plan a benchmark from a pilot's variance: the
//      fewest repetitions whose interval, at the pilot's spread, would be
//      narrower than 3/4 of the pilot's distance to the line; at most the
//      repetition cap and what the time budget's share pays for.
// A check the pilot decided is judged on the pilot (it stops costing); one
// that straddled is judged on the main experiment alone, and its note says
// "decided after N repetitions" or "still straddles after N (why)".
//
// Why its intervals still hold the truth 95% of the time, whatever was
// planned or stopped (iobench/doc/sequential.md; sequential_test.cc
// measures it): the pilot's intervals are built at 96% and the main
// experiment's at 99%, on repetitions the plan did not see, so given the
// plan the main interval is an ordinary fixed-size one. The reported
// interval misses the truth only if the pilot's did or the main
// experiment's did: at most 4% + 1%.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "iobench/kit/stats.h"
#include "iobench/kit/verdict.h"

namespace fenec::kit {

// The two stages' levels: 4% + 1% = the 5% a 95% interval may miss.
inline constexpr double kPilotLevel = 0.96, kMainLevel = 0.99;
// A main experiment sized for 3/4 of the pilot's distance to the line, so a
// truth a little nearer than the pilot's estimate is still decided.
inline constexpr double kPlanMargin = 0.75;
// Fewer fresh repetitions than this give a 99% interval too wide to decide
// anything (t is 9.9 at 3, 63.7 at 2).
inline constexpr int kMinMainReps = 3;

// What --reps (or FENEC_REPS) asked for.
struct RepsPlan {
  bool automatic = false;
  int fixed = 0;          // --reps N; 0: the scenario's default count
  double budget_s = -1;   // auto: seconds the main experiments share; < 0: the scenario's default
  int cap = 0;            // auto: most repetitions a site makes, its pilot's included; 0: the default
};
// Parses "N" (1..1000), "auto", "auto:BUDGET" (seconds: 90, 90s, 2m) or
// "auto:BUDGET:CAP". Returns "" or why the text is refused.
std::string parse_reps(const std::string& text, RepsPlan* out);

// The time a run's main experiments share. Each site may take at most an
// even share of what is left among the sites still to come (expect()), so
// the first straddling site cannot spend the others' time.
class RepsBudget {
 public:
  explicit RepsBudget(double seconds = 0) : left_(seconds) {}
  // `sites` more sites will ask (this run's remaining sequences).
  void expect(int sites) { expected_ = sites; }
  double left() const { return left_; }
  // What the next site may spend.
  double share() const;
  void started() { ++started_; }
  void spend(double seconds) { left_ -= seconds; }

 private:
  double left_;
  int expected_ = 1, started_ = 0;
};

// How arms of one repetition are ordered (run_interleaved).
struct Order {
  // Arm k of repetition r runs in place (k + r + offset) % arms, so no arm
  // always runs first (a cold cache) or last.
  bool rotate = false;
  size_t offset = 0;
};

// Runs each of `arms` arms once a repetition, in turn: arm 0, 1, ..., then
// again, `reps` times, numbering them from `first`, so drift on a shared
// machine hits every arm alike and repetition r of each arm can be paired
// (paired_ratio). Stops between cells once kit::stop_requested(); returns
// the repetitions completed in full.
int run_interleaved(int reps, size_t arms, const std::function<void(size_t arm, int rep)>& cell, Order order = {},
                    int first = 0);

struct SequencePolicy {
  bool automatic = false;  // false: `pilot` repetitions, plain 95% intervals over all of them
  int pilot = 3;
  int cap = 12;            // automatic: most repetitions, the pilot's included
};

// The repetitions a main experiment needs to decide `c`, a check whose
// pilot of `pilot_reps` straddles its line: the fewest n >= kMinMainReps
// whose interval at kMainLevel, at the pilot's spread (recovered from its
// interval), is narrower than kPlanMargin of the pilot's distance to the
// line; at most `most` (a larger need returns most + 1). 0 when the pilot
// gives nothing to plan from (no interval, no spread).
int plan_main_reps(const Check& c, size_t pilot_reps, int most = 10000);

class Sequence {
 public:
  using Cell = std::function<void(size_t arm, int rep)>;
  // The site's checks over a window of its repetitions: the same checks, in
  // the same order, whatever the window (their ratios built with it).
  using Judge = std::function<std::vector<Check>(const Window&)>;

  Sequence(std::string name, SequencePolicy policy, RepsBudget* budget);

  // The pilot, then, in auto mode, the main experiment if a check of
  // judge(pilot()) straddles its line. Returns the repetitions run.
  int run(size_t arms, const Cell& cell, const Judge& judge, Order order = {});
  // judge's checks as the verdict takes them: each from the pilot if the
  // pilot decided it (or no main experiment ran), else from the main
  // experiment; in auto mode each with its note.
  std::vector<Check> checks(const Judge& judge) const;

  // The pilot's repetitions at kPilotLevel (not automatic: every one at 95%).
  Window pilot() const;
  // The main experiment's alone at kMainLevel (empty if none ran).
  Window main() const;
  // Every repetition at 95%: descriptive figures, never a verdict in auto mode.
  Window all() const { return Window{}; }

  const std::string& name() const { return name_; }
  bool automatic() const { return policy_.automatic; }
  int pilot_reps() const { return pilot_; }
  int main_reps() const { return main_; }
  int reps() const { return pilot_ + main_; }
  // "pilot 3 + main 6 (planned 6)", for the run's metadata.
  std::string summary() const;

 private:
  std::string name_;
  SequencePolicy policy_;
  RepsBudget* budget_;
  int pilot_ = 0, main_ = 0;
  int planned_ = 0;   // what the main experiment's plan asked for (0: none)
  std::string short_; // why fewer than planned ran: "budget spent", "repetition cap"
};

}  // namespace fenec::kit
