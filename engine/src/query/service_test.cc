// The statement language end to end on a real database in a scratch folder:
// every statement kind, the plan cache, and each kind of bad input answered
// with its 4xx, what and where, leaving what is stored untouched.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "fenec/database.h"
#include "engine/src/query/service.h"
#include "engine/src/base/testing.h"

namespace fenec::query {
namespace service_test {

class ServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Options o;
    o.durability = Durability::kBuffered;  // these tests count answers, not fsyncs
    auto db = Database::Open(dir_.path() + "/db", o);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    svc_ = std::make_unique<Service>(db_.get());
    Ok(R"j({"statement": "CREATE COLLECTION users (email TEXT @unique, bio TEXT @text, age INT, score FLOAT, ok BOOL, emb VECTOR(3))"})j");
  }
  void TearDown() override {
    if (db_) {
      EXPECT_TRUE(db_->Check().ok());
      EXPECT_TRUE(db_->Close().ok());
    }
  }

  Answer Q(std::string body) { return svc_->Query(body); }
  std::string Ok(std::string body) {
    Answer a = Q(body);
    EXPECT_EQ(a.http, 200) << body << " -> " << a.body;
    return a.body;
  }
  // Asserts status and error code; returns the body for checks on what/where.
  std::string Err(std::string body, int http, const std::string& code) {
    Answer a = Q(body);
    EXPECT_EQ(a.http, http) << body << " -> " << a.body;
    EXPECT_NE(a.body.find("\"code\":\"" + code + "\""), std::string::npos) << body << " -> " << a.body;
    return a.body;
  }
  uint64_t Count() { return *db_->Count(*db_->FindCollection("users")); }

  base::ScratchDir dir_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<Service> svc_;
};

TEST_F(ServiceTest, DropCollectionThenAgainWithAnotherSchema) {
  Ok(R"j({"statement": "PUT users {email: $1}", "params": ["ann@x.org"]})j");
  Ok(R"j({"statement": "GET users $1", "params": [1]})j");  // its plan is cached now
  EXPECT_EQ(Ok(R"j({"statement": "DROP COLLECTION users"})j"), R"j({"dropped":"users"})j");
  EXPECT_TRUE(db_->FindCollection("users").status().IsNotFound());
  Err(R"j({"statement": "GET users $1", "params": [1]})j", 404, "unknown_collection");
  std::string again = Err(R"j({"statement": "DROP COLLECTION users"})j", 404, "unknown_collection");
  EXPECT_NE(again.find("no collection named 'users'"), std::string::npos) << again;
  Err(R"j({"statement": "DROP users"})j", 400, "parse");
  Ok(R"j({"statement": "CREATE COLLECTION users (name TEXT, n INT)"})j");
  Ok(R"j({"statement": "PUT users {name: $1, n: 2}", "params": ["bo"]})j");
  EXPECT_EQ(Ok(R"j({"statement": "GET users $1", "params": [1]})j"), R"j({"id":1,"doc":{"name":"bo","n":2}})j");
}

