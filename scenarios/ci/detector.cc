#include "scenarios/ci/detector.h"
#include "iobench/kit/stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fenec::scenarios::ci {
namespace {

// Number of ways the first sample's ranks can sum to each U, for sizes
// n1, n2 (no ties): the classic recurrence f(n1,n2,u) = f(n1-1,n2,u-n2) + f(n1,n2-1,u).
std::vector<double> u_distribution(size_t n1, size_t n2) {
  // table[i][j] is the distribution for sizes (i, j); built up row by row.
  std::vector<std::vector<std::vector<double>>> t(
      n1 + 1, std::vector<std::vector<double>>(n2 + 1));
  for (size_t i = 0; i <= n1; ++i) {
    for (size_t j = 0; j <= n2; ++j) {
      auto& d = t[i][j];
      d.assign(i * j + 1, 0.0);
      if (i == 0 || j == 0) {
        d[0] = 1;
        continue;
      }
      const auto& a = t[i - 1][j];  // the largest value belongs to sample 1: U gains j
      const auto& b = t[i][j - 1];  // it belongs to sample 2: U unchanged
      for (size_t u = 0; u < d.size(); ++u) {
        if (u >= j && u - j < a.size()) d[u] += a[u - j];
        if (u < b.size()) d[u] += b[u];
      }
    }
  }
  return t[n1][n2];
}

double normal_sf(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

}  // namespace

const char* kind_name(Kind k) { return k == Kind::kStable ? "stable" : "noisy"; }
const char* better_name(Better b) { return b == Better::kLower ? "lower" : "higher"; }

bool parse_kind(const std::string& s, Kind* out) {
  if (s == "stable") *out = Kind::kStable;
  else if (s == "noisy") *out = Kind::kNoisy;
  else return false;
  return true;
}

bool parse_better(const std::string& s, Better* out) {
  if (s == "lower") *out = Better::kLower;
  else if (s == "higher") *out = Better::kHigher;
  else return false;
  return true;
}

const char* change_name(Change c) {
  switch (c) {
    case Change::kSame: return "same";
    case Change::kRegression: return "REGRESSION";
    case Change::kImprovement: return "improvement";
    case Change::kUnconfirmed: return "unconfirmed";
    case Change::kNew: return "new";
  }
  return "?";
}

double MetricRun::value() const { return kit::median(samples); }

double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b) {
  const size_t n1 = a.size(), n2 = b.size();
  if (n1 == 0 || n2 == 0) return 1;
  // Midranks over the pooled samples.
  std::vector<std::pair<double, int>> pooled;
  for (double x : a) pooled.emplace_back(x, 0);
  for (double x : b) pooled.emplace_back(x, 1);
  std::sort(pooled.begin(), pooled.end());
  const size_t n = pooled.size();
  double rank_sum_a = 0, tie_term = 0;
  bool ties = false;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && pooled[j].first == pooled[i].first) ++j;
    const double mid = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (size_t k = i; k < j; ++k) {
      if (pooled[k].second == 0) rank_sum_a += mid;
    }
    const double t = static_cast<double>(j - i);
    if (j - i > 1) ties = true;
    tie_term += t * t * t - t;
    i = j;
  }
  const double u = rank_sum_a - static_cast<double>(n1 * (n1 + 1)) / 2;
  const double mean_u = static_cast<double>(n1 * n2) / 2;
  if (!ties && n1 * n2 <= 400) {
    const std::vector<double> dist = u_distribution(n1, n2);
    const double total = std::accumulate(dist.begin(), dist.end(), 0.0);
    const auto ui = static_cast<size_t>(std::llround(u));
    double le = 0, ge = 0;
    for (size_t k = 0; k < dist.size(); ++k) {
      if (k <= ui) le += dist[k];
      if (k >= ui) ge += dist[k];
    }
    return std::min(1.0, 2 * std::min(le, ge) / total);
  }
  const double nn = static_cast<double>(n);
  const double var = static_cast<double>(n1 * n2) / 12 * ((nn + 1) - tie_term / (nn * (nn - 1)));
  if (var <= 0) return 1;  // every sample equal
  const double z = (std::fabs(u - mean_u) - 0.5) / std::sqrt(var);
  return std::min(1.0, 2 * normal_sf(std::max(0.0, z)));
}

