// Serialize and Load: a round trip gives the same graph, the same answers
// and the same bytes; the kept open arm reads no vector to build the
// held-vector table, the naive arm reads them all (GR-4); truncated,
// garbled and lying bytes are kCorruption, never a crash. Counts only.
#include <gtest/gtest.h>
#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <random>
#include <unordered_map>
#include <vector>

#include "engine/src/base/coding.h"
#include "engine/src/base/testing.h"
#include "engine/src/index/vector/test_data.h"
#include "engine/src/index/vector/vector_index.h"

namespace fenec::index::vec {
namespace persist_test {

using testing::CheckGraph;
using testing::Data;
using testing::Items;

std::unique_ptr<VectorIndex> MustCreate(const Options& o) {
  Result<std::unique_ptr<VectorIndex>> r = VectorIndex::Create(o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(*r) : nullptr;
}

// What the database would hold: each owner's vector, and a count of reads.
struct Store {
  std::unordered_map<uint64_t, std::span<const float>> by_owner;
  uint64_t reads = 0;
  VectorIndex::VectorSource Source() {
    return [this](uint32_t, uint64_t owner, std::span<float> out) -> Status {
      ++reads;
      auto it = by_owner.find(owner);
      if (it == by_owner.end()) return Status::NotFound("no document " + std::to_string(owner));
      std::copy(it->second.begin(), it->second.end(), out.begin());
      return Status::OK();
    };
  }
};

// An index with every kind of node: plain, several owners, tombstones
// (erased, still linked) and dead ones (unlinked by Cleanup).
struct Built {
  std::unique_ptr<VectorIndex> index;
  Store store;
  uint64_t live_nodes = 0, table_nodes = 0;
};

Built Build(const Data& d, const Options& o, uint64_t seed) {
  Built b;
  b.index = MustCreate(o);
  const size_t n = d.size();
  EXPECT_TRUE(b.index->InsertBatch(Items(d)).ok());
  for (size_t i = 0; i < n; ++i) b.store.by_owner[i] = d.row(i);
  for (size_t i = 0; i < n; i += 7) {  // twins
    EXPECT_TRUE(b.index->Insert(n + i, d.row(i)).ok());
    b.store.by_owner[n + i] = d.row(i);
  }
  std::mt19937_64 rng(seed);
  auto erase_some = [&](int one_in) {
    for (size_t i = 0; i < n; ++i) {
      if (i % 7 == 0 || rng() % one_in != 0 || !b.store.by_owner.count(i)) continue;
      EXPECT_TRUE(b.index->Erase(i));
      b.store.by_owner.erase(i);
    }
  };
  erase_some(20);
  b.index->Cleanup();
  erase_some(20);  // tombstones left linked
  const Stats st = b.index->stats();
  EXPECT_GT(st.dead, 0u);
  EXPECT_GT(st.tombstones, 0u);
  b.live_nodes = st.nodes - st.dead - st.tombstones;
  b.table_nodes = st.nodes - st.dead;
  return b;
}

void ExpectSameGraph(const VectorIndex& a, const VectorIndex& b) {
  ASSERT_EQ(a.node_count(), b.node_count());
  for (uint32_t i = 0; i < a.node_count(); ++i) {
    ASSERT_EQ(a.NodeLevel(i), b.NodeLevel(i));
    for (int layer = 0; layer <= a.NodeLevel(i); ++layer) ASSERT_EQ(a.Links(i, layer), b.Links(i, layer));
  }
}

void ExpectSameAnswers(const VectorIndex& a, const VectorIndex& b, const Data& queries) {
  for (size_t q = 0; q < queries.size(); ++q) {
    Result<std::vector<Hit>> x = a.Search(queries.row(q), 10);
    Result<std::vector<Hit>> y = b.Search(queries.row(q), 10);
    ASSERT_TRUE(x.ok() && y.ok());
    ASSERT_EQ(x->size(), y->size());
    for (size_t i = 0; i < x->size(); ++i) {
      EXPECT_EQ((*x)[i].owner, (*y)[i].owner);
      EXPECT_EQ((*x)[i].distance, (*y)[i].distance);
    }
  }
}

TEST(VectorPersist, RoundTripIsTheSameIndex) {
  const uint64_t seed = base::TestSeed();
  Data d = testing::Clustered(4000, 32, 20, 0.5f, seed, seed + 1);
  Data q = testing::Clustered(100, 32, 20, 0.5f, seed, seed + 2);
  for (Quantization quant : {Quantization::kNone, Quantization::kBinary}) {
    for (Metric metric : {Metric::kL2, Metric::kCosine}) {
      Options o;
      o.dim = 32;
      o.metric = metric;
      o.quantization = quant;
      o.seed = seed;
      Built b = Build(d, o, seed + 3);
      std::vector<uint8_t> bytes;
      b.index->Serialize(&bytes);
      std::unique_ptr<VectorIndex> loaded = MustCreate(o);
      Status st = loaded->Load(bytes, b.store.Source());
      ASSERT_TRUE(st.ok()) << st.ToString();
      EXPECT_EQ(b.store.reads, b.live_nodes);  // one read a node with an owner, none for tombstones
      ExpectSameGraph(*b.index, *loaded);
      ExpectSameAnswers(*b.index, *loaded, q);
      const Stats x = b.index->stats(), y = loaded->stats();
      EXPECT_EQ(x.owners, y.owners);
      EXPECT_EQ(x.tombstones, y.tombstones);
      EXPECT_EQ(x.dead, y.dead);
      EXPECT_EQ(x.max_level, y.max_level);
      std::vector<uint8_t> again;
      loaded->Serialize(&again);
      EXPECT_EQ(bytes, again);
      for (uint64_t owner = 0; owner < 2 * d.size(); owner += 13) EXPECT_EQ(b.index->NodeOf(owner), loaded->NodeOf(owner));
      std::printf("%s, %s: %zu bytes for %u nodes (%llu live, %llu tombstones, %llu dead)\n",
                  std::string(MetricName(metric)).c_str(), quant == Quantization::kBinary ? "binary" : "float",
                  bytes.size(), loaded->node_count(), (unsigned long long)b.live_nodes,
                  (unsigned long long)y.tombstones, (unsigned long long)y.dead);
      // The loaded index takes writes like the original.
      ASSERT_TRUE(loaded->Insert(1u << 30, q.row(0)).ok());
      EXPECT_EQ(loaded->node_count(), b.index->node_count() + 1);
      EXPECT_EQ(CheckGraph(*loaded), "");
    }
  }
}

TEST(VectorPersist, KeptOpenReadsNoVectorNaiveReadsAll) {
  const uint64_t seed = base::TestSeed();
  Data d = testing::Clustered(3000, 16, 10, 0.5f, seed, seed + 1);
  for (OpenArm arm : {OpenArm::kKept, OpenArm::kNaive}) {
    Options o;
    o.dim = 16;
    o.seed = seed;
    o.open_arm = arm;
    Built b = Build(d, o, seed + 3);
    std::vector<uint8_t> bytes;
    b.index->Serialize(&bytes);
    std::unique_ptr<VectorIndex> loaded = MustCreate(o);
    ASSERT_TRUE(loaded->Load(bytes, b.store.Source()).ok());
    EXPECT_EQ(loaded->stats().vectors_read_after_load, 0u);
    EXPECT_EQ(loaded->stats().table_vectors_read, 0u);
    // The first write: a held vector under a new owner (no new node).
    ASSERT_TRUE(loaded->Insert(1u << 30, d.row(7)).ok());
    EXPECT_EQ(loaded->node_count(), b.index->node_count());
    EXPECT_EQ(loaded->stats().owner_hits, 1u);
    const Stats st = loaded->stats();
    std::printf("open %s: %llu vectors read to build the table after load (%llu nodes in it)\n",
                std::string(OpenArmName(arm)).c_str(), (unsigned long long)st.vectors_read_after_load,
                (unsigned long long)b.table_nodes);
    if (arm == OpenArm::kKept) {
      EXPECT_EQ(st.vectors_read_after_load, 0u);
      EXPECT_EQ(st.table_vectors_read, 0u);
    } else {
      EXPECT_EQ(st.vectors_read_after_load, b.table_nodes);
      EXPECT_EQ(st.table_vectors_read, b.table_nodes);
    }
    // Every held vector is found again (a rewrite adds no node).
    for (const auto& [owner, v] : b.store.by_owner) ASSERT_TRUE(loaded->Insert((2u << 30) + owner, v).ok());
    EXPECT_EQ(loaded->node_count(), b.index->node_count());
  }
}

TEST(VectorPersist, LoadRefusesWhatDoesNotFit) {
  const uint64_t seed = base::TestSeed();
  Data d = testing::Clustered(500, 8, 5, 0.5f, seed, seed + 1);
  Options o;
  o.dim = 8;
  o.seed = seed;
  Built b = Build(d, o, seed + 3);
  std::vector<uint8_t> bytes;
  b.index->Serialize(&bytes);
  // Not empty.
  EXPECT_EQ(b.index->Load(bytes, b.store.Source()).code(), StatusCode::kInvalidArgument);
  // Other dim, metric or m.
  for (int change = 0; change < 3; ++change) {
    Options other = o;
    if (change == 0) other.dim = 9;
    if (change == 1) other.metric = Metric::kInnerProduct;
    if (change == 2) other.m = 12;
    EXPECT_EQ(MustCreate(other)->Load(bytes, b.store.Source()).code(), StatusCode::kInvalidArgument);
  }
  // The source fails: its status, and the index stays empty and usable.
  std::unique_ptr<VectorIndex> loaded = MustCreate(o);
  uint64_t calls = 0;
  VectorIndex::VectorSource broken = [&](uint32_t node, uint64_t owner, std::span<float> out) -> Status {
    if (++calls == 100) return Status::NotFound("no document " + std::to_string(owner));
    return b.store.Source()(node, owner, out);
  };
  EXPECT_EQ(loaded->Load(bytes, broken).code(), StatusCode::kNotFound);
  EXPECT_EQ(calls, 100u);  // it stops at the first failure
  EXPECT_EQ(loaded->node_count(), 0u);
  ASSERT_TRUE(loaded->Load(bytes, b.store.Source()).ok());
  EXPECT_EQ(loaded->node_count(), b.index->node_count());
  // An empty index round-trips too.
  std::vector<uint8_t> empty;
  MustCreate(o)->Serialize(&empty);
  std::unique_ptr<VectorIndex> none = MustCreate(o);
  ASSERT_TRUE(none->Load(empty, b.store.Source()).ok());
  EXPECT_EQ(none->node_count(), 0u);
  ASSERT_TRUE(none->Insert(1, d.row(0)).ok());
}

// Recomputes the checksum over a changed body: the bytes then get past it,
// and the format checks must catch the lie.
void Reseal(std::vector<uint8_t>* bytes) {
  const size_t body = bytes->size() - 8;
  base::StoreFixed64(bytes->data() + body, XXH3_64bits(bytes->data(), body));
}

// Replaces the varint at `at` (reader offset) by `value`.
std::vector<uint8_t> WithVarint(const std::vector<uint8_t>& bytes, size_t at, uint64_t value) {
  base::ByteReader r(std::span<const uint8_t>(bytes).subspan(at));
  r.Varint();
  const size_t old_len = bytes.size() - at - r.remaining();
  std::vector<uint8_t> out(bytes.begin(), bytes.begin() + at);
  base::PutVarint(&out, value);
  out.insert(out.end(), bytes.begin() + at + old_len, bytes.end());
  Reseal(&out);
  return out;
}

TEST(VectorPersist, CorruptBytesAreCorruption) {
  const uint64_t seed = base::TestSeed();
  Data d = testing::Clustered(800, 8, 5, 0.5f, seed, seed + 1);
  Options o;
  o.dim = 8;
  o.m = 6;
  o.seed = seed;
  Built b = Build(d, o, seed + 3);
  std::vector<uint8_t> bytes;
  b.index->Serialize(&bytes);
  std::mt19937_64 rng(seed + 4);
  auto load = [&](const std::vector<uint8_t>& in) {
    std::unique_ptr<VectorIndex> fresh = MustCreate(o);
    Status st = fresh->Load(in, b.store.Source());
    if (!st.ok()) {
      EXPECT_EQ(fresh->node_count(), 0u) << "a failed Load left nodes";
    }
    return st;
  };
  ASSERT_TRUE(load(bytes).ok());

  // Truncated at every length of a seeded sample (and the short ones).
  for (int i = 0; i < 200; ++i) {
    const size_t len = i < 16 ? size_t(i) : rng() % bytes.size();
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + len);
    ASSERT_EQ(load(cut).code(), StatusCode::kCorruption) << "truncated to " << len;
  }
  // Garbled: one bit flipped anywhere.
  for (int i = 0; i < 200; ++i) {
    std::vector<uint8_t> bad = bytes;
    bad[rng() % bad.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    ASSERT_EQ(load(bad).code(), StatusCode::kCorruption);
  }
  // Lying counts under a good checksum. The header: magic (4), then
  // varints version, dim, metric, m, n, entry + 1, then the center byte.
  size_t at_n = 4;
  {
    base::ByteReader r(bytes);
    r.Fixed32();
    for (int f = 0; f < 4; ++f) r.Varint();
    at_n = bytes.size() - r.remaining();
  }
  const uint64_t n = b.index->node_count();
  for (uint64_t lie : {n + 1, n - 1, uint64_t{1} << 40, UINT64_MAX, uint64_t{0}})
    EXPECT_EQ(load(WithVarint(bytes, at_n, lie)).code(), StatusCode::kCorruption) << "node count " << lie;
  base::ByteReader r(std::span<const uint8_t>(bytes).subspan(at_n));
  r.Varint();
  const size_t at_entry = bytes.size() - r.remaining();
  for (uint64_t lie : {n + 1, n + 100, uint64_t{1} << 33})
    EXPECT_EQ(load(WithVarint(bytes, at_entry, lie)).code(), StatusCode::kCorruption) << "entry " << lie;
  r.Varint();
  const size_t at_first_node = bytes.size() - r.remaining() + 1;  // past the center byte (no center)
  const size_t at_owner_count = at_first_node + 6;                // level, flags, tag
  for (uint64_t lie : {uint64_t{0}, uint64_t{1}, uint64_t{1} << 50})  // node 0 has two owners
    EXPECT_EQ(load(WithVarint(bytes, at_owner_count, lie)).code(), StatusCode::kCorruption) << "owners " << lie;
  {
    std::vector<uint8_t> bad = bytes;
    bad[at_first_node] = 40;  // level 40 > 31
    Reseal(&bad);
    EXPECT_EQ(load(bad).code(), StatusCode::kCorruption);
    bad = bytes;
    bad[at_first_node + 1] = 0x80;  // an unknown flag
    Reseal(&bad);
    EXPECT_EQ(load(bad).code(), StatusCode::kCorruption);
  }

  // A seeded loop of resealed edits (a byte set, a byte dropped, a byte
  // added): whatever the result, no crash; a failure is a clean status
  // and an empty index; a success is a sound graph.
  int ok = 0, corrupt = 0, other = 0;
  for (int i = 0; i < 400; ++i) {
    std::vector<uint8_t> bad = bytes;
    const size_t at = rng() % (bad.size() - 8);
    switch (rng() % 3) {
      case 0: bad[at] = static_cast<uint8_t>(rng()); break;
      case 1: bad.erase(bad.begin() + static_cast<ptrdiff_t>(at)); break;
      case 2: bad.insert(bad.begin() + static_cast<ptrdiff_t>(at), static_cast<uint8_t>(rng())); break;
    }
    Reseal(&bad);
    std::unique_ptr<VectorIndex> fresh = MustCreate(o);
    Status st = fresh->Load(bad, b.store.Source());
    if (st.ok()) {
      ++ok;
      ASSERT_EQ(CheckGraph(*fresh), "") << "edit at " << at;
      for (size_t qi = 0; qi < 5; ++qi) ASSERT_TRUE(fresh->Search(d.row(qi * 97), 5).ok());
      ASSERT_TRUE(fresh->Insert(1u << 30, d.row(3)).ok());
    } else {
      EXPECT_EQ(fresh->node_count(), 0u);
      if (st.code() == StatusCode::kCorruption)
        ++corrupt;
      else
        ++other;  // a changed dim/metric/m (kInvalidArgument) or owner id (the source's kNotFound)
      EXPECT_TRUE(st.code() == StatusCode::kCorruption || st.code() == StatusCode::kInvalidArgument ||
                  st.code() == StatusCode::kNotFound)
          << st.ToString();
    }
  }
  std::printf("resealed edits: %d loaded (a sound graph), %d kCorruption, %d other refusals\n", ok, corrupt, other);
  EXPECT_GT(corrupt, 200);
}

// Graphs written before the levels were kept (center byte 1: thresholds
// only) still load: the codes depend on the thresholds alone, so they are
// the same; the levels are taken again from the loaded vectors, which may
// steer a walk a little differently; the next Serialize writes the new form.
TEST(VectorPersist, OlderGraphsWithTheCenterOnlyLoad) {
  const uint64_t seed = base::TestSeed();
  constexpr uint32_t kDim = 32;
  Data d = testing::Clustered(3000, kDim, 20, 0.5f, seed, seed + 1);
  Data q = testing::Clustered(100, kDim, 20, 0.5f, seed, seed + 2);
  Options o;
  o.dim = kDim;
  o.seed = seed;
  o.quantization = Quantization::kBinary;
  Built b = Build(d, o, seed + 3);
  std::vector<uint8_t> bytes;
  b.index->Serialize(&bytes);
  base::ByteReader r(bytes);
  r.Fixed32();
  for (int f = 0; f < 6; ++f) r.Varint();  // version, dim, metric, m, n, entry + 1
  const size_t at_center = bytes.size() - r.remaining();
  ASSERT_EQ(bytes[at_center], 2);
  const size_t thresholds = at_center + 1, levels = thresholds + kDim * 4, nodes = levels + 4 * kDim * 4;
  std::vector<uint8_t> old(bytes.begin(), bytes.begin() + at_center);
  old.push_back(1);
  old.insert(old.end(), bytes.begin() + thresholds, bytes.begin() + levels);
  old.insert(old.end(), bytes.begin() + nodes, bytes.end());
  Reseal(&old);
  std::unique_ptr<VectorIndex> loaded = MustCreate(o);
  Status st = loaded->Load(old, b.store.Source());
  ASSERT_TRUE(st.ok()) << st.ToString();
  ExpectSameGraph(*b.index, *loaded);
  EXPECT_EQ(loaded->MemoryBytes().vectors_binary, b.index->MemoryBytes().vectors_binary);
  uint64_t same = 0, total = 0;
  for (size_t i = 0; i < q.size(); ++i) {
    Result<std::vector<Hit>> x = b.index->Search(q.row(i), 10);
    Result<std::vector<Hit>> y = loaded->Search(q.row(i), 10);
    ASSERT_TRUE(x.ok() && y.ok());
    total += x->size();
    for (const Hit& h : *y)
      same += std::any_of(x->begin(), x->end(), [&](const Hit& g) { return g.owner == h.owner; });
  }
  std::printf("answers the same after loading the older form: %llu/%llu\n", (unsigned long long)same,
              (unsigned long long)total);
  EXPECT_GE(same, total * 95 / 100);
  std::vector<uint8_t> again;
  loaded->Serialize(&again);
  EXPECT_EQ(again.size(), bytes.size());  // the levels written again
  EXPECT_EQ(again[at_center], 2);
}

}  // namespace persist_test
}  // namespace fenec::index::vec