TEST_F(ServiceTest, PutGetFindDelete) {
  EXPECT_EQ(Ok(R"j({"statement": "PUT users {email: $1, age: $2, emb: $3, ok: true}", "params": ["ann@x.org", 41, [1, 2.5, -3]]})j"),
            R"j({"ids":[1]})j");
  EXPECT_EQ(Ok(R"j({"statement": "GET users $1", "params": [1]})j"),
            R"j({"id":1,"doc":{"email":"ann@x.org","bio":null,"age":41,"score":null,"ok":true,"emb":[1,2.5,-3]}})j");
  EXPECT_EQ(svc_->GetDoc("users", "1").body,
            R"j({"id":1,"doc":{"email":"ann@x.org","bio":null,"age":41,"score":null,"ok":true,"emb":[1,2.5,-3]}})j");
  // Many at once, written out and as a parameter; an int is taken for a float field.
  EXPECT_EQ(Ok(R"j({"statement": "PUT users [{email: 'bob', age: 30, score: 2}, {email: 'cy', age: 50, bio: 'likes Rust and C'}]"})j"),
            R"j({"ids":[2,3]})j");
  EXPECT_EQ(Ok(R"j({"statement": "PUT users $docs", "params": {"docs": [{"email": "dee", "age": 20}, {"email": "eve", "age": 60}]}})j"),
            R"j({"ids":[4,5]})j");
  std::string body = R"j([{"email": "fay", "age": 70}])j";
  EXPECT_EQ(svc_->PutDocs("users", body).body, R"j({"ids":[6]})j");

  std::string found = Ok(R"j({"statement": "FIND users WHERE age >= $min LIMIT 2", "params": {"min": 41}})j");
  EXPECT_NE(found.find(R"j("count":2)j"), std::string::npos) << found;
  EXPECT_NE(found.find(R"j({"id":1,)j"), std::string::npos) << found;
  EXPECT_NE(found.find(R"j({"id":3,)j"), std::string::npos) << found;
  found = Ok(R"j({"statement": "FIND users WHERE bio CONTAINS 'rust'"})j");
  EXPECT_NE(found.find(R"j("count":1)j"), std::string::npos) << found;
  EXPECT_NE(found.find(R"j("email":"cy")j"), std::string::npos) << found;
  found = Ok(R"j({"statement": "FIND users WHERE score = 2.0"})j");
  EXPECT_NE(found.find(R"j("email":"bob")j"), std::string::npos) << found;

  EXPECT_EQ(Ok(R"j({"statement": "DELETE users 2"})j"), R"j({"deleted":2})j");
  Err(R"j({"statement": "GET users 2"})j", 404, "not_found");
  Err(R"j({"statement": "DELETE users 2"})j", 404, "not_found");
  EXPECT_EQ(Count(), 5u);
}

TEST_F(ServiceTest, Aggregates) {
  Ok(R"j({"statement": "CREATE COLLECTION entries (acct INT, amount INT, w FLOAT, memo TEXT)"})j");
  Ok(R"j({"statement": "PUT entries [{acct: 1, amount: 10, w: 0.5, memo: 'a'}, {acct: 2, amount: -4, w: 1.5}, )j"
     R"j({acct: 1, amount: -3, memo: 'c'}, {acct: 3, amount: 7, w: 2}]"})j");
  EXPECT_EQ(Ok(R"j({"statement": "AGGREGATE entries COUNT(*)"})j"), R"j({"columns":["count(*)"],"rows":[[4]]})j");
  EXPECT_EQ(Ok(R"j({"statement": "AGGREGATE entries COUNT(amount), SUM(amount), MIN(amount), MAX(amount)"})j"),
            R"j({"columns":["count(amount)","sum(amount)","min(amount)","max(amount)"],"rows":[[4,10,-4,10]]})j");
  EXPECT_EQ(Ok(R"j({"statement": "AGGREGATE entries COUNT(*) WHERE amount > 0"})j"), R"j({"columns":["count(*)"],"rows":[[2]]})j");
  // Two fields, and nulls: counted by COUNT(*), not by COUNT(memo).
  EXPECT_EQ(Ok(R"j({"statement": "AGGREGATE entries COUNT(*), COUNT(memo), SUM(w), MIN(memo)"})j"),
            R"j({"columns":["count(*)","count(memo)","sum(w)","min(memo)"],"rows":[[4,2,4.0,"a"]]})j");
  EXPECT_EQ(Ok(R"j({"statement": "AGGREGATE entries COUNT(*), SUM(amount), MAX(w) GROUP BY acct"})j"),
            R"j({"columns":["acct","count(*)","sum(amount)","max(w)"],"rows":[[1,2,7,0.5],[2,1,-4,1.5],[3,1,7,2.0]]})j");
  EXPECT_EQ(Ok(R"j({"statement": "AGGREGATE entries SUM(amount) WHERE acct != 2 GROUP BY memo"})j"),
            R"j({"columns":["memo","sum(amount)"],"rows":[[null,7],["a",10],["c",-3]]})j");
  Err(R"j({"statement": "AGGREGATE entries SUM(memo)"})j", 400, "type");
  Err(R"j({"statement": "AGGREGATE entries COUNT(*) GROUP BY nope"})j", 400, "unknown_field");
}

