// Log-linear latency histogram: the one way every fenec tool records latencies.
//
// Values are unsigned integers (nanoseconds by convention). Values below
// kLinearLimit get a bucket each; above it every power of two is split into
// kSubBuckets equal buckets, so any recorded value is reported within
// 1/kSubBuckets (~1.6%) of itself, at any magnitude, in a fixed 8 KiB or so.
// Record is O(1) and allocation-free, so it is safe on hot paths; histograms
// of different threads merge exactly (bucket counts add), which is how a
// multi-job cell gets its percentiles without a vector of every sample.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace fenec::base {

class Histogram {
 public:
  static constexpr int kSubBits = 6;                    // 64 buckets per power of two
  static constexpr uint64_t kSubBuckets = 1u << kSubBits;
  static constexpr uint64_t kLinearLimit = kSubBuckets;  // values < 64 are exact
  static constexpr int kBuckets = (64 - kSubBits + 1) * kSubBuckets;

  void Record(uint64_t value);
  void RecordN(uint64_t value, uint64_t n);
  void Merge(const Histogram& other);
  void Reset();

  uint64_t count() const { return count_; }
  uint64_t sum() const { return sum_; }
  uint64_t min() const { return count_ ? min_ : 0; }
  uint64_t max() const { return max_; }
  double mean() const;
  // p in [0, 100]. Returns a value within one bucket's width of the exact
  // percentile (the bucket's midpoint, clamped to [min, max]); 0 if empty.
  uint64_t Percentile(double p) const;

  struct Bin {
    uint64_t lo;     // inclusive
    uint64_t hi;     // inclusive
    uint64_t count;
  };
  // Non-empty bins in ascending order: what JSON output carries.
  std::vector<Bin> Bins() const;

  static int BucketOf(uint64_t value);
  static uint64_t BucketLo(int bucket);
  static uint64_t BucketHi(int bucket);

 private:
  std::array<uint64_t, kBuckets> counts_{};
  uint64_t count_ = 0;
  uint64_t sum_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
};

// The percentiles every report prints, in microseconds, from a ns histogram.
struct LatencySummary {
  double p50_us = 0, p90_us = 0, p99_us = 0, p999_us = 0, max_us = 0, mean_us = 0;
  uint64_t count = 0;
  static LatencySummary Of(const Histogram& ns);
};

}  // namespace fenec::base
