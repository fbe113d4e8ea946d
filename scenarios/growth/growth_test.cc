// growth-bench's pieces: keys, bands, the put recorder, and small runs of
// each part, checked by counts (never by times).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "engine/src/index/growing_map.h"
#include "engine/src/base/seed.h"
#include "engine/src/base/testing.h"
#include "engine/src/index/vector/vector_table.h"
#include "engine/src/index/text_index.h"
#include "iobench/kit/verdict.h"
#include "scenarios/growth/gr5.h"
#include "scenarios/growth/lookup.h"
#include "scenarios/growth/report.h"
#include "scenarios/growth/vector_arm.h"
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
    // GR-1's exact part on a real run: one hash a put or side operation, none in any growth.
    EXPECT_EQ(sharded.stats.hash_computations, n + sharded.side.reads + sharded.side.writes);
    EXPECT_TRUE(sharded.stats.sharded);
    EXPECT_EQ(sharded.growths.size(), sharded.stats.growths);
  }
}

TEST(Lookups, EveryMapAnswersTheSameCount) {
  uint64_t seed = base::SeedFromEnv("Lookups");
  auto res = run_lookups(20000, 6000, 3, KeyStyle::kEmail, seed);
  ASSERT_EQ(res.size(), 4u);
  for (const auto& r : res) {
    EXPECT_EQ(r.keys, 20000u);
    EXPECT_EQ(r.lookups, 6000u);
    EXPECT_GT(r.hit_ns, 0.0) << r.arm;
    // One figure a round, so each map's rounds pair with absl's.
    EXPECT_EQ(r.hit_ns_reps.size(), 3u) << r.arm;
    EXPECT_EQ(r.miss_ns_reps.size(), 3u) << r.arm;
  }
}