TEST_F(ServiceTest, BatchLandsPutsAsOneWrite) {
  uint64_t commits = db_->GetStats().commits;
  std::string body = R"j({"statements": [
      {"statement": "PUT users {email: $1, age: $2}", "params": ["g1", 1]},
      {"statement": "PUT users {email: $1, age: $2}", "params": ["g2", 2]},
      {"statement": "PUT users [{email: 'g3'}, {email: 'g4'}]"}]})j";
  Answer a = svc_->Batch(body);
  EXPECT_EQ(a.http, 200) << a.body;
  EXPECT_EQ(a.body, R"j({"ids":[[1],[2],[3,4]]})j");
  EXPECT_EQ(db_->GetStats().commits, commits + 1);
  // A clash anywhere rejects the whole batch: nothing lands.
  body = R"j({"statements": [{"statement": "PUT users {email: 'g5'}"}, {"statement": "PUT users {email: 'g1'}"}]})j";
  a = svc_->Batch(body);
  EXPECT_EQ(a.http, 409) << a.body;
  EXPECT_EQ(Count(), 4u);
  body = R"j({"statements": [{"statement": "PUT users {email: 'g6'}"}, {"statement": "GET users 1"}]})j";
  a = svc_->Batch(body);
  EXPECT_EQ(a.http, 400) << a.body;
  EXPECT_NE(a.body.find("\"where\":\"statements[1]\""), std::string::npos) << a.body;
  EXPECT_EQ(Count(), 4u);
}

TEST_F(ServiceTest, StatementIsParsedOnceAndCached) {
  for (int i = 0; i < 10; ++i) {
    Ok(R"j({"statement": "PUT users {email: $1, age: $2}", "params": [")j" + std::to_string(i) + R"j(", 5]})j");
  }
  // The first request planned it (one miss); nine came from the cache.
  EXPECT_EQ(svc_->cache().hits(), 9u);
  EXPECT_EQ(svc_->cache().size(), 2u);  // and the CREATE of SetUp
  for (int i = 0; i < 5; ++i) svc_->GetDoc("users", "3");
  EXPECT_EQ(svc_->cache().size(), 3u);  // "GET users $1", planned once
  EXPECT_EQ(svc_->cache().hits(), 13u);
}

