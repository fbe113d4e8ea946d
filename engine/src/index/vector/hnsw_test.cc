// The HNSW graph and both insert arms (VS-1): recall@10 against brute force,
// the degree bounds, self-search, the batch arm's counters, determinism
// over thread counts, the three metrics, filtered search, bad input,
// searches running during inserts, and MM-2's visited sets (the same
// answers; which clears zero memory). Counts only, never times.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "engine/src/base/testing.h"
#include "engine/src/index/vector/test_data.h"
#include "engine/src/index/vector/vector_index.h"

namespace fenec::index::vec {
namespace hnsw_test {

using testing::CheckGraph;
using testing::Data;
using testing::Hits;
using testing::Items;

// The recall data: 20 000 x 64-d around 50 centers drawn from N(0, 1) per
// dimension, spread 0.5 (test_data.h), and 500 fresh queries drawn the same
// way. Recall is counted as hits out of kQueries * kK.
constexpr size_t kN = 20000, kQueries = 500, kK = 10;
constexpr uint32_t kDim = 64;
constexpr size_t kClusters = 50;
constexpr float kSpread = 0.5f;

std::unique_ptr<VectorIndex> MustCreate(const Options& o) {
  Result<std::unique_ptr<VectorIndex>> r = VectorIndex::Create(o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(*r) : nullptr;
}

class HnswArms : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const uint64_t seed = base::BinarySeed("vector_hnsw_test");
    data_ = new Data(testing::Clustered(kN, kDim, kClusters, kSpread, seed, seed + 1));
    queries_ = new Data(testing::Clustered(kQueries, kDim, kClusters, kSpread, seed, seed + 2));
    truth_ = new std::vector<std::vector<uint32_t>>(testing::Exact(*data_, *queries_, kK));
    for (InsertArm arm : {InsertArm::kRow, InsertArm::kBatch}) {
      Options o;
      o.dim = kDim;
      o.insert_arm = arm;
      o.seed = seed;
      std::unique_ptr<VectorIndex> index = MustCreate(o);
      std::vector<InsertItem> items = Items(*data_);
      Status st = index->InsertBatch(items);
      EXPECT_TRUE(st.ok()) << st.ToString();
      (arm == InsertArm::kRow ? row_ : batch_) = index.release();
    }
  }
  static void TearDownTestSuite() {
    delete row_;
    delete batch_;
    delete data_;
    delete queries_;
    delete truth_;
  }
  static const VectorIndex& Arm(InsertArm arm) { return arm == InsertArm::kRow ? *row_ : *batch_; }

