// Statistics over a bench's repetitions: medians, and every headline ratio
// with its 95% confidence interval, so a reader (and a verdict) can tell a
// real difference from the noise of a shared machine.
//
// The method, for two arms A and B measured in interleaved repetitions
// (A B A B ...: repetition i of each saw the same drift of the machine):
//   r_i = ln(a_i / b_i)                  per repetition, so drift cancels
//   ratio = exp(mean r)                  the geometric mean of the ratios
//   ci95  = exp(mean r +- t(0.975, n-1) * sd(r) / sqrt(n))
// Student's t on the log ratios: a ratio is multiplicative, its log is
// roughly symmetric, and t keeps few repetitions honest (t is 4.30 at 3
// repetitions, 2.78 at 5), where a bootstrap of 3 or 5 values would give
// intervals far too narrow. stats_test.cc measures its coverage on seeded
// synthetic arms: >= 93% of intervals hold the true ratio at 5 repetitions.
// One figure's repetitions (a rate, or a ratio measured inside one arm) get
// the same interval with b_i = 1.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fenec::kit {

// The median (the mean of the middle two for an even count); 0 if empty.
double median(std::vector<double> v);

// The 0.975 quantile of Student's t with `dof` degrees of freedom (>= 1).
double t975(size_t dof);
// Student's t quantile at probability p in (0, 1), any `dof` >= 1 (the
// sequential intervals' 96% and 99% levels, sequential.h).
double t_quantile(double p, size_t dof);

struct Interval {
  double lo = NAN, hi = NAN;
  bool known() const { return std::isfinite(lo) && std::isfinite(hi); }
};

struct Ratio {
  double value = NAN;  // the geometric mean of the per-repetition ratios
  Interval ci95;       // unknown below 2 repetitions, or if a figure was not > 0
  size_t reps = 0;
  // The interval's own level: 0.95 unless it is one stage of a sequential
  // run's (sequential.h), whose two stages together hold the true ratio
  // at least 95% of the time; named ci95 for what the procedure promises.
  double level = 0.95;
  bool known() const { return std::isfinite(value); }
};

// Which repetitions a figure's interval is built on, and at what level:
// every one at 95% unless a sequential run says otherwise (sequential.h:
// its pilot, or its main experiment alone).
struct Window {
  size_t begin = 0;
  size_t end = SIZE_MAX;  // one past the last; clipped to the figures there are
  double level = 0.95;
  // v's repetitions in the window.
  std::vector<double> of(const std::vector<double>& v) const;
};

// a[i] / b[i] for each repetition i (the shorter length counts). Figures
// must be > 0; a repetition with a zero or negative one makes it unknown.
Ratio paired_ratio(const std::vector<double>& a, const std::vector<double>& b);
// One figure over repetitions: its geometric mean and interval.
Ratio of_reps(const std::vector<double>& x);
// The same over a window's repetitions, at its level.
Ratio paired_ratio(const std::vector<double>& a, const std::vector<double>& b, const Window& w);
Ratio of_reps(const std::vector<double>& x, const Window& w);

// The median of a[i] / b[i] with a distribution-free 95% interval from
// order statistics: with n ratios sorted, [r(k), r(n+1-k)] for the largest k
// at which P(Binomial(n, 1/2) < k) <= 2.5% (the interval holds the true
// median with probability >= 95% whatever the distribution). For a finding
// whose arms switch between regimes for seconds at a time (MM-4: the host
// moves the two vCPUs and a shared cache line costs 1.5x more for a few
// seconds), the geometric mean's t interval spans both regimes, while this
// one moves only if more than k - 1 ratios fall on one side: it judges the
// typical repetition. Its price is width: it needs many repetitions (no
// interval below 6; at 8, k = 1, min to max; at 32, k = 10). `value` is
// the median.
Ratio median_ratio(const std::vector<double>& a, const std::vector<double>& b);
Ratio median_ratio(const std::vector<double>& a, const std::vector<double>& b, const Window& w);
// The k above for n ratios (0 below 6: no interval reaches 95%), or for
// another level (the largest k with P(Binomial(n, 1/2) < k) <= (1 - level) / 2).
size_t median_rank(size_t n, double level = 0.95);

// "1.32x [1.21, 1.44]", or "1.32x (1 rep, no interval)"; `decimals` digits
// after the point (more for small ratios, so 0.004x does not print as 0.00x).
std::string format_ratio(const Ratio& r, int decimals = 2);
// The same for a figure with a unit: "20.5 k/s [19.8 k, 21.1 k]".
std::string format_interval(const Ratio& r, const std::string& unit, int decimals = 1);

}  // namespace fenec::kit
