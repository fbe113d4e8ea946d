// MM-2..MM-5's verdict rules on made-up figures (ns per item, a repetition
// each): a check clears its line, misses it or holds it (straddles), and
// judge() turns that into reproduced, partly reproduced, not reproduced or
// inconclusive; an arm not run (--filter) is "not applicable".
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "scenarios/micro/collect.h"

namespace fenec::scenarios::micro {
namespace {

using kit::Outcome;

Figure fig(const std::string& finding, const std::string& arm, int threads, std::vector<double> ns) {
  Figure f;
  f.finding = finding;
  f.arm = arm;
  f.case_ = fmt::format("x=1;threads={}", threads);
  f.ns_per_item = ns;
  f.cpu_ns_per_item = std::move(ns);  // as if never waiting for a core; MM-4's test sets them apart
  return f;
}

// The shapes of a quick run here: MM-2's flat set clears faster than a new
// one, the versioned bitmap beats the cleared set and ties the cleared
// bitmap; batches win 12x at 2 threads; the shared matcher ties; preads 110x.
std::vector<Figure> shaped() {
  return {fig("MM-2", "hash_clear", 1, {34000, 35000, 34500}),
          fig("MM-2", "hash_new", 1, {53000, 53700, 53800}),
          fig("MM-2", "flat_clear", 1, {6500, 7000, 6600}),
          fig("MM-2", "flat_new", 1, {18000, 19000, 17800}),
          fig("MM-2", "bitmap_clear", 1, {4000, 4300, 4570}),
          fig("MM-2", "versioned_bitmap", 1, {4260, 4140, 4460}),
          fig("MM-3", "per_item", 1, {1.91, 1.90, 1.94}),
          fig("MM-3", "per_batch", 1, {0.60, 0.58, 0.60}),
          fig("MM-3", "per_item", 2, {4.7, 4.5, 4.0}),
          fig("MM-3", "per_batch", 2, {0.33, 0.39, 0.33}),
          fig("MM-4", "shared_checkout", 2, {680, 700, 690}),
          fig("MM-4", "per_thread", 2, {665, 690, 700}),
          fig("MM-5", "pread", 1, {14800, 15000, 14600}),
          fig("MM-5", "read_once", 1, {132, 135, 130}),
          fig("MM-5", "mmap", 1, {128, 131, 126})};
}

std::map<std::string, kit::Verdict> judged(const std::vector<Figure>& figs) {
  kit::Results r("micro", kit::Metadata{});
  add_verdicts(r, figs, "plots/micro/ratios.png");
  std::map<std::string, kit::Verdict> out;
  for (const kit::Verdict& v : r.verdicts()) out[v.finding] = v;
  return out;
}

Figure* arm(std::vector<Figure>& figs, const std::string& name, int threads) {
  for (Figure& f : figs)
    if (f.arm == name && f.case_.ends_with(fmt::format("threads={}", threads))) return &f;
  return nullptr;
}

// Sets an arm's CPU and wall time per item alike (one thread, never waiting for a core).
void set(std::vector<Figure>& figs, const std::string& name, int threads, std::vector<double> ns) {
  Figure* f = arm(figs, name, threads);
  ASSERT_NE(f, nullptr) << name;
  f->ns_per_item = ns;
  f->cpu_ns_per_item = ns;
}

TEST(MicroVerdicts, TheShapesOfAQuickRun) {
  auto v = judged(shaped());
  // MM-2: cleared < new misses, versioned < cleared set clears: partly. The
  // plain bitmap (a tie here) is shown, not judged.
  EXPECT_EQ(v["MM-2"].outcome, Outcome::kPartly) << v["MM-2"].reason;
  EXPECT_EQ(v["MM-2"].reason.find("bitmap cleared"), std::string::npos) << v["MM-2"].reason;
  EXPECT_NE(v["MM-2"].ours.find("not judged"), std::string::npos) << v["MM-2"].ours;
  EXPECT_EQ(v["MM-3"].outcome, Outcome::kReproduced) << v["MM-3"].reason;
  EXPECT_EQ(v["MM-4"].outcome, Outcome::kNotReproduced) << v["MM-4"].reason;
  EXPECT_EQ(v["MM-5"].outcome, Outcome::kReproduced) << v["MM-5"].reason;
  EXPECT_NE(v["MM-5"].ours.find("x ["), std::string::npos) << "ratios with intervals: " << v["MM-5"].ours;
}

TEST(MicroVerdicts, EachCheckClearsMissesOrStraddles) {
  std::vector<Figure> figs = shaped();
  set(figs, "flat_clear", 1, {25000, 26000, 24000});  // clearing now costs more than new
  EXPECT_EQ(judged(figs)["MM-2"].outcome, Outcome::kReproduced);
  // The versioned bitmap 0.8x..2x the cleared set's CPU a walk: straddles.
  set(figs, "versioned_bitmap", 1, {30000, 12000, 20000});
  EXPECT_EQ(judged(figs)["MM-2"].outcome, Outcome::kInconclusive) << judged(figs)["MM-2"].reason;
  // MM-4 judges the mechanism, counted (the shared checkout allocated fresh
  // scratch at 2 threads), and the cost against the source's 5x.
  arm(figs, "shared_checkout", 2)->counter_reps["fresh_per_call"] = {0.3, 0.25, 0.35};
  // The shared matcher 3.5x..7x the CPU a line: the interval holds 5.
  arm(figs, "shared_checkout", 2)->cpu_ns_per_item = {2400, 4800, 3600};
  EXPECT_EQ(judged(figs)["MM-4"].outcome, Outcome::kInconclusive) << judged(figs)["MM-4"].reason;
  arm(figs, "shared_checkout", 2)->cpu_ns_per_item = {4100, 4200, 4300};  // 6x: the source's shape
  EXPECT_EQ(judged(figs)["MM-4"].outcome, Outcome::kReproduced) << judged(figs)["MM-4"].reason;
  // Judged on CPU, not wall time: a neighbour that doubles the wall time of
  // the shared arm's repetitions does not make it slower. The allocations
  // happen, their cost does not show: partly.
  arm(figs, "shared_checkout", 2)->cpu_ns_per_item = {680, 700, 690};
  arm(figs, "shared_checkout", 2)->ns_per_item = {1400, 1300, 1500};
  EXPECT_EQ(judged(figs)["MM-4"].outcome, Outcome::kPartly) << judged(figs)["MM-4"].reason;
  EXPECT_NE(judged(figs)["MM-4"].reason.find("30% of calls"), std::string::npos) << judged(figs)["MM-4"].reason;
  // Preads only 8x one read (and mmap): both checks miss the source's 16x.
  for (const char* a : {"read_once", "mmap"}) set(figs, a, 1, {1850, 1870, 1830});
  EXPECT_EQ(judged(figs)["MM-5"].outcome, Outcome::kNotReproduced);
  // Batches win about as much at 1 thread as at 2: the contention check holds 1.
  set(figs, "per_item", 1, {4.7 * 0.60 / 0.33, 4.5 * 0.58 / 0.39 * 0.9, 4.0 * 0.60 / 0.33 * 1.1});
  auto v = judged(figs);
  EXPECT_EQ(v["MM-3"].outcome, Outcome::kInconclusive) << v["MM-3"].reason;
  // Batches win more at 1 thread: the second thread narrows the gap, partly.
  set(figs, "per_item", 1, {40, 41, 39});
  v = judged(figs);
  EXPECT_EQ(v["MM-3"].outcome, Outcome::kPartly) << v["MM-3"].reason;
}

TEST(MicroVerdicts, MM2JudgesTheBackToBackPairWhenItRan) {
  std::vector<Figure> figs = shaped();
  // Passes apart, the versioned bitmap's CPU a walk swings 4x: straddles.
  set(figs, "versioned_bitmap", 1, {19700, 5400, 16000});
  EXPECT_EQ(judged(figs)["MM-2"].outcome, Outcome::kInconclusive) << judged(figs)["MM-2"].reason;
  // Walked back to back, both swing together and the pair clears 1.
  Figure pair = fig("MM-2", "paired", 1, {10000, 10000, 10000});
  pair.counter_reps["flat_clear_cpu_ns_per_walk"] = {24000, 9000, 19000};
  pair.counter_reps["versioned_bitmap_cpu_ns_per_walk"] = {14000, 5200, 11500};
  figs.push_back(pair);
  auto v = judged(figs);
  EXPECT_EQ(v["MM-2"].outcome, Outcome::kPartly) << v["MM-2"].reason;
  EXPECT_NE(v["MM-2"].reason.find("walked back to back"), std::string::npos) << v["MM-2"].reason;
  EXPECT_NE(v["MM-2"].ours.find("walked back to back"), std::string::npos) << v["MM-2"].ours;
}

TEST(MicroVerdicts, ArmsNotRunAreNotApplicable) {
  std::vector<Figure> figs = shaped();
  figs.erase(figs.begin());  // no hash_clear
  figs.pop_back();           // no mmap
  auto v = judged(figs);
  EXPECT_EQ(v["MM-2"].outcome, Outcome::kNotApplicable);
  EXPECT_EQ(v["MM-5"].outcome, Outcome::kNotApplicable);
  EXPECT_EQ(v["MM-3"].outcome, Outcome::kReproduced);
}

// With the PCRE2 and RE2 pairs run, MM-4 is judged on them and the
// std::regex pair is shown beside: the slot-lending PCRE2 matcher 3x its
// per-thread one and one shared RE2 as fast as per-thread ones both miss the
// source's 5x, while the slot's allocations (counted) hold: partly.
// Judged on the median sample, whose interval needs 6 samples or more.
TEST(MicroVerdicts, MatchersPeopleShareDecideMm4) {
  std::vector<Figure> figs = shaped();
  figs.push_back(fig("MM-4", "pcre2_shared_slot", 2, {300, 320, 310, 305, 298, 315, 307, 312}));
  figs.back().counter_reps["fresh_per_call"] = std::vector<double>(8, 0.12);
  figs.push_back(fig("MM-4", "pcre2_shared_slot", 1, {90, 91, 92}));
  figs.back().counter_reps["fresh_per_call"] = {0, 0, 0};
  figs.push_back(fig("MM-4", "pcre2_per_thread", 2, {100, 104, 102, 101, 103, 99, 102, 100}));
  figs.push_back(fig("MM-4", "re2_shared", 2, {300, 310, 305, 302, 308, 301, 306, 304}));
  figs.push_back(fig("MM-4", "re2_per_thread", 2, {300, 305, 310, 303, 306, 302, 304, 309}));
  kit::Verdict v = judged(figs)["MM-4"];
  EXPECT_EQ(v.outcome, Outcome::kPartly) << v.reason;
  EXPECT_NE(v.reason.find("PCRE2's shared slot allocated fresh scratch on 12% of calls at 2 threads and 0% at 1"),
            std::string::npos)
      << v.reason;
  EXPECT_EQ(v.reason.find("std::regex"), std::string::npos) << "shown, not judged: " << v.reason;
  EXPECT_NE(v.ours.find("std::regex (shown, not judged)"), std::string::npos) << v.ours;
  for (const char* a : {"pcre2_shared_slot", "re2_shared"})
    arm(figs, a, 2)->cpu_ns_per_item = {900, 930, 915, 920, 905, 925, 910, 918};
  arm(figs, "pcre2_per_thread", 2)->cpu_ns_per_item = {150, 152, 151, 149, 150, 153, 148, 150};
  arm(figs, "re2_per_thread", 2)->cpu_ns_per_item = {150, 152, 151, 149, 150, 153, 148, 150};
  EXPECT_EQ(judged(figs)["MM-4"].outcome, Outcome::kReproduced) << judged(figs)["MM-4"].reason;
  // A slot that allocates when used alone is not the source's mechanism.
  arm(figs, "pcre2_shared_slot", 1)->counter_reps["fresh_per_call"] = {0, 0.01, 0};
  EXPECT_EQ(judged(figs)["MM-4"].outcome, Outcome::kPartly) << judged(figs)["MM-4"].reason;
  // Three samples give the median no interval: open, not a verdict.
  for (Figure& f : figs)
    if (f.finding == "MM-4") f.cpu_ns_per_item.resize(3), f.ns_per_item.resize(3);
  EXPECT_EQ(judged(figs)["MM-4"].outcome, Outcome::kInconclusive);
}

// The host places the two vCPUs close (a shared cache line costs the shared
// arms 1.1x) or far (1.7x) for minutes at a time. A run in either placement,
// or one that changes placement part way, gets the same verdict: the
// allocations hold and the cost misses the source's 5x.
TEST(MicroVerdicts, Mm4HostPlacementDoesNotDecide) {
  for (int far_samples : {0, 6, 26, 32}) {
    std::vector<Figure> figs = shaped();
    std::vector<double> shared, local;
    for (int i = 0; i < 32; ++i) {
      local.push_back(50 + i % 3);
      shared.push_back((i < far_samples ? 1.7 : 1.1) * (50 + (i + 1) % 3));
    }
    figs.push_back(fig("MM-4", "pcre2_shared_slot", 2, shared));
    figs.back().counter_reps["fresh_per_call"] = std::vector<double>(32, 0.1);
    figs.push_back(fig("MM-4", "pcre2_per_thread", 2, local));
    figs.push_back(fig("MM-4", "re2_shared", 2, shared));
    figs.push_back(fig("MM-4", "re2_per_thread", 2, local));
    const kit::Verdict v = judged(figs)["MM-4"];
    EXPECT_EQ(v.outcome, Outcome::kPartly) << far_samples << ": " << v.reason;
    if (far_samples == 6) {
      EXPECT_NE(v.ours.find("6 of 32 samples"), std::string::npos) << v.ours;
    }
  }
}

TEST(MicroVerdicts, OneRepetitionHasNoInterval) {
  std::vector<Figure> figs = shaped();
  for (Figure& f : figs) f.ns_per_item.resize(1), f.cpu_ns_per_item.resize(1);
  EXPECT_EQ(judged(figs)["MM-5"].outcome, Outcome::kInconclusive);
}

}  // namespace
}  // namespace fenec::scenarios::micro
