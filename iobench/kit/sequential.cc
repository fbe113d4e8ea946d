#include "iobench/kit/sequential.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>

#include "iobench/kit/interrupt.h"

namespace fenec::kit {
namespace {

bool parse_int(const std::string& s, int lo, int hi, int* out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 6) return false;
  const int v = std::stoi(s);
  if (v < lo || v > hi) return false;
  *out = v;
  return true;
}

// "90", "90s", "2m": seconds.
bool parse_seconds(std::string s, double* out) {
  double scale = 1;
  if (!s.empty() && (s.back() == 's' || s.back() == 'm')) {
    scale = s.back() == 'm' ? 60 : 1;
    s.pop_back();
  }
  int v = 0;
  if (!parse_int(s, 0, 864000, &v)) return false;
  *out = v * scale;
  return true;
}

}  // namespace

std::string parse_reps(const std::string& text, RepsPlan* out) {
  RepsPlan p;
  if (text.rfind("auto", 0) != 0) {
    if (!parse_int(text, 1, 1000, &p.fixed)) return fmt::format("'{}' is not a count 1..1000 or auto[:BUDGET[:CAP]]", text);
    *out = p;
    return "";
  }
  p.automatic = true;
  std::string rest = text.substr(4);
  if (!rest.empty()) {
    if (rest[0] != ':') return fmt::format("'{}': auto takes ':BUDGET' (seconds, or 2m) and ':CAP'", text);
    rest = rest.substr(1);
    const size_t colon = rest.find(':');
    if (!parse_seconds(rest.substr(0, colon), &p.budget_s))
      return fmt::format("'{}': the budget must be seconds (90, 90s) or minutes (2m)", text);
    if (colon != std::string::npos && !parse_int(rest.substr(colon + 1), 2, 1000, &p.cap))
      return fmt::format("'{}': the cap must be a count of repetitions 2..1000", text);
  }
  *out = p;
  return "";
}

double RepsBudget::share() const {
  if (left_ <= 0) return 0;
  return left_ / std::max(1, expected_ - started_);
}

int run_interleaved(int reps, size_t arms, const std::function<void(size_t arm, int rep)>& cell, Order order,
                    int first) {
  for (int i = 0; i < reps; ++i) {
    const int r = first + i;
    for (size_t a = 0; a < arms; ++a) {
      if (kit::stop_requested()) return i;
      cell(order.rotate ? (a + static_cast<size_t>(r) + order.offset) % arms : a, r);
    }
  }
  return reps;
}

int plan_main_reps(const Check& c, size_t pilot_reps, int most) {
  if (!c.ratio.known() || !c.ratio.ci95.known() || pilot_reps < 2 || c.line <= 0) return 0;
  if (!(c.ratio.ci95.lo > 0 && c.ratio.value > 0)) return 0;
  // The pilot's spread of the log ratios, from its interval's half-width.
  const double half = (std::log(c.ratio.ci95.hi) - std::log(c.ratio.ci95.lo)) / 2;
  const double t = t_quantile(1 - (1 - c.ratio.level) / 2, pilot_reps - 1);
  const double sd = half * std::sqrt(static_cast<double>(pilot_reps)) / t;
  if (!(sd > 0) || !std::isfinite(sd)) return 0;
  const double want = kPlanMargin * std::fabs(std::log(c.ratio.value) - std::log(c.line));
  for (int n = kMinMainReps; n <= most; ++n) {
    if (t_quantile(1 - (1 - kMainLevel) / 2, static_cast<size_t>(n - 1)) * sd / std::sqrt(n) <= want) return n;
  }
  return most + 1;
}

Sequence::Sequence(std::string name, SequencePolicy policy, RepsBudget* budget)
    : name_(std::move(name)), policy_(policy), budget_(budget) {}

Window Sequence::pilot() const {
  if (!policy_.automatic) return Window{};
  return Window{0, static_cast<size_t>(pilot_), kPilotLevel};
}

