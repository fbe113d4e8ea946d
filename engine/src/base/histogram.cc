#include "engine/src/base/histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace fenec::base {

int Histogram::BucketOf(uint64_t value) {
  if (value < kLinearLimit) return static_cast<int>(value);
  const int msb = 63 - std::countl_zero(value);  // >= kSubBits here
  const int shift = msb - kSubBits;
  // Group g >= 1 covers [2^(g+5), 2^(g+6)); its 64 sub-buckets are each 2^(g-1) wide.
  const uint64_t group = static_cast<uint64_t>(shift) + 1;
  const uint64_t sub = (value >> shift) - kSubBuckets;
  return static_cast<int>(group * kSubBuckets + sub);
}

uint64_t Histogram::BucketLo(int bucket) {
  const auto b = static_cast<uint64_t>(bucket);
  if (b < kLinearLimit) return b;
  const uint64_t group = b / kSubBuckets;
  const uint64_t sub = b % kSubBuckets;
  return (kSubBuckets + sub) << (group - 1);
}

uint64_t Histogram::BucketHi(int bucket) {
  const auto b = static_cast<uint64_t>(bucket);
  if (b < kLinearLimit) return b;
  const uint64_t group = b / kSubBuckets;
  // Written as lo + (width - 1) so the last bucket ends at UINT64_MAX without overflow.
  return BucketLo(bucket) + ((uint64_t{1} << (group - 1)) - 1);
}

void Histogram::Record(uint64_t value) { RecordN(value, 1); }

void Histogram::RecordN(uint64_t value, uint64_t n) {
  if (n == 0) return;
  counts_[BucketOf(value)] += n;
  count_ += n;
  sum_ += value * n;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
}

void Histogram::Merge(const Histogram& other) {
  if (other.count_ == 0) return;
  for (int i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

void Histogram::Reset() { *this = Histogram(); }

double Histogram::mean() const {
  return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0;
}

uint64_t Histogram::Percentile(double p) const {
  if (count_ == 0) return 0;
  p = std::clamp(p, 0.0, 100.0);
  // Nearest-rank definition: the smallest value with at least p% of samples at or below it.
  auto rank = static_cast<uint64_t>(std::ceil(p / 100.0 * static_cast<double>(count_)));
  rank = std::clamp<uint64_t>(rank, 1, count_);
  uint64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      const uint64_t lo = BucketLo(i), hi = BucketHi(i);
      return std::clamp(lo + (hi - lo) / 2, min_, max_);
    }
  }
  return max_;
}

std::vector<Histogram::Bin> Histogram::Bins() const {
  std::vector<Bin> out;
  for (int i = 0; i < kBuckets; ++i) {
    if (counts_[i]) out.push_back({BucketLo(i), BucketHi(i), counts_[i]});
  }
  return out;
}

LatencySummary LatencySummary::Of(const Histogram& ns) {
  LatencySummary s;
  s.count = ns.count();
  if (s.count == 0) return s;
  auto us = [](uint64_t v) { return static_cast<double>(v) / 1000.0; };
  s.p50_us = us(ns.Percentile(50));
  s.p90_us = us(ns.Percentile(90));
  s.p99_us = us(ns.Percentile(99));
  s.p999_us = us(ns.Percentile(99.9));
  s.max_us = us(ns.max());
  s.mean_us = ns.mean() / 1000.0;
  return s;
}

}  // namespace fenec::base