  static inline Data* data_ = nullptr;
  static inline Data* queries_ = nullptr;
  static inline std::vector<std::vector<uint32_t>>* truth_ = nullptr;
  static inline VectorIndex* row_ = nullptr;
  static inline VectorIndex* batch_ = nullptr;
};

TEST_F(HnswArms, RecallAtEf64BothArms) {
  const uint64_t total = kQueries * kK;
  const uint64_t row = Hits(*row_, *queries_, *truth_, kK, 64);
  const uint64_t batch = Hits(*batch_, *queries_, *truth_, kK, 64);
  std::printf("recall@10 at ef 64 (%zu x %u-d, %zu clusters, spread %.2f): row %llu/%llu = %.4f, batch %llu/%llu = %.4f\n",
              kN, kDim, kClusters, double(kSpread), (unsigned long long)row, (unsigned long long)total,
              double(row) / double(total), (unsigned long long)batch, (unsigned long long)total,
              double(batch) / double(total));
  for (size_t ef : {16, 32, 128}) {
    std::printf("  ef %3zu: row %llu, batch %llu\n", ef, (unsigned long long)Hits(*row_, *queries_, *truth_, kK, ef),
                (unsigned long long)Hits(*batch_, *queries_, *truth_, kK, ef));
  }
  EXPECT_GE(row, total * 95 / 100);
  EXPECT_GE(batch, total * 95 / 100);
  // The batch arm keeps the row arm's recall (within 0.005: 25 hits of 5000).
  EXPECT_GE(batch + total * 5 / 1000, row);
}

TEST_F(HnswArms, DegreeBoundsHold) {
  for (InsertArm arm : {InsertArm::kRow, InsertArm::kBatch}) {
    EXPECT_EQ(Arm(arm).node_count(), kN);
    EXPECT_EQ(CheckGraph(Arm(arm)), "") << InsertArmName(arm);
  }
}

TEST_F(HnswArms, EveryLevelHasItsShare) {
  // Levels are drawn with the 1/ln(m) multiplier: about n/m nodes above 0.
  for (InsertArm arm : {InsertArm::kRow, InsertArm::kBatch}) {
    size_t upper = 0;
    for (uint32_t i = 0; i < kN; ++i) upper += Arm(arm).NodeLevel(i) > 0;
    EXPECT_GT(upper, kN / 16 / 2);
    EXPECT_LT(upper, kN / 16 * 2);
    EXPECT_GE(Arm(arm).stats().max_level, 2);
  }
}

TEST_F(HnswArms, EachVectorFindsItself) {
  std::mt19937_64 rng(base::TestSeed());
  std::uniform_int_distribution<uint32_t> pick(0, kN - 1);
  for (InsertArm arm : {InsertArm::kRow, InsertArm::kBatch}) {
    size_t found = 0;
    const size_t sample = 1000;
    for (size_t s = 0; s < sample; ++s) {
      const uint32_t i = pick(rng);
      Result<std::vector<Hit>> r = Arm(arm).Search(data_->row(i), 1);
      ASSERT_TRUE(r.ok());
      if (!r->empty() && (*r)[0].owner == i && (*r)[0].distance == 0.0f) ++found;
    }
    std::printf("%s: %zu of %zu find themselves first at ef 64\n", std::string(InsertArmName(arm)).c_str(), found,
                sample);
    EXPECT_GE(found, sample * 99 / 100) << InsertArmName(arm);
  }
}

TEST_F(HnswArms, BatchCountersRunOnlyInTheBatchArm) {
  const Stats b = batch_->stats();
  std::printf(
      "batch arm: batches %llu, processes %llu, pre-link edges added %llu, pruned %llu, rounds %llu, "
      "round distances %llu (max %llu in one), vectors preloaded %llu, insert distances %llu\n",
      (unsigned long long)b.batches, (unsigned long long)b.processes_run, (unsigned long long)b.prelink_edges_added,
      (unsigned long long)b.prelink_edges_pruned, (unsigned long long)b.rounds,
      (unsigned long long)b.round_distances_total, (unsigned long long)b.round_distances_max,
      (unsigned long long)b.vectors_preloaded, (unsigned long long)b.insert_distances);
  EXPECT_EQ(b.batches, (kN + 511) / 512);
  EXPECT_EQ(b.processes_run, kN);
  EXPECT_EQ(b.nodes_linked, kN);
  EXPECT_GT(b.prelink_edges_added, 0u);
  EXPECT_GT(b.prelink_edges_pruned, 0u);
  EXPECT_LE(b.prelink_edges_pruned, b.prelink_edges_added);
  EXPECT_GT(b.rounds, 0u);
  EXPECT_GT(b.round_distances_total, 0u);
  EXPECT_GT(b.round_distances_max, 0u);
  EXPECT_LE(b.round_distances_max, b.round_distances_total);
  EXPECT_GT(b.vectors_preloaded, 0u);
  EXPECT_GE(b.insert_distances, b.round_distances_total);

  const Stats r = row_->stats();
  std::printf("row arm: insert distances %llu\n", (unsigned long long)r.insert_distances);
  EXPECT_EQ(r.nodes_linked, kN);
  EXPECT_GT(r.insert_distances, 0u);
  EXPECT_EQ(r.batches, 0u);
  EXPECT_EQ(r.processes_run, 0u);
  EXPECT_EQ(r.prelink_edges_added, 0u);
  EXPECT_EQ(r.prelink_edges_pruned, 0u);
  EXPECT_EQ(r.rounds, 0u);
  EXPECT_EQ(r.round_distances_total, 0u);
  EXPECT_EQ(r.round_distances_max, 0u);
  EXPECT_EQ(r.vectors_preloaded, 0u);
}

TEST_F(HnswArms, SearchCountsItsWork) {
  const Stats before = row_->stats();
  ASSERT_TRUE(row_->Search(queries_->row(0), kK, 64).ok());
  const Stats after = row_->stats();
  EXPECT_EQ(after.searches, before.searches + 1);
  EXPECT_GT(after.search_distances, before.search_distances + 64);
  EXPECT_GT(after.nodes_visited, before.nodes_visited + 10);
  EXPECT_GE(after.distances_total, after.search_distances + after.insert_distances);
}

TEST_F(HnswArms, EfZeroIsTheOptionsEf) {
  for (size_t q = 0; q < 20; ++q) {
    Result<std::vector<Hit>> a = batch_->Search(queries_->row(q), kK);
    Result<std::vector<Hit>> b = batch_->Search(queries_->row(q), kK, 64);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->size(), b->size());
    for (size_t i = 0; i < a->size(); ++i) EXPECT_EQ((*a)[i].owner, (*b)[i].owner);
  }
}

