// A request's work grows with the request and no faster: each
// case sends generated requests of doubling size (keys, fields, parameters,
// documents, tokens, groups, batch statements) and checks that the COUNTED
// work per unit does not grow from the smallest size to the largest (at
// most 2x): the NameTable probes and comparisons (work.h) and the heap
// allocations and peak heap bytes of this thread (counted by the operator
// new below). Counts, never times. The hash's secret is seeded from
// FENEC_SEED (logged) so the probe counts can be replayed.
//
// The largest sizes keep the test a few seconds at -O2: 1 Mi numbers in a
// vector literal (cheap: 4 bytes a number), 256 Ki where each unit is a
// parsed node or a JSON document, 64 Ki where each unit lands a row in the
// database (groups, batch statements). Under ASan (built at -O0, several
// times slower) each largest size is a quarter of that: still 32x or more
// from the smallest size to the largest.
#include <gtest/gtest.h>

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "fenec/database.h"
#include "engine/src/base/testing.h"
#include "engine/src/query/bind.h"
#include "engine/src/query/name_table.h"
#include "engine/src/query/service.h"
#include "engine/src/query/statement.h"
#include "engine/src/query/work.h"

namespace {

// This thread's heap: allocations made, bytes held now and at the peak.
struct Heap {
  uint64_t allocs = 0;
  int64_t bytes = 0;
  int64_t peak = 0;
};
thread_local Heap t_heap;

void* Allocate(size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (p == nullptr) throw std::bad_alloc();
  Heap& h = t_heap;
  ++h.allocs;
  h.bytes += static_cast<int64_t>(malloc_usable_size(p));
  h.peak = std::max(h.peak, h.bytes);
  return p;
}
void Free(void* p) {
  if (p == nullptr) return;
  t_heap.bytes -= static_cast<int64_t>(malloc_usable_size(p));
  std::free(p);
}

}  // namespace

