// Binary quantization (VS-2): the codes take dim/8 bytes a vector (measured
// by MemoryBytes), recall@10 with rescoring holds at 128-d on clustered data
// whose neighbours are cluster-mates, and the Hamming ranking alone
// (rescore = false) is reported and lower; on the recall test's wide
// clusters both are reported. Counts only, never times.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <vector>

#include "engine/src/base/testing.h"
#include "engine/src/index/vector/test_data.h"
#include "engine/src/index/vector/vector_index.h"

namespace fenec::index::vec {
namespace {

using testing::Data;
using testing::Hits;
using testing::Items;

constexpr size_t kN = 10000, kQueries = 300, kK = 10;
constexpr uint32_t kDim = 128;

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

// Recall@10 at ef 64 of float, binary rescored and binary alone on
// kN x 128-d clustered data; checks the bytes on the way.
struct Recalls {
  uint64_t hits[3] = {0, 0, 0};  // float, binary rescored, binary alone
};

Recalls Measure(size_t clusters, float spread, uint64_t seed, bool with_float) {
  Data d = testing::Clustered(kN, kDim, clusters, spread, seed, seed + 1);
  Data q = testing::Clustered(kQueries, kDim, clusters, spread, seed, seed + 2);
  auto truth = testing::Exact(d, q, kK);
  Recalls out;
  const char* names[3] = {"float", "binary, rescored", "binary, not rescored"};
  for (int arm = with_float ? 0 : 1; arm < 3; ++arm) {
    Options o;
    o.dim = kDim;
    o.seed = seed;
    o.quantization = arm == 0 ? Quantization::kNone : Quantization::kBinary;
    o.rescore = arm != 2;
    std::unique_ptr<VectorIndex> index = MustCreate(o);
    EXPECT_TRUE(index->InsertBatch(Items(d)).ok());
    out.hits[arm] = Hits(*index, q, truth, kK, 64);
    const MemoryBreakdown m = index->MemoryBytes();
    PrintMemory(names[arm], m);
    EXPECT_EQ(m.vectors_full, kN * kDim * sizeof(float));
    EXPECT_EQ(m.vectors_binary, arm == 0 ? 0 : kN * kDim / 8);
    EXPECT_GT(m.graph_links, kN * 2 * 16 * 4);  // at least the level-0 lists' room
    EXPECT_GE(m.table, kN * 8);                  // 8-byte slots
    EXPECT_EQ(m.node_meta, kN * 25);
    EXPECT_GE(m.owners, kN * 16);
    EXPECT_GE(m.reserved, m.total());
    const Stats st = index->stats();
    if (arm == 1) {
      EXPECT_EQ(st.search_rescored, kQueries * 4 * kK);  // oversample 4: 40 rescored a search
    } else {
      EXPECT_EQ(st.search_rescored, 0u);
    }
    if (arm == 2) {
      // Hamming distances are bit counts.
      Result<std::vector<Hit>> r = index->Search(q.row(0), kK);
      EXPECT_TRUE(r.ok());
      if (r.ok()) {
        for (const Hit& h : *r) EXPECT_EQ(h.distance, float(int(h.distance)));
      }
    }
  }
  const uint64_t total = kQueries * kK;
  std::printf("recall@10 at ef 64, %zu x %u-d, %zu clusters, spread %.2f: ", kN, kDim, clusters, double(spread));
  if (with_float) std::printf("float %llu/%llu, ", (unsigned long long)out.hits[0], (unsigned long long)total);
  std::printf("binary rescored %llu/%llu, binary alone %llu/%llu\n", (unsigned long long)out.hits[1],
              (unsigned long long)total, (unsigned long long)out.hits[2], (unsigned long long)total);
  return out;
}

// Small clusters (500 of about 20 vectors, spread 0.5): a query's true
// neighbours are mostly its own cluster, which is what sign bits around the
// mean tell apart. The codes find them; rescoring orders them.
TEST(VectorQuantize, SmallClustersRecallWithRescoring) {
  const Recalls r = Measure(500, 0.5f, base::TestSeed(), /*with_float=*/true);
  const uint64_t total = kQueries * kK;
  EXPECT_GE(r.hits[0], total * 95 / 100);
  EXPECT_GE(r.hits[1], total * 9 / 10);
  EXPECT_LT(r.hits[2], r.hits[1]);
}

// The recall data's layout (50 clusters of about 200, spread 0.5): the true
// neighbours are a query's nearest inside an isotropic Gaussian cluster,
// where sign bits around the global mean say little (a dimension whose
// cluster center is far from the mean has the same bit for the whole
// cluster). Even an exhaustive Hamming ranking rescored at oversample 4
// finds about half of them (measured: 0.49 brute force), so this reports the
// figures and asserts only their order.
TEST(VectorQuantize, WideClustersReported) {
  const Recalls r = Measure(50, 0.5f, base::TestSeed(), /*with_float=*/false);
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
  r = index->Search(d.row(1200), 1);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].owner, 1200u);
  EXPECT_EQ(index->stats().search_rescored, 4u);
}

}  // namespace
}  // namespace fenec::index::vec
