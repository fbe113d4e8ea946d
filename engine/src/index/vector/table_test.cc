// VectorTable (GR-3): the sharded arm grows a 256th at a time and never
// reads a vector; the naive arm reads every vector at each rebuild; both
// answer every lookup the same. Counts only, never times.
#include "engine/src/index/vector/vector_table.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "engine/src/base/testing.h"
#include "engine/src/index/vector/chunked.h"
#include "engine/src/index/vector/test_data.h"
#include "engine/src/index/vector/vector_index.h"

namespace fenec::index::vec {
namespace table_test {

constexpr uint32_t kDim = 4;

// n distinct vectors in an arena: row i is (i, seed-derived noise ...).
void Fill(VectorArena* arena, uint32_t n, uint64_t seed) {
  arena->Grow(n);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  for (uint32_t i = 0; i < n; ++i) {
    float* v = arena->At(i);
    v[0] = static_cast<float>(i);
    for (uint32_t j = 1; j < kDim; ++j) v[j] = u(rng);
  }
}

uint32_t Tag(const VectorArena& arena, uint32_t i) { return TagOf(HashVector(arena.At(i), kDim)); }

TEST(VectorTable, ShardedGrowsA256thAtATimeAndReadsNoVector) {
  constexpr uint32_t n = 200000;
  VectorArena arena(kDim);
  Fill(&arena, n, base::TestSeed());
  VectorTable table(TableArm::kSharded, &arena);
  for (uint32_t i = 0; i < n; ++i) table.Insert(Tag(arena, i), i);
  const TableStats st = table.stats();
  EXPECT_TRUE(st.sharded);
  EXPECT_EQ(st.entries, n);
  EXPECT_EQ(st.vectors_read, 0u);
  uint64_t past_split = 0, max_moved = 0;
  for (const GrowthEvent& e : table.growth_log()) {
    EXPECT_EQ(e.vectors_read, 0u);
    EXPECT_GT(e.wall_ns, 0u);  // both clocks recorded (growth-bench reports both)
    if (e.shard < 0) continue;  // the single table's doublings and the split itself
    ++past_split;
    max_moved = std::max(max_moved, e.moved);
    EXPECT_LE(e.moved, ShardGrowthBound(e.entries_before)) << "a shard growth at " << e.entries_before << " entries";
  }
  std::printf("sharded: %llu growths (%llu past the split), at most %llu entries moved past the split, %llu in all\n",
              (unsigned long long)st.growths, (unsigned long long)past_split, (unsigned long long)max_moved,
              (unsigned long long)st.max_entries_moved);
  EXPECT_GE(past_split, 256u);  // every shard doubled at least once
  EXPECT_LE(st.max_entries_moved, 14336u);  // the split: a single table at 7/8 of 16 384
}

TEST(VectorTable, NaiveRebuildReadsEveryVector) {
  constexpr uint32_t n = 50000;
  VectorArena arena(kDim);
  Fill(&arena, n, base::TestSeed());
  VectorTable table(TableArm::kNaive, &arena);
  for (uint32_t i = 0; i < n; ++i) table.Insert(Tag(arena, i), i);
  const TableStats st = table.stats();
  uint64_t read = 0;
  for (const GrowthEvent& e : table.growth_log()) {
    EXPECT_EQ(e.vectors_read, e.entries_before);
    EXPECT_EQ(e.moved, e.entries_before);
    EXPECT_GT(e.wall_ns, 0u);
    read += e.vectors_read;
  }
  std::printf("naive: %llu rebuilds, %llu vectors read, the last rebuild read %llu\n", (unsigned long long)st.growths,
              (unsigned long long)read, (unsigned long long)table.growth_log().back().vectors_read);
  EXPECT_EQ(st.vectors_read, read);
  EXPECT_GE(table.growth_log().back().vectors_read, n / 4);  // the last rebuild read every vector then held
  EXPECT_GT(read, uint64_t{n});
}

TEST(VectorTable, BothArmsAnswerAlike) {
  constexpr uint32_t n = 30000;
  const uint64_t seed = base::TestSeed();
  VectorArena arena(kDim);
  Fill(&arena, n + 1000, seed);  // rows n.. are never inserted
  VectorTable sharded(TableArm::kSharded, &arena), naive(TableArm::kNaive, &arena);
  for (uint32_t i = 0; i < n; ++i) {
    sharded.Insert(Tag(arena, i), i);
    naive.Insert(Tag(arena, i), i);
  }
  // Two different vectors under one tag (a forced collision): two slots,
  // each found by its own bytes.
  const uint32_t shared = Tag(arena, 0);
  sharded.Insert(shared, n);
  naive.Insert(shared, n);
  for (uint32_t i = 0; i <= n; ++i) {
    const uint32_t tag = i == n ? shared : Tag(arena, i);
    ASSERT_EQ(sharded.Find(tag, arena.At(i)), i);
    ASSERT_EQ(naive.Find(tag, arena.At(i)), i);
  }
  for (uint32_t i = n + 1; i < n + 1000; ++i) {
    ASSERT_EQ(sharded.Find(Tag(arena, i), arena.At(i)), VectorTable::kNone);
    ASSERT_EQ(naive.Find(Tag(arena, i), arena.At(i)), VectorTable::kNone);
  }
  // Erase half; the rest still found, the erased not.
  for (uint32_t i = 0; i < n; i += 2) {
    ASSERT_TRUE(sharded.Erase(Tag(arena, i), i));
    ASSERT_TRUE(naive.Erase(Tag(arena, i), i));
  }
  EXPECT_FALSE(sharded.Erase(Tag(arena, 0), 0));
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t want = i % 2 ? i : VectorTable::kNone;
    ASSERT_EQ(sharded.Find(Tag(arena, i), arena.At(i)), want);
    ASSERT_EQ(naive.Find(Tag(arena, i), arena.At(i)), want);
  }
  EXPECT_EQ(sharded.Find(shared, arena.At(n)), n);  // its slot-mate's erase left it
  EXPECT_EQ(sharded.size(), naive.size());
}

TEST(VectorTable, BuildFromTagsReadsNoVector) {
  constexpr uint32_t n = 40000;
  VectorArena arena(kDim);
  Fill(&arena, n, base::TestSeed());
  std::vector<uint32_t> nodes(n), tags(n);
  for (uint32_t i = 0; i < n; ++i) {
    nodes[i] = i;
    tags[i] = Tag(arena, i);
  }
  for (TableArm arm : {TableArm::kSharded, TableArm::kNaive}) {
    VectorTable kept(arm, &arena), read(arm, &arena);
    kept.BuildFromTags(nodes, tags);
    read.BuildFromVectors(nodes);
    EXPECT_EQ(kept.stats().vectors_read, 0u);
    EXPECT_EQ(kept.stats().growths, 0u);
    EXPECT_EQ(read.stats().vectors_read, n);
    for (uint32_t i = 0; i < n; ++i) {
      ASSERT_EQ(kept.Find(tags[i], arena.At(i)), i);
      ASSERT_EQ(read.Find(tags[i], arena.At(i)), i);
    }
    // It keeps growing from there like a table built by inserts.
    kept.Insert(1, 0);
    EXPECT_EQ(kept.size(), n + 1);
  }
}

// Through the index: a rewrite of a held vector adds no node, in either
// arm, and only the naive arm reads vectors to grow the table.
TEST(VectorTable, IndexCountsTheArmsWork) {
  const uint64_t seed = base::TestSeed();
  testing::Data d = testing::Clustered(20000, 8, 10, 0.5f, seed, seed + 1);
  for (TableArm arm : {TableArm::kSharded, TableArm::kNaive}) {
    Options o;
    o.dim = 8;
    o.m = 4;  // a thin graph: this test is about the table
    o.ef_construction = 8;
    o.table_arm = arm;
    o.seed = seed;
    Result<std::unique_ptr<VectorIndex>> created = VectorIndex::Create(o);
    ASSERT_TRUE(created.ok());
    std::unique_ptr<VectorIndex> index = std::move(*created);
    ASSERT_TRUE(index->InsertBatch(testing::Items(d)).ok());
    ASSERT_TRUE(index->InsertBatch(testing::Items(d, 100000)).ok());  // every vector again, new owners
    const Stats st = index->stats();
    EXPECT_EQ(index->node_count(), 20000u);
    EXPECT_EQ(st.owner_hits, 20000u);
    EXPECT_EQ(st.owners, 40000u);
    EXPECT_GT(st.table_growths, 0u);
    EXPECT_EQ(index->TableGrowthLog().size(), st.table_growths);
    std::printf("%s: %llu growths, at most %llu entries moved, %llu vectors read, %llu compares\n",
                std::string(TableArmName(arm)).c_str(), (unsigned long long)st.table_growths,
                (unsigned long long)st.table_max_entries_moved, (unsigned long long)st.table_vectors_read,
                (unsigned long long)st.table_compares);
    if (arm == TableArm::kSharded)
      EXPECT_EQ(st.table_vectors_read, 0u);
    else
      EXPECT_GE(st.table_vectors_read, 20000u);
    EXPECT_GE(st.table_compares, 20000u);  // each rewrite confirmed by one compare
  }
}

}  // namespace table_test
}  // namespace fenec::index::vec
