// growth-bench's pieces: keys, bands, the put recorder, and small runs of
// each part, checked by counts (never by times).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "engine/src/index/growing_map.h"
#include "engine/src/base/seed.h"
#include "engine/src/index/text_index.h"
#include "scenarios/growth/lookup.h"
#include "scenarios/growth/report.h"
#include "scenarios/growth/workload.h"

namespace fenec::scenarios::growth {
namespace {

TEST(Keys, DistinctAndShapedAsDocumented) {
  std::set<std::string> email, shorts, terms;
  char buf[64];
  for (uint64_t i = 0; i < 200000; ++i) {
    size_t n = make_key(KeyStyle::kEmail, i, buf);
    EXPECT_GE(n, 17u);
    EXPECT_LE(n, 26u);
    email.emplace(buf, n);
    n = make_key(KeyStyle::kShort, i, buf);
    EXPECT_LE(n, 15u);
    shorts.emplace(buf, n);
    n = make_term(i, buf);
    std::string t(buf, n);
    auto tok = index::Tokenize(t);
    ASSERT_EQ(tok.size(), 1u);
    ASSERT_EQ(tok[0], t);  // already one lowercase token
    terms.insert(t);
  }
  EXPECT_EQ(email.size(), 200000u);
  EXPECT_EQ(shorts.size(), 200000u);
  EXPECT_EQ(terms.size(), 200000u);
}

TEST(Bands, FollowTheNaiveDoublings) {
  EXPECT_EQ(band_of(0), 0u);
  EXPECT_EQ(band_of(114687), 0u);
  EXPECT_EQ(band_of(114688), 1u);
  EXPECT_EQ(band_of(229375), 1u);
  EXPECT_EQ(band_of(229376), 2u);
  EXPECT_EQ(band_of(3670016), 6u);
  auto b = bands_up_to(4000000);
  ASSERT_EQ(b.size(), 7u);
  EXPECT_EQ(b[2].label(), "keys=229376..458752");
  EXPECT_EQ(b.back().label(), "keys=3670016..7340032");
  EXPECT_EQ(source_band_figure(b[6]), "235-267 ms");
  EXPECT_EQ(doublings_up_to(1000000), (std::vector<uint64_t>{57344, 114688, 229376, 458752, 917504}));
  // The doublings are exactly where the naive table reaches 7/8 of a power of two.
  for (uint64_t d : doublings_up_to(4000000)) EXPECT_EQ(d % 7, 0u);
}

TEST(PutRecorder, KeepsBandMaximaTopTenAndChunks) {
  PutRecorder rec(1000, 10);  // chunks of 100 puts
  for (uint64_t i = 0; i < 1000; ++i) rec.record(i * 300, 1000 + i % 97, i % 250 == 0);
  rec.record(999 * 300, 5000000, true);
  EXPECT_EQ(rec.histogram().count(), 1001u);
  EXPECT_EQ(rec.chunks().size(), 10u);
  auto top = rec.top();
  ASSERT_EQ(top.size(), PutRecorder::kTop);
  EXPECT_EQ(top[0].ns, 5000000u);
  EXPECT_EQ(top[0].keys, 999u * 300);
  for (size_t i = 1; i < top.size(); ++i) EXPECT_LE(top[i].ns, top[i - 1].ns);
  EXPECT_EQ(rec.max_grew_ns(), 5000000u);
  EXPECT_EQ(rec.max_plain_ns(), 1096u);
  EXPECT_EQ(rec.band_max_ns()[band_of(999 * 300)], 5000000u);
}

TEST(RunPuts, CountsAddUpForBothArmsAndKinds) {
  const uint64_t n = 300000;
  for (Kind kind : {Kind::kUnique, Kind::kText}) {
    PutRun naive = run_puts(kind, index::Arm::kNaive, n, KeyStyle::kEmail, false, 100);
    EXPECT_EQ(naive.rec.histogram().count(), n);
    EXPECT_EQ(naive.stats.keys, n);
    EXPECT_EQ(naive.stats.max_keys_moved, 229376u);   // the doubling this run crosses
    EXPECT_EQ(naive.stats.puts_that_grew, naive.stats.growths);
    EXPECT_EQ(naive.stats.hash_computations, n);
    PutRun sharded = run_puts(kind, index::Arm::kSharded, n, KeyStyle::kEmail, true, 100);
    EXPECT_EQ(sharded.rec.histogram().count(), n);
    // The side thread's own puts land in the same index.
    EXPECT_EQ(sharded.stats.keys, n + sharded.side.writes);
    EXPECT_LE(sharded.side.reads_waited_on_growth, sharded.side.reads);
    EXPECT_LE(sharded.side.writes_waited_on_growth, sharded.side.writes);
    EXPECT_LE(sharded.stats.max_keys_moved, 2 * n / 256);
    EXPECT_TRUE(sharded.stats.sharded);
    EXPECT_EQ(sharded.growths.size(), sharded.stats.growths);
  }
}

TEST(Lookups, EveryMapAnswersTheSameCount) {
  uint64_t seed = base::SeedFromEnv("Lookups");
  auto res = run_lookups(20000, 5000, 2, KeyStyle::kEmail, seed);
  ASSERT_EQ(res.size(), 4u);
  for (const auto& r : res) {
    EXPECT_EQ(r.keys, 20000u);
    EXPECT_EQ(r.lookups, 5000u);
    EXPECT_GT(r.hit_ns, 0.0) << r.arm;
  }
}

TEST(Rebuild, AnswersEveryKeyWithoutGrowing) {
  for (index::Arm arm : {index::Arm::kSharded, index::Arm::kNaive}) {
    RebuildResult rb = time_rebuild(arm, 150000, KeyStyle::kShort);
    EXPECT_TRUE(rb.same) << rb.arm;
    EXPECT_EQ(rb.keys, 150000u);
  }
}

TEST(Memory, ChildReportsSmapsAndAccounting) {
  MemResult m = measure_memory("unique-sharded", 200000, KeyStyle::kEmail);
  ASSERT_TRUE(m.ok) << m.error;
  // 200 k keys past the split: slots of 32 B at 7/16..7/8 load, plus the heap-held keys.
  EXPECT_GE(m.slots_per_key, 8.0 / 7.0);
  EXPECT_LE(m.slots_per_key, 16.0 / 7.0 + 0.01);
  EXPECT_GE(m.own_bytes_per_key, 32.0 * m.slots_per_key + 19);
  EXPECT_GT(m.smaps_bytes_per_key, 0.0);
  MemResult bad = measure_memory("no-such-map", 10, KeyStyle::kEmail);
  EXPECT_FALSE(bad.ok);
}

}  // namespace
}  // namespace fenec::scenarios::growth
