// Owners, erase, tombstones and Cleanup: a vector held by several owners
// is one node; an erased owner is never returned, its node's other owners
// still are; Cleanup unlinks tombstones within the degree bounds. Counts only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <random>
#include <set>
#include <vector>

#include "engine/src/base/testing.h"
#include "engine/src/index/vector/test_data.h"
#include "engine/src/index/vector/vector_index.h"

namespace fenec::index::vec {
namespace erase_test {

using testing::CheckGraph;
using testing::Data;
using testing::Items;

std::unique_ptr<VectorIndex> MustCreate(const Options& o) {
  Result<std::unique_ptr<VectorIndex>> r = VectorIndex::Create(o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(*r) : nullptr;
}

std::vector<uint64_t> Owners(const VectorIndex& index, std::span<const float> q, size_t k, size_t ef = 0) {
  Result<std::vector<Hit>> r = index.Search(q, k, ef);
  EXPECT_TRUE(r.ok());
  std::vector<uint64_t> out;
  if (r.ok())
    for (const Hit& h : *r) out.push_back(h.owner);
  return out;
}

TEST(VectorOwners, SameVectorIsOneNode) {
  for (InsertArm arm : {InsertArm::kRow, InsertArm::kBatch}) {
    Options o;
    o.dim = 8;
    o.insert_arm = arm;
    std::unique_ptr<VectorIndex> index = MustCreate(o);
    const float v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    const float w[8] = {8, 7, 6, 5, 4, 3, 2, 1};
    ASSERT_TRUE(index->Insert(10, v).ok());
    ASSERT_TRUE(index->Insert(11, v).ok());  // a second document, same vector
    ASSERT_TRUE(index->Insert(12, v).ok());
    ASSERT_TRUE(index->Insert(10, v).ok());  // a rewrite that keeps the vector
    ASSERT_TRUE(index->Insert(20, w).ok());
    EXPECT_EQ(index->node_count(), 2u);
    EXPECT_EQ(index->NodeOf(10), index->NodeOf(11));
    EXPECT_EQ(index->NodeOf(10), index->NodeOf(12));
    Stats st = index->stats();
    EXPECT_EQ(st.owners, 4u);
    EXPECT_EQ(st.owner_hits, 3u);
    EXPECT_EQ(st.nodes_linked, 2u);
    std::vector<uint64_t> got = Owners(*index, v, 10);
    ASSERT_EQ(got.size(), 4u);
    EXPECT_EQ(std::set<uint64_t>(got.begin(), got.begin() + 3), (std::set<uint64_t>{10, 11, 12}));
    EXPECT_EQ(got[3], 20u);
    // k cuts inside a node's owners.
    EXPECT_EQ(Owners(*index, v, 2).size(), 2u);

    // An erased owner is never returned; the node's other owners still are.
    EXPECT_TRUE(index->Erase(10));
    EXPECT_FALSE(index->Erase(10));
    got = Owners(*index, v, 10);
    EXPECT_EQ(std::set<uint64_t>(got.begin(), got.end()), (std::set<uint64_t>{11, 12, 20}));
    EXPECT_EQ(index->stats().tombstones, 0u);
    // A filter that passes only the node's second owner still finds it.
    Result<std::vector<Hit>> f = index->Search(v, 10, 0, [](uint64_t o) { return o == 12; });
    ASSERT_TRUE(f.ok());
    ASSERT_EQ(f->size(), 1u);
    EXPECT_EQ((*f)[0].owner, 12u);

    // The owner moves: 11 takes w; the v node keeps 12.
    ASSERT_TRUE(index->Insert(11, w).ok());
    EXPECT_EQ(index->NodeOf(11), index->NodeOf(20));
    EXPECT_EQ(index->node_count(), 2u);
    EXPECT_TRUE(index->Erase(12));  // v's last owner: a tombstone
    EXPECT_EQ(index->stats().tombstones, 1u);
    got = Owners(*index, v, 10);
    EXPECT_EQ(std::set<uint64_t>(got.begin(), got.end()), (std::set<uint64_t>{11, 20}));
    // v written again revives its node (no new node).
    ASSERT_TRUE(index->Insert(30, v).ok());
    EXPECT_EQ(index->node_count(), 2u);
    EXPECT_EQ(index->stats().tombstones, 0u);
    EXPECT_EQ(Owners(*index, v, 1), std::vector<uint64_t>{30});
  }
}

// A fifth of a built index erased, then cleaned up: erased owners never come
// back, recall over what is left holds, and Cleanup keeps the bounds.
TEST(VectorErase, EraseThenCleanup) {
  const uint64_t seed = base::TestSeed();
  constexpr size_t n = 10000, nq = 200, k = 10;
  constexpr uint32_t dim = 32;
  Data d = testing::Clustered(n, dim, 30, 0.5f, seed, seed + 1);
  Data q = testing::Clustered(nq, dim, 30, 0.5f, seed, seed + 2);
  Options o;
  o.dim = dim;
  o.seed = seed;
  std::unique_ptr<VectorIndex> index = MustCreate(o);
  ASSERT_TRUE(index->InsertBatch(Items(d)).ok());
  // Every fifth row also gets a second owner (n + i) on the same vector.
  std::vector<InsertItem> twins;
  for (size_t i = 0; i < n; i += 5) twins.push_back(InsertItem{n + i, d.row(i)});
  ASSERT_TRUE(index->InsertBatch(twins).ok());
  EXPECT_EQ(index->node_count(), n);

  std::mt19937_64 rng(seed + 3);
  std::vector<uint8_t> erased(2 * n, 0);
  std::vector<uint32_t> dead_nodes;
  size_t tombstones = 0;
  for (size_t i = 0; i < n; ++i) {
    if (rng() % 5 != 0) continue;
    std::optional<uint32_t> node = index->NodeOf(i);
    ASSERT_TRUE(node.has_value());
    ASSERT_TRUE(index->Erase(i));
    erased[i] = 1;
    if (i % 5 != 0) {  // no twin: the node is a tombstone now
      ++tombstones;
      dead_nodes.push_back(*node);
    }
  }
  EXPECT_EQ(index->stats().tombstones, tombstones);

  // Recall over the rows still held, before and after Cleanup.
  Data held{dim, {}};
  std::vector<uint32_t> rows;
  for (uint32_t i = 0; i < n; ++i) {
    if (erased[i] && i % 5 != 0) continue;
    rows.push_back(i);
    held.v.insert(held.v.end(), d.row(i).begin(), d.row(i).end());
  }
  std::vector<std::vector<uint32_t>> truth = testing::Exact(held, q, k);
  auto measure = [&](const char* when) {
    uint64_t hits = 0;
    for (size_t qi = 0; qi < nq; ++qi) {
      // Twins take two answers each: ask for 2k owners, count the first k rows.
      Result<std::vector<Hit>> r = index->Search(q.row(qi), 2 * k, 64);
      EXPECT_TRUE(r.ok());
      std::set<uint32_t> want, got;
      for (uint32_t t : truth[qi]) want.insert(rows[t]);
      for (const Hit& h : *r) {
        EXPECT_FALSE(erased[h.owner]) << "erased owner " << h.owner << " returned " << when;
        const uint32_t row = static_cast<uint32_t>(h.owner >= n ? h.owner - n : h.owner);
        if (got.size() < k && got.insert(row).second) hits += want.count(row);
      }
    }
    std::printf("recall@10 at ef 64 over what is held, %s: %llu/%zu\n", when, (unsigned long long)hits, nq * k);
    return hits;
  };
  EXPECT_GE(measure("before Cleanup"), nq * k * 9 / 10);

  const CleanupReport report = index->Cleanup();
  std::printf("cleanup: %llu tombstones, %llu unlinked, %llu lists repaired\n",
              (unsigned long long)report.tombstones, (unsigned long long)report.unlinked,
              (unsigned long long)report.lists_repaired);
  EXPECT_EQ(report.tombstones, tombstones);
  EXPECT_EQ(report.unlinked, tombstones);
  EXPECT_GT(report.lists_repaired, 0u);
  Stats st = index->stats();
  EXPECT_EQ(st.tombstones, 0u);
  EXPECT_EQ(st.dead, tombstones);
  EXPECT_EQ(CheckGraph(*index), "");
  std::vector<uint8_t> dead(n, 0);
  for (uint32_t node : dead_nodes) dead[node] = 1;
  for (uint32_t i = 0; i < n; ++i) {
    for (int layer = 0; layer <= index->NodeLevel(i); ++layer) {
      std::vector<uint32_t> l = index->Links(i, layer);
      if (dead[i]) {
        EXPECT_TRUE(l.empty());
        continue;
      }
      for (uint32_t id : l) ASSERT_FALSE(dead[id]) << "node " << i << " names dead node " << id;
    }
  }
  EXPECT_GE(measure("after Cleanup"), nq * k * 9 / 10);
  EXPECT_EQ(index->Cleanup().tombstones, 0u);

  // A dead node's vector written again is a new node.
  const uint32_t before = index->node_count();
  size_t row = 0;
  while (!(erased[row] && row % 5 != 0)) ++row;
  ASSERT_TRUE(index->Insert(5 * n, d.row(row)).ok());
  EXPECT_EQ(index->node_count(), before + 1);
  EXPECT_EQ(Owners(*index, d.row(row), 1), std::vector<uint64_t>{5 * n});
}

// Cleanup of every node, then inserts into the emptied graph.
TEST(VectorErase, EraseEverything) {
  const uint64_t seed = base::TestSeed();
  Data d = testing::Clustered(600, 8, 5, 0.5f, seed, seed + 1);
  Options o;
  o.dim = 8;
  o.seed = seed;
  std::unique_ptr<VectorIndex> index = MustCreate(o);
  ASSERT_TRUE(index->InsertBatch(Items(d)).ok());
  for (uint64_t i = 0; i < 600; ++i) ASSERT_TRUE(index->Erase(i));
  EXPECT_TRUE(Owners(*index, d.row(0), 5).empty());
  EXPECT_EQ(index->Cleanup().unlinked, 600u);
  EXPECT_EQ(index->stats().max_level, -1);
  EXPECT_TRUE(Owners(*index, d.row(0), 5).empty());
  ASSERT_TRUE(index->InsertBatch(Items(d, 1000)).ok());
  EXPECT_EQ(index->node_count(), 1200u);
  EXPECT_EQ(CheckGraph(*index), "");
  EXPECT_EQ(Owners(*index, d.row(7), 1), std::vector<uint64_t>{1007});
}

}  // namespace erase_test
}  // namespace fenec::index::vec
