// MM-1's moving parts, by counts: the mapping set really is N VMAs, the
// readers read at most at their rate, and the sampler reads /proc at most at
// its throttle however many callers ask it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "engine/src/base/smaps.h"
#include "scenarios/smaps/mappings.h"
#include "scenarios/smaps/workload.h"

namespace fenec::scenarios::smaps {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

TEST(MappingSet, CreatesExactlyThatManyVmas) {
  const size_t before = count_vmas();
  MappingSet set;
  ASSERT_EQ(set.create(2000), "");
  const size_t during = count_vmas();
  // Other threads of the test binary may map a stack meanwhile: a few extra at most.
  EXPECT_GE(during, before + 2000);
  EXPECT_LE(during, before + 2000 + 8);
  set.release();
  EXPECT_LE(count_vmas(), before + 8);
}

TEST(MappingSet, RefusesMoreThanTheKernelAllows) {
  const size_t limit = max_map_count();
  if (limit == 0) GTEST_SKIP() << "/proc/sys/vm/max_map_count unreadable";
  MappingSet set;
  const std::string err = set.create(limit + 1);
  EXPECT_NE(err.find("max_map_count"), std::string::npos) << err;
  EXPECT_EQ(set.count(), 0u);
}

TEST(Reader, NamesRoundTrip) {
  for (Reader r : {Reader::kNone, Reader::kSmaps, Reader::kSmapsRollup, Reader::kSampler}) {
    Reader back{};
    ASSERT_TRUE(parse_reader(reader_name(r), &back));
    EXPECT_EQ(back, r);
  }
  Reader ignored{};
  EXPECT_FALSE(parse_reader("smap", &ignored));
}

TEST(RunArm, NoneReadsNothing) {
  ArmConfig cfg;
  cfg.reader = Reader::kNone;
  cfg.duration = 200ms;
  const ArmResult r = run_arm(cfg);
  EXPECT_GT(r.ops, 0u);
  EXPECT_EQ(r.op_ns.count(), r.ops);
  EXPECT_EQ(r.proc_reads, 0u);
  EXPECT_EQ(r.cached_reads, 0u);
}

TEST(RunArm, ReadersKeepToTheirRate) {
  ArmConfig cfg;
  cfg.reader = Reader::kSmapsRollup;
  cfg.hz = 20;
  cfg.threads = 2;
  cfg.duration = 500ms;
  const ArmResult r = run_arm(cfg);
  EXPECT_GT(r.ops, 0u);
  EXPECT_GE(r.proc_reads, 2u);  // each thread reads once at start
  // 20 Hz for ~0.5 s is 11 reads a thread at most (the first is at t=0); the
  // pacer never bursts to catch up, so a slow machine only reads fewer.
  const double allowed = 2 * (r.seconds * 20 + 2);
  EXPECT_LE(static_cast<double>(r.proc_reads), allowed);
}

TEST(RunArm, SamplerCallersNeverReadProc) {
  ArmConfig cfg;
  cfg.reader = Reader::kSampler;
  cfg.hz = 10;
  cfg.threads = 4;
  cfg.duration = 500ms;
  const ArmResult r = run_arm(cfg);
  EXPECT_GT(r.cached_reads, 4u);
  // One sampler thread at 10 Hz: about 6 reads in 0.5 s, never 4 callers' worth.
  EXPECT_LE(static_cast<double>(r.proc_reads), r.seconds * 10 + 3);
  EXPECT_LT(r.proc_reads, r.cached_reads);
}

// The test: many concurrent callers of the sampler, /proc read at
// most at the throttle rate (the count of reads bounded by elapsed / interval).
TEST(SmapsRollupSampler, ConcurrentCallersReadAtMostAtThrottleRate) {
  constexpr auto kInterval = 50ms;
  const auto start = Clock::now();
  base::SmapsRollupSampler sampler(0, kInterval);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> calls{0};
  std::vector<std::thread> callers;
  for (int i = 0; i < 8; ++i) {
    callers.emplace_back([&] {
      while (!stop.load()) {
        (void)sampler.latest();
        (void)sampler.peak_rss_kb();
        calls.fetch_add(1);
      }
    });
  }
  std::this_thread::sleep_for(400ms);
  stop.store(true);
  for (auto& t : callers) t.join();
  sampler.Stop();
  const double elapsed_ms =
      std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  const uint64_t reads = sampler.reads();
  EXPECT_GE(reads, 1u);
  EXPECT_LE(static_cast<double>(reads), elapsed_ms / 50.0 + 2) << "calls=" << calls.load();
  EXPECT_GT(calls.load(), reads * 10);  // the callers were served from the cache
  EXPECT_GT(sampler.latest().rss_kb, 0u);
}

}  // namespace
}  // namespace fenec::scenarios::smaps
