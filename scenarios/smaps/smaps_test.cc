// MM-1's moving parts, by counts: the mapping set really is N VMAs, the
// readers read at most at their rate, and the sampler reads /proc at most at
// its throttle however many callers ask it. And the verdict's rule on made-up
// figures: each of its three checks clears, misses or straddles its line.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "engine/src/base/smaps.h"
#include "iobench/kit/results.h"
#include "scenarios/smaps/mappings.h"
#include "scenarios/smaps/report.h"
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

// Made-up figures: a worker p99 of each repetition (us), the rest zero.
std::vector<WorkerFigures> p99s(std::vector<double> us) {
  std::vector<WorkerFigures> out;
  for (double v : us) {
    WorkerFigures f;
    f.p99_us = v;
    f.p999_us = v * 1.2;
    f.max_us = v * 1.5;
    f.ops_per_s = 1e6 / v;
    out.push_back(f);
  }
  return out;
}

// The quick run's shape: smaps 20x a rollup read, 4 smaps threads at 100 Hz
// stall the worker ~1000x, the sampler at 1 Hz keeps it where it was.
Report shaped() {
  Report r;
  r.read_us[{"smaps", 1000}] = {4000, 4100, 3900};
  r.read_us[{"smaps_rollup", 1000}] = {300, 310, 290};
  r.read_us[{"smaps", 50000}] = {200000, 210000, 205000};
  r.read_us[{"smaps_rollup", 50000}] = {10000, 9800, 10300};
  r.worker[{"none", 10000, 0, 0}] = p99s({13, 14, 12});
  r.worker[{"smaps", 10000, 1, 4}] = p99s({15, 15, 14});
  r.worker[{"smaps", 10000, 100, 1}] = p99s({4000, 4200, 3900});
  r.worker[{"smaps", 10000, 100, 4}] = p99s({16000, 17000, 15000});
  r.worker[{"sampler", 10000, 1, 4}] = p99s({13, 13.5, 12.5});
  r.worker[{"sampler", 10000, 100, 4}] = p99s({250, 170, 300});
  return r;
}

TEST(Verdict, ReproducedWhenSmapsCostsStallsAndTheSamplerStaysFlat) {
  kit::Results rows("smaps", kit::Metadata{});
  const kit::Verdict v = verdict(shaped(), "plots/smaps/", &rows);
  EXPECT_EQ(v.outcome, kit::Outcome::kReproduced) << v.reason;
  EXPECT_EQ(v.plot, "plots/smaps/mmap_p99_m10000.png");
  EXPECT_NE(v.reason.find("at 50000 mappings"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("4 threads reading smaps at 100 Hz"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("the sampler at 1 Hz"), std::string::npos) << v.reason;
  EXPECT_NE(v.ours.find("max"), std::string::npos) << "the max and p99.9 beside the p99: " << v.ours;
  int ratios = 0;
  for (const auto& row : rows.rows()) ratios += row.metric == "read_over_rollup" || row.metric == "mmap_p99_over_none";
  EXPECT_EQ(ratios, 3);
}

TEST(Verdict, PartlyWhenTheSamplerHarmsTooAndInconclusiveWhenItStraddles) {
  Report r = shaped();
  r.worker[{"sampler", 10000, 1, 4}] = p99s({60, 65, 55});  // ~4.6x the unsampled p99
  kit::Verdict v = verdict(r, "", nullptr);
  EXPECT_EQ(v.outcome, kit::Outcome::kPartly) << v.reason;
  EXPECT_NE(v.reason.find("missed"), std::string::npos);
  r.worker[{"sampler", 10000, 1, 4}] = p99s({20, 35, 26});  // 1.5x, 2.5x, 2.2x: holds 2
  v = verdict(r, "", nullptr);
  EXPECT_EQ(v.outcome, kit::Outcome::kInconclusive) << v.reason;
  EXPECT_NE(v.reason.find("straddles"), std::string::npos);
  // Nothing stalls: smaps reading threads leave the worker as it was.
  r = shaped();
  r.worker[{"smaps", 10000, 100, 4}] = p99s({13, 15, 12});
  r.read_us[{"smaps", 50000}] = {10000, 10100, 9900};
  v = verdict(r, "", nullptr);
  EXPECT_EQ(v.outcome, kit::Outcome::kPartly) << v.reason;  // the sampler's flat check still clears
}

TEST(Verdict, TheFixIsJudgedAtTheServersRateWhenItRan) {
  Report r = shaped();
  r.worker[{"sampler", 10000, 10, 4}] = p99s({90, 95, 85});
  EXPECT_NE(verdict(r, "", nullptr).reason.find("the sampler at 1 Hz"), std::string::npos);
  r.worker.erase({"sampler", 10000, 1, 4});
  EXPECT_NE(verdict(r, "", nullptr).reason.find("the sampler at 10 Hz"), std::string::npos);
}

TEST(Verdict, NotApplicableWhenOnlyPartRan) {
  Report r = shaped();
  r.read_us.clear();  // --no-read-cost
  EXPECT_EQ(verdict(r, "", nullptr).outcome, kit::Outcome::kNotApplicable);
  // What CI runs: --arms none,sampler.
  r = shaped();
  for (auto it = r.worker.begin(); it != r.worker.end();)
    it = std::get<0>(it->first) == "smaps" ? r.worker.erase(it) : std::next(it);
  EXPECT_EQ(verdict(r, "", nullptr).outcome, kit::Outcome::kNotApplicable);
  r = shaped();
  r.worker.erase({"none", 10000, 0, 0});
  EXPECT_EQ(verdict(r, "", nullptr).outcome, kit::Outcome::kNotApplicable);
}

}  // namespace
}  // namespace fenec::scenarios::smaps
