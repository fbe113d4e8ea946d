// vector-bench's logic, on counts and synthetic figures, never times: the
// verdicts' outcomes on figures that clear, miss and straddle their lines,
// recall as hits on a tiny set, and that every arm (fenec batch, fenec row,
// hnswlib, fenec binary, fenecdb) finds a vector's own id, and that the
// MM-2 part searches one graph with each visited set to the same answers.
// Randomized data logs its seed and takes FENEC_SEED.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/src/base/testing.h"
#include "scenarios/vector/fenecdb_arm.h"
#include "scenarios/vector/mm2.h"
#include "scenarios/vector/report.h"
#include "scenarios/vector/workload.h"

namespace fenec::scenarios::vector {
namespace {

using kit::Outcome;

// --- VS-1 ---------------------------------------------------------------

TEST(Vs1Verdict, ClearsWhenEveryRepetitionIsWellPastTheLine) {
  auto j = judge_vs1({3.0, 3.1, 2.9}, {1.0, 1.02, 0.98}, 0.950, 0.952);
  EXPECT_EQ(j.outcome, Outcome::kReproduced) << j.reason;
}

TEST(Vs1Verdict, MissedTimeButKeptRecallIsPartly) {
  // 1.2x, tight: the whole interval under 1.79; recall kept.
  auto j = judge_vs1({1.2, 1.21, 1.19}, {1.0, 1.0, 1.0}, 0.950, 0.950);
  EXPECT_EQ(j.outcome, Outcome::kPartly) << j.reason;
}

TEST(Vs1Verdict, MissedTimeAndLostRecallIsNotReproduced) {
  auto j = judge_vs1({1.2, 1.21, 1.19}, {1.0, 1.0, 1.0}, 0.950, 0.944);
  EXPECT_EQ(j.outcome, Outcome::kNotReproduced) << j.reason;
}

TEST(Vs1Verdict, RecallSlackIsInclusive) {
  // Exactly 0.005 below holds; more does not.
  EXPECT_EQ(judge_vs1({3, 3, 3.01}, {1, 1, 1}, 0.950, 0.945).outcome, Outcome::kReproduced);
  EXPECT_EQ(judge_vs1({3, 3, 3.01}, {1, 1, 1}, 0.950, 0.9449).outcome, Outcome::kPartly);
}

TEST(Vs1Verdict, StraddlingIntervalIsInconclusive) {
  // Ratios 1.3, 2.4, 1.8: the interval holds 1.79.
  auto j = judge_vs1({1.3, 2.4, 1.8}, {1, 1, 1}, 0.95, 0.95);
  EXPECT_EQ(j.outcome, Outcome::kInconclusive) << j.reason;
  EXPECT_NE(j.reason.find("straddles"), std::string::npos) << j.reason;
}

TEST(Vs1Verdict, OneRepetitionHasNoIntervalSoNoVerdict) {
  EXPECT_EQ(judge_vs1({3.0}, {1.0}, 0.95, 0.95).outcome, Outcome::kInconclusive);
}

TEST(Vs1Verdict, LineIsTheSourcesCut) { EXPECT_NEAR(kVs1Line, 1 / (1 - kVs1SourceCut), 0.005); }

// --- VS-2 ---------------------------------------------------------------

TEST(Vs2Verdict, ThirtyTwoTimesAndARecallCostReproduce) {
  EXPECT_EQ(judge_vs2(512 * 1000, 16 * 1000, 0.95, 0.70).outcome, Outcome::kReproduced);
}

TEST(Vs2Verdict, LessThanThirtyTwoTimesIsAMiss) {
  EXPECT_EQ(judge_vs2(512 * 1000, 17 * 1000, 0.95, 0.70).outcome, Outcome::kPartly);
  EXPECT_EQ(judge_vs2(512 * 1000, 17 * 1000, 0.95, 0.95).outcome, Outcome::kNotReproduced);
  EXPECT_EQ(judge_vs2(512 * 1000, 0, 0.95, 0.70).outcome, Outcome::kPartly);
}

// --- fenec vs hnswlib -----------------------------------------------------

TEST(ReferenceVerdict, Outcomes) {
  // Clears: fenec builds 1.5x faster, answers 1.2x the queries, same recall.
  EXPECT_EQ(judge_reference({3, 3.1, 2.9}, {2, 2, 2}, {1200, 1210, 1190}, {1000, 1000, 1000}, 0.95, 0.955).outcome,
            Outcome::kReproduced);
  // Builds slower (0.5x), answers faster: partly.
  EXPECT_EQ(judge_reference({1, 1, 1}, {2, 2.02, 1.98}, {1200, 1210, 1190}, {1000, 1000, 1000}, 0.95, 0.95).outcome,
            Outcome::kPartly);
  // Everything missed.
  EXPECT_EQ(judge_reference({1, 1, 1}, {2, 2.02, 1.98}, {500, 505, 495}, {1000, 1000, 1000}, 0.90, 0.95).outcome,
            Outcome::kNotReproduced);
  // Build straddles 1.0, nothing missed: inconclusive.
  EXPECT_EQ(judge_reference({0.8, 1.3, 1.0}, {1, 1, 1}, {1200, 1210, 1190}, {1000, 1000, 1000}, 0.95, 0.95).outcome,
            Outcome::kInconclusive);
}

// --- recall as hits -------------------------------------------------------

TEST(Recall, HitsAtKCountsTheFirstKOnly) {
  const std::vector<uint32_t> truth = {4, 7, 1};
  EXPECT_EQ(hits_at_k({4, 7, 1}, truth, 3), 3u);
  EXPECT_EQ(hits_at_k({1, 4, 9}, truth, 3), 2u);  // order inside the k does not matter
  EXPECT_EQ(hits_at_k({9, 8, 4}, truth, 2), 0u);  // 4 is past k
  EXPECT_EQ(hits_at_k({}, truth, 3), 0u);
  EXPECT_EQ(hits_at_k({7}, truth, 3), 1u);        // fewer answers than k
}

// Points on a line (1-d): the nearest rows to a query are known by hand.
Dataset Line() {
  Dataset d;
  d.dim = 1;
  d.base = {0, 10, 20, 30, 40, 50};
  d.queries = {12, 41, -100};
  return d;
}

TEST(Recall, ExactTopKOnATinySet) {
  Dataset d = Line();
  d.truth = exact_top_k(d, 3, 2);
  ASSERT_EQ(d.truth.size(), 3u);
  EXPECT_EQ(d.truth[0], (std::vector<uint32_t>{1, 2, 0}));  // 12: 10, 20, 0
  EXPECT_EQ(d.truth[1], (std::vector<uint32_t>{4, 5, 3}));  // 41: 40, 50, 30
  EXPECT_EQ(d.truth[2], (std::vector<uint32_t>{0, 1, 2}));
}

// An arm that answers a fixed list: the truth itself, or rows 5, 4, 3.
class FixedArm : public AnnArm {
 public:
  explicit FixedArm(std::vector<std::vector<uint64_t>> answers) : answers_(std::move(answers)) {}
  std::string build(const Dataset&) override { return ""; }
  std::vector<uint64_t> search(std::span<const float>, size_t k, size_t) override {
    auto a = answers_[next_++ % answers_.size()];
    if (a.size() > k) a.resize(k);
    return a;
  }