TEST_F(HnswArms, FilteredSearchReturnsOnlyWhatPasses) {
  // Owners divisible by 3 pass: a third of the graph.
  const Filter filter = [](uint64_t owner) { return owner % 3 == 0; };
  Data passing{kDim, {}};
  std::vector<uint32_t> rows;
  for (uint32_t i = 0; i < kN; i += 3) {
    rows.push_back(i);
    passing.v.insert(passing.v.end(), data_->row(i).begin(), data_->row(i).end());
  }
  std::vector<std::vector<uint32_t>> truth = testing::Exact(passing, *queries_, kK);
  for (auto& t : truth)
    for (uint32_t& id : t) id = rows[id];
  uint64_t hits = 0;
  for (size_t q = 0; q < kQueries; ++q) {
    Result<std::vector<Hit>> r = batch_->Search(queries_->row(q), kK, 64, filter);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->size(), kK);
    for (const Hit& h : *r) {
      ASSERT_EQ(h.owner % 3, 0u);
      if (std::find(truth[q].begin(), truth[q].end(), h.owner) != truth[q].end()) ++hits;
    }
  }
  std::printf("filtered (1 in 3 passes) recall@10 at ef 64: %llu/%zu\n", (unsigned long long)hits, kQueries * kK);
  EXPECT_GE(hits, kQueries * kK * 9 / 10);
  // Nothing passes: nothing returned (the walk covers the graph and ends).
  Result<std::vector<Hit>> none = batch_->Search(queries_->row(0), kK, 64, [](uint64_t) { return false; });
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

// A filter may search itself (this index or another) without disturbing
// the walk it is called from: the same answers as a plain filter.
TEST_F(HnswArms, FilterThatSearches) {
  const Filter plain = [](uint64_t owner) { return owner % 3 == 0; };
  uint64_t inner = 0;
  const Filter nested = [&](uint64_t owner) {
    inner += batch_->Search(data_->row(owner), 1, 16).ok();  // the very index being walked
    return owner % 3 == 0;
  };
  for (size_t q = 0; q < 20; ++q) {
    Result<std::vector<Hit>> a = batch_->Search(queries_->row(q), kK, 64, plain);
    Result<std::vector<Hit>> b = batch_->Search(queries_->row(q), kK, 64, nested);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->size(), b->size());
    for (size_t i = 0; i < a->size(); ++i) EXPECT_EQ((*a)[i].owner, (*b)[i].owner);
  }
  EXPECT_GT(inner, 0u);
}

