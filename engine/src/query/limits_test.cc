// The request limits (request_limits.h), each at its edge: a request exactly
// at a limit is answered, one past it is 413 `too_large` with `where` naming
// the place and the limit, and nothing of it is stored. Small limits make
// the edges cheap to reach; the defaults are checked where that is cheap.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "fenec/database.h"
#include "engine/src/base/testing.h"
#include "engine/src/query/answer_check.h"
#include "engine/src/query/service.h"
#include "engine/src/query/work.h"

namespace fenec::query {
namespace limits_test {

// "statement 1:C", C the column of the n-th (from 1) `needle` in a one-line statement.
std::string At(const std::string& statement, const std::string& needle, int n = 1) {
  size_t at = statement.find(needle);
  while (--n > 0) at = statement.find(needle, at + 1);
  return fmt::format("statement 1:{}", at + 1);
}

Answer Send(Service& svc, const std::string& statement, const std::string& params = "") {
  std::string body = params.empty() ? fmt::format(R"j({{"statement": "{}"}})j", statement)
                                    : fmt::format(R"j({{"statement": "{}", "params": {}}})j", statement, params);
  return svc.Query(body);
}

class LimitsTest : public ::testing::Test {
 protected:
  // A database with users (6 fields) and a service over it with `limits`.
  void Open(Limits limits) {
    if (!db_) {
      Options o;
      o.durability = Durability::kBuffered;
      auto db = Database::Open(dir_.path() + "/db", o);
      ASSERT_TRUE(db.ok()) << db.status().ToString();
      db_ = std::move(*db);
    }
    if (!db_->FindCollection("users").ok()) {
      std::string create =
          R"j({"statement": "CREATE COLLECTION users (email TEXT, bio TEXT, age INT, score FLOAT, ok BOOL, emb VECTOR(2))"})j";
      ASSERT_EQ(Service(db_.get()).Query(create).http, 200);
    }
    svc_ = std::make_unique<Service>(db_.get(), limits);
  }
  void TearDown() override {
    if (db_) {
      EXPECT_TRUE(db_->Check().ok());
      EXPECT_TRUE(db_->Close().ok());
    }
  }
  uint64_t Count() { return *db_->Count(*db_->FindCollection("users")); }

  // Each way a request goes in, answering what the service answers.
  Answer Q(const std::string& body) {
    std::string b = body;
    return svc_->Query(b);
  }
  Answer Docs(const std::string& body) {
    std::string b = body;
    return svc_->PutDocs("users", b);
  }
  Answer Batch(const std::string& body) {
    std::string b = body;
    return svc_->Batch(b);
  }

  // Answered and landed `docs` documents.
  void Lands(const Answer& a, uint64_t docs, const std::string& what) {
    const uint64_t before = landed_;
    EXPECT_EQ(a.http, 200) << what << " -> " << a.body;
    landed_ += docs;
    EXPECT_EQ(Count(), landed_) << what << " landed " << Count() - before << ", not " << docs;
  }
  // Refused 413 over `limit`, with where holding `place`, and nothing landed.
  void Over(const Answer& a, const std::string& limit, size_t value, const std::string& place,
            const std::string& what) {
    EXPECT_EQ(a.http, 413) << what << " -> " << a.body;
    EXPECT_EQ(ErrorCode(a.body), "too_large") << what << " -> " << a.body;
    const std::string where = ErrorWhere(a.body);
    EXPECT_NE(where.find(fmt::format("(limit {} = {})", limit, value)), std::string::npos) << what << " -> " << a.body;
    EXPECT_EQ(where.rfind(place, 0), 0u) << what << ": where '" << where << "', expected it to start '" << place << "'";
    EXPECT_EQ(JsonProblem(a.body), "") << what;
    EXPECT_EQ(Count(), landed_) << what << ": a refused request landed documents";
  }

