#include "iobench/kit/verdict.h"

#include <fmt/format.h>

namespace fenec::kit {

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::kReproduced: return "reproduced";
    case Outcome::kPartly: return "partly reproduced";
    case Outcome::kNotReproduced: return "not reproduced";
    case Outcome::kInconclusive: return "inconclusive";
    case Outcome::kNotApplicable: return "not applicable";
    case Outcome::kSkipped: return "skipped";
  }
  return "?";
}

CheckResult check_result(const Check& c) {
  if (!c.ratio.known() || !c.ratio.ci95.known()) return CheckResult::kUnknown;
  const bool all_above = c.ratio.ci95.lo >= c.line, all_below = c.ratio.ci95.hi < c.line;
  if (c.above) return all_above ? CheckResult::kCleared : all_below ? CheckResult::kMissed : CheckResult::kStraddles;
  return all_below ? CheckResult::kCleared : all_above ? CheckResult::kMissed : CheckResult::kStraddles;
}

std::string describe(const Check& c) {
  static const char* kWord[] = {"cleared", "missed", "straddles the line", "no interval"};
  const int decimals = c.line < 0.1 || (c.ratio.known() && c.ratio.value < 0.1) ? 3 : 2;
  return fmt::format("{} {} {} {}: {}{}", c.what, format_ratio(c.ratio, decimals), c.above ? ">=" : "<", c.line,
                     kWord[static_cast<int>(check_result(c))], c.note.empty() ? "" : " (" + c.note + ")");
}

Judgement judge(const std::vector<Check>& checks) { return judge(checks, {}); }

Judgement judge(const std::vector<Check>& checks, const std::vector<ExactPart>& exact) {
  Judgement j;
  if (checks.empty() && exact.empty()) {
    j.reason = "no check";
    return j;
  }
  int cleared = 0, missed = 0, open = 0;
  std::vector<std::string> parts;
  for (const Check& c : checks) {
    if (!c.shown.empty()) {
      parts.push_back(fmt::format("{} {}: {}", c.what, format_ratio(c.ratio), c.shown));
      continue;
    }
    switch (check_result(c)) {
      case CheckResult::kCleared: ++cleared; break;
      case CheckResult::kMissed: ++missed; break;
      default: ++open; break;
    }
    parts.push_back(describe(c));
  }
  for (const ExactPart& e : exact) {
    ++(e.holds ? cleared : missed);
    parts.push_back(e.what + (e.holds ? ": holds" : ": does not hold"));
  }
  if (cleared + missed + open == 0) j.outcome = Outcome::kNotApplicable;  // every check only shown
  else if (open == 0 && missed == 0) j.outcome = Outcome::kReproduced;
  else if (open == 0 && cleared == 0) j.outcome = Outcome::kNotReproduced;
  else if (cleared > 0 && missed > 0) j.outcome = Outcome::kPartly;  // whatever the open ones do
  else j.outcome = Outcome::kInconclusive;
  for (size_t i = 0; i < parts.size(); ++i) j.reason += (i ? "; " : "") + parts[i];
  return j;
}

}  // namespace fenec::kit
