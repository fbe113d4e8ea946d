// What report.cc and cc5_report.cc share: figures over the repetitions,
// their formats, and the rule every check's line follows. Internal to the
// concurrency scenario; report.h is its interface.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "iobench/kit/console.h"
#include "scenarios/concurrency/report.h"

namespace fenec::scenarios::concurrency::report_detail {

using kit::Check;
using kit::format_count;
using kit::format_ratio;
using kit::format_us;
using kit::Ratio;

inline const Reps<WriterFig>* writer_reps(const Report& rep, const std::string& arm, int writers) {
  auto a = rep.writers.find(arm);
  if (a == rep.writers.end()) return nullptr;
  auto w = a->second.find(writers);
  return w == a->second.end() || w->second.empty() ? nullptr : &w->second;
}

template <typename Fig>
const Reps<Fig>* reps_of(const std::map<std::string, Reps<Fig>>& m, const std::string& arm) {
  auto it = m.find(arm);
  return it == m.end() || it->second.empty() ? nullptr : &it->second;
}

// One figure over the repetitions: geometric mean and 95% interval (kit::of_reps).
template <typename Fig, typename Get>
Ratio over_reps(const Reps<Fig>& a, Get get) {
  return kit::of_reps(figures(a, get));
}

inline double per_commit(const WriterFig& f) { return f.commits > 0 ? f.fsyncs / f.commits : 0; }
inline double wps(const WriterFig& f) { return f.writes_per_s; }

// "1.52 ms [1.40, 1.70]": a figure in us over the repetitions, its interval in the value's unit.
inline std::string us_ci(const Ratio& r) {
  if (!r.known()) return "unknown";
  if (!r.ci95.known()) return format_us(r.value) + " (1 rep)";
  const double scale = std::fabs(r.value) < 999.5 ? 1 : std::fabs(r.value) < 999.5e3 ? 1e3 : 1e6;
  return fmt::format("{} [{:.3g}, {:.3g}]", format_us(r.value), r.ci95.lo / scale, r.ci95.hi / scale);
}

// "0.122 [0.120, 0.123]": a figure with no unit over the repetitions.
inline std::string plain_ci(const Ratio& r, int decimals) {
  if (!r.known()) return "unknown";
  if (!r.ci95.known()) return fmt::format("{:.{}f} (1 rep)", r.value, decimals);
  return fmt::format("{:.{}f} [{:.{}f}, {:.{}f}]", r.value, decimals, r.ci95.lo, decimals, r.ci95.hi, decimals);
}

// "20.5 k [19.8 k, 21.1 k]": a count or rate over the repetitions.
inline std::string count_ci(const Ratio& r) {
  if (!r.known()) return "unknown";
  if (!r.ci95.known()) return format_count(r.value) + " (1 rep)";
  return fmt::format("{} [{}, {}]", format_count(r.value), format_count(r.ci95.lo), format_count(r.ci95.hi));
}

inline std::string plot_ref(const std::string& name) { return "plots/concurrency/" + name + ".png"; }

// One of our own targets (reported, not asserted), judged like a check: met
// when its whole interval clears, missed when it misses, else open.
inline std::vector<std::string> target_row(const std::string& finding, const Check& c, const std::string& limit) {
  const kit::CheckResult res = kit::check_result(c);
  const char* word = res == kit::CheckResult::kCleared  ? "met"
                     : res == kit::CheckResult::kMissed ? "missed"
                                                        : "open (the interval holds the target)";
  return {finding, c.what, format_ratio(c.ratio), word, res == kit::CheckResult::kCleared ? "" : limit};
}

// ---- The lines.
//
// Each check's line comes from the finding (findings/CATALOGUE.md, and seed 002 it
// quotes), never from what this machine measures, by one rule:
//  - a bound the finding states in words is the line as stated: "16 writers
//    share fsyncs" (< 1 fsync a commit), "costs more than half" (< 0.5x),
//    "no single wait reaches 17 ms";
//  - a figure or an equality the source measured on its machine is held
//    roughly: findings/CATALOGUE.md reproduces "the shape ..., not its absolute
//    numbers: who wins, by roughly what ratio", and "roughly" is within
//    kRoughly (2x) of the source's figure: 12x -> at least 6x, ~0.5 -> ~0.15
//    ms (3.3x) -> at least 1.65x, "same speed" (151.9 vs 151.4 ms) -> under 2x;
//  - a direction with no figure is the direction: "scale with the writers"
//    (> 1x), "SQLite syncs under its lock" (fenecdb ahead, > 1x).
// CC-5's wait is the one exception, said where it is judged.
constexpr double kRoughly = 2;

}  // namespace fenec::scenarios::concurrency::report_detail

namespace fenec::scenarios::concurrency {
Judged judge_cc5(const Report& rep);  // cc5_report.cc
}  // namespace fenec::scenarios::concurrency