  base::ScratchDir dir_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<Service> svc_;
  uint64_t landed_ = 0;
};

TEST_F(LimitsTest, StatementBytes) {
  Limits l;
  l.max_statement_bytes = 40;
  Open(l);
  const std::string put = "PUT users {age: 1}";
  auto padded = [&](size_t n) { return put + std::string(n - put.size(), ' '); };
  Lands(Q(fmt::format(R"j({{"statement": "{}"}})j", padded(40))), 1, "40 bytes");
  Answer a = Q(fmt::format(R"j({{"statement": "{}"}})j", padded(41)));
  Over(a, "max_statement_bytes", 40, "statement", "41 bytes");
  EXPECT_NE(a.body.find("\"offset\":40"), std::string::npos) << a.body;
  // In a batch the statement's place comes first.
  Over(Batch(fmt::format(R"j({{"statements": [{{"statement": "{}"}}, {{"statement": "{}"}}]}})j", put, padded(41))),
       "max_statement_bytes", 40, "statements[1] statement", "a batch's second statement of 41 bytes");
}

TEST_F(LimitsTest, Tokens) {
  Limits l;
  l.max_tokens = 9;  // PUT users [ { age : 1 } ]
  Open(l);
  Lands(Q(R"j({"statement": "PUT users [{age: 1}]"})j"), 1, "9 tokens");
  const std::string ten = "PUT users [{age: 1}, {age: 2}]";
  Answer a = Send(*svc_, ten);
  Over(a, "max_tokens", 9, At(ten, "{", 2), "the tenth token (the second '{')");
  EXPECT_NE(a.body.find(fmt::format("\"offset\":{}", ten.find("{", 12))), std::string::npos) << a.body;
  // A statement is judged as if lexed whole: a parse error before the
  // limit does not hide that it is over it, and a lexing error before it wins.
  Over(Q(R"j({"statement": "PUT users {age: 1 1 1 1 1 1"})j"), "max_tokens", 9, "statement", "a parse error, then too many");
  Answer lex = Q(R"j({"statement": "PUT users {age: 1 1 ! 1 1 1 1 1 1"})j");
  EXPECT_EQ(lex.http, 400) << lex.body;
  EXPECT_EQ(ErrorCode(lex.body), "parse") << lex.body;
}

TEST_F(LimitsTest, Params) {
  Limits l;
  l.max_params = 2;
  Open(l);
  Lands(Q(R"j({"statement": "PUT users {age: $1, score: $2}", "params": [1, 2.5]})j"), 1, "2 parameters");
  Lands(Q(R"j({"statement": "PUT users {age: $a, score: $b}", "params": {"a": 1, "b": 2.5}})j"), 1, "2 named");
  // A parameter used twice is one.
  Answer twice = Send(*svc_, "FIND users WHERE age >= $1 AND age <= $1 AND score < $2", "[1, 2.5]");
  EXPECT_EQ(twice.http, 200) << twice.body;
  const std::string three = "PUT users {age: $1, score: $2, email: $3}";
  Over(Send(*svc_, three, R"j([1, 2.5, "x"])j"), "max_params", 2, At(three, "$3"), "3 parameters");
  const std::string named = "PUT users {age: $a, score: $b, email: $c}";
  Over(Send(*svc_, named, R"j({"a": 1, "b": 2.5, "c": "x"})j"), "max_params", 2, At(named, "$c"), "3 named");
}

TEST_F(LimitsTest, DefaultParams) {
  Open(Limits{});
  ASSERT_EQ(svc_->limits().max_params, 65535u);
  for (size_t n : {size_t{65535}, size_t{65536}}) {
    std::string st = "FIND users WHERE age = $1";
    std::string params = "[1";
    for (size_t i = 2; i <= n; ++i) {
      st += fmt::format(" AND age = ${}", i);
      params += ",1";
    }
    params += "]";
    Answer a = Q(fmt::format(R"j({{"statement": "{} LIMIT 1", "params": {}}})j", st, params));
    if (n == 65535) {
      EXPECT_EQ(a.http, 200) << a.body.substr(0, 200);
    } else {
      Over(a, "max_params", 65535, "statement 1:", "65536 parameters");
    }
  }
}

TEST_F(LimitsTest, DocKeys) {
  Limits l;
  l.max_doc_keys = 2;
  Open(l);
  Lands(Q(R"j({"statement": "PUT users {age: 1, score: 2}"})j"), 1, "2 keys");
  const std::string three = "PUT users {age: 1, score: 2, ok: true}";
  Over(Send(*svc_, three), "max_doc_keys", 2, At(three, "ok"), "3 keys written out");
  Lands(Docs(R"j([{"age": 1, "score": 2}])j"), 1, "/docs 2 keys");
  Over(Docs(R"j([{"age": 1}, {"age": 1, "score": 2, "ok": true}])j"), "max_doc_keys", 2, "body[1]", "/docs 3 keys");
  Over(Q(R"j({"statement": "PUT users $d", "params": {"d": {"age": 1, "score": 2, "ok": true}}})j"), "max_doc_keys", 2,
       "params.d", "$docs 3 keys");
}

TEST_F(LimitsTest, Docs) {
  Limits l;
  l.max_docs = 2;
  Open(l);
  Lands(Q(R"j({"statement": "PUT users [{age: 1}, {age: 2}]"})j"), 2, "2 written out");
  const std::string three = "PUT users [{age: 1}, {age: 2}, {age: 3}]";
  Over(Send(*svc_, three), "max_docs", 2, At(three, "{", 3), "3 written out");
  Lands(Docs(R"j([{"age": 1}, {}])j"), 2, "/docs 2");
  Over(Docs(R"j([{"age": 1}, {}, {}])j"), "max_docs", 2, "body[2]", "/docs 3");
  Lands(Q(R"j({"statement": "PUT users $1", "params": [[{}, {}]]})j"), 2, "$docs 2");
  Over(Q(R"j({"statement": "PUT users $1", "params": [[{}, {}, {}]]})j"), "max_docs", 2, "params[0][2]", "$docs 3");
  // A batch's documents count together, written out or parameters.
  const std::string one = R"j({"statement": "PUT users $1", "params": [{}]})j";
  const std::string lit = R"j({"statement": "PUT users {age: 1}"})j";
  Lands(Batch(fmt::format(R"j({{"statements": [{}, {}]}})j", one, lit)), 2, "a batch of 2");
  Over(Batch(fmt::format(R"j({{"statements": [{}, {}, {}]}})j", one, one, one)), "max_docs", 2,
       "statements[2].params[0]", "a batch of 3 parameters");
  Over(Batch(fmt::format(R"j({{"statements": [{}, {}, {}]}})j", one, lit, lit)), "max_docs", 2, "statements[2]",
       "a batch of 3, written out last");
}

TEST_F(LimitsTest, DocValues) {
  Limits l;
  l.max_doc_values = 12;  // two documents of users' 6 fields, whatever they give
  Open(l);
  Lands(Q(R"j({"statement": "PUT users [{}, {}]"})j"), 2, "12 values written out");
  const std::string three = "PUT users [{}, {}, {}]";
  Over(Send(*svc_, three), "max_doc_values", 12, At(three, "{", 3), "18 written out");
  Lands(Docs("[{}, {}]"), 2, "/docs 12 values");
  Over(Docs("[{}, {}, {}]"), "max_doc_values", 12, "body[2]", "/docs 18 values");
  const std::string lit = R"j({"statement": "PUT users {age: 1}"})j";
  Over(Batch(fmt::format(R"j({{"statements": [{}, {}, {}]}})j", lit, lit, lit)), "max_doc_values", 12,
       "statements[2]", "a batch of 18 values");
}

TEST_F(LimitsTest, BatchStatements) {
  Limits l;
  l.max_batch_statements = 2;
  Open(l);
  const std::string lit = R"j({"statement": "PUT users {age: 1}"})j";
  Lands(Batch(fmt::format(R"j({{"statements": [{}, {}]}})j", lit, lit)), 2, "2 statements");
  Answer a = Batch(fmt::format(R"j({{"statements": [{}, {}, {}]}})j", lit, lit, lit));
  Over(a, "max_batch_statements", 2, "statements[2]", "3 statements");
}

// After a body larger than keep_parser_bytes the thread's parser is freed;
// smaller bodies keep it (so a steady load allocates nothing to parse).
TEST_F(LimitsTest, ParserFreedAfterALargeBody) {
  Limits l;
  l.keep_parser_bytes = 64 << 10;
  Open(l);
  // The thread's parser may come from an earlier test's larger bodies: a
  // first small body settles it under keep_parser_bytes.
  Lands(Docs(R"j([{"age": 0}])j"), 1, "a first small body");
  const uint64_t released = Work().parser_releases;
  Lands(Docs(R"j([{"age": 1}])j"), 1, "a small body");
  const size_t small = ThreadParserCapacity();
  EXPECT_GT(small, 0u);
  EXPECT_LE(small, l.keep_parser_bytes);
  EXPECT_EQ(Work().parser_releases, released);
  std::string big = "[";
  while (big.size() < (256 << 10)) big += R"j({"bio": "0123456789012345678901234567890123456789"},)j";
  big.back() = ']';
  const uint64_t docs = static_cast<uint64_t>(std::count(big.begin(), big.end(), '{'));
  Lands(Docs(big), docs, "a 256 KiB body");
  EXPECT_EQ(Work().parser_releases, released + 1);
  EXPECT_LE(ThreadParserCapacity(), l.keep_parser_bytes);
  Lands(Docs(R"j([{"age": 2}])j"), 1, "a small body again");
  Lands(Q(R"j({"statement": "PUT users {age: 3}"})j"), 1, "a small query");
  EXPECT_EQ(Work().parser_releases, released + 1);
  EXPECT_GT(ThreadParserCapacity(), 0u);
}

}  // namespace limits_test
}  // namespace fenec::query

namespace fenec::query {
namespace limits_test {

// The engine's own limit reached through a request: a body whose JSON is
// small but whose journal record is not (a vector's "0," is 2 bytes of JSON
// and 4 of record) is 413 naming the engine's limit, nothing lands, and a
// small write after it survives a reopen.
TEST(EngineLimitThroughRequests, ACommitOverTheJournalLimitIs413AndNothingLands) {
  base::ScratchDir dir;
  Options o;
  o.max_commit_bytes = 64u << 10;
  o.checkpoint_on_close = false;  // the reopen replays the journal
  {
    auto db = Database::Open(dir.path() + "/db", o);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    Service svc(db->get());
    std::string create = R"j({"statement": "CREATE COLLECTION v (e VECTOR(8192))"})j";
    ASSERT_EQ(svc.Query(create).http, 200);
    std::string zeros = "[0";
    for (int i = 1; i < 8192; ++i) zeros += ",0";
    zeros += "]";
    std::string one = R"j({"e": )j" + zeros + "}";
    std::string two = "[" + one + "," + one + "]";  // 64 KiB of floats: over the limit with its header
    ASSERT_LT(two.size(), o.max_commit_bytes);
    Answer a = svc.PutDocs("v", two);
    EXPECT_EQ(a.http, 413) << a.body.substr(0, 300);
    EXPECT_NE(a.body.find("\"code\":\"too_large\""), std::string::npos) << a.body.substr(0, 300);
    EXPECT_EQ(*(*db)->Count(*(*db)->FindCollection("v")), 0u);
    Answer small = svc.PutDocs("v", one);
    EXPECT_EQ(small.http, 200) << small.body.substr(0, 300);
    ASSERT_TRUE((*db)->Sync().ok());
  }
  auto db = Database::Open(dir.path() + "/db", o);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_EQ(*(*db)->Count(*(*db)->FindCollection("v")), 1u);
  EXPECT_TRUE((*db)->Check().ok());
}

}  // namespace limits_test
}  // namespace fenec::query