// Each bad input: its status, its code, and what and where it names.
TEST_F(ServiceTest, BadInputOneByOne) {
  Ok(R"j({"statement": "PUT users {email: 'taken', age: 1}"})j");

  std::string b = Err(R"j({"statement": "GET users 1", "params": [1,)j", 400, "json");
  EXPECT_NE(b.find("malformed JSON"), std::string::npos) << b;
  b = Err(R"j(not json)j", 400, "json");
  b = Err(R"j([1, 2])j", 400, "json");
  EXPECT_NE(b.find("must be a JSON object"), std::string::npos) << b;
  b = Err(R"j({"params": []})j", 400, "json");
  EXPECT_NE(b.find(R"j(no \"statement\")j"), std::string::npos) << b;

  b = Err(R"j({"statement": "GET nobody 1"})j", 404, "unknown_collection");
  EXPECT_NE(b.find(R"j("where":"statement 1:5","offset":4)j"), std::string::npos) << b;
  EXPECT_EQ(svc_->GetDoc("nobody", "1").http, 404);
  std::string docs = R"j([{"email": "z"}])j";
  EXPECT_EQ(svc_->PutDocs("nobody", docs).http, 404);

  b = Err(R"j({"statement": "FIND users WHERE height > 3"})j", 400, "unknown_field");
  EXPECT_NE(b.find("no field 'height'"), std::string::npos) << b;
  EXPECT_NE(b.find(R"j("offset":17)j"), std::string::npos) << b;
  b = Err(R"j({"statement": "PUT users $d", "params": {"d": [{"email": "a"}, {"email": "b", "height": 3}]}})j", 400,
          "unknown_field");
  EXPECT_NE(b.find(R"j("where":"params.d[1].height")j"), std::string::npos) << b;

  b = Err(R"j({"statement": "PUT users {email: $1, age: $2}", "params": ["x", "forty"]})j", 400, "type");
  EXPECT_NE(b.find("field 'age' is int, got a string"), std::string::npos) << b;
  EXPECT_NE(b.find(R"j("where":"params[1]")j"), std::string::npos) << b;
  b = Err(R"j({"statement": "PUT users {email: $1, age: $2}", "params": ["x", 4.5]})j", 400, "type");
  EXPECT_NE(b.find("is int, got 4.5"), std::string::npos) << b;
  b = Err(R"j({"statement": "PUT users {email: 'x', age: 'old'}"})j", 400, "type");
  EXPECT_NE(b.find(R"j("where":"statement 1:29")j"), std::string::npos) << b;
  docs = R"j([{"email": 5}])j";
  Answer a = svc_->PutDocs("users", docs);
  EXPECT_EQ(a.http, 400);
  EXPECT_NE(a.body.find(R"j("where":"body[0].email","offset":11)j"), std::string::npos) << a.body;

  b = Err(R"j({"statement": "PUT users {email: 'v', emb: $1}", "params": [[1, 2]]})j", 400, "dim");
  EXPECT_NE(b.find("vector(3), got 2 numbers"), std::string::npos) << b;
  b = Err(R"j({"statement": "PUT users {email: 'v', emb: [1, 2, 3, 4]}"})j", 400, "type");
  EXPECT_NE(b.find("got a vector of 4"), std::string::npos) << b;
  b = Err(R"j({"statement": "PUT users {email: 'v', emb: $1}", "params": [[1, "2", 3]]})j", 400, "type");
  EXPECT_NE(b.find(R"j("where":"params[0][1]")j"), std::string::npos) << b;

  b = Err(R"j({"statement": "PUT users {email: 'taken'}"})j", 409, "unique");
  b = Err(R"j({"statement": "PUT users [{email: 'new1'}, {email: 'taken'}]"})j", 409, "unique");
  Err(R"j({"statement": "CREATE COLLECTION users (a INT)"})j", 409, "exists");

  b = Err(R"j({"statement": "UPSERT users {}"})j", 400, "parse");
  EXPECT_NE(b.find("unknown statement 'UPSERT'"), std::string::npos) << b;

  Err(R"j({"statement": "GET users $1"})j", 400, "params");
  Err(R"j({"statement": "GET users $1", "params": [1, 2]})j", 400, "params");
  Err(R"j({"statement": "GET users $1", "params": {"id": 1}})j", 400, "params");
  Err(R"j({"statement": "GET users $id", "params": {"id": 0}})j", 400, "type");
  Err(R"j({"statement": "GET users $1 ", "params": ["1"]})j", 400, "type");
  Err(R"j({"statement": "GET users 1", "params": [1]})j", 400, "params");
  Err(R"j({"statement": "FIND users WHERE age = $1 AND email = $1", "params": [1]})j", 400, "params");
  Err(R"j({"statement": "FIND users WHERE age = $2"})j", 400, "params");
  EXPECT_EQ(svc_->GetDoc("users", "x1").http, 400);
  EXPECT_EQ(svc_->GetDoc("users", "0").http, 400);
  docs = R"j([{"email": "t1"}] [])j";
  EXPECT_EQ(svc_->PutDocs("users", docs).http, 400);

  // None of it changed what is stored.
  EXPECT_EQ(Count(), 1u);
  EXPECT_EQ(Ok(R"j({"statement": "GET users 1"})j"),
            R"j({"id":1,"doc":{"email":"taken","bio":null,"age":1,"score":null,"ok":null,"emb":null}})j");
}