std::vector<MetricRun> reference_for(const std::vector<MetricRun>& base, const std::vector<MetricRun>& history,
                                     const std::string& metric, size_t recent) {
  std::vector<MetricRun> ref;
  std::string since;
  for (const MetricRun& b : base) {
    if (b.metric != metric) continue;
    ref.push_back(b);
    since = std::max(since, b.date);
  }
  std::vector<MetricRun> recs;
  for (const MetricRun& h : history) {
    if (h.metric == metric && h.tag == "record" && h.date >= since) recs.push_back(h);
  }
  const size_t from = recs.size() > recent ? recs.size() - recent : 0;
  ref.insert(ref.end(), recs.begin() + static_cast<std::ptrdiff_t>(from), recs.end());
  return ref;
}

Judgement judge(const std::vector<MetricRun>& reference, const MetricRun& current,
                const Policy& policy) {
  Judgement j;
  j.metric = current.metric;
  j.kind = current.kind;
  j.current = current.value();
  if (reference.empty()) {
    j.change = Change::kNew;
    j.why = "no reference run yet";
    return j;
  }
  const bool lower_better = current.better == Better::kLower;

  if (current.kind == Kind::kStable) {
    j.reference = reference.back().value();
    j.ratio = j.reference != 0 ? j.current / j.reference : (j.current == 0 ? 1 : INFINITY);
    const double diff = j.current - j.reference;
    const double rel = j.reference != 0 ? std::fabs(diff) / std::fabs(j.reference) : std::fabs(diff);
    if (diff == 0 || rel <= current.bound) {
      j.change = Change::kSame;
      j.why = diff == 0 ? "unchanged" : fmt::format("within {:g}%", current.bound * 100);
      return j;
    }
    const bool worse = lower_better ? diff > 0 : diff < 0;
    j.change = worse ? Change::kRegression : Change::kImprovement;
    j.why = fmt::format("{:+g} ({:+.3g}%), bound {}", diff, 100 * diff / (j.reference != 0 ? j.reference : 1),
                        current.bound == 0 ? std::string("exact") : fmt::format("{:g}%", current.bound * 100));
    return j;
  }

  std::vector<double> pool;
  for (const MetricRun& r : reference) pool.insert(pool.end(), r.samples.begin(), r.samples.end());
  j.reference = kit::median(pool);
  j.ratio = j.reference != 0 ? j.current / j.reference : INFINITY;
  const double factor = current.bound > 1 ? current.bound : 1.1;
  // > 1 means the current run is worse, whichever way the metric is better.
  const double worse_by = lower_better ? j.ratio : (j.ratio != 0 ? 1 / j.ratio : INFINITY);
  const bool past_factor = worse_by >= factor || worse_by <= 1 / factor;
  if (!past_factor) {
    j.change = Change::kSame;
    j.why = fmt::format("{:.3f}x, under the {:g}x factor", j.ratio, factor);
    return j;
  }
  if (pool.size() < policy.min_samples || current.samples.size() < policy.min_samples) {
    j.change = Change::kUnconfirmed;
    j.why = fmt::format("{:.3f}x but only {} vs {} samples (need {} each)", j.ratio, pool.size(),
                        current.samples.size(), policy.min_samples);
    return j;
  }
  j.p = mann_whitney_p(pool, current.samples);
  if (j.p >= policy.alpha) {
    j.change = Change::kUnconfirmed;
    j.why = fmt::format("{:.3f}x but Mann-Whitney p={:.3g} >= {:g}", j.ratio, j.p, policy.alpha);
    return j;
  }
  j.change = worse_by > 1 ? Change::kRegression : Change::kImprovement;
  j.why = fmt::format("{:.3f}x (factor {:g}), Mann-Whitney p={:.3g}, {} vs {} samples", j.ratio,
                      factor, j.p, pool.size(), current.samples.size());
  return j;
}

void as_trend(Judgement* j) {
  if (j->change != Change::kRegression && j->change != Change::kImprovement) return;
  j->why = fmt::format("{} {}; a trend (load-sensitive), never gates", change_name(j->change), j->why);
  j->change = Change::kUnconfirmed;
}

}  // namespace fenec::scenarios::ci
