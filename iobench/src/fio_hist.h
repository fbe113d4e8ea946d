// fio's latency histogram as its json+ output carries it, and fio's own rule
// for a percentile of it, so a fleet's latencies merge exactly.
//
// fio (stat.h, 3.x) files every latency sample in one of 1 856 log-linear
// bins: values below 128 ns a bin each, then every power of two split into 64
// equal bins, 29 groups in all (FIO_IO_U_PLAT_BITS 6, VAL 64, GROUP_NR 29);
// the last bin takes everything above. json+ prints each non-empty bin keyed
// by its midpoint in ns ("5408": 3) under clat_ns.bins, and the sync calls'
// under sync.lat_ns.bins. Bins of two jobs or two hosts add, so a sum of bins
// is the histogram of the pooled samples, exactly.
//
// fio's percentile (stat.c, calc_clat_percentiles): walk the bins in order
// summing counts; p is the midpoint of the first bin whose running sum
// reaches p/100 x N, compared in long double, where N is the job's sample
// count (the "N" beside the bins). Applied to a sum of bins with the summed
// N it is what fio itself reports for the pooled samples (group_reporting
// sums jobs the same way); fio_hist_test checks both against fio's output.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fenec::iobench {

class FioHist {
 public:
  static constexpr unsigned kBits = 6;                 // FIO_IO_U_PLAT_BITS
  static constexpr unsigned kPerGroup = 1u << kBits;   // FIO_IO_U_PLAT_VAL
  static constexpr unsigned kGroups = 29;              // FIO_IO_U_PLAT_GROUP_NR
  static constexpr unsigned kBins = kGroups * kPerGroup;  // 1 856

  // The bin fio files a value (ns) in.
  static unsigned index_of(uint64_t ns);
  // The bin's midpoint, fio's key for it in json+ and the value its percentiles report.
  static uint64_t value_of(unsigned index);

  // Adds n samples to the bin keyed by `midpoint_ns` (a json+ key). False
  // if the key is no bin's midpoint (not fio's layout).
  bool add_key(uint64_t midpoint_ns, uint64_t n);
  void add_index(unsigned index, uint64_t n) { bins_[index] += n, binned_ += n; }
  // N, the sample count fio's rule divides by: json's "N" beside the bins.
  void set_samples(uint64_t n) { samples_ = n; }
  uint64_t samples() const { return samples_ ? samples_ : binned_; }
  uint64_t binned() const { return binned_; }  // the sum of the bins' counts
  bool empty() const { return binned_ == 0; }

  // Bins and sample counts add: the histogram of both sets of samples.
  void merge(const FioHist& other);

  // fio's percentile of these bins (ns); 0 when empty. p in (0, 100].
  uint64_t percentile(double p) const;
  double percentile_us(double p) const { return static_cast<double>(percentile(p)) / 1000.0; }
  // Non-empty bins as (midpoint ns, count), ascending: what json+ prints.
  std::vector<std::pair<uint64_t, uint64_t>> bins() const;
  // The cumulative distribution: (midpoint us, share of samples at or below it).
  std::vector<std::pair<double, double>> cdf_us() const;
  bool operator==(const FioHist& o) const { return bins_ == o.bins_ && samples() == o.samples(); }

 private:
  std::array<uint64_t, kBins> bins_{};
  uint64_t binned_ = 0, samples_ = 0;
};

// The percentiles fio prints by default (its percentile_list), in its order.
const std::vector<double>& fio_default_percentiles();

}  // namespace fenec::iobench