// The ids and distances of a NEAR answer's rows, in order.
std::vector<uint64_t> NearIds(const std::string& body) {
  std::vector<uint64_t> ids;
  for (size_t at = body.find("{\"id\":"); at != std::string::npos; at = body.find("{\"id\":", at + 1))
    ids.push_back(std::stoull(body.substr(at + 6)));
  return ids;
}
std::vector<double> NearDistances(const std::string& body) {
  std::vector<double> d;
  for (size_t at = body.find("\"distance\":"); at != std::string::npos; at = body.find("\"distance\":", at + 1))
    d.push_back(std::stod(body.substr(at + 11)));
  return d;
}

TEST_F(ServiceTest, FindNearAnswersNearestFirst) {
  Ok(R"j({"statement": "CREATE COLLECTION docs (tag TEXT, emb VECTOR(3) @hnsw, plain VECTOR(3))"})j");
  EXPECT_EQ(Ok(R"j({"statement": "PUT docs [{tag: 'a', emb: [0, 0, 0]}, {tag: 'b', emb: [1, 0, 0]}, {tag: 'a', emb: [3, 0, 0]}, {tag: 'b'}]"})j"),
            R"j({"ids":[1,2,3,4]})j");
  // Squared L2, nearest first; document 4 has no vector. Answered whether
  // or not the linker got to them yet.
  std::string b = Ok(R"j({"statement": "FIND docs NEAR emb [0.9, 0, 0] LIMIT 2"})j");
  EXPECT_EQ(NearIds(b), (std::vector<uint64_t>{2, 1})) << b;
  std::vector<double> d = NearDistances(b);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_NEAR(d[0], 0.01, 1e-5);
  EXPECT_NEAR(d[1], 0.81, 1e-5);
  EXPECT_NE(b.find(R"j({"id":2,"distance":)j"), std::string::npos) << b;
  EXPECT_NE(b.find(R"j("doc":{"tag":"b","emb":[1,0,0],"plain":null}})j"), std::string::npos) << b;
  EXPECT_NE(b.find(R"j("count":2})j"), std::string::npos) << b;

  b = Ok(R"j({"statement": "FIND docs NEAR emb $v EF $ef WHERE tag = $t LIMIT $k", "params": {"v": [2.9, 0, 0], "ef": 16, "t": "a", "k": 10}})j");
  EXPECT_EQ(NearIds(b), (std::vector<uint64_t>{3, 1})) << b;
  ASSERT_TRUE(db_->WaitForIndexes().ok());  // now the graph answers, as the queue did
  EXPECT_EQ(NearIds(Ok(R"j({"statement": "FIND docs NEAR emb $v EF $ef WHERE tag = $t LIMIT $k", "params": {"v": [2.9, 0, 0], "ef": 16, "t": "a", "k": 10}})j")),
            (std::vector<uint64_t>{3, 1}));
  b = Ok(R"j({"statement": "FIND docs NEAR emb [5, 5, 5]"})j");  // no LIMIT: up to 10
  EXPECT_EQ(NearIds(b), (std::vector<uint64_t>{3, 2, 1})) << b;

  Ok(R"j({"statement": "DELETE docs 2"})j");
  b = Ok(R"j({"statement": "FIND docs NEAR emb [1, 0, 0]"})j");
  EXPECT_EQ(NearIds(b), (std::vector<uint64_t>{1, 3})) << b;  // 2 is gone at once
}

