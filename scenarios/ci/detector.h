// The CI regression detector: judges one run of a metric against its
// reference runs (the committed baseline and any recorded runs).
//
// Two kinds of metric, treated differently because they fail differently:
//  - stable: counts (fsyncs per commit, keys moved per growth, callgrind
//    instruction counts). They do not move unless the code does, so any
//    change beyond a tight relative bound (0 = exact) is real.
//  - noisy: timings on a shared machine, always taken as a ratio to an arm
//    measured in the same run, over repeated samples. A change is confirmed
//    only when the medians differ by at least a factor AND a two-sided
//    Mann-Whitney U test on the samples agrees (as asv does): never on one
//    sample, never on a factor alone.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace fenec::scenarios::ci {

enum class Kind { kStable, kNoisy };
enum class Better { kLower, kHigher };

const char* kind_name(Kind k);      // "stable" | "noisy"
const char* better_name(Better b);  // "lower" | "higher"
bool parse_kind(const std::string& s, Kind* out);
bool parse_better(const std::string& s, Better* out);

// One metric in one run: its samples (one for most stable metrics).
struct MetricRun {
  std::string date, commit, tag;  // tag: "baseline" | "record" | "ci"
  std::string metric;             // "micro/MM-2/versioned_over_flat_clear"
  Kind kind = Kind::kNoisy;
  Better better = Better::kLower;
  double bound = 0;               // stable: relative tolerance; noisy: factor (> 1)
  std::string unit;
  std::vector<double> samples;
  double value() const;           // the median of the samples (0 if none)
};

// Mann-Whitney U, two-sided. Exact (by counting arrangements) when there are
// no ties and n1 * n2 <= 400; otherwise the normal approximation with tie and
// continuity corrections. Returns p in [0, 1]; 1 if either side is empty.
double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b);

struct Policy {
  double alpha = 0.01;      // significance the U test must reach
  size_t min_samples = 3;   // per side, for a noisy metric to be judged at all
};

enum class Change {
  kSame,          // within the bound (stable) or below the factor (noisy)
  kRegression,    // stable: beyond the bound, the worse way; noisy: factor and U test
  kImprovement,   // the same, the better way
  kUnconfirmed,   // noisy: past the factor but the U test does not agree, or too few samples
  kNew,           // no reference yet
};
const char* change_name(Change c);

struct Judgement {
  std::string metric;
  Kind kind = Kind::kNoisy;
  Change change = Change::kSame;
  double reference = 0, current = 0;
  double ratio = 0;   // current / reference
  double p = 1;       // noisy only
  std::string why;    // one line for the report
};

// `reference`: earlier runs of the same metric, oldest first. A stable metric
// is compared with the newest of them; a noisy one with all their samples pooled.
Judgement judge(const std::vector<MetricRun>& reference, const MetricRun& current,
                const Policy& policy = {});

// The reference for `metric`: its baseline rows, then its `recent` newest
// recorded runs among those dated no earlier than its newest baseline row (ISO
// dates compare as text), oldest first. Records older than the baseline are
// what it replaced: pooled with it, they would outvote a baseline rewritten
// for a new machine (as the MM-5 ratios were when CI moved).
std::vector<MetricRun> reference_for(const std::vector<MetricRun>& base, const std::vector<MetricRun>& history,
                                     const std::string& metric, size_t recent);

// A trend (metrics.conf): a confirmed regression or improvement is reported
// as unconfirmed, with the reason, so that it never fails the build.
void as_trend(Judgement* j);

}  // namespace fenec::scenarios::ci