// Every form that pairs with the plain delete, nothrow ones included
// (simdjson's buffers): under ASan a new it made and a free here would not match.
void* operator new(size_t n) { return Allocate(n); }
void* operator new[](size_t n) { return Allocate(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  try {
    return Allocate(n);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p) noexcept { Free(p); }
void operator delete[](void* p) noexcept { Free(p); }
void operator delete(void* p, size_t) noexcept { Free(p); }
void operator delete[](void* p, size_t) noexcept { Free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { Free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { Free(p); }

namespace fenec::query {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr size_t kShrink = 4;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr size_t kShrink = 4;
#else
constexpr size_t kShrink = 1;
#endif
#else
constexpr size_t kShrink = 1;
#endif

const bool kSeeded = SetNameHashSeedForTest(base::BinarySeed("query_work_test"));

// What one run of a request of `units` units cost, per unit.
struct Cost {
  size_t units = 0;
  double probes = 0;  // NameTable probes + comparisons
  double allocs = 0;
  double peak_bytes = 0;
};

template <typename Run>
Cost Measure(size_t units, Run&& run) {
  const WorkCounters w0 = Work();
  const uint64_t a0 = t_heap.allocs;
  t_heap.peak = t_heap.bytes;
  const int64_t b0 = t_heap.bytes;
  run();
  const WorkCounters& w = Work();
  Cost c;
  c.units = units;
  const double u = static_cast<double>(units);
  c.probes = static_cast<double>((w.name_probes - w0.name_probes) + (w.name_compares - w0.name_compares)) / u;
  c.allocs = static_cast<double>(t_heap.allocs - a0) / u;
  c.peak_bytes = static_cast<double>(t_heap.peak - b0) / u;
  return c;
}

// from, 2 from, ... up to `to` (to / kShrink under ASan, if `shrink`).
std::vector<size_t> Doubling(size_t from, size_t to, bool shrink = true) {
  std::vector<size_t> sizes;
  for (size_t n = from; n <= (shrink ? to / kShrink : to); n *= 2) sizes.push_back(n);
  return sizes;
}

// Per-unit cost at every size at most 2x the smallest size's (and, where a
// size's work is hashing, at least a probe a unit: the count is not vacuous).
void ExpectFlat(const std::string& what, const std::vector<Cost>& costs, bool hashed) {
  ASSERT_FALSE(costs.empty());
  const Cost& first = costs.front();
  std::string table;
  for (const Cost& c : costs) {
    table += fmt::format("  {:>8} units: {:6.2f} probes, {:6.3f} allocs, {:8.1f} peak bytes a unit\n", c.units,
                         c.probes, c.allocs, c.peak_bytes);
  }
  std::fprintf(stderr, "%s:\n%s", what.c_str(), table.c_str());
  for (const Cost& c : costs) {
    if (hashed) {
      EXPECT_GE(c.probes, 1.0) << what << " at " << c.units << "\n" << table;
    }
    EXPECT_LE(c.probes, 2 * first.probes + 0.01) << what << " at " << c.units << "\n" << table;
    EXPECT_LE(c.allocs, 2 * first.allocs + 0.01) << what << " at " << c.units << "\n" << table;
    EXPECT_LE(c.peak_bytes, 2 * first.peak_bytes + 1) << what << " at " << c.units << "\n" << table;
  }
}

// Limits out of the way: these cases are about work, not the caps.
Limits Unlimited() {
  Limits l;
  l.max_statement_bytes = l.max_tokens = l.max_params = l.max_doc_keys = l.max_docs = l.max_doc_values =
      l.max_batch_statements = size_t{1} << 40;
  return l;
}

TEST(WorkTest, Seeded) { EXPECT_TRUE(kSeeded) << "a name was hashed before the test set the secret"; }

// The bug's first case: PUT t {k0: 1, ..., kK: 1}, keys checked pairwise.
TEST(WorkTest, DocumentKeysParsed) {
  const Limits l = Unlimited();
  std::vector<Cost> costs;
  for (size_t n : Doubling(2048, 256 << 10)) {
    std::string text = "PUT t {";
    for (size_t i = 0; i < n; ++i) fmt::format_to(std::back_inserter(text), "{}k{}: 1", i ? ", " : "", i);
    text += "}";
    costs.push_back(Measure(n, [&] {
      ParseResult r = Parse(text, l);
      ASSERT_TRUE(r.ok()) << r.error.message;
      ASSERT_EQ(r.statement->docs[0].entries.size(), n);
    }));
    // A key given twice is still found, at the end of the text.
    ParseResult dup = Parse(text.substr(0, text.size() - 1) + ", k0: 2}", l);
    ASSERT_FALSE(dup.ok());
    EXPECT_NE(dup.error.message.find("'k0' given twice"), std::string::npos) << dup.error.message;
  }
  ExpectFlat("document keys, parsed", costs, true);
}

TEST(WorkTest, CreateFieldsParsed) {
  const Limits l = Unlimited();
  std::vector<Cost> costs;
  for (size_t n : Doubling(2048, 256 << 10)) {
    std::string text = "CREATE COLLECTION c (";
    for (size_t i = 0; i < n; ++i) fmt::format_to(std::back_inserter(text), "{}f{} INT", i ? ", " : "", i);
    text += ")";
    costs.push_back(Measure(n, [&] {
      ParseResult r = Parse(text, l);
      ASSERT_TRUE(r.ok()) << r.error.message;
      ASSERT_EQ(r.statement->fields.size(), n);
    }));
  }
  ExpectFlat("CREATE's fields, parsed", costs, true);
}

// Tokens are lexed one at a time: a vector literal of n numbers holds its
// floats (4 bytes each, up to 3x while its array grows), not 2n tokens of ~48.
TEST(WorkTest, TokensNotHeld) {
  const Limits l = Unlimited();
  std::vector<Cost> costs;
  for (size_t n : Doubling(2048, 1 << 20)) {
    std::string text = "PUT t {v: [";
    for (size_t i = 0; i < n; ++i) fmt::format_to(std::back_inserter(text), "{}{}", i ? "," : "", i % 10);
    text += "]}";
    const uint64_t tokens = Work().tokens;
    costs.push_back(Measure(n, [&] {
      ParseResult r = Parse(text, l);
      ASSERT_TRUE(r.ok()) << r.error.message;
      ASSERT_EQ(r.statement->docs[0].entries[0].value.literal.vector().size(), n);
    }));
    EXPECT_EQ(Work().tokens - tokens, 2 * n + 7);  // PUT t { v : [ n numbers, n-1 commas ] }
    EXPECT_LE(costs.back().peak_bytes, 16.0) << "bytes of heap a number at " << n;
  }
  ExpectFlat("a vector literal's numbers, parsed", costs, false);
}

class WorkDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Options o;
    o.durability = Durability::kBuffered;
    auto db = Database::Open(dir_.path() + "/db", o);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    svc_ = std::make_unique<Service>(db_.get(), Unlimited());
  }
  void TearDown() override {
    svc_.reset();
    if (db_) {
      EXPECT_TRUE(db_->Check().ok());
      EXPECT_TRUE(db_->Close().ok());
    }
  }
  void Create(const std::string& statement) {
    std::string body = fmt::format(R"j({{"statement": "{}"}})j", statement);
    Answer a = svc_->Query(body);
    ASSERT_EQ(a.http, 200) << a.body;
  }

  base::ScratchDir dir_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<Service> svc_;
};

// The bug's second case: a statement with many parameters, found by name.
TEST_F(WorkDbTest, Parameters) {
  Create("CREATE COLLECTION t (a INT)");
  for (bool named : {false, true}) {
    std::vector<Cost> costs;
    for (size_t n : Doubling(2048, 256 << 10)) {
      std::string body = R"j({"statement": "FIND t WHERE )j";
      for (size_t i = 0; i < n; ++i) {
        fmt::format_to(std::back_inserter(body), "{}a = ${}{}", i ? " AND " : "", named ? "p" : "", named ? i : i + 1);
      }
      body += named ? R"j( LIMIT 1", "params": {)j" : R"j( LIMIT 1", "params": [)j";
      for (size_t i = 0; i < n; ++i) {
        if (named) {
          fmt::format_to(std::back_inserter(body), R"j({}"p{}": {})j", i ? "," : "", i, i);
        } else {
          fmt::format_to(std::back_inserter(body), "{}{}", i ? "," : "", i);
        }
      }
      body += named ? "}}" : "]}";
      costs.push_back(Measure(n, [&] {
        Answer a = svc_->Query(body);
        ASSERT_EQ(a.http, 200) << a.body.substr(0, 300);
      }));
    }
    ExpectFlat(named ? "named parameters, planned and bound" : "positional parameters, planned and bound", costs,
               named);
  }
}

// JSON documents' keys: found by hash in the plan's field names, so a key
// costs the same in a schema of 4096 fields as in one of 8.
TEST_F(WorkDbTest, JsonDocumentKeysInAWideSchema) {
  std::string create = "CREATE COLLECTION wide (";
  for (int i = 0; i < 4096; ++i) create += fmt::format("{}f{} INT", i ? ", " : "", i);
  Create(create + ")");
  PlanResult plan = svc_->PlanFor("PUT wide $docs");
  ASSERT_TRUE(plan.ok()) << plan.error.message;
  std::vector<Cost> costs;
  for (size_t keys : Doubling(256, 4096, false)) {  // the schema's width bounds it
    // 64 documents, each with the schema's last `keys` fields.
    std::string body = "[";
    for (int d = 0; d < 64; ++d) {
      body += d ? ",{" : "{";
      for (size_t k = 0; k < keys; ++k) fmt::format_to(std::back_inserter(body), R"j({}"f{}":1)j", k ? "," : "", 4095 - k);
      body += "}";
    }
    body += "]";
    body.reserve(body.size() + simdjson::SIMDJSON_PADDING);
    sj::parser parser;
    costs.push_back(Measure(64 * keys, [&] {
      sj::document doc;
      ASSERT_FALSE(parser.iterate(simdjson::padded_string_view(body.data(), body.size(), body.capacity())).get(doc));
      sj::value root;
      ASSERT_FALSE(doc.get_value().get(root));
      JsonReader reader(body.data(), svc_->limits());
      std::vector<Document> docs;
      auto err = reader.ReadDocs(root, *plan.plan, "body", &docs);
      ASSERT_FALSE(err) << err->message;
      ASSERT_EQ(docs.size(), 64u);
    }));
  }
  // Each document is 4096 values wide whatever its keys: that memory is per
  // document (max_doc_values bounds it), so only the probes are judged here.
  for (Cost& c : costs) c.peak_bytes = c.allocs = 0;
  ExpectFlat("JSON keys in a 4096-field schema", costs, true);
}

TEST_F(WorkDbTest, JsonDocuments) {
  Create("CREATE COLLECTION t (a INT, b TEXT)");
  PlanResult plan = svc_->PlanFor("PUT t $docs");
  ASSERT_TRUE(plan.ok()) << plan.error.message;
  std::vector<Cost> costs;
  for (size_t n : Doubling(2048, 256 << 10)) {
    std::string body = "[";
    for (size_t i = 0; i < n; ++i) fmt::format_to(std::back_inserter(body), R"j({}{{"a":{},"b":"x"}})j", i ? "," : "", i);
    body += "]";
    body.reserve(body.size() + simdjson::SIMDJSON_PADDING);
    sj::parser parser;
    costs.push_back(Measure(n, [&] {
      sj::document doc;
      ASSERT_FALSE(parser.iterate(simdjson::padded_string_view(body.data(), body.size(), body.capacity())).get(doc));
      sj::value root;
      ASSERT_FALSE(doc.get_value().get(root));
      JsonReader reader(body.data(), svc_->limits());
      std::vector<Document> docs;
      auto err = reader.ReadDocs(root, *plan.plan, "body", &docs);
      ASSERT_FALSE(err) << err->message;
      ASSERT_EQ(docs.size(), n);
    }));
  }
  ExpectFlat("JSON documents", costs, true);
}

TEST_F(WorkDbTest, Groups) {
  Create("CREATE COLLECTION g (k INT, v INT)");
  const CollectionId cid = *db_->FindCollection("g");
  std::vector<Cost> costs;
  size_t have = 0;
  for (size_t n : Doubling(2048, 64 << 10)) {
    std::vector<Document> docs;
    for (; have < n; ++have) docs.push_back({Value(static_cast<int64_t>(have)), Value(int64_t{1})});
    ASSERT_TRUE(db_->PutBatch(cid, std::move(docs)).ok());
    std::string body = R"j({"statement": "AGGREGATE g COUNT(*), SUM(v) GROUP BY k"})j";
    costs.push_back(Measure(n, [&] {
      Answer a = svc_->Query(body);
      ASSERT_EQ(a.http, 200) << a.body.substr(0, 300);
      ASSERT_NE(a.body.find(fmt::format("[{},1,1]]", n - 1)), std::string::npos) << a.body.substr(a.body.size() - 100);
    }));
  }
  // The scan's rows are the engine's memory (n rows a read): only the probes are judged.
  for (Cost& c : costs) c.peak_bytes = c.allocs = 0;
  ExpectFlat("AGGREGATE ... GROUP BY, distinct groups", costs, true);
}

TEST_F(WorkDbTest, BatchStatements) {
  Create("CREATE COLLECTION t (a INT)");
  std::vector<Cost> costs;
  for (size_t n : Doubling(2048, 64 << 10)) {
    std::string body = R"j({"statements": [)j";
    for (size_t i = 0; i < n; ++i) {
      fmt::format_to(std::back_inserter(body), R"j({}{{"statement": "PUT t $1", "params": [{{"a": {}}}]}})j",
                     i ? "," : "", i);
    }
    body += "]}";
    costs.push_back(Measure(n, [&] {
      Answer a = svc_->Batch(body);
      ASSERT_EQ(a.http, 200) << a.body.substr(0, 300);
    }));
  }
  ExpectFlat("batch statements", costs, true);
}

}  // namespace
}  // namespace fenec::query