TEST_F(ServiceTest, FindNearBadInputOneByOne) {
  Ok(R"j({"statement": "CREATE COLLECTION docs (tag TEXT, emb VECTOR(3) @hnsw(cosine), plain VECTOR(3))"})j");
  Ok(R"j({"statement": "PUT docs {tag: 'a', emb: [1, 2, 3]}"})j");
  auto count = [&] { return *db_->Count(*db_->FindCollection("docs")); };

  // A vector of the wrong dimension, written out or as a parameter.
  std::string b = Err(R"j({"statement": "FIND docs NEAR emb [1, 2]"})j", 400, "dim");
  EXPECT_NE(b.find("vector(3), got a vector of 2"), std::string::npos) << b;
  EXPECT_NE(b.find(R"j("offset":19)j"), std::string::npos) << b;
  b = Err(R"j({"statement": "FIND docs NEAR emb $1", "params": [[1, 2, 3, 4]]})j", 400, "dim");
  EXPECT_NE(b.find(R"j("where":"params[0]")j"), std::string::npos) << b;
  // Not finite: an infinity written out, a number past a float as a parameter.
  b = Err(R"j({"statement": "FIND docs NEAR emb [1, 1e400, 3]"})j", 400, "type");
  EXPECT_NE(b.find("element 1 is not a finite float"), std::string::npos) << b;
  Err(R"j({"statement": "FIND docs NEAR emb $1", "params": [[1, 1e39, 3]]})j", 400, "type");
  Err(R"j({"statement": "PUT docs {emb: [1, -1e400, 3]}"})j", 400, "type");
  // The field: without @hnsw, not a vector, absent.
  b = Err(R"j({"statement": "FIND docs NEAR plain [1, 2, 3]"})j", 400, "index");
  EXPECT_NE(b.find("'plain' has no @hnsw index"), std::string::npos) << b;
  b = Err(R"j({"statement": "FIND docs NEAR tag [1, 2, 3]"})j", 400, "type");
  EXPECT_NE(b.find("NEAR needs a vector field; 'tag' is text"), std::string::npos) << b;
  Err(R"j({"statement": "FIND docs NEAR nothing [1, 2, 3]"})j", 400, "unknown_field");
  // LIMIT and EF out of bounds, written out or as parameters.
  b = Err(R"j({"statement": "FIND docs NEAR emb [1, 2, 3] LIMIT 1001"})j", 400, "type");
  EXPECT_NE(b.find("LIMIT is 1..1000"), std::string::npos) << b;
  Err(R"j({"statement": "FIND docs NEAR emb [1, 2, 3] LIMIT 0"})j", 400, "type");
  Err(R"j({"statement": "FIND docs NEAR emb [1, 2, 3] LIMIT $1", "params": [5000]})j", 400, "type");
  Err(R"j({"statement": "FIND docs NEAR emb [1, 2, 3] EF 0"})j", 400, "type");
  Err(R"j({"statement": "FIND docs NEAR emb [1, 2, 3] EF 10001"})j", 400, "type");
  Err(R"j({"statement": "FIND docs NEAR emb [1, 2, 3] EF $1", "params": [0]})j", 400, "type");
  // A zero vector has no direction under cosine: the engine refuses it.
  Err(R"j({"statement": "FIND docs NEAR emb [0, 0, 0]"})j", 400, "invalid");
  Err(R"j({"statement": "PUT docs {emb: [0, 0, 0]}"})j", 400, "invalid");
  // Vectors cannot be compared in a WHERE, NEAR or not.
  Err(R"j({"statement": "FIND docs NEAR emb [1, 2, 3] WHERE emb = [1, 2, 3]"})j", 400, "type");

  EXPECT_EQ(count(), 1u);
  b = Ok(R"j({"statement": "FIND docs NEAR emb [2, 4, 6] LIMIT 1"})j");
  EXPECT_EQ(NearIds(b), (std::vector<uint64_t>{1})) << b;
  EXPECT_NEAR(NearDistances(b).at(0), 0.0, 1e-6) << b;  // the same direction
}

}  // namespace service_test
}  // namespace fenec::query
