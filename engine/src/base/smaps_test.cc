#include "engine/src/base/smaps.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>

namespace fenec::base {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

TEST(Smaps, RollupReadsThisProcess) {
  bool ok = false;
  const MemSample s = ReadSmapsRollup(0, &ok);
  ASSERT_TRUE(ok);
  EXPECT_GT(s.rss_kb, 0u);
  EXPECT_GT(s.pss_kb, 0u);
  EXPECT_GE(s.rss_kb, s.anon_kb);
  const MemSample by_pid = ReadSmapsRollup(getpid(), &ok);
  ASSERT_TRUE(ok);
  EXPECT_GT(by_pid.rss_kb, 0u);
}

TEST(Smaps, FullSumAgreesWithRollup) {
  bool ok1 = false, ok2 = false;
  const MemSample roll = ReadSmapsRollup(0, &ok1);
  const MemSample full = ReadSmapsFull(0, &ok2);
  ASSERT_TRUE(ok1 && ok2);
  // Two reads a moment apart of an idle process: the sums match to within a few pages.
  EXPECT_NEAR(static_cast<double>(full.rss_kb), static_cast<double>(roll.rss_kb),
              0.1 * static_cast<double>(roll.rss_kb) + 64);
}

TEST(Smaps, MissingProcessIsNotOk) {
  bool ok = true;
  const MemSample s = ReadSmapsRollup(0x3ffffffe, &ok);
  EXPECT_FALSE(ok);
  EXPECT_EQ(s.rss_kb, 0u);
}

TEST(SmapsRollupSampler, ConcurrentCallersNeverAddReads) {
  constexpr auto kInterval = milliseconds(20);
  const auto start = Clock::now();
  SmapsRollupSampler sampler(0, kInterval);
  EXPECT_GT(sampler.latest().rss_kb, 0u);  // a real sample from the start
  std::atomic<uint64_t> calls{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&] {
      // A bounded run of ~300 ms; the assertion is on counts, not on time.
      while (Clock::now() - start < milliseconds(300)) {
        if (sampler.latest().rss_kb == 0) ADD_FAILURE() << "empty sample";
        calls.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  for (auto& c : callers) c.join();
  sampler.Stop();
  const auto elapsed = Clock::now() - start;
  const uint64_t reads = sampler.reads();
  const auto bound = static_cast<uint64_t>(elapsed / kInterval) + 2;
  std::printf("latest() calls=%llu, /proc reads=%llu, bound=%llu\n",
              static_cast<unsigned long long>(calls.load()),
              static_cast<unsigned long long>(reads), static_cast<unsigned long long>(bound));
  EXPECT_GE(reads, 1u);
  EXPECT_LE(reads, bound);
  EXPECT_GT(calls.load(), reads);
  for (int i = 0; i < 10000; ++i) (void)sampler.latest();
  (void)sampler.series();
  (void)sampler.peak_rss_kb();
  EXPECT_EQ(sampler.reads(), reads);  // callers never read /proc themselves
  EXPECT_EQ(sampler.failed_reads(), 0u);
}

TEST(SmapsRollupSampler, SeriesIsOrderedAndBounded) {
  SmapsRollupSampler sampler(0, milliseconds(1), 8);
  // Wait (bounded) for enough reads that the series must have been thinned.
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  while (sampler.reads() < 40 && Clock::now() < deadline) std::this_thread::sleep_for(milliseconds(2));
  sampler.Stop();
  ASSERT_GE(sampler.reads(), 40u);
  const auto series = sampler.series();
  EXPECT_LE(series.size(), 8u);
  EXPECT_GE(series.size(), 4u);
  for (size_t i = 1; i < series.size(); ++i) EXPECT_LT(series[i - 1].t_s, series[i].t_s);
  uint64_t peak = 0;
  for (const auto& s : series) peak = std::max(peak, s.rss_kb);
  EXPECT_GE(sampler.peak_rss_kb(), peak);
  sampler.Stop();  // idempotent
}

TEST(SmapsRollupSampler, DeadProcessCountsFailures) {
  SmapsRollupSampler sampler(0x3ffffffe, milliseconds(1));
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  while (sampler.reads() < 3 && Clock::now() < deadline) std::this_thread::sleep_for(milliseconds(2));
  sampler.Stop();
  EXPECT_EQ(sampler.failed_reads(), sampler.reads());
  EXPECT_TRUE(sampler.series().empty());
  EXPECT_EQ(sampler.latest().rss_kb, 0u);
}

}  // namespace
}  // namespace fenec::base
