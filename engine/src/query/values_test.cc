// Values at the boundary, as generated cases: every defect of every type,
// sent every way a value can arrive, must be refused with a 4xx whose body
// is valid JSON naming `where`, and must leave every collection as it was.
//
//   types    INT, FLOAT, TEXT, VECTOR(2), VECTOR(2) @hnsw; collection and field names
//   defects  out of range (past int64, past a double, past a float for vector
//            elements), NaN and infinities, lone / swapped surrogates (as FenecQL
//            escapes, as JSON escapes), bytes that are not UTF-8 (raw, in the body);
//            repeated attributes, field names and keys
//   ways     a FenecQL literal in a PUT, a WHERE / NEAR, and a /batch; a positional
//            and a named parameter, a WHERE / NEAR parameter, a $docs parameter, a
//            /batch parameter; a /docs body; the C++ API's Put and PutBatch
//
// A batch or a /docs body puts a good document before the bad one, so "nothing
// stored" also checks all-or-nothing. Valid edge values round-trip in
// values_roundtrip_test.cc.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fenec/database.h"
#include "engine/src/base/testing.h"
#include "engine/src/query/answer_check.h"
#include "engine/src/query/service.h"
#include "engine/src/query/value_defects.h"

namespace fenec::query {
namespace values_test {

struct Type {
  std::string field;   // in collection t
  std::vector<Defect> defects;
};

// Public: the helper that sends a value every way is shared by the tests.
class ValuesTest : public ::testing::Test {
 public:
  void SetUp() override {
    Options o;
    o.durability = Durability::kBuffered;  // these tests count answers, not fsyncs
    auto db = Database::Open(dir_.path() + "/db", o);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    svc_ = std::make_unique<Service>(db_.get());
    Ok(Query("CREATE COLLECTION t (i INT, f FLOAT, s TEXT, v VECTOR(2), h VECTOR(2) @hnsw)"));
    Ok(Query("PUT t {i: 7, f: 0.5, s: 'seed', v: [1, 2], h: [3, 4]}"));
    cid_ = *db_->FindCollection("t");
  }
  void TearDown() override {
    if (db_) {
      EXPECT_TRUE(db_->Check().ok());
      EXPECT_TRUE(db_->Close().ok());
    }
  }

  // statement: the text inside the JSON string; params: JSON or "".
  Answer Query(const std::string& statement, const std::string& params = "") {
    std::string body = "{\"statement\": \"" + statement + "\"";
    if (!params.empty()) body += ", \"params\": " + params;
    body += "}";
    return svc_->Query(body);
  }
  Answer Batch(const std::string& statements) {
    std::string body = "{\"statements\": [" + statements + "]}";
    return svc_->Batch(body);
  }
  Answer Docs(const std::string& collection, std::string body) { return svc_->PutDocs(collection, body); }
  void Ok(const Answer& a) { ASSERT_EQ(a.http, 200) << a.body; }

  // Every collection's name and every document: what a rejected request must not change.
  std::string State() {
    std::string out;
    for (const std::string& name : db_->ListCollections()) {
      out += name + ": " + Query("FIND " + name).body + "\n";
    }
    return out;
  }

  // One generated case: a 4xx, valid JSON with a `where`, nothing changed.
  void ExpectRefused(const std::string& label, const Answer& a, const std::string& before) {
    ++cases_;
    EXPECT_GE(a.http, 400) << label << " -> " << a.body;
    EXPECT_LT(a.http, 500) << label << " -> " << a.body;
    EXPECT_EQ(JsonProblem(a.body), "") << label;
    EXPECT_NE(ErrorWhere(a.body), "") << label << " -> " << a.body;
    EXPECT_EQ(State(), before) << label << " -> " << a.body;
  }
  void ExpectRefused(const std::string& label, const Status& s, const std::string& before) {
    ++cases_;
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << label << " -> " << s.ToString();
    EXPECT_EQ(State(), before) << label;
  }