 private:
  std::vector<std::vector<uint64_t>> answers_;
  size_t next_ = 0;
};

TEST(Recall, RunArmCountsHitsAgainstTheTruth) {
  Dataset d = Line();
  d.truth = exact_top_k(d, 3, 1);
  FixedArm perfect({{1, 2, 0}, {4, 5, 3}, {0, 1, 2}});
  ArmRun r = run_arm(perfect, d, {16, 64}, 3);
  ASSERT_TRUE(r.error.empty());
  ASSERT_EQ(r.efs.size(), 2u);
  EXPECT_EQ(r.at(64)->hits, 9u);
  EXPECT_EQ(r.at(64)->queries, 3u);
  EXPECT_DOUBLE_EQ(r.at(64)->recall(3), 1.0);
  FixedArm far({{5, 4, 3}});  // query 0: 0 hits; query 1: 3; query 2: 0
  ArmRun f = run_arm(far, d, {64}, 3);
  EXPECT_EQ(f.at(64)->hits, 3u);
  // Summed over repetitions: 9 + 3 hits of 18.
  EXPECT_DOUBLE_EQ(recall_of({r, f}, 64, 3), 12.0 / 18.0);
  ArmRun failed;
  failed.error = "no";
  EXPECT_DOUBLE_EQ(recall_of({r, failed}, 64, 3), 1.0);  // a failed repetition counts for nothing
  EXPECT_TRUE(std::isnan(recall_of({failed}, 64, 3)));
}

// --- every arm finds a vector's own id -----------------------------------------

struct Small {
  Dataset d;
  ArmParams p;
};

Small SmallSet(uint64_t seed, size_t n = 2000) {
  DataSpec spec;
  spec.n = n;
  spec.queries = 50;
  spec.dim = 64;
  spec.clusters = 10;
  spec.spread = 0.5f;  // clusters apart: the self-hit bounds below were set on these
  spec.seed = seed;
  Small s{make_clustered(spec), {}};
  s.d.truth = exact_top_k(s.d, 10, 2);
  s.p.dim = spec.dim;
  s.p.threads = 2;
  s.p.seed = seed;
  return s;
}

// Rows 0, 5, 10, ... searched for themselves at ef 64: how many answer their own id first.
size_t SelfHits(AnnArm& arm, const Dataset& d, size_t* tried) {
  size_t found = 0;
  *tried = 0;
  for (size_t i = 0; i < d.size(); i += 5) {
    ++*tried;
    auto a = arm.search(d.row(i), 10, 64);
    found += !a.empty() && a[0] == i;
  }
  return found;
}

class Arms : public base::ScratchTest {};

TEST_F(Arms, EachFindsAVectorsOwnId) {
  const uint64_t seed = base::TestSeed();
  Small s = SmallSet(seed);
  std::vector<std::pair<std::string, std::unique_ptr<AnnArm>>> arms;
  arms.emplace_back(kBatch, std::make_unique<FenecArm>(s.p, index::vec::InsertArm::kBatch));
  arms.emplace_back(kRow, std::make_unique<FenecArm>(s.p, index::vec::InsertArm::kRow));
  arms.emplace_back(kHnswlib, make_hnswlib_arm(s.p));
  arms.emplace_back("fenec-bq", std::make_unique<FenecArm>(s.p, index::vec::InsertArm::kBatch,
                                                           index::vec::Quantization::kBinary, true));
  arms.emplace_back(kFenecDb, make_fenecdb_arm(s.p, path("db"), false));
  for (auto& [name, arm] : arms) {
    ArmRun r = run_arm(*arm, s.d, {64}, 10);
    ASSERT_TRUE(r.error.empty()) << name << ": " << r.error;
    size_t tried = 0;
    const size_t found = SelfHits(*arm, s.d, &tried);
    // Counts: at least 98% of the sampled rows answer themselves first (the
    // issue's target is 99% at the default ef; 400 rows leave a row or two
    // of slack). Binary codes, 95%: the beam walks on Hamming distances, and
    // rows of one cluster share most sign bits, so a row ties with many
    // others at distance 0 and rescoring sees only the best 4k of the beam.
    const size_t pct = name == "fenec-bq" ? 95 : 98;
    EXPECT_GE(found * 100, tried * pct) << name << ": " << found << " of " << tried;
    EXPECT_EQ(r.at(64)->queries, s.d.query_count());
    EXPECT_LE(r.at(64)->hits, s.d.query_count() * 10);
    std::printf("%s: self %zu/%zu, recall@10 ef64 %.3f\n", name.c_str(), found, tried, r.at(64)->recall(10));
  }
}

TEST_F(Arms, BatchArmRanItsBatchesAndRowArmDidNot) {
  Small s = SmallSet(base::TestSeed(), 1500);
  FenecArm batch(s.p, index::vec::InsertArm::kBatch), row(s.p, index::vec::InsertArm::kRow);
  ArmRun b = run_arm(batch, s.d, {64}, 10), r = run_arm(row, s.d, {64}, 10);
  ASSERT_TRUE(b.error.empty() && r.error.empty());
  ASSERT_TRUE(b.has_stats && r.has_stats);
  EXPECT_GT(b.stats.prelink_edges_added, 0u);
  EXPECT_GT(b.stats.rounds, 0u);
  EXPECT_EQ(r.stats.rounds, 0u);
  EXPECT_EQ(b.stats.nodes, 1500u);
  EXPECT_EQ(r.stats.nodes, 1500u);
  // Recall is a count: the batch arm within the verdict's slack of the row arm here too.
  EXPECT_GE(b.at(64)->recall(10), r.at(64)->recall(10) - 0.02);
}

TEST_F(Arms, BinaryPartMeasuresBytesAndBothSearches) {
  Small s = SmallSet(base::TestSeed());
  BqRun bq = run_bq(s.d, s.p, 64, 10);
  ASSERT_TRUE(bq.error.empty()) << bq.error;
  // 64 dims: 256 B full, 8 B of bits a vector: 32x.
  EXPECT_EQ(bq.memory.vectors_full, 2000u * 256);
  EXPECT_EQ(bq.memory.vectors_binary, 2000u * 8);
  EXPECT_EQ(bq.rescored.queries, 50u);
  EXPECT_EQ(bq.plain.queries, 50u);
  EXPECT_EQ(bq.oversample, index::vec::Options{}.oversample);
  EXPECT_EQ(bq.rescored_distances, 50u * bq.oversample * 10);  // oversample x k rescored a search
  EXPECT_LE(bq.plain.hits, bq.rescored.hits);
}

// --- MM-2 -----------------------------------------------------------------

TEST(Mm2Verdict, Outcomes) {
  // cleared, new, bitmap: CPU a search.
  EXPECT_EQ(judge_mm2({30, 31, 29}, {20, 20, 20}, {10, 10, 10}).outcome, Outcome::kReproduced);
  // The cleared set cheaper than a new one (small walks), the bitmap still cheapest: partly.
  EXPECT_EQ(judge_mm2({20, 20.5, 19.5}, {30, 30, 30}, {10, 10, 10}).outcome, Outcome::kPartly);
  // Everything the other way round.
  EXPECT_EQ(judge_mm2({10, 10, 10}, {20, 20, 20}, {30, 30, 30}).outcome, Outcome::kNotReproduced);
  EXPECT_EQ(judge_mm2({30}, {20}, {10}).outcome, Outcome::kInconclusive);  // one repetition: no interval
}

TEST(Mm2Part, EverySetSearchesTheSameGraphToTheSameAnswers) {
  Small s = SmallSet(base::TestSeed(), 1500);
  FenecArm arm(s.p, index::vec::InsertArm::kBatch);
  ASSERT_EQ(arm.build(s.d), "");
  Mm2Run m = run_mm2(*arm.index(), s.d, 10, 32, 2, 0);
  ASSERT_EQ(m.error, "");
  ASSERT_EQ(m.arms.size(), 3u);
  EXPECT_EQ(m.nodes, 1500u);
  EXPECT_GT(m.distances_per_search, 0);
  for (const Mm2Arm& a : m.arms) {
    EXPECT_TRUE(a.same_answers) << index::vec::VisitedSetName(a.set);
    EXPECT_EQ(a.cpu_ns_per_search.size(), 2u);
    EXPECT_EQ(a.searches, 2 * s.d.query_count()) << "one pass a cell at 0 s";
  }
  // Every timed search of the kept hash set clears a table the one before filled.
  EXPECT_EQ(m.arm(index::vec::VisitedSet::kHashCleared)->visited_zeroings, 2 * s.d.query_count());
  EXPECT_EQ(m.arm(index::vec::VisitedSet::kHashNew)->visited_zeroings, 0u);
  // The verdict has its three lines (timings: the outcome is not asserted).
  const kit::Verdict v = mm2_verdict(&m, "", "mm2.png");
  EXPECT_EQ(v.finding, "MM-2");
  EXPECT_NE(v.reason.find("cleared / new"), std::string::npos) << v.reason;
  EXPECT_EQ(mm2_verdict(nullptr, "not among --parts", "mm2.png").outcome, Outcome::kSkipped);
}

}  // namespace
}  // namespace fenec::scenarios::vector