TEST(Rebuild, AnswersEveryKeyWithoutGrowingInEveryRepetition) {
  auto rbs = time_rebuilds(150000, KeyStyle::kShort, 2);
  ASSERT_EQ(rbs.size(), 2u);
  EXPECT_EQ(rbs[0].arm, "unique-sharded");
  EXPECT_EQ(rbs[1].arm, "unique-naive");
  for (const auto& rb : rbs) {
    EXPECT_TRUE(rb.same) << rb.arm;
    EXPECT_EQ(rb.keys, 150000u);
    EXPECT_EQ(rb.rebuild_s_reps.size(), 2u);
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

// ---- the verdicts' logic, on synthetic runs (figures made up, no clock read)

constexpr uint64_t kN = 1000000;  // quick mode's puts: the last doubling reached is at 917 504

index::GrowthEvent growth(uint64_t keys_before, double cpu_us) {
  index::GrowthEvent e;
  e.keys_before = keys_before;
  e.cpu_ns = static_cast<uint64_t>(cpu_us * 1000);
  e.ns = e.cpu_ns + 1000;  // a little preemption on top
  return e;
}

// A naive run whose doublings cost in proportion to the keys, `stall_us` at 917 504.
PutRun naive_run(double stall_us) {
  PutRun r(kN, 10);
  for (uint64_t d : doublings_up_to(kN)) {
    const double cpu = stall_us * static_cast<double>(d) / 917504.0;
    r.growths.push_back(growth(d, cpu));
    r.rec.record(d, static_cast<uint64_t>(cpu * 1000) + 1000, true);
  }
  r.rec.record(5, 800, false);
  return r;
}

// A sharded run whose longest growth is `longest_us`, at 300 000 keys.
PutRun sharded_run(double longest_us) {
  PutRun r(kN, 10);
  for (uint64_t k : {114688u, 300000u, 950000u}) {
    const double cpu = k == 300000 ? longest_us : longest_us / 2;
    r.growths.push_back(growth(k, cpu));
    r.rec.record(k, static_cast<uint64_t>(cpu * 1000) + 1000, true);
  }
  r.rec.record(5, 800, false);
  return r;
}

std::vector<PutRun> naive_runs(std::initializer_list<double> stalls) {
  std::vector<PutRun> out;
  for (double s : stalls) out.push_back(naive_run(s));
  return out;
}
std::vector<PutRun> sharded_runs(std::initializer_list<double> longest) {
  std::vector<PutRun> out;
  for (double l : longest) out.push_back(sharded_run(l));
  return out;
}

TEST(Lines, ComeFromTheSourcesFiguresAtTheDoublingReached) {
  // GR-1: the source's naive stall at the doubling over its longest sharded put, 3.6 ms.
  EXPECT_DOUBLE_EQ(*gr1_stall_line(917504), 13.6);   // 49 / 3.6
  EXPECT_DOUBLE_EQ(*gr1_stall_line(3670016), 65.3);  // 235 / 3.6
  EXPECT_DOUBLE_EQ(*gr1_stall_line(229376), 1.9);    // 7 / 3.6
  EXPECT_DOUBLE_EQ(*gr1_stall_line(7340032), 65.3);  // past the source's last doubling: its figure
  EXPECT_FALSE(gr1_stall_line(114688).has_value());  // the source gave none below 229 376
  // GR-2: 276 ms at 3 670 016 terms scaled by the terms moved, over 5 ms.
  EXPECT_DOUBLE_EQ(*gr2_stall_line(3670016), 55.2);
  EXPECT_DOUBLE_EQ(*gr2_stall_line(917504), 13.8);
  EXPECT_FALSE(gr2_stall_line(57344).has_value());
  // The quick run's last doubling is the one these lines are drawn at.
  EXPECT_EQ(bands_up_to(kN).back().lo, 917504u);
}

TEST(Figures, BandMaximaAndGrowthCpuPerRepetition) {
  PutFigures f = figures_of(naive_run(60000), kN);
  ASSERT_EQ(f.band_growth_cpu_us.size(), bands_up_to(kN).size());
  EXPECT_NEAR(f.band_growth_cpu_us.back(), 60000, 1);
  EXPECT_NEAR(f.growth_cpu_max_us, 60000, 1);
  EXPECT_NEAR(f.band_max_us.back(), 60001, 1);
  EXPECT_NEAR(f.plain_max_us, 0.8, 1e-9);
  PutFigures s = figures_of(sharded_run(700), kN);
  EXPECT_NEAR(s.growth_cpu_max_us, 700, 1e-6);
  EXPECT_NEAR(s.band_growth_cpu_us[band_of(300000)], 700, 1e-6);
  EXPECT_NEAR(s.band_growth_cpu_us.back(), 350, 1e-6);
}

TEST(StallCheck, ClearsMissesAndStraddlesTheLine) {
  // ~171x, tight: cleared against 13.6. The sharded side is its longest
  // growth over the naive doubling's keys (half its longest, at 300 000).
  kit::Check c = stall_check(naive_runs({60000, 62000, 59000}), sharded_runs({700, 720, 690}), kN, 13.6, "test");
  EXPECT_EQ(c.ratio.reps, 3u);
  EXPECT_NEAR(c.ratio.value, 171.2, 2.0);
  EXPECT_EQ(kit::check_result(c), kit::CheckResult::kCleared);
  // ~10x, tight: missed.
  c = stall_check(naive_runs({3500, 3600, 3400}), sharded_runs({700, 720, 690}), kN, 13.6, "test");
  EXPECT_EQ(kit::check_result(c), kit::CheckResult::kMissed);
  // 10x, 80x, 24x: the interval holds the line.
  c = stall_check(naive_runs({3500, 28000, 8400}), sharded_runs({700, 700, 700}), kN, 13.6, "test");
  EXPECT_EQ(kit::check_result(c), kit::CheckResult::kStraddles);
  // One repetition: no interval, so no verdict from it.
  c = stall_check(naive_runs({60000}), sharded_runs({700}), kN, 13.6, "test");
  EXPECT_EQ(kit::check_result(c), kit::CheckResult::kUnknown);
  // The pairs are by repetition: the shorter list counts.
  c = stall_check(naive_runs({60000, 62000, 59000}), sharded_runs({700, 720}), kN, 13.6, "test");
  EXPECT_EQ(c.ratio.reps, 2u);
}

TEST(KitJudge, ExactPartsCountAsClearedOrMissedChecks) {
  const kit::Check cleared = stall_check(naive_runs({60000, 62000, 59000}), sharded_runs({700, 720, 690}), kN, 13.6, "t");
  const kit::Check missed = stall_check(naive_runs({3500, 3600, 3400}), sharded_runs({700, 720, 690}), kN, 13.6, "t");
  const kit::Check straddles =
      stall_check(naive_runs({3500, 28000, 8400}), sharded_runs({700, 700, 700}), kN, 13.6, "t");
  const ExactPart holds{"one hash a key", true}, fails{"one hash a key", false};
  EXPECT_EQ(kit::judge({cleared}, {holds}).outcome, kit::Outcome::kReproduced);
  EXPECT_EQ(kit::judge({cleared}, {fails}).outcome, kit::Outcome::kPartly);
  EXPECT_EQ(kit::judge({missed}, {holds}).outcome, kit::Outcome::kPartly);
  EXPECT_EQ(kit::judge({missed}, {fails}).outcome, kit::Outcome::kNotReproduced);
  EXPECT_EQ(kit::judge({straddles}, {holds}).outcome, kit::Outcome::kInconclusive);
  EXPECT_EQ(kit::judge({straddles}, {fails}).outcome, kit::Outcome::kInconclusive);
  // Without exact parts it is kit::judge.
  EXPECT_EQ(kit::judge({cleared}, {}).outcome, kit::Outcome::kReproduced);
  EXPECT_EQ(kit::judge({straddles}, {}).outcome, kit::Outcome::kInconclusive);
  // The reason names every part and how it fell.
  const std::string why = kit::judge({cleared}, {fails}).reason;
  EXPECT_NE(why.find("cleared"), std::string::npos) << why;
  EXPECT_NE(why.find("one hash a key: does not hold"), std::string::npos) << why;
}

TEST(OneHashAKey, HoldsOnlyWhenEveryRunHashedEachOperationOnce) {
  Summary s;
  for (int i = 0; i < 2; ++i) {
    s.unique_naive.push_back(naive_run(60000));
    s.unique_sharded.push_back(sharded_run(700));
  }
  for (auto* arm : {&s.unique_naive, &s.unique_sharded}) {
    for (auto& r : *arm) {
      r.side.reads = 30;
      r.side.writes = 4;
      r.stats.hash_computations = r.rec.histogram().count() + 34;
    }
  }
  ExactPart p = one_hash_a_key(s);
  EXPECT_TRUE(p.holds) << p.what;
  EXPECT_NE(p.what.find("4 of 4 runs"), std::string::npos) << p.what;
  s.unique_sharded[1].stats.hash_computations += 3584;  // a growth that hashed its keys again
  p = one_hash_a_key(s);
  EXPECT_FALSE(p.holds);
  EXPECT_NE(p.what.find("3 of 4 runs"), std::string::npos) << p.what;
  EXPECT_FALSE(one_hash_a_key(Summary{}).holds);  // nothing measured proves nothing
}

TEST(Rows, EachRepetitionAndTheirIntervalAndTheGatedCount) {
  kit::Results r("growth", kit::Metadata{});
  std::vector<PutRun> runs = sharded_runs({700, 720, 690});
  for (auto& run : runs) {
    run.growths.push_back(growth(200000, 10));
    run.growths.back().keys_moved = 3584;
  }
  add_put_rows(r, Kind::kUnique, index::Arm::kSharded, kN, runs);
  int per_rep = 0, gated = 0, mean = 0, lo = 0;
  for (const auto& row : r.rows()) {
    if (row.metric == "growth_cpu_max_us" && row.case_.find(";rep=") != std::string::npos) ++per_rep;
    if (row.metric == "growth_cpu_max_us" && row.case_ == "keys=all") ++mean;
    if (row.metric == "growth_cpu_max_us_ci95_lo" && row.case_ == "keys=all") ++lo;
    if (row.metric == "max_keys_moved" && row.case_ == "keys>=114688") {
      ++gated;
      EXPECT_EQ(row.value, 3584);
      EXPECT_EQ(row.arm, "unique-sharded");
    }
  }
  EXPECT_GE(per_rep, 3);
  EXPECT_EQ(mean, 1);
  EXPECT_EQ(lo, 1);
  EXPECT_EQ(gated, 1);  // one row, as scripts/ci-charts/metrics.conf reads it
}

// GR-3's rows are distinct, so every put adds a node and no growth is skipped.
TEST(VectorRows, DistinctAndInRange) {
  const uint64_t seed = base::TestSeed();
  std::set<std::vector<float>> rows;
  std::vector<float> v(kVectorDim);
  for (uint64_t i = 0; i < 2000; ++i) {
    make_vector(seed, i, v.data());
    for (uint32_t j = 1; j < kVectorDim; ++j) {
      ASSERT_GE(v[j], -1.0f);
      ASSERT_LT(v[j], 1.0f);
    }
    rows.insert(v);
  }
  EXPECT_EQ(rows.size(), 2000u);
}

// GR-3: the sharded arm moves a 256th of the entries a growth past the
// split and reads no vector; the naive arm reads every vector it holds.
TEST(VectorPuts, ShardedMovesA256thNaiveReadsEveryVector) {
  constexpr uint64_t n = 300000;
  const uint64_t seed = base::TestSeed();
  Summary s;
  s.vectors = n;
  s.vec_sharded.push_back(run_vector_puts(index::vec::TableArm::kSharded, n, seed, 100));
  s.vec_naive.push_back(run_vector_puts(index::vec::TableArm::kNaive, n, seed, 100));
  for (const VectorPutRun* r : {&s.vec_sharded[0], &s.vec_naive[0]}) {
    EXPECT_EQ(r->rec.histogram().count(), n);
    EXPECT_EQ(r->entries, n);
    EXPECT_EQ(r->found_again, 0u);
    EXPECT_EQ(r->rec.grew().size(), r->growths.size());  // one growth at most a put
  }
  const VectorPutRun& sh = s.vec_sharded[0];
  uint64_t shard_growths = 0, most = 0;
  for (const auto& e : sh.growths) {
    EXPECT_EQ(e.vectors_read, 0u);
    if (e.shard < 0) {
      EXPECT_LE(e.moved, 14336u);  // the single table's doublings and the split, at 7/8 of 16 384
      continue;
    }
    ++shard_growths;
    most = std::max(most, e.moved);
    EXPECT_LE(e.moved, index::vec::ShardGrowthBound(n)) << "a shard growth at " << e.entries_before;
  }
  std::printf("sharded: %llu shard growths, at most %llu moved (ceil(n/256) = %llu)\n",
              (unsigned long long)shard_growths, (unsigned long long)most, (unsigned long long)((n + 255) / 256));
  EXPECT_GE(shard_growths, 256u);
  EXPECT_EQ(sh.vectors_read, 0u);
  const VectorPutRun& nv = s.vec_naive[0];
  uint64_t read = 0;
  for (const auto& e : nv.growths) {
    EXPECT_EQ(e.vectors_read, e.entries_before);
    read += e.vectors_read;
  }
  EXPECT_EQ(nv.growths.back().entries_before, 262144u);  // half of 524 288 slots, the last power of two
  EXPECT_EQ(nv.vectors_read, read);
  EXPECT_TRUE(shard_growths_bounded(s).holds);
}

class VectorReopen : public base::ScratchTest {};

// GR-4: the kept arm reads no vector to build the table, at open or at the
// first write; the naive arm reads all n at the first write; the graph is
// loaded, never relinked.
TEST_F(VectorReopen, KeptReadsNoVectorNaiveReadsEveryOne) {
  constexpr uint64_t n = 3000;
  const uint64_t seed = base::TestSeed();
  Summary s;
  s.vec_base = build_vector_base(path("base"), n, seed);
  ASSERT_TRUE(s.vec_base.ok) << s.vec_base.error;
  EXPECT_GT(s.vec_base.bytes, n * kVectorDim * sizeof(float));
  for (int rep = 0; rep < 2; ++rep) {
    s.reopen_kept.push_back(reopen_and_write(s.vec_base, path("copy"), index::vec::OpenArm::kKept, seed, n + 2 * rep));
    s.reopen_naive.push_back(
        reopen_and_write(s.vec_base, path("copy"), index::vec::OpenArm::kNaive, seed, n + 2 * rep + 1));
  }
  for (const ReopenRun& r : s.reopen_kept) {
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.owners, n);
    EXPECT_EQ(r.read_at_open, 0u);
    EXPECT_EQ(r.read_at_write, 0u);
    EXPECT_EQ(r.linked_at_open, 0u);
  }
  for (const ReopenRun& r : s.reopen_naive) {
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.owners, n);
    EXPECT_EQ(r.read_at_open, 0u);
    EXPECT_EQ(r.read_at_write, n);
    EXPECT_EQ(r.linked_at_open, 0u);
  }
  EXPECT_TRUE(reads_as_designed(s).holds);
  s.reopen_naive[1].read_at_write = n - 1;  // one vector short: the part fails
  EXPECT_FALSE(reads_as_designed(s).holds);
}