// The batch arm's graph does not depend on the thread count.
// MM-2's arms (VisitedSet, measured by vector-bench's mm2 part) change only
// how a walk remembers nodes: every set gives the same ids at the same
// distances, plain and filtered.
TEST_F(HnswArms, EveryVisitedSetGivesTheSameAnswers) {
  const Filter filter = [](uint64_t owner) { return owner % 3 == 0; };
  size_t compared = 0;
  for (size_t q = 0; q < kQueries; ++q) {
    for (size_t ef : {16, 64}) {
      const Filter& f = q % 2 ? filter : Filter{};
      Result<std::vector<Hit>> want = batch_->Search(queries_->row(q), kK, ef, f);
      ASSERT_TRUE(want.ok());
      for (VisitedSet v : {VisitedSet::kBitmap, VisitedSet::kHashCleared, VisitedSet::kHashNew}) {
        Result<std::vector<Hit>> got = batch_->SearchWith(v, queries_->row(q), kK, ef, f);
        ASSERT_TRUE(got.ok());
        ASSERT_EQ(got->size(), want->size()) << VisitedSetName(v) << " query " << q;
        for (size_t i = 0; i < want->size(); ++i) {
          EXPECT_EQ((*got)[i].owner, (*want)[i].owner) << VisitedSetName(v) << " query " << q;
          EXPECT_EQ((*got)[i].distance, (*want)[i].distance) << VisitedSetName(v) << " query " << q;
        }
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, kQueries * 2 * 3);
}

// The bitmap's clear zeroes nothing until a thread's 16-bit version wraps
// (its 65 535th clear); the cleared hash set zeroes its table on every
// search but the first; a new one has nothing to zero. Counted exactly on a
// fresh thread (its own thread_local visited sets) over a tiny graph.
TEST(HnswVisited, ZeroingClearsAreCounted) {
  Options o;
  o.dim = 4;
  Result<std::unique_ptr<VectorIndex>> made = VectorIndex::Create(o);
  ASSERT_TRUE(made.ok());
  VectorIndex& index = **made;
  Data data = testing::Clustered(200, 4, 4, 0.5f, 1, 2);
  ASSERT_TRUE(index.InsertBatch(Items(data)).ok());
  auto zeroings = [&] { return index.stats().visited_zeroings; };
  std::thread([&] {
    const std::span<const float> q = data.row(7);
    for (int i = 0; i < 65534; ++i) ASSERT_TRUE(index.Search(q, 1, 8).ok());
    EXPECT_EQ(zeroings(), 0u) << "65 534 bitmap clears";
    ASSERT_TRUE(index.Search(q, 1, 8).ok());
    EXPECT_EQ(zeroings(), 1u) << "the 65 535th clear wraps the version";
    for (int i = 0; i < 100; ++i) ASSERT_TRUE(index.SearchWith(VisitedSet::kHashNew, q, 1, 8).ok());
    EXPECT_EQ(zeroings(), 1u) << "a new hash set a search";
    for (int i = 0; i < 100; ++i) ASSERT_TRUE(index.SearchWith(VisitedSet::kHashCleared, q, 1, 8).ok());
    EXPECT_EQ(zeroings(), 1u + 99) << "the kept hash set, empty at its first clear";
  }).join();
  EXPECT_EQ(index.stats().searches, 65535u + 200);
}

TEST(HnswBatch, SameGraphOnAnyThreadCount) {
  const uint64_t seed = base::TestSeed();
  Data d = testing::Clustered(3000, 32, 20, 0.5f, seed, seed + 1);
  std::vector<std::unique_ptr<VectorIndex>> built;
  for (uint32_t threads : {1u, 2u, 3u}) {
    Options o;
    o.dim = 32;
    o.threads = threads;
    o.batch_size = 300;
    o.seed = seed;
    built.push_back(MustCreate(o));
    ASSERT_TRUE(built.back()->InsertBatch(Items(d)).ok());
  }
  for (size_t b = 1; b < built.size(); ++b) {
    for (uint32_t i = 0; i < 3000; ++i) {
      ASSERT_EQ(built[0]->NodeLevel(i), built[b]->NodeLevel(i));
      for (int layer = 0; layer <= built[0]->NodeLevel(i); ++layer)
        ASSERT_EQ(built[0]->Links(i, layer), built[b]->Links(i, layer)) << "node " << i << " layer " << layer;
    }
  }
}

// Vectors in a file (Options::vector_file): the same graph as in memory, in
// both arms, the file holding every vector's bytes; the batch arm counts its
// read-ahead and the faults of its links, the memory arm neither.
TEST(HnswFile, SameGraphAsInMemoryBothArms) {
  const uint64_t seed = base::TestSeed();
  base::ScratchDir dir;
  Data d = testing::Clustered(2500, 24, 10, 0.5f, seed, seed + 1);
  for (InsertArm arm : {InsertArm::kBatch, InsertArm::kRow}) {
    Options o;
    o.dim = 24;
    o.seed = seed;
    o.insert_arm = arm;
    o.batch_size = 400;
    std::unique_ptr<VectorIndex> mem = MustCreate(o);
    o.vector_file = dir.path() + "/v" + std::string(InsertArmName(arm)) + ".fvec";
    std::unique_ptr<VectorIndex> file = MustCreate(o);
    ASSERT_TRUE(mem->InsertBatch(Items(d)).ok());
    ASSERT_TRUE(file->InsertBatch(Items(d)).ok());
    for (uint32_t i = 0; i < 2500; ++i) {
      ASSERT_EQ(mem->NodeLevel(i), file->NodeLevel(i));
      for (int layer = 0; layer <= mem->NodeLevel(i); ++layer)
        ASSERT_EQ(mem->Links(i, layer), file->Links(i, layer)) << "node " << i << " layer " << layer;
    }
    std::FILE* f = std::fopen(o.vector_file.c_str(), "rb");
    ASSERT_NE(f, nullptr);
    std::vector<float> v(24);
    ASSERT_EQ(std::fseek(f, 1234 * 96, SEEK_SET), 0);  // stride: 24 floats, 96 bytes
    ASSERT_EQ(std::fread(v.data(), 4, 24, f), 24u);
    std::fclose(f);
    EXPECT_EQ(0, std::memcmp(v.data(), d.row(1234).data(), 96)) << "node 1234's bytes in the file";
    EXPECT_EQ(mem->stats().link_major_faults, 0u);
    EXPECT_EQ(mem->stats().pages_preloaded, 0u);
    EXPECT_EQ(file->stats().vectors_preloaded > 0, arm == InsertArm::kBatch);
  }
}

// Vectors in a file whose pages left the cache: the batch arm reads them
// past the cache (cold_read.h) and builds the same graph as in memory.
TEST(HnswFile, ColdFileSameGraphAsInMemory) {
  const uint64_t seed = base::TestSeed();
  base::ScratchDir dir;
  Data d = testing::Clustered(3000, 64, 10, 0.5f, seed, seed + 1);
  Options o;
  o.dim = 64;
  o.seed = seed;
  o.batch_size = 125;  // one group a batch: the group after a cold one reads ahead
  std::unique_ptr<VectorIndex> mem = MustCreate(o);
  o.vector_file = dir.path() + "/cold.fvec";
  std::unique_ptr<VectorIndex> file = MustCreate(o);
  const std::vector<InsertItem> items = Items(d);
  for (size_t b = 0; b < items.size(); b += 125) {
    std::span<const InsertItem> part(items.data() + b, 125);
    ASSERT_TRUE(mem->InsertBatch(part).ok());
    ASSERT_TRUE(file->InsertBatch(part).ok());
    // Every vector so far out of the cache: the next batch meets them cold.
    // Written back, unmapped from this process (fadvise keeps mapped
    // pages), then dropped.
    const int fd = open(o.vector_file.c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(fdatasync(fd), 0);
    std::ifstream maps("/proc/self/maps");
    for (std::string line; std::getline(maps, line);) {
      if (line.size() < o.vector_file.size() || line.compare(line.size() - o.vector_file.size(), std::string::npos,
                                                              o.vector_file) != 0)
        continue;
      uintptr_t lo = 0, hi = 0;
      ASSERT_EQ(std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi), 2);
      madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_PAGEOUT);
    }
    ASSERT_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
    close(fd);
  }
  for (uint32_t i = 0; i < 3000; ++i) {
    ASSERT_EQ(mem->NodeLevel(i), file->NodeLevel(i));
    for (int layer = 0; layer <= mem->NodeLevel(i); ++layer)
      ASSERT_EQ(mem->Links(i, layer), file->Links(i, layer)) << "node " << i << " layer " << layer;
  }
  const int probe = open(o.vector_file.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (probe >= 0) {
    close(probe);
    EXPECT_GT(file->stats().pages_preloaded, 0u) << "cold vectors read past the cache";
  }
  EXPECT_EQ(mem->stats().pages_preloaded, 0u);
}

// Batches of one (Insert called per vector) and a batch larger than the
// graph so far (its first batch) both give a sound graph.
TEST(HnswBatch, OneAtATimeAndEmptyGraph) {
  const uint64_t seed = base::TestSeed();
  Data d = testing::Clustered(1500, 16, 10, 0.5f, seed, seed + 1);
  Data q = testing::Clustered(100, 16, 10, 0.5f, seed, seed + 2);
  auto truth = testing::Exact(d, q, kK);
  Options o;
  o.dim = 16;
  o.seed = seed;
  o.batch_size = 7;
  std::unique_ptr<VectorIndex> small = MustCreate(o);
  for (size_t i = 0; i < 500; ++i) ASSERT_TRUE(small->Insert(i, d.row(i)).ok());
  std::vector<InsertItem> rest = Items(d);
  ASSERT_TRUE(small->InsertBatch(std::span<const InsertItem>(rest).subspan(500)).ok());
  EXPECT_EQ(small->node_count(), 1500u);
  EXPECT_EQ(CheckGraph(*small), "");
  EXPECT_EQ(small->stats().processes_run, 1500u);
  EXPECT_GE(Hits(*small, q, truth, kK, 64), 100 * kK * 95 / 100);
}

// Cosine and inner product: the answers are the brute-force ones under that
// metric, and the distances are what the header says (1 - cos, 1 - a.b).
TEST(HnswMetrics, CosineAndInnerProduct) {
  const uint64_t seed = base::TestSeed();
  Data d = testing::Clustered(4000, 24, 20, 0.5f, seed, seed + 1);
  Data q = testing::Clustered(100, 24, 20, 0.5f, seed, seed + 2);
  auto dot = [](std::span<const float> a, std::span<const float> b) {
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i) s += double(a[i]) * double(b[i]);
    return s;
  };
  auto norm = [&](std::span<const float> a) { return std::sqrt(dot(a, a)); };
  for (Metric metric : {Metric::kCosine, Metric::kInnerProduct}) {
    auto dist = [&](std::span<const float> a, std::span<const float> b) {
      return metric == Metric::kCosine ? float(1.0 - dot(a, b) / (norm(a) * norm(b))) : float(1.0 - dot(a, b));
    };
    auto truth = testing::ExactBy(d, q, kK, dist);
    for (InsertArm arm : {InsertArm::kRow, InsertArm::kBatch}) {
      Options o;
      o.dim = 24;
      o.metric = metric;
      o.insert_arm = arm;
      o.seed = seed;
      std::unique_ptr<VectorIndex> index = MustCreate(o);
      ASSERT_TRUE(index->InsertBatch(Items(d)).ok());
      EXPECT_EQ(CheckGraph(*index), "");
      const uint64_t hits = Hits(*index, q, truth, kK, 64);
      std::printf("%s, %s: recall@10 at ef 64 %llu/%zu\n", std::string(MetricName(metric)).c_str(),
                  std::string(InsertArmName(arm)).c_str(), (unsigned long long)hits, 100 * kK);
      EXPECT_GE(hits, 100 * kK * 9 / 10);
      Result<std::vector<Hit>> r = index->Search(q.row(0), 3);
      ASSERT_TRUE(r.ok());
      for (const Hit& h : *r) EXPECT_NEAR(h.distance, dist(q.row(0), d.row(h.owner)), 1e-4);
    }
  }
}

TEST(HnswInput, BadVectorsAndOptionsChangeNothing) {
  Options o;
  o.dim = 4;
  o.metric = Metric::kCosine;
  std::unique_ptr<VectorIndex> index = MustCreate(o);
  const float good[4] = {1, 2, 3, 4};
  const float nan[4] = {1, std::nanf(""), 3, 4};
  const float inf[4] = {1, 2, INFINITY, 4};
  const float zero[4] = {0, 0, 0, 0};
  EXPECT_EQ(index->Insert(1, std::span<const float>(good, 3)).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(index->Insert(1, nan).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(index->Insert(1, inf).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(index->Insert(1, zero).code(), StatusCode::kInvalidArgument);
  InsertItem items[2] = {{1, good}, {2, nan}};
  EXPECT_EQ(index->InsertBatch(items).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(index->node_count(), 0u);
  EXPECT_EQ(index->stats().owners, 0u);
  EXPECT_EQ(index->Search(nan, 1).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(index->Search(std::span<const float>(good, 2), 1).status().code(), StatusCode::kInvalidArgument);
  Result<std::vector<Hit>> empty = index->Search(good, 5);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
  ASSERT_TRUE(index->Insert(1, good).ok());
  Result<std::vector<Hit>> one = index->Search(good, 5);
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 1u);
  EXPECT_NEAR((*one)[0].distance, 0.0f, 1e-6);

  auto bad = [](auto change) {
    Options o;
    o.dim = 8;
    change(o);
    return VectorIndex::Create(o).status().code();
  };
  EXPECT_EQ(bad([](Options& o) { o.dim = 0; }), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad([](Options& o) { o.m = 1; }), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad([](Options& o) { o.m = 129; }), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad([](Options& o) { o.batch_size = 0; }), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad([](Options& o) { o.oversample = 33; }), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad([](Options& o) { o.ef_search = 0; }), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad([](Options& o) { o.m = 16; }), StatusCode::kOk);
  Options o2;
  o2.dim = 8;
  o2.m = 32;
  o2.ef_construction = 10;
  std::unique_ptr<VectorIndex> resolved = MustCreate(o2);
  EXPECT_EQ(resolved->options().ef_construction, 32u);
  EXPECT_GE(resolved->options().threads, 1u);
}

// Searches run while batches are linked: they never fail, never return an
// owner not inserted yet, and return each owner at most once.
TEST(HnswConcurrency, SearchesDuringInserts) {
  const uint64_t seed = base::TestSeed();
  constexpr size_t n = 8192;  // 32 batches of 256
  Data d = testing::Clustered(n, 32, 20, 0.5f, seed, seed + 1);
  Options o;
  o.dim = 32;
  o.seed = seed;
  o.batch_size = 256;
  o.threads = 2;
  std::unique_ptr<VectorIndex> index = MustCreate(o);
  std::atomic<size_t> inserted{0};
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> searches{0}, bad{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&, t] {
      std::mt19937_64 rng(seed + 10 + t);
      while (!stop.load()) {
        Result<std::vector<Hit>> r = index->Search(d.row(rng() % n), 10, 32);
        // Owners below this may be returned: a returned node was published
        // before Search returned, so its batch had begun by then. Read after
        // the search, not before: a reader the scheduler put off for a few
        // milliseconds mid-search (four threads on two cores) sees batches
        // finish and begin meanwhile, and their nodes are fair answers.
        const size_t end = std::min(n, inserted.load() + 256);
        if (!r.ok()) {
          ++bad;
          continue;
        }
        std::vector<uint64_t> seen;
        for (const Hit& h : *r) {
          if (h.owner >= end || std::find(seen.begin(), seen.end(), h.owner) != seen.end()) ++bad;
          seen.push_back(h.owner);
        }
        ++searches;
      }
    });
  }
  std::vector<InsertItem> items = Items(d);
  for (size_t b = 0; b < n; b += 256) {
    ASSERT_TRUE(index->InsertBatch(std::span<const InsertItem>(items).subspan(b, 256)).ok());
    inserted.store(b + 256);
  }
  // Let the readers finish a few searches on the whole graph too.
  while (searches.load() < 200) std::this_thread::yield();
  stop.store(true);
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(bad.load(), 0u);
  EXPECT_EQ(CheckGraph(*index), "");
  std::printf("%llu searches during %zu inserts\n", (unsigned long long)searches.load(), n);
}

}  // namespace hnsw_test
}  // namespace fenec::index::vec
