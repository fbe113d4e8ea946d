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

Ratio of_logs(const std::vector<double>& logs) {
  Ratio r;
  r.reps = logs.size();
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
  const double half = t975(logs.size() - 1) * sd / std::sqrt(static_cast<double>(logs.size()));
  r.ci95 = {std::exp(mean - half), std::exp(mean + half)};
  return r;
}

double safe_log(double v) { return v > 0 && std::isfinite(v) ? std::log(v) : NAN; }

}  // namespace

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

size_t median_rank(size_t n) {
  // P(X <= j) for X ~ Binomial(n, 1/2), summed term by term in doubles
  // (C(n, j) / 2^n stays representable for the n a bench uses).
  size_t k = 0;
  double term = std::pow(0.5, static_cast<double>(n)), cdf = 0;
  for (size_t j = 0; j < n / 2; ++j) {
    cdf += term;  // P(X <= j)
    if (cdf > 0.025) break;
    k = j + 1;  // P(X < k) = P(X <= j) <= 2.5%
    term = term * static_cast<double>(n - j) / static_cast<double>(j + 1);
  }
  return k;
}

Ratio median_ratio(const std::vector<double>& a, const std::vector<double>& b) {
  Ratio r;
  std::vector<double> ratios;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (!(a[i] > 0 && b[i] > 0 && std::isfinite(a[i]) && std::isfinite(b[i]))) return r;
    ratios.push_back(a[i] / b[i]);
  }
  r.reps = ratios.size();
  if (ratios.empty()) return r;
  std::sort(ratios.begin(), ratios.end());
  r.value = median(ratios);
  if (const size_t k = median_rank(ratios.size()); k > 0) r.ci95 = {ratios[k - 1], ratios[ratios.size() - k]};
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
