#include "iobench/kit/stats.h"

#include <fmt/format.h>

#include <algorithm>

namespace fenec::kit {
namespace {

// Student's t, 0.975 quantile, for 1..30 degrees of freedom; beyond, the
// normal's 1.96 is within 2%.
constexpr double kT975[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                            2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                            2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};

Ratio of_logs(const std::vector<double>& logs, double level = 0.95) {
  Ratio r;
  r.reps = logs.size();
  r.level = level;
  if (logs.empty()) return r;
  for (double l : logs)
    if (!std::isfinite(l)) return r;
  double mean = 0;
  for (double l : logs) mean += l;
  mean /= static_cast<double>(logs.size());
  r.value = std::exp(mean);
  if (logs.size() < 2) return r;
  double ss = 0;
  for (double l : logs) ss += (l - mean) * (l - mean);
  const double sd = std::sqrt(ss / static_cast<double>(logs.size() - 1));
  const double t = level == 0.95 ? t975(logs.size() - 1) : t_quantile(1 - (1 - level) / 2, logs.size() - 1);
  const double half = t * sd / std::sqrt(static_cast<double>(logs.size()));
  r.ci95 = {std::exp(mean - half), std::exp(mean + half)};
  return r;
}

double safe_log(double v) { return v > 0 && std::isfinite(v) ? std::log(v) : NAN; }

// The regularized incomplete beta I_x(a, b) by its continued fraction
// (Lentz's method; Numerical Recipes' betacf), for Student's t below.
double beta_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300, kEps = 1e-14;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  d = 1 / (std::fabs(d) < kTiny ? kTiny : d);
  double h = d;
  for (int m = 1; m <= 300; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a - 1 + m2) * (a + m2));
    d = 1 + aa * d, c = 1 + aa / c;
    d = 1 / (std::fabs(d) < kTiny ? kTiny : d), c = std::fabs(c) < kTiny ? kTiny : c;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2));
    d = 1 + aa * d, c = 1 + aa / c;
    d = 1 / (std::fabs(d) < kTiny ? kTiny : d), c = std::fabs(c) < kTiny ? kTiny : c;
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1) < kEps) break;
  }
  return h;
}

double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front =
      std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

// P(T <= t) for Student's t with nu degrees of freedom.
double t_cdf(double t, double nu) {
  const double tail = 0.5 * incomplete_beta(nu / 2, 0.5, nu / (nu + t * t));
  return t > 0 ? 1 - tail : tail;
}

}  // namespace

double t_quantile(double p, size_t dof) {
  if (dof == 0 || !(p > 0 && p < 1)) return NAN;
  if (p < 0.5) return -t_quantile(1 - p, dof);
  double lo = 0, hi = 1;
  while (t_cdf(hi, static_cast<double>(dof)) < p) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (t_cdf(mid, static_cast<double>(dof)) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

std::vector<double> Window::of(const std::vector<double>& v) const {
  const size_t b = std::min(begin, v.size()), e = std::min(end, v.size());
  return std::vector<double>(v.begin() + static_cast<std::ptrdiff_t>(b), v.begin() + static_cast<std::ptrdiff_t>(std::max(b, e)));
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double t975(size_t dof) {
  if (dof == 0) return NAN;
  return dof <= std::size(kT975) ? kT975[dof - 1] : 1.96;
}

Ratio paired_ratio(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> logs;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) logs.push_back(safe_log(a[i]) - safe_log(b[i]));
  return of_logs(logs);
}

Ratio of_reps(const std::vector<double>& x) {
  std::vector<double> logs;
  for (double v : x) logs.push_back(safe_log(v));
  return of_logs(logs);
}

Ratio paired_ratio(const std::vector<double>& a, const std::vector<double>& b, const Window& w) {
  const std::vector<double> wa = w.of(a), wb = w.of(b);
  std::vector<double> logs;
  for (size_t i = 0; i < std::min(wa.size(), wb.size()); ++i) logs.push_back(safe_log(wa[i]) - safe_log(wb[i]));
  return of_logs(logs, w.level);
}

Ratio of_reps(const std::vector<double>& x, const Window& w) {
  std::vector<double> logs;
  for (double v : w.of(x)) logs.push_back(safe_log(v));
  return of_logs(logs, w.level);
}

size_t median_rank(size_t n, double level) {
  const double tail = (1 - level) / 2;
  // P(X <= j) for X ~ Binomial(n, 1/2), summed term by term in doubles
  // (C(n, j) / 2^n stays representable for the n a bench uses).
  size_t k = 0;
  double term = std::pow(0.5, static_cast<double>(n)), cdf = 0;
  for (size_t j = 0; j < n / 2; ++j) {
    cdf += term;  // P(X <= j)
    if (cdf > tail) break;
    k = j + 1;  // P(X < k) = P(X <= j) <= tail (2.5% at 95%)
    term = term * static_cast<double>(n - j) / static_cast<double>(j + 1);
  }
  return k;
}

Ratio median_ratio(const std::vector<double>& a, const std::vector<double>& b) {
  return median_ratio(a, b, Window{});
}

Ratio median_ratio(const std::vector<double>& full_a, const std::vector<double>& full_b, const Window& w) {
  const std::vector<double> a = w.of(full_a), b = w.of(full_b);
  Ratio r;
  r.level = w.level;
  std::vector<double> ratios;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (!(a[i] > 0 && b[i] > 0 && std::isfinite(a[i]) && std::isfinite(b[i]))) return r;
    ratios.push_back(a[i] / b[i]);
  }
  r.reps = ratios.size();
  if (ratios.empty()) return r;
  std::sort(ratios.begin(), ratios.end());
  r.value = median(ratios);
  if (const size_t k = median_rank(ratios.size(), w.level); k > 0) r.ci95 = {ratios[k - 1], ratios[ratios.size() - k]};
  return r;
}

std::string format_ratio(const Ratio& r, int decimals) {
  if (!r.known()) return "unknown";
  if (!r.ci95.known()) return fmt::format("{:.{}f}x ({} rep, no interval)", r.value, decimals, r.reps);
  return fmt::format("{:.{}f}x [{:.{}f}, {:.{}f}]", r.value, decimals, r.ci95.lo, decimals, r.ci95.hi, decimals);
}

std::string format_interval(const Ratio& r, const std::string& unit, int decimals) {
  if (!r.known()) return "unknown";
  const std::string u = unit.empty() ? "" : " " + unit;
  if (!r.ci95.known()) return fmt::format("{:.{}f}{} ({} rep)", r.value, decimals, u, r.reps);
  return fmt::format("{:.{}f}{} [{:.{}f}, {:.{}f}]", r.value, decimals, u, r.ci95.lo, decimals, r.ci95.hi, decimals);
}

}  // namespace fenec::kit