// GR-5's classing of puts against fsync spans: a put that starts inside a
// span met it; one whose whole time misses every span is away; one that
// began before a span and ended in it is neither.
TEST(Gr5, PutsAreClassedByTheFsyncSpansTheyMeet) {
  const std::vector<std::pair<int64_t, int64_t>> spans = {{1000, 2000}, {5000, 9000}};
  const std::vector<std::pair<int64_t, int64_t>> puts = {
      {0, 10},       // away
      {900, 1100},   // began before the first span, ended in it: neither
      {1500, 1990},  // during: 490 ns
      {3000, 3100},  // away: 100 ns
      {5000, 8800},  // during: 3800 ns (waited out most of the span)
      {9500, 9560},  // away
  };
  Gr5Run r;
  classify_puts(puts, spans, &r);
  EXPECT_EQ(r.puts, 6u);
  EXPECT_EQ(r.puts_during_sync, 2u);
  EXPECT_EQ(r.spans, 2u);
  EXPECT_DOUBLE_EQ(r.longest_during_us, 3.8);
  EXPECT_DOUBLE_EQ(r.longest_away_us, 0.1);
  EXPECT_DOUBLE_EQ(r.span_max_us, 4.0);
  // At each span's end the put then running: {1500, 1990} ended before the
  // first's end (2000), and none ran across it; {5000, 8800} too for the
  // second's (9000). Spans with a put across their end:
  const std::vector<std::pair<int64_t, int64_t>> across = {{1900, 2100}, {3000, 3100}, {5100, 9050}};
  Gr5Run q;
  classify_puts(across, spans, &q);
  EXPECT_EQ(q.spans_with_end_put, 2u);
  EXPECT_EQ(q.spans_waited, 1u);                 // 3950 of the second's 4000 ns
  EXPECT_DOUBLE_EQ(q.end_put_share, (0.2 + 3950.0 / 4000) / 2);  // the median of two
  EXPECT_EQ(r.spans_with_end_put, 0u);
}

// The checks: fenecdb's ratio below the line, the naive control's above.
TEST(Gr5, ChecksJudgeFenecdbBelowTheLineAndTheControlAbove) {
  auto runs = [](std::vector<double> shares) {
    std::vector<Gr5Run> out;
    for (double x : shares) {
      Gr5Run r;
      r.end_put_share = x;
      r.spans_with_end_put = 20;
      out.push_back(r);
    }
    return out;
  };
  const std::vector<kit::Check> c = gr5_checks(runs({0.0004, 0.0006, 0.0005}), runs({0.97, 0.95, 0.98}), kit::Window{});
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(kit::check_result(c[0]), kit::CheckResult::kCleared) << kit::describe(c[0]);
  EXPECT_EQ(kit::check_result(c[1]), kit::CheckResult::kCleared) << kit::describe(c[1]);
  // A fenecdb whose puts waited for the spans misses its line.
  const std::vector<kit::Check> w = gr5_checks(runs({0.9, 0.95, 0.93}), runs({0.97, 0.95, 0.98}), kit::Window{});
  EXPECT_EQ(kit::check_result(w[0]), kit::CheckResult::kMissed) << kit::describe(w[0]);
}

}  // namespace
}  // namespace fenec::scenarios::growth
