// StatCounters: a subsystem's counters as one atomic per Stat (fenec/stats.h),
// so what it counts, what ResetStats zeroes and what GetStats reports all
// follow the one declaration: nothing to list twice, nothing to forget.
// A subsystem touches only the slots it counts; the rest stay 0.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>

#include "fenec/stats.h"

namespace fenec {

class StatCounters {
 public:
  void Add(Stat s, uint64_t n = 1) { at(s).fetch_add(n, std::memory_order_relaxed); }
  void Max(Stat s, uint64_t v) {
    std::atomic<uint64_t>& a = at(s);
    uint64_t cur = a.load(std::memory_order_relaxed);
    while (v > cur && !a.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
    }
  }
  void Set(Stat s, uint64_t v) { at(s).store(v, std::memory_order_relaxed); }
  uint64_t Load(Stat s) const { return v_[static_cast<size_t>(s)].load(std::memory_order_relaxed); }

  // ResetStats: zeroes what fenec/stats.h says it zeroes (kCounter, kMaximum).
  void Reset() {
    for (Stat s : kAllStats)
      if (ZeroedByReset(Info(s).kind)) Set(s, 0);
  }
  // Adds these into *st, as parts of one database at one time add up:
  // counters and gauges summed, maxima the larger.
  void AddTo(Stats* st) const {
    for (Stat s : kAllStats) {
      const uint64_t v = Load(s);
      const StatKind k = Info(s).kind;
      st->set(s, k == StatKind::kMaximum || k == StatKind::kPeak ? std::max(st->get(s), v) : st->get(s) + v);
    }
  }
  Stats Snapshot() const {
    Stats st;
    AddTo(&st);
    return st;
  }

 private:
  std::atomic<uint64_t>& at(Stat s) { return v_[static_cast<size_t>(s)]; }
  std::array<std::atomic<uint64_t>, kStatCount> v_{};
};

}  // namespace fenec
