// Binary quantization (VS-2): the codes take dim/8 bytes a vector (measured
// by MemoryBytes); recall@10 after rescoring reaches 0.95 on 768-d
// clustered data (VS-2's target) and holds on 128-d data whose neighbours
// are cluster-mates; the estimates alone (rescore = false) are reported,
// are lower, and are distances in the metric's units. Counts only, never
// times (the queries/s figure is a disabled test that prints, asserts no
// time).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include "engine/src/base/testing.h"
#include "engine/src/index/vector/test_data.h"
#include "engine/src/index/vector/vector_index.h"

namespace fenec::index::vec {
namespace quantize_test {

using testing::Data;
using testing::Hits;
using testing::Items;

constexpr size_t kK = 10;

std::unique_ptr<VectorIndex> MustCreate(const Options& o) {
  Result<std::unique_ptr<VectorIndex>> r = VectorIndex::Create(o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(*r) : nullptr;
}

void PrintMemory(const char* what, const MemoryBreakdown& m) {
  std::printf(
      "%s: vectors full %llu, vectors binary %llu, graph links %llu, table %llu, node meta %llu, owners %llu; "
      "total %llu, reserved %llu bytes\n",
      what, (unsigned long long)m.vectors_full, (unsigned long long)m.vectors_binary,
      (unsigned long long)m.graph_links, (unsigned long long)m.table, (unsigned long long)m.node_meta,
      (unsigned long long)m.owners, (unsigned long long)m.total(), (unsigned long long)m.reserved);
}

struct Shape {
  size_t n = 10000, queries = 300, clusters = 50;
  uint32_t dim = 128;
  float spread = 0.5f;
  bool with_float = true;
};

// Recall@10 at the default ef (64) of float, binary rescored and binary
// alone; checks the bytes and the rescoring counts on the way.
struct Recalls {
  uint64_t hits[3] = {0, 0, 0};  // float, binary rescored, binary alone
  uint64_t total = 0;
  uint64_t over = 0, estimates = 0;  // binary alone: answers whose estimate exceeds the true distance
};

Recalls Measure(const Shape& s, uint64_t seed) {
  std::printf("seed %llu\n", (unsigned long long)seed);
  Data d = testing::Clustered(s.n, s.dim, s.clusters, s.spread, seed, seed + 1);
  Data q = testing::Clustered(s.queries, s.dim, s.clusters, s.spread, seed, seed + 2);
  auto truth = testing::Exact(d, q, kK);
  const Kernels& kern = BestKernels();
  Recalls out;
  out.total = s.queries * kK;
  const char* names[3] = {"float", "binary, rescored", "binary, not rescored"};
  for (int arm = s.with_float ? 0 : 1; arm < 3; ++arm) {
    Options o;
    o.dim = s.dim;
    o.seed = seed;
    o.quantization = arm == 0 ? Quantization::kNone : Quantization::kBinary;
    o.rescore = arm != 2;
    std::unique_ptr<VectorIndex> index = MustCreate(o);
    EXPECT_TRUE(index->InsertBatch(Items(d)).ok());
    out.hits[arm] = Hits(*index, q, truth, kK, 0);
    const MemoryBreakdown m = index->MemoryBytes();
    PrintMemory(names[arm], m);
    EXPECT_EQ(m.vectors_full, s.n * s.dim * sizeof(float));
    EXPECT_EQ(m.vectors_binary, arm == 0 ? 0 : s.n * s.dim / 8);  // one bit a dimension: 32x smaller
    EXPECT_GT(m.graph_links, s.n * 2 * 16 * 4);  // at least the level-0 lists' room
    EXPECT_GE(m.table, s.n * 8);                  // 8-byte slots
    EXPECT_EQ(m.node_meta, s.n * 25);
    EXPECT_GE(m.owners, s.n * 16);
    EXPECT_GE(m.reserved, m.total());
    const Stats st = index->stats();
    // The rescored pool: oversample * k full distances a search, exactly.
    EXPECT_EQ(st.search_rescored, arm == 1 ? s.queries * o.oversample * kK : 0u);
    if (arm == 2) {
      // Not rescored: answers ascending by estimate, a squared L2 (not a
      // bit count). An estimate is the expected distance to every vector
      // sharing the code, so for a near answer it lies above the true
      // distance: counted, to show which way it errs.
      for (size_t i = 0; i < s.queries; ++i) {
        Result<std::vector<Hit>> r = index->Search(q.row(i), kK);
        if (!r.ok()) continue;
        for (size_t j = 0; j < r->size(); ++j) {
          if (j > 0) {
            EXPECT_LE((*r)[j - 1].distance, (*r)[j].distance);
          }
          const float exact = kern.l2(q.row(i).data(), d.row((*r)[j].owner).data(), s.dim);
          ++out.estimates;
          if ((*r)[j].distance > exact) ++out.over;
        }
      }
    }
  }
  std::printf("recall@10 at ef 64, %zu x %u-d, %zu clusters, spread %.2f: ", s.n, s.dim, s.clusters,
              double(s.spread));
  if (s.with_float) std::printf("float %llu/%llu, ", (unsigned long long)out.hits[0], (unsigned long long)out.total);
  std::printf("binary rescored %llu/%llu, binary alone %llu/%llu; estimates above the true distance %llu/%llu\n",
              (unsigned long long)out.hits[1], (unsigned long long)out.total, (unsigned long long)out.hits[2],
              (unsigned long long)out.total, (unsigned long long)out.over, (unsigned long long)out.estimates);
  return out;
}

// VS-2's target: 768-d, 100 clusters, 4 000 vectors (40 a cluster, so a
// query's true neighbours are in its own cluster and the codes must find
// that cluster and bring its members into the rescored pool; the pool of
// 160 covers a cluster, so the next test is the harder one).
TEST(VectorQuantize, Recall768With100Clusters) {
  Shape s;
  s.n = 4000, s.queries = 200, s.clusters = 100, s.dim = 768;
  const Recalls r = Measure(s, base::TestSeed());
  EXPECT_GE(r.hits[0], r.total * 95 / 100);
  EXPECT_GE(r.hits[1], r.total * 95 / 100);
  EXPECT_LT(r.hits[2], r.hits[1]);
  EXPECT_GE(r.over, r.estimates * 9 / 10);
}

// The harder layout at 768-d: 20 clusters of 200 (the bench's cluster
// size: 20 000 around 100). A cluster holds more vectors than the rescored
// pool (160), so the codes must also rank inside a cluster (recall falls
// with a smaller oversample: DISABLED_OversampleSweep768 prints it).
TEST(VectorQuantize, Recall768With20Clusters) {
  Shape s;
  s.n = 4000, s.queries = 200, s.clusters = 20, s.dim = 768, s.with_float = false;
  const Recalls r = Measure(s, base::TestSeed());
  EXPECT_GE(r.hits[1], r.total * 95 / 100);
  EXPECT_LT(r.hits[2], r.hits[1]);
}

// Small clusters at 128-d (500 of about 20, spread 0.5): a query's true
// neighbours are mostly its own cluster, which the codes find; rescoring
// orders them.
TEST(VectorQuantize, SmallClustersRecallWithRescoring) {
  Shape s;
  s.clusters = 500;
  const Recalls r = Measure(s, base::TestSeed());
  EXPECT_GE(r.hits[0], r.total * 95 / 100);
  EXPECT_GE(r.hits[1], r.total * 95 / 100);
  EXPECT_LT(r.hits[2], r.hits[1]);
}

// Wide clusters at 128-d (50 of about 200): the true neighbours are a
// query's nearest inside an isotropic Gaussian cluster, where a bit a
// dimension around thresholds shared by every cluster says little (a
// dimension whose cluster center is far from its threshold has the same
// bit for the whole cluster), and 128 dimensions leave few that tell
// cluster-mates apart. Reported; only the order is asserted.
TEST(VectorQuantize, WideClustersReported) {
  Shape s;
  s.with_float = false;
  const Recalls r = Measure(s, base::TestSeed());
  EXPECT_LT(r.hits[2], r.hits[1]);
  EXPECT_GT(r.hits[1], 0u);
}

// Below BinaryCodes::kCenterSample nodes there are no codes yet: searches
// use the full vectors; the codes appear when the index grows past it.
TEST(VectorQuantize, CodesStartAtTheCenterSample) {
  const uint64_t seed = base::TestSeed();
  Data d = testing::Clustered(1500, 64, 10, 0.5f, seed, seed + 1);
  Options o;
  o.dim = 64;
  o.seed = seed;
  o.quantization = Quantization::kBinary;
  std::unique_ptr<VectorIndex> index = MustCreate(o);
  std::vector<InsertItem> items = Items(d);
  ASSERT_TRUE(index->InsertBatch(std::span<const InsertItem>(items).first(1000)).ok());
  EXPECT_EQ(index->MemoryBytes().vectors_binary, 0u);
  Result<std::vector<Hit>> r = index->Search(d.row(5), 1);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].owner, 5u);
  EXPECT_EQ(index->stats().search_rescored, 0u);
  ASSERT_TRUE(index->InsertBatch(std::span<const InsertItem>(items).subspan(1000)).ok());
  EXPECT_EQ(index->MemoryBytes().vectors_binary, 1500u * 64 / 8);
  // Every search now walks the codes and rescores. A walk over binary codes
  // is approximate: it can miss a node's own vector (about 1 query in 100
  // here), so the nodes added past the sample are counted, not each asserted.
  size_t found = 0;
  for (uint32_t i = 1000; i < 1500; ++i) {
    r = index->Search(d.row(i), 1);
    ASSERT_TRUE(r.ok());
    found += !r->empty() && (*r)[0].owner == i;
  }
  EXPECT_GE(found, 475u) << "of 500 self-queries";
  EXPECT_EQ(index->stats().search_rescored, 500u * o.oversample);
}

// Queries/s of binary + rescoring against full vectors on the same 768-d
// data (20 000 around 100 clusters), one thread, at the default ef. Prints,
// asserts no time: run by hand with --gtest_also_run_disabled_tests.
TEST(VectorQuantize, DISABLED_QueriesPerSecond768) {
  const uint64_t seed = base::TestSeed();
  constexpr size_t kN = 20000, kQ = 1000;
  constexpr uint32_t kDim = 768;
  std::printf("seed %llu\n", (unsigned long long)seed);
  Data d = testing::Clustered(kN, kDim, 100, 0.5f, seed, seed + 1);
  Data q = testing::Clustered(kQ, kDim, 100, 0.5f, seed, seed + 2);
  auto truth = testing::Exact(d, q, kK);
  // Float; binary at the default pool, rescored and not; binary at 4k.
  struct Arm {
    Quantization quant;
    uint32_t oversample;
    bool rescore;
  };
  for (const Arm& arm : {Arm{Quantization::kNone, 16, true}, Arm{Quantization::kBinary, 16, true},
                         Arm{Quantization::kBinary, 16, false}, Arm{Quantization::kBinary, 4, true}}) {
    const Quantization quant = arm.quant;
    Options o;
    o.dim = kDim;
    o.seed = seed;
    o.quantization = quant;
    o.oversample = arm.oversample;
    o.rescore = arm.rescore;
    std::unique_ptr<VectorIndex> index = MustCreate(o);
    ASSERT_TRUE(index->InsertBatch(Items(d)).ok());
    const uint64_t hits = Hits(*index, q, truth, kK, 0);  // also warms the caches
    size_t done = 0;
    const auto start = std::chrono::steady_clock::now();
    double seconds = 0;
    while (seconds < 2.0) {
      for (size_t i = 0; i < kQ; ++i) ASSERT_TRUE(index->Search(q.row(i), kK).ok());
      done += kQ;
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    const MemoryBreakdown m = index->MemoryBytes();
    const Stats st = index->stats();
    std::printf("%s, oversample %u, rescore %d: recall@10 %llu/%zu, %.0f queries/s, %.1f distances a search "
                "(%.1f rescored), %.1f nodes expanded, vectors full %llu, binary %llu bytes\n",
                quant == Quantization::kNone ? "float" : "binary", arm.oversample, int(arm.rescore),
                (unsigned long long)hits, kQ * kK, double(done) / seconds, st.distances_per_search(),
                double(st.search_rescored) / double(st.searches), double(st.nodes_visited) / double(st.searches),
                (unsigned long long)m.vectors_full, (unsigned long long)m.vectors_binary);
  }
}

// Recall@10 after rescoring against the rescored pool (oversample * k) on
// 4 000 x 768-d, at 100 and 20 clusters, at the default ef. Prints; run by
// hand with --gtest_also_run_disabled_tests (how the default was chosen).
TEST(VectorQuantize, DISABLED_OversampleSweep768) {
  const uint64_t seed = base::TestSeed();
  std::printf("seed %llu\n", (unsigned long long)seed);
  for (size_t clusters : {size_t{100}, size_t{20}}) {
    Data d = testing::Clustered(4000, 768, clusters, 0.5f, seed, seed + 1);
    Data q = testing::Clustered(200, 768, clusters, 0.5f, seed, seed + 2);
    auto truth = testing::Exact(d, q, kK);
    for (uint32_t over : {2u, 4u, 8u, 12u, 16u, 24u, 32u}) {
      Options o;
      o.dim = 768;
      o.seed = seed;
      o.quantization = Quantization::kBinary;
      o.oversample = over;
      std::unique_ptr<VectorIndex> index = MustCreate(o);
      ASSERT_TRUE(index->InsertBatch(Items(d)).ok());
      std::printf("%zu clusters, oversample %u: recall@10 %llu/%zu\n", clusters, over,
                  (unsigned long long)Hits(*index, q, truth, kK, 0), q.size() * kK);
    }
  }
}

// The 4-bit code (kScalar4) at VS-2's bound: oversample 4 at 768-d on the
// bench's spread (1.75: clusters overlap, a query's neighbours are a
// cluster's nearest few), 20 clusters of 200. Its bytes are dim/2 a vector
// (8x smaller than floats); a loaded graph recomputes the same quantizer
// from nodes [0, 1024) and answers the same.
TEST(VectorQuantize, Scalar4RecallAtOversample4) {
  const uint64_t seed = base::TestSeed();
  std::printf("seed %llu\n", (unsigned long long)seed);
  constexpr size_t kN = 4000, kQ = 200;
  constexpr uint32_t kDim = 768;
  Data d = testing::Clustered(kN, kDim, 20, 1.75f, seed, seed + 1);
  Data q = testing::Clustered(kQ, kDim, 20, 1.75f, seed, seed + 2);
  auto truth = testing::Exact(d, q, kK);
  Options o;
  o.dim = kDim;
  o.seed = seed;
  o.quantization = Quantization::kScalar4;
  o.oversample = 4;
  std::unique_ptr<VectorIndex> index = MustCreate(o);
  ASSERT_TRUE(index->InsertBatch(Items(d)).ok());
  const uint64_t hits = Hits(*index, q, truth, kK, 0);
  const MemoryBreakdown m = index->MemoryBytes();
  std::printf("4-bit, rescored at oversample 4: recall@10 %llu/%zu; codes %llu bytes\n", (unsigned long long)hits,
              kQ * kK, (unsigned long long)m.vectors_scalar4);
  EXPECT_EQ(m.vectors_scalar4, kN * kDim / 2);
  EXPECT_EQ(m.vectors_binary, 0u);
  EXPECT_GE(hits, kQ * kK * 95 / 100);
  EXPECT_EQ(index->stats().search_rescored, kQ * 4 * kK);
  std::vector<uint8_t> bytes;
  index->Serialize(&bytes);
  std::unique_ptr<VectorIndex> loaded = MustCreate(o);
  ASSERT_TRUE(loaded
                  ->Load(bytes,
                         [&](uint32_t, uint64_t owner, std::span<float> out) {
                           std::copy_n(d.row(owner).data(), kDim, out.data());
                           return Status::OK();
                         })
                  .ok());
  for (size_t i = 0; i < 20; ++i) {
    auto a = index->Search(q.row(i), kK), b = loaded->Search(q.row(i), kK);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->size(), b->size());
    for (size_t j = 0; j < a->size(); ++j) EXPECT_EQ((*a)[j].owner, (*b)[j].owner);
  }
}

}  // namespace quantize_test
}  // namespace fenec::index::vec
