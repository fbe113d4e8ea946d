// @hnsw fields in the database: NEAR finds each vector itself, with a WHERE,
// after deletes and a replacement, right after a put (the queue's exact
// scan), across Checkpoint + reopen (the graph loaded, not rebuilt: kKept
// reads no vector for its table, kNaive reads them all), in both insert arms
// and both journal modes, from a branch behind (rebuilt) and from a branch
// opened alone. Every figure asserted is a count; the recall and the vectors
// read at open are printed.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <atomic>
#include <filesystem>
#include <limits>
#include <random>
#include <thread>

#include "engine/src/base/testing.h"
#include "engine/src/db/branch.h"
#include "engine/src/db/row.h"
#include "fenec/database.h"

namespace fenec {
namespace vector_test {

constexpr uint32_t kDim = 16;

Schema DocSchema(VectorMetric metric = VectorMetric::kL2) {
  return Schema{{Field::Text("tag"), Field::Vector("emb", kDim).Hnsw(metric), Field::Int("n")}};
}

std::vector<float> RandomVector(std::mt19937_64& rng) {
  std::normal_distribution<float> g(0, 1);
  std::vector<float> v(kDim);
  for (float& x : v) x = g(rng);
  return v;
}

struct Loaded {
  std::vector<DocId> ids;
  std::vector<std::vector<float>> vectors;
};

// n documents, landed 50 a batch; n = i, tag "even"/"odd" by i.
Loaded PutDocs(Database* db, CollectionId c, size_t n, std::mt19937_64& rng) {
  Loaded out;
  for (size_t at = 0; at < n; at += 50) {
    std::vector<Document> docs;
    for (size_t i = at; i < std::min(n, at + 50); ++i) {
      out.vectors.push_back(RandomVector(rng));
      docs.push_back({Value(i % 2 ? "odd" : "even"), Value(out.vectors.back()), Value(static_cast<int64_t>(i))});
    }
    auto ids = db->PutBatch(c, std::move(docs));
    EXPECT_TRUE(ids.ok()) << ids.status().ToString();
    if (!ids.ok()) return out;
    out.ids.insert(out.ids.end(), ids->begin(), ids->end());
  }
  return out;
}

// The share of a seeded sample of the documents whose own vector finds them first.
double SelfRecall(Database* db, CollectionId c, const Loaded& l, size_t sample, std::mt19937_64& rng,
                  const NearOptions& o = {}) {
  size_t found = 0;
  for (size_t s = 0; s < sample; ++s) {
    size_t i = rng() % l.ids.size();
    auto hits = db->Near(c, "emb", l.vectors[i], o);
    EXPECT_TRUE(hits.ok()) << hits.status().ToString();
    if (hits.ok() && !hits->empty() && (*hits)[0].id == l.ids[i]) ++found;
  }
  return double(found) / double(sample);
}

std::unique_ptr<Database> OpenDb(const std::string& dir, const Options& o = {}) {
  auto db = Database::Open(dir, o);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  return db.ok() ? std::move(db).value() : nullptr;
}

class VectorTest : public base::ScratchTest {};

TEST_F(VectorTest, NearFindsEachVectorItselfAndHonoursWhere) {
  std::mt19937_64 rng(base::TestSeed());
  auto db = OpenDb(path("db"));
  auto c = db->CreateCollection("docs", DocSchema());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  Loaded l = PutDocs(db.get(), *c, 2000, rng);
  ASSERT_TRUE(db->WaitForIndexes().ok());
  Stats st = db->GetStats();
  EXPECT_EQ(st.vector_indexes, 1u);
  EXPECT_EQ(st.vector_owners, 2000u);
  EXPECT_EQ(st.vector_pending, 0u);
  EXPECT_EQ(st.vector_linked, 2000u);
  EXPECT_GT(st.vector_rounds, 0u);  // VS-1: kBatch is the default
  EXPECT_GT(st.vector_prelink_edges_added, 0u);

  const double recall = SelfRecall(db.get(), *c, l, 300, rng);
  fmt::print(stderr, "self-search recall at the default ef: {:.4f} (300 of 2000)\n", recall);
  EXPECT_GE(recall, 0.99);
  EXPECT_GT(db->GetStats().vector_searches, 0u);

  // WHERE: every answer matches it, and an even document still finds itself.
  NearOptions o;
  o.k = 20;
  o.where.Where("tag", CompareOp::kEq, Value("even"));
  size_t found = 0, tried = 0;
  for (size_t i = 0; i < l.ids.size(); i += 37) {
    auto hits = db->Near(*c, "emb", l.vectors[i], o);
    ASSERT_TRUE(hits.ok()) << hits.status().ToString();
    EXPECT_EQ(hits->size(), 20u);
    for (const NearHit& h : *hits) ASSERT_EQ(h.doc[0], Value("even")) << "id " << h.id;
    for (size_t k = 1; k < hits->size(); ++k) ASSERT_LE((*hits)[k - 1].distance, (*hits)[k].distance);
    if (i % 2 == 0) {
      ++tried;
      found += (*hits)[0].id == l.ids[i];
    }
  }
  EXPECT_GE(found, tried * 99 / 100);
  ASSERT_TRUE(db->Check().ok());
}

TEST_F(VectorTest, RightAfterItsPutEveryVectorIsFound) {
  // The linker may not have reached a vector yet: the queue's exact scan
  // answers for it, so each is found at once, every one.
  std::mt19937_64 rng(base::TestSeed());
  Options opt;
  opt.durability = Durability::kBuffered;  // many small commits, none waiting on fsync
  auto db = OpenDb(path("db"), opt);
  auto c = db->CreateCollection("docs", DocSchema());
  ASSERT_TRUE(c.ok());
  size_t found = 0;
  for (int i = 0; i < 400; ++i) {
    std::vector<float> v = RandomVector(rng);
    auto id = db->Put(*c, {Value("t"), Value(v), Value(int64_t{i})});
    ASSERT_TRUE(id.ok());
    NearOptions o;
    o.k = 1;
    auto hits = db->Near(*c, "emb", v, o);
    ASSERT_TRUE(hits.ok());
    found += !hits->empty() && (*hits)[0].id == *id && (*hits)[0].distance == 0;
  }
  EXPECT_EQ(found, 400u);
  fmt::print(stderr, "queued vectors scanned exactly by those NEARs: {}\n", db->GetStats().vector_pending_scanned);
}

TEST_F(VectorTest, DeletedNeverAnsweredAndReplacedFoundByItsNewVector) {
  std::mt19937_64 rng(base::TestSeed());
  auto db = OpenDb(path("db"));
  auto c = db->CreateCollection("docs", DocSchema());
  ASSERT_TRUE(c.ok());
  Loaded l = PutDocs(db.get(), *c, 600, rng);
  std::vector<size_t> gone;
  for (size_t i = 0; i < l.ids.size(); i += 7) {
    ASSERT_TRUE(db->Delete(*c, l.ids[i]).ok());
    gone.push_back(i);
  }
  // A replacement: the engine has no in-place update, so a document's new
  // vector is a delete and a put (a new id).
  std::vector<float> fresh = RandomVector(rng);
  ASSERT_TRUE(db->Delete(*c, l.ids[1]).ok());
  auto replaced = db->Put(*c, {Value("odd"), Value(fresh), Value(int64_t{1})});
  ASSERT_TRUE(replaced.ok());
  auto check = [&](const char* when) {
    SCOPED_TRACE(when);
    NearOptions o;
    o.k = 10;
    for (size_t i : gone) {
      auto hits = db->Near(*c, "emb", l.vectors[i], o);
      ASSERT_TRUE(hits.ok());
      for (const NearHit& h : *hits) ASSERT_NE(h.id, l.ids[i]) << "deleted document answered";
    }
    auto old = db->Near(*c, "emb", l.vectors[1], o);
    for (const NearHit& h : *old) ASSERT_NE(h.id, l.ids[1]);
    auto now = db->Near(*c, "emb", fresh, o);
    ASSERT_TRUE(now.ok());
    ASSERT_FALSE(now->empty());
    EXPECT_EQ((*now)[0].id, *replaced);
  };
  check("at once");
  ASSERT_TRUE(db->WaitForIndexes().ok());
  check("linked");
  EXPECT_EQ(db->GetStats().vector_tombstones, gone.size() + 1);
  ASSERT_TRUE(db->Checkpoint().ok());  // unlinks the tombstones
  EXPECT_EQ(db->GetStats().vector_cleanups_unlinked, gone.size() + 1);
  EXPECT_EQ(db->GetStats().vector_tombstones, 0u);
  check("cleaned up");
  ASSERT_TRUE(db->Check().ok());
  ASSERT_TRUE(db->Close().ok());
  db = OpenDb(path("db"));
  c = db->FindCollection("docs");
  check("reopened");
  EXPECT_EQ(db->GetStats().vector_owners, 600 - gone.size());
  ASSERT_TRUE(db->Check().ok());
}

// Closed (checkpointed), reopened: the graph is loaded, never relinked.
// Returns the vectors read to build the held-vector table at the first write.
uint64_t ReopenAndWrite(const std::string& dir, VectorOpen arm, const Loaded& l, std::mt19937_64& rng) {
  Options o;
  o.hnsw.open = arm;
  auto db = OpenDb(dir, o);
  if (!db) return UINT64_MAX;
  auto c = db->FindCollection("docs");
  Stats st = db->GetStats();
  EXPECT_EQ(st.branches_recovered, 1u);
  EXPECT_EQ(st.branches_rebuilt, 0u);
  EXPECT_EQ(st.vector_owners, l.ids.size());
  EXPECT_EQ(st.vector_linked, 0u);  // nothing relinked by the open
  EXPECT_EQ(st.vector_prelink_edges_added, 0u);
  EXPECT_EQ(st.vector_rounds, 0u);
  EXPECT_GE(SelfRecall(db.get(), *c, l, 100, rng), 0.99);
  auto id = db->Put(*c, {Value("new"), Value(RandomVector(rng)), Value(int64_t{-1})});
  EXPECT_TRUE(id.ok());
  EXPECT_TRUE(db->WaitForIndexes().ok());
  const uint64_t read = db->GetStats().vector_reads_after_load;
  if (id.ok()) {
    EXPECT_TRUE(db->Delete(*c, *id).ok());  // back to l's documents
  }
  return read;
}

TEST_F(VectorTest, ReopenLoadsTheGraphKeptOrNaive) {
  std::mt19937_64 rng(base::TestSeed());
  Loaded l;
  {
    auto db = OpenDb(path("db"));
    auto c = db->CreateCollection("docs", DocSchema());
    ASSERT_TRUE(c.ok());
    l = PutDocs(db.get(), *c, 1000, rng);
    ASSERT_TRUE(db->Close().ok());  // drains the queue, then checkpoints the graph
  }
  const uint64_t kept = ReopenAndWrite(path("db"), VectorOpen::kKept, l, rng);
  const uint64_t naive = ReopenAndWrite(path("db"), VectorOpen::kNaive, l, rng);
  fmt::print(stderr, "vectors read to build the table after open: kKept {}, kNaive {} (of {})\n", kept, naive,
             l.ids.size());
  EXPECT_EQ(kept, 0u);             // GR-4: the kept tags build it
  EXPECT_EQ(naive, l.ids.size());  // every held vector read and hashed

  BranchState st;
  ASSERT_TRUE(OpenBranchAlone(Env::Default(), path("db/Indexes/c0.f1.hnsw"), &st).ok());
  EXPECT_TRUE(st.hnsw);
  EXPECT_EQ(st.entries(), l.ids.size());
  EXPECT_EQ(st.dim, kDim);
  EXPECT_EQ(st.m, 16u);
  EXPECT_FALSE(st.graph.empty());
  EXPECT_TRUE(st.tail.empty());  // closed with a checkpoint
}

TEST_F(VectorTest, InsertArmsBothFindEveryVector) {
  for (VectorInsert arm : {VectorInsert::kBatch, VectorInsert::kRow}) {
    SCOPED_TRACE(arm == VectorInsert::kBatch ? "batch" : "row");
    std::mt19937_64 rng(base::TestSeed());
    Options o;
    o.hnsw.insert = arm;
    auto db = OpenDb(path(arm == VectorInsert::kBatch ? "batch" : "row"), o);
    auto c = db->CreateCollection("docs", DocSchema());
    ASSERT_TRUE(c.ok());
    Loaded l = PutDocs(db.get(), *c, 800, rng);
    ASSERT_TRUE(db->WaitForIndexes().ok());
    Stats st = db->GetStats();
    EXPECT_EQ(st.vector_linked, 800u);
    if (arm == VectorInsert::kBatch) {
      EXPECT_GT(st.vector_rounds, 0u);
      EXPECT_GT(st.vector_prelink_edges_added, 0u);
      EXPECT_LE(st.vector_link_batches, 800u);
    } else {
      EXPECT_EQ(st.vector_rounds, 0u);
      EXPECT_EQ(st.vector_prelink_edges_added, 0u);
      EXPECT_EQ(st.vector_link_batches, 800u);  // one vector a round
    }
    EXPECT_GE(SelfRecall(db.get(), *c, l, 200, rng), 0.99);
  }
}

TEST_F(VectorTest, TheQueueStaysWithinItsBound) {
  // Writers outpace a row-by-row linker; the queue (what a NEAR scans
  // exactly) never holds more than queue_bound vectors, however it is read.
  std::mt19937_64 rng(base::TestSeed());
  Options o;
  o.durability = Durability::kBuffered;
  o.hnsw.insert = VectorInsert::kRow;
  o.hnsw.queue_bound = 64;
  auto db = OpenDb(path("db"), o);
  auto c = db->CreateCollection("docs", DocSchema());
  ASSERT_TRUE(c.ok());
  std::vector<std::vector<float>> vs(4 * 300);
  for (auto& v : vs) v = RandomVector(rng);
  std::atomic<bool> done{false};
  uint64_t most = 0;
  std::thread reader([&] {
    while (!done.load()) most = std::max(most, db->GetStats().vector_pending);
  });
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w)
    writers.emplace_back([&, w] {
      for (int i = 0; i < 300; ++i) EXPECT_TRUE(db->Put(*c, {Value("w"), Value(vs[w * 300 + i]), Value(int64_t{i})}).ok());
    });
  for (auto& t : writers) t.join();
  done = true;
  reader.join();
  ASSERT_TRUE(db->WaitForIndexes().ok());
  Stats st = db->GetStats();
  fmt::print(stderr, "most vectors queued: {} (bound 64); writers that waited for room: {}\n", most,
             st.vector_queue_waits);
  EXPECT_LE(most, 64u);
  EXPECT_EQ(st.vector_linked, 1200u);
  EXPECT_EQ(st.vector_pending, 0u);
  ASSERT_TRUE(db->Check().ok());
}

TEST_F(VectorTest, BinaryCodesAndTheNaiveTableFindEveryVector) {
  for (int arm = 0; arm < 2; ++arm) {
    SCOPED_TRACE(arm == 0 ? "binary codes (VS-2)" : "naive table (GR-3)");
    std::mt19937_64 rng(base::TestSeed());
    Options o;
    if (arm == 0) o.hnsw.quantization = VectorQuantization::kBinary;
    else o.hnsw.table = VectorTable::kNaive;
    auto db = OpenDb(path(arm == 0 ? "binary" : "naive"), o);
    auto c = db->CreateCollection("docs", DocSchema());
    ASSERT_TRUE(c.ok());
    // Past the library's center sample (1024 vectors), where the codes start.
    Loaded l = PutDocs(db.get(), *c, 1500, rng);
    ASSERT_TRUE(db->WaitForIndexes().ok());
    Stats st = db->GetStats();
    EXPECT_EQ(st.vector_bytes_binary > 0, arm == 0);
    EXPECT_GT(st.vector_bytes_full, 0u);
    EXPECT_GT(st.vector_bytes_graph, 0u);
    EXPECT_GE(SelfRecall(db.get(), *c, l, 200, rng), 0.99);
    fmt::print(stderr, "{}: table growths {}, entries moved {} (most in one {})\n", arm == 0 ? "binary" : "naive",
               st.vector_table_growths, st.vector_table_entries_moved, st.vector_table_max_entries_moved);
  }
}

TEST_F(VectorTest, JournalModesRecoverTheBranchTail) {
  // Closed with no checkpoint: the graph comes back from the branch's own
  // journal records (its tail), linked at open, in either journal mode.
  for (Journals mode : {Journals::kShared, Journals::kSeparate}) {
    const std::string dir = path(mode == Journals::kShared ? "shared" : "separate");
    SCOPED_TRACE(dir);
    std::mt19937_64 rng(base::TestSeed());
    Options o;
    o.journals = mode;
    o.checkpoint_on_close = false;
    Loaded l;
    {
      auto db = OpenDb(dir, o);
      auto c = db->CreateCollection("docs", DocSchema());
      ASSERT_TRUE(c.ok());
      l = PutDocs(db.get(), *c, 500, rng);
      ASSERT_TRUE(db->Delete(*c, l.ids[0]).ok());
      EXPECT_EQ(db->GetStats().journals_shared, mode == Journals::kShared);
      ASSERT_TRUE(db->Close().ok());
    }
    BranchState st;
    ASSERT_TRUE(OpenBranchAlone(Env::Default(), dir + "/Indexes/c0.f1.hnsw", &st).ok());
    EXPECT_TRUE(st.graph.empty());
    EXPECT_EQ(st.tail.size(), 501u);  // 500 puts, 1 erase
    EXPECT_EQ(st.entries(), 499u);
    auto db = OpenDb(dir, o);
    auto c = db->FindCollection("docs");
    Stats s = db->GetStats();
    EXPECT_EQ(s.branches_recovered, 1u);
    EXPECT_EQ(s.vector_linked, 500u);  // the tail, linked at open
    EXPECT_EQ(s.vector_owners, 499u);
    l.ids.erase(l.ids.begin());
    l.vectors.erase(l.vectors.begin());
    EXPECT_GE(SelfRecall(db.get(), *c, l, 100, rng), 0.99);
    ASSERT_TRUE(db->Check().ok());
  }
}

TEST_F(VectorTest, BranchGoneIsRebuiltFromTheDocuments) {
  std::mt19937_64 rng(base::TestSeed());
  Loaded l;
  {
    auto db = OpenDb(path("db"));
    auto c = db->CreateCollection("docs", DocSchema(VectorMetric::kCosine));
    ASSERT_TRUE(c.ok());
    l = PutDocs(db.get(), *c, 400, rng);
    ASSERT_TRUE(db->Close().ok());
  }
  std::filesystem::remove_all(path("db/Indexes/c0.f1.hnsw"));
  auto db = OpenDb(path("db"));
  auto c = db->FindCollection("docs");
  EXPECT_EQ(db->GetStats().branches_rebuilt, 1u);
  EXPECT_EQ(db->GetStats().vector_owners, 400u);
  EXPECT_GE(SelfRecall(db.get(), *c, l, 100, rng), 0.99);
  // Cosine: a scaled vector is the same direction.
  std::vector<float> scaled = l.vectors[5];
  for (float& x : scaled) x *= 3;
  auto hits = db->Near(*c, "emb", scaled, NearOptions{});
  ASSERT_TRUE(hits.ok());
  EXPECT_EQ((*hits)[0].id, l.ids[5]);
  ASSERT_TRUE(db->Check().ok());
}

TEST_F(VectorTest, BadSchemasQueriesAndPutsAreRefused) {
  auto invalid = [](const Schema& s) { return s.Validate().code() == StatusCode::kInvalidArgument; };
  EXPECT_TRUE(invalid(Schema{{Field::Int("n").Hnsw()}}));
  EXPECT_TRUE(invalid(Schema{{Field::Vector("v", 4).Hnsw().Unique()}}));
  Field bad = Field::Vector("v", 4).Hnsw();
  bad.metric = static_cast<VectorMetric>(9);
  EXPECT_TRUE(invalid(Schema{{bad}}));
  EXPECT_TRUE(Schema{{Field::Vector("v", 4).Hnsw(VectorMetric::kInnerProduct)}}.Validate().ok());

  Options bad_opts;
  bad_opts.hnsw.m = 1;
  EXPECT_EQ(Database::Open(path("x"), bad_opts).status().code(), StatusCode::kInvalidArgument);

  auto db = OpenDb(path("db"));
  auto c = db->CreateCollection("docs", Schema{{Field::Text("tag"), Field::Vector("emb", 3).Hnsw(VectorMetric::kCosine),
                                                Field::Vector("plain", 3)}});
  ASSERT_TRUE(c.ok());
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  auto put = [&](std::vector<float> v) { return db->Put(*c, {Value("t"), Value(std::move(v)), Value()}).status(); };
  EXPECT_EQ(put({1, nan, 3}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(put({1, inf, 3}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(put({0, 0, 0}).code(), StatusCode::kInvalidArgument);  // cosine: no direction
  ASSERT_TRUE(put({1, 2, 3}).ok());
  EXPECT_EQ(*db->Count(*c), 1u);

  auto code = [&](int field, std::vector<float> q, NearOptions o = {}) {
    return db->Near(*c, field, q, o).status().code();
  };
  EXPECT_EQ(code(1, {1, 2}), StatusCode::kInvalidArgument);      // wrong dim
  EXPECT_EQ(code(1, {1, nan, 2}), StatusCode::kInvalidArgument); // NaN
  EXPECT_EQ(code(1, {1, -inf, 2}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code(1, {0, 0, 0}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code(2, {1, 2, 3}), StatusCode::kInvalidArgument);   // no @hnsw
  EXPECT_EQ(code(0, {1, 2, 3}), StatusCode::kInvalidArgument);   // not a vector
  EXPECT_EQ(code(7, {1, 2, 3}), StatusCode::kInvalidArgument);   // no such field
  NearOptions big;
  big.k = NearOptions::kMaxK + 1;
  EXPECT_EQ(code(1, {1, 2, 3}, big), StatusCode::kInvalidArgument);
  big.k = 0;
  EXPECT_EQ(code(1, {1, 2, 3}, big), StatusCode::kInvalidArgument);
  NearOptions where;
  where.where.Where("nothing", CompareOp::kEq, Value(1));
  EXPECT_EQ(code(1, {1, 2, 3}, where), StatusCode::kInvalidArgument);
  EXPECT_EQ(db->Near(CollectionId{9}, 1, std::vector<float>{1, 2, 3}).status().code(), StatusCode::kNotFound);
  EXPECT_NEAR(db->Near(*c, "emb", std::vector<float>{2, 4, 6}).value().at(0).distance, 0.0f, 1e-5);
  ASSERT_TRUE(db->Close().ok());
  EXPECT_EQ(db->Near(*c, 1, std::vector<float>{1, 2, 3}).status().code(), StatusCode::kClosed);
}

TEST(VectorCatalog, SchemasWrittenBeforeHnswReadAsNoIndex) {
  // A vector field's flags byte as catalogs held it before @hnsw: no bit 4,
  // no metric byte after it.
  base::Bytes old;
  base::PutVarint(&old, 2);
  base::PutString(&old, "emb");
  old.push_back(static_cast<uint8_t>(FieldType::kVector));
  base::PutVarint(&old, 8);
  old.push_back(0);
  base::PutString(&old, "name");
  old.push_back(static_cast<uint8_t>(FieldType::kText));
  base::PutVarint(&old, 0);
  old.push_back(1);  // @unique
  base::ByteReader in(old);
  Schema s;
  ASSERT_TRUE(DecodeSchema(&in, &s));
  EXPECT_TRUE(in.done());
  ASSERT_EQ(s.fields.size(), 2u);
  EXPECT_FALSE(s.fields[0].hnsw);
  EXPECT_TRUE(s.fields[1].unique);
  // And a schema without @hnsw still encodes to exactly those bytes.
  base::Bytes now;
  EncodeSchema(Schema{{Field::Vector("emb", 8), Field::Text("name").Unique()}}, &now);
  EXPECT_EQ(now, old);
  // With it: bit 4 and the metric.
  base::Bytes with;
  EncodeSchema(Schema{{Field::Vector("emb", 8).Hnsw(VectorMetric::kCosine)}}, &with);
  base::ByteReader in2(with);
  ASSERT_TRUE(DecodeSchema(&in2, &s));
  EXPECT_TRUE(s.fields[0].hnsw);
  EXPECT_EQ(s.fields[0].metric, VectorMetric::kCosine);
}

}  // namespace vector_test
}  // namespace fenec