Window Sequence::main() const {
  return Window{static_cast<size_t>(pilot_), static_cast<size_t>(pilot_ + main_), kMainLevel};
}

int Sequence::run(size_t arms, const Cell& cell, const Judge& judge, Order order) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  pilot_ = run_interleaved(policy_.pilot, arms, cell, order);
  main_ = planned_ = 0;
  short_.clear();
  if (!policy_.automatic || pilot_ < policy_.pilot || kit::stop_requested()) return pilot_;
  const double pilot_s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (budget_ != nullptr) budget_->started();

  const int room = std::max(0, policy_.cap - pilot_);
  bool straddles = false;
  for (const Check& c : judge(pilot())) {
    if (!c.shown.empty() || check_result(c) != CheckResult::kStraddles) continue;
    straddles = true;
    planned_ = std::max(planned_, plan_main_reps(c, static_cast<size_t>(pilot_), std::max(room, kMinMainReps)));
  }
  if (!straddles) return pilot_;
  if (planned_ == 0) {
    short_ = "no spread to plan from";
    return pilot_;
  }
  int n = std::min(planned_, room);
  if (n < planned_) short_ = "repetition cap";
  const double per_rep = pilot_s / pilot_;
  if (budget_ != nullptr && per_rep > 0) {
    const int affordable = static_cast<int>(budget_->share() / per_rep);
    if (affordable < n) {
      n = affordable;
      short_ = "budget spent";
    }
  }
  if (n < kMinMainReps) return pilot_;
  const auto t1 = Clock::now();
  main_ = run_interleaved(n, arms, cell, order, pilot_);
  if (budget_ != nullptr) budget_->spend(std::chrono::duration<double>(Clock::now() - t1).count());
  if (main_ < kMinMainReps) main_ = 0;  // interrupted: too few to judge anything by
  return pilot_ + main_;
}

std::vector<Check> Sequence::checks(const Judge& judge) const {
  std::vector<Check> out = judge(pilot());
  if (!policy_.automatic) return out;
  const std::vector<Check> more = main_ > 0 ? judge(main()) : std::vector<Check>{};
  const std::string why_short =
      !short_.empty() ? short_ : main_ > 0 ? "as planned" : planned_ > 0 ? "budget spent" : "interrupted";
  for (size_t i = 0; i < out.size(); ++i) {
    Check& c = out[i];
    if (!c.shown.empty() || check_result(c) == CheckResult::kUnknown) continue;
    if (check_result(c) != CheckResult::kStraddles) {
      c.note = fmt::format("decided after {} repetitions", pilot_);
      continue;
    }
    if (main_ > 0 && i < more.size() && more[i].what == c.what) {
      c = more[i];
      const bool decided = check_result(c) == CheckResult::kCleared || check_result(c) == CheckResult::kMissed;
      c.note = decided ? fmt::format("decided after {} repetitions: a pilot of {}, then {} new", pilot_ + main_,
                                     pilot_, main_)
                       : fmt::format("still straddles after {} ({}: a pilot of {}, then {} new)", pilot_ + main_,
                                     why_short, pilot_, main_);
    } else {
      c.note = fmt::format("still straddles after {} ({})", pilot_, why_short);
    }
    const int room = std::max(0, policy_.cap - pilot_);
    if (planned_ > main_ && check_result(c) == CheckResult::kStraddles)
      c.note += planned_ > room ? fmt::format("; the pilot's spread asked for more than the {} new the cap leaves", room)
                                : fmt::format("; the pilot's spread asked for {} new", planned_);
  }
  return out;
}

std::string Sequence::summary() const {
  if (!policy_.automatic) return fmt::format("{} (fixed)", pilot_);
  if (main_ == 0 && planned_ == 0) return fmt::format("pilot {}", pilot_);
  return fmt::format("pilot {} + main {} (planned {}{})", pilot_, main_, planned_,
                     short_.empty() ? "" : "; " + short_);
}

}  // namespace fenec::kit