  base::ScratchDir dir_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<Service> svc_;
  CollectionId cid_{};
  size_t cases_ = 0;
};

// Sends value d for field f of t every way a value arrives, calling check
// with each answer (or the API's Status). A PUT with two values puts the
// good one in another field; a batch or a /docs body puts a good document
// first, so a refusal must also drop that one.
using WayCheck = std::function<void(const std::string& way, const Answer* answer, const Status* status)>;

void ValuesTestEveryWay(ValuesTest& t, const std::string& f, const Defect& d, const WayCheck& check);

TEST_F(ValuesTest, EveryBadValueEveryWayIsRefusedAndStoresNothing) {
  const std::vector<Type> types = {
      {"i", NumberDefects(true)}, {"f", NumberDefects(false)}, {"s", TextDefects()},
      {"v", VectorDefects()},     {"h", VectorDefects()},
  };
  // Each way first with a good value: accepted, so a refusal below is the
  // defect's doing and not a slip in the request around it.
  const std::map<std::string, Defect> good = {
      {"i", {"good", "5", "5", Value(5)}},
      {"f", {"good", "2.5", "2.5", Value(2.5)}},
      {"s", {"good", "'fine'", "\"fine\"", Value("fine")}},
      {"v", {"good", "[0.5, 0.25]", "[0.5, 0.25]", Value(std::vector<float>{0.5f, 0.25f})}},
      {"h", {"good", "[0.5, 0.25]", "[0.5, 0.25]", Value(std::vector<float>{0.5f, 0.25f})}},
  };
  size_t accepted = 0;
  for (const auto& [f, d] : good) {
    ValuesTestEveryWay(*this, f, d, [&](const std::string& way, const Answer* a, const Status* s) {
      ++accepted;
      if (a) {
        EXPECT_EQ(a->http, 200) << f << " / " << way << " -> " << a->body;
      }
      if (s) {
        EXPECT_TRUE(s->ok()) << f << " / " << way << " -> " << s->ToString();
      }
    });
  }
  EXPECT_EQ(accepted, 5u * 11 - 2);  // 11 ways; v has no WHERE

  std::map<std::string, size_t> per_way;
  const std::string before = State();
  for (const Type& type : types) {
    for (const Defect& d : type.defects) {
      // The codes each way answered, logged: which layer caught the defect.
      std::string codes;
      ValuesTestEveryWay(*this, type.field, d, [&](const std::string& way, const Answer* a, const Status* s) {
        ++per_way[way];
        const std::string label = type.field + " / " + d.name + " / " + way;
        if (a) {
          ExpectRefused(label, *a, before);
          codes += " " + ErrorCode(a->body);
        }
        if (s) {
          ExpectRefused(label, *s, before);
          codes += s->ok() ? " ok" : " status";
        }
      });
      std::printf("%s / %-30s%s\n", type.field.c_str(), d.name.c_str(), codes.c_str());
    }
  }
  for (const auto& [way, n] : per_way) std::printf("%-22s %zu cases\n", way.c_str(), n);
  std::printf("values: %zu generated cases\n", cases_);
  // 41 defects: 10 int, 7 float, 12 text, 6 for each vector field. Each has
  // a FenecQL form (3 literal ways; WHERE skips v's 6: 35); all but one text
  // defect have a JSON form (6 ways; WHERE skips v: 34); 20 can be held in a
  // Value (3 float, 11 text, 3 for each vector field) for the 2 API ways.
  EXPECT_EQ(per_way["literal PUT"], 41u);
  EXPECT_EQ(per_way["literal WHERE"], 35u);
  EXPECT_EQ(per_way["literal in a batch"], 41u);
  EXPECT_EQ(per_way["parameter $1"], 40u);
  EXPECT_EQ(per_way["WHERE parameter"], 34u);
  EXPECT_EQ(per_way["/docs body"], 40u);
  EXPECT_EQ(per_way["API Put"], 20u);
  EXPECT_EQ(cases_, 41u * 2 + 35 + 40u * 5 + 34 + 20u * 2);
  // What a client reads about a lone surrogate, as a literal and in JSON.
  for (const Answer& a : {Query("PUT t {s: '\\\\uD800'}"), Docs("t", "[{\"s\": \"\\uD800\"}]")}) {
    EXPECT_NE(a.body.find("surrogate"), std::string::npos) << a.body;
    std::printf("%s\n", a.body.c_str());
  }
}

void ValuesTestEveryWay(ValuesTest& t, const std::string& f, const Defect& d, const WayCheck& check) {
  // A vector cannot be compared: its WHERE is a NEAR, on the @hnsw field only.
  const bool vector = f == "v" || f == "h";
  const bool where = !vector || f == "h";
  auto cond = [&](const std::string& value) {
    return vector ? "FIND t NEAR h " + value : "FIND t WHERE " + f + " = " + value;
  };
  const std::string other_ql = f == "i" ? "s: 'ok'" : "i: 1";
  const std::string first_doc = f == "i" ? "{\"s\": \"ok\"}" : "{\"i\": 1}";
  auto send = [&](const std::string& way, const Answer& a) { check(way, &a, nullptr); };
  if (!d.ql.empty()) {
    send("literal PUT", t.Query("PUT t {" + other_ql + ", " + f + ": " + d.ql + "}"));
    if (where) send("literal WHERE", t.Query(cond(d.ql)));
    send("literal in a batch",
         t.Batch("{\"statement\": \"PUT t {" + other_ql + "}\"}, {\"statement\": \"PUT t {" + f + ": " + d.ql + "}\"}"));
  }
  if (!d.json.empty()) {
    send("parameter $1", t.Query("PUT t {" + other_ql + ", " + f + ": $1}", "[" + d.json + "]"));
    send("parameter $name", t.Query("PUT t {" + f + ": $x}", "{\"x\": " + d.json + "}"));
    if (where) send("WHERE parameter", t.Query(cond("$1"), "[" + d.json + "]"));
    send("$docs parameter", t.Query("PUT t $docs", "{\"docs\": [" + first_doc + ", {\"" + f + "\": " + d.json + "}]}"));
    send("/docs body", t.Docs("t", "[" + first_doc + ", {\"" + f + "\": " + d.json + "}]"));
    send("parameter in a batch", t.Batch("{\"statement\": \"PUT t {" + other_ql + "}\"}, "
                                         "{\"statement\": \"PUT t {" + f + ": $1}\", \"params\": [" + d.json + "]}"));
  }
  if (d.api) {
    static const std::map<std::string, int> index = {{"i", 0}, {"f", 1}, {"s", 2}, {"v", 3}, {"h", 4}};
    Document doc(5), first(5);
    doc[index.at(f)] = *d.api;
    first[f == "i" ? 2 : 0] = f == "i" ? Value("ok") : Value(1);
    Status put = t.db_->Put(t.cid_, doc).status();
    check("API Put", nullptr, &put);
    Status batch = t.db_->PutBatch(t.cid_, {first, doc}).status();
    check("API PutBatch", nullptr, &batch);
  }
}

// Collection and field names: the same defects, and control characters.
TEST_F(ValuesTest, EveryBadNameEveryWayIsRefusedAndStoresNothing) {
  struct NameDefect {
    std::string name;
    std::string ident;  // inside the JSON statement where an identifier stands
    std::string qlstr;  // inside a FenecQL string, inside the JSON statement
    std::string json;   // inside a JSON string
    std::string bytes;  // the bytes an API or a path would carry
  };
  const std::vector<NameDefect> defects = {
      {"lone high surrogate", "a\\uD800", "a\\\\uD800", "a\\uD800", "a\xED\xA0\x80"},
      {"lone low surrogate", "a\\uDC00", "a\\\\uDC00", "a\\uDC00", "a\xED\xB0\x80"},
      {"swapped pair", "a\\uDC00\\uD800", "a\\\\uDC00\\\\uD800", "a\\uDC00\\uD800", "a\xED\xB0\x80\xED\xA0\x80"},
      {"raw 0xFF", "a\xFF", "a\xFF", "a\xFF", "a\xFF"},
      {"raw cut short", "a\xC3", "a\xC3", "a\xC3", "a\xC3"},
      {"raw overlong", "a\xC0\xAF", "a\xC0\xAF", "a\xC0\xAF", "a\xC0\xAF"},
      {"raw past U+10FFFF", "a\xF4\x90\x80\x80", "a\xF4\x90\x80\x80", "a\xF4\x90\x80\x80", "a\xF4\x90\x80\x80"},
      {"control character", "a\\u0001", "a\\\\u0001", "a\\u0001", "a\x01"},
  };
  const std::string before = State();
  Schema good{{Field::Int("a")}};
  for (const NameDefect& d : defects) {
    auto run = [&](const std::string& way, const auto& answer) { ExpectRefused(d.name + " / " + way, answer, before); };
    // Collection names.
    run("collection: CREATE", Query("CREATE COLLECTION " + d.ident + " (a INT)"));
    run("collection: /docs path", Docs(d.bytes, "[{}]"));
    run("collection: GET path", svc_->GetDoc(d.bytes, "1"));
    run("collection: API", db_->CreateCollection(d.bytes, good).status());
    // Field names.
    run("field: CREATE", Query("CREATE COLLECTION u (" + d.ident + " INT)"));
    run("field: quoted key in PUT", Query("PUT t {'" + d.qlstr + "': 1}"));
    run("field: /docs key", Docs("t", "[{\"i\": 1}, {\"" + d.json + "\": 1}]"));
    run("field: $docs key", Query("PUT t $docs", "{\"docs\": [{\"" + d.json + "\": 1}]}"));
    run("field: parameter name", Query("PUT t {i: $x}", "{\"x\": 1, \"" + d.json + "\": 2}"));
    run("field: API", db_->CreateCollection("u", Schema{{Field::Int(d.bytes)}}).status());
  }
  std::printf("names: %zu generated cases\n", cases_);
  EXPECT_EQ(cases_, 8u * 10);
}

// Repeated attributes, field names and keys; keys a request does not have.
TEST_F(ValuesTest, RepeatsAndUnknownKeysAreRefusedAndStoreNothing) {
  const std::string before = State();
  const std::vector<std::string> creates = {
      "CREATE COLLECTION u (a INT @unique @unique)",
      "CREATE COLLECTION u (a INT @UNIQUE @unique)",
      "CREATE COLLECTION u (a TEXT @text @text)",
      "CREATE COLLECTION u (a TEXT @unique @text @unique)",
      "CREATE COLLECTION u (a VECTOR(2) @hnsw @hnsw)",
      "CREATE COLLECTION u (a VECTOR(2) @hnsw(l2) @hnsw(cosine))",
      "CREATE COLLECTION u (a INT, a TEXT)",
      "CREATE COLLECTION u (a INT, b INT, a INT)",
  };
  for (const std::string& c : creates) ExpectRefused(c, Query(c), before);
  const std::vector<std::pair<std::string, std::string>> docs = {
      {"PUT t {i: 1, i: 2}", ""},
      {"PUT t {i: 1, 'i': 2}", ""},
      {"PUT t [{i: 1}, {s: 'a', s: 'b'}]", ""},
      {"PUT t $docs", R"j({"docs": [{"i": 1, "i": 2}]})j"},
      {"PUT t $docs", R"j({"docs": [{"i": 1}, {"i": 1, "\u0069": 2}]})j"},
      {"PUT t {i: $x}", R"j({"x": 1, "x": 2})j"},
      {"PUT t {i: $x}", R"j({"x": 1, "\u0078": 2})j"},
  };
  for (const auto& [st, params] : docs) ExpectRefused(st + " " + params, Query(st, params), before);
  const std::vector<std::string> bodies = {
      R"j([{"i": 1, "i": 2}])j",
      R"j([{"i": 1}, {"s": "a", "\u0073": "b"}])j",
      R"j({"f": 1.5, "f": 2.5})j",
  };
  for (const std::string& b : bodies) ExpectRefused("/docs " + b, Docs("t", b), before);
  // The request's own keys: given twice, or misspelt; content after the
  // request's object (each silently ignored before).
  const std::vector<std::string> requests = {
      R"j({"statement": "PUT t {i: 1}", "statement": "PUT t {i: 2}"})j",
      R"j({"statement": "PUT t {i: $1}", "params": [1], "params": [2]})j",
      R"j({"statement": "PUT t {i: 1}", "parms": []})j",
      R"j({"statemen\u0074": "PUT t {i: 1}"})j",
      R"j({"statement": "PUT t {i: 1}"} {"statement": "PUT t {i: 2}"})j",
  };
  for (std::string r : requests) ExpectRefused("/query " + r, svc_->Query(r), before);
  const std::vector<std::string> batches = {
      R"j({"statements": [{"statement": "PUT t {i: 1}"}], "statements": [{"statement": "PUT t {i: 2}"}]})j",
      R"j({"statements": [{"statement": "PUT t {i: 1}", "statement": "PUT t {i: 2}"}]})j",
      R"j({"statements": [{"statement": "PUT t {i: $1}", "params": [1], "params": [2]}]})j",
      R"j({"statements": [{"statement": "PUT t {i: 1}"}, {"statement": "PUT t {i: 2}", "param": [3]}]})j",
      R"j({"statements": [{"statement": "PUT t {i: 1}"}], "extra": 1})j",
      R"j({"statements": [{"statement": "PUT t {i: 1}"}]}, 1)j",
  };
  for (std::string b : batches) ExpectRefused("/batch " + b, svc_->Batch(b), before);
  EXPECT_EQ(cases_, 8u + 7 + 3 + 5 + 6);
  // Each reply names the key or attribute given twice.
  std::string b = Query("CREATE COLLECTION u (a INT @unique @unique)").body;
  EXPECT_NE(b.find("attribute @unique given twice for field 'a'"), std::string::npos) << b;
  EXPECT_NE(b.find(R"j("where":"statement 1:37")j"), std::string::npos) << b;
  std::string r = R"j({"statement": "PUT t {i: $1}", "params": [1], "params": [2]})j";
  b = svc_->Query(r).body;
  EXPECT_NE(b.find(R"j(key \"params\" given twice)j"), std::string::npos) << b;
  EXPECT_NE(b.find(R"j("where":"body.params")j"), std::string::npos) << b;
}

}  // namespace values_test
}  // namespace fenec::query
