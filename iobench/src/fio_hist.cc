#include "iobench/src/fio_hist.h"

#include <bit>

namespace fenec::iobench {

unsigned FioHist::index_of(uint64_t ns) {
  // Below 2^(kBits+1) a value is its own bin; above, its most significant
  // bit picks the group and the kBits bits below it the bin in the group.
  const unsigned msb = ns == 0 ? 0 : 63 - static_cast<unsigned>(std::countl_zero(ns));
  if (msb <= kBits) return static_cast<unsigned>(ns);
  const unsigned dropped = msb - kBits;
  const uint64_t index = (static_cast<uint64_t>(dropped + 1) << kBits) + ((ns >> dropped) & (kPerGroup - 1));
  return index < kBins - 1 ? static_cast<unsigned>(index) : kBins - 1;
}

uint64_t FioHist::value_of(unsigned index) {
  if (index < (kPerGroup << 1)) return index;
  const unsigned dropped = (index >> kBits) - 1;
  const uint64_t group_lo = uint64_t{1} << (dropped + kBits);
  const uint64_t k = index % kPerGroup;
  // fio reports a bin by the middle of its range: lo + (k + 0.5) * width,
  // computed in double and truncated; a whole number from width 2 up.
  return group_lo + static_cast<uint64_t>((static_cast<double>(k) + 0.5) * static_cast<double>(uint64_t{1} << dropped));
}

bool FioHist::add_key(uint64_t midpoint_ns, uint64_t n) {
  const unsigned i = index_of(midpoint_ns);
  if (value_of(i) != midpoint_ns) return false;
  add_index(i, n);
  return true;
}

void FioHist::merge(const FioHist& other) {
  const uint64_t n = samples() + other.samples();
  for (unsigned i = 0; i < kBins; ++i) bins_[i] += other.bins_[i];
  binned_ += other.binned_;
  samples_ = n;
}

uint64_t FioHist::percentile(double p) const {
  const uint64_t n = samples();
  if (n == 0 || binned_ == 0) return 0;
  // fio's comparison, in fio's types: the running sum against p/100 x N in long double.
  const long double want = static_cast<long double>(p) / 100.0 * static_cast<long double>(n);
  uint64_t sum = 0;
  unsigned last = 0;
  for (unsigned i = 0; i < kBins; ++i) {
    if (bins_[i] == 0) continue;
    sum += bins_[i];
    last = i;
    if (static_cast<long double>(sum) >= want) return value_of(i);
  }
  // N above the bins' sum (a json whose N and bins disagree): fio has no
  // answer there; the highest bin is the honest bound.
  return value_of(last);
}

std::vector<std::pair<uint64_t, uint64_t>> FioHist::bins() const {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (unsigned i = 0; i < kBins; ++i)
    if (bins_[i]) out.emplace_back(value_of(i), bins_[i]);
  return out;
}

std::vector<std::pair<double, double>> FioHist::cdf_us() const {
  std::vector<std::pair<double, double>> out;
  if (binned_ == 0) return out;
  uint64_t sum = 0;
  for (unsigned i = 0; i < kBins; ++i) {
    if (!bins_[i]) continue;
    sum += bins_[i];
    out.emplace_back(static_cast<double>(value_of(i)) / 1000.0, static_cast<double>(sum) / static_cast<double>(binned_));
  }
  return out;
}

const std::vector<double>& fio_default_percentiles() {
  static const std::vector<double> k = {1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
  return k;
}

}  // namespace fenec::iobench
