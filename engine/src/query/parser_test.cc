// The parser: each statement's shape, and each error's position and words.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "engine/src/query/lexer.h"
#include "engine/src/query/request_limits.h"
#include "engine/src/query/statement.h"

namespace fenec::query {
namespace parser_test {

Statement Ok(std::string_view text) {
  ParseResult r = Parse(text);
  EXPECT_TRUE(r.ok()) << text << " -> " << r.error.message << " at " << r.error.where;
  return r.ok() ? *r.statement : Statement{};
}

Error Bad(std::string_view text) {
  ParseResult r = Parse(text);
  EXPECT_FALSE(r.ok()) << text << " parsed";
  EXPECT_EQ(r.error.http, 400);
  EXPECT_EQ(r.error.code, "parse");
  return r.error;
}

TEST(Parser, CreateWithEveryTypeAndAttributes) {
  Statement st = Ok("CREATE COLLECTION users (email TEXT @unique, bio TEXT @text, age INT, score FLOAT,\n"
                    "  ok BOOL, emb VECTOR(128), handle text @unique @text)");
  EXPECT_EQ(st.kind, StatementKind::kCreate);
  EXPECT_EQ(st.collection, "users");
  ASSERT_EQ(st.fields.size(), 7u);
  EXPECT_EQ(st.fields[0].field.name, "email");
  EXPECT_TRUE(st.fields[0].field.unique);
  EXPECT_FALSE(st.fields[0].field.text_indexed);
  EXPECT_TRUE(st.fields[1].field.text_indexed);
  EXPECT_EQ(st.fields[2].field.type, FieldType::kInt);
  EXPECT_EQ(st.fields[3].field.type, FieldType::kFloat);
  EXPECT_EQ(st.fields[4].field.type, FieldType::kBool);
  EXPECT_EQ(st.fields[5].field.type, FieldType::kVector);
  EXPECT_EQ(st.fields[5].field.dim, 128u);
  EXPECT_TRUE(st.fields[6].field.unique && st.fields[6].field.text_indexed);
  EXPECT_EQ(st.fields[6].offset, std::string_view(
      "CREATE COLLECTION users (email TEXT @unique, bio TEXT @text, age INT, score FLOAT,\n"
      "  ok BOOL, emb VECTOR(128), ").size());
}

TEST(Parser, KeywordsAnyCaseAndCommentsSkipped) {
  Statement st = Ok("get users 7 -- by id\n");
  EXPECT_EQ(st.kind, StatementKind::kGet);
  EXPECT_TRUE(st.id.literal.is_int());
  EXPECT_EQ(st.id.literal.int_value(), 7);
  st = Ok("Delete users $1");
  EXPECT_EQ(st.kind, StatementKind::kDelete);
  EXPECT_EQ(st.id.kind, Operand::Kind::kParam);
  EXPECT_TRUE(st.id.positional);
  EXPECT_EQ(st.id.param, "1");
}

TEST(Parser, FindWithConditionsAndLimit) {
  Statement st = Ok("FIND users WHERE age >= $min AND email = 'a\\'b' AND bio CONTAINS \"rust\" "
                    "AND score < -1.5e2 AND ok != true AND age <> 3 LIMIT 10");
  EXPECT_EQ(st.kind, StatementKind::kFind);
  ASSERT_EQ(st.where.size(), 6u);
  EXPECT_EQ(st.where[0].op, CompareOp::kGe);
  EXPECT_EQ(st.where[0].value.param, "min");
  EXPECT_FALSE(st.where[0].value.positional);
  EXPECT_EQ(st.where[1].value.literal.text(), "a'b");
  EXPECT_EQ(st.where[2].op, CompareOp::kContains);
  EXPECT_EQ(st.where[2].value.literal.text(), "rust");
  EXPECT_EQ(st.where[3].op, CompareOp::kLt);
  EXPECT_DOUBLE_EQ(st.where[3].value.literal.float_value(), -150.0);
  EXPECT_EQ(st.where[4].op, CompareOp::kNe);
  EXPECT_TRUE(st.where[4].value.literal.bool_value());
  EXPECT_EQ(st.where[5].op, CompareOp::kNe);
  ASSERT_TRUE(st.limit.has_value());
  EXPECT_EQ(st.limit->literal.int_value(), 10);

  st = Ok("FIND users");
  EXPECT_TRUE(st.where.empty());
  EXPECT_FALSE(st.limit.has_value());
}

TEST(Parser, PutOneManyAndParam) {
  Statement st = Ok("PUT users {email: $1, 'age': 41, emb: [1, -2.5, 3e1], bio: null}");
  EXPECT_EQ(st.kind, StatementKind::kPut);
  ASSERT_EQ(st.docs.size(), 1u);
  ASSERT_EQ(st.docs[0].entries.size(), 4u);
  EXPECT_EQ(st.docs[0].entries[1].field, "age");
  const Value& emb = st.docs[0].entries[2].value.literal;
  ASSERT_TRUE(emb.is_vector());
  EXPECT_EQ(emb.vector(), (std::vector<float>{1.0f, -2.5f, 30.0f}));
  EXPECT_TRUE(st.docs[0].entries[3].value.literal.is_null());

  st = Ok("PUT users [{email: 'a'}, {email: 'b'}, {}]");
  EXPECT_EQ(st.docs.size(), 3u);
  st = Ok("PUT users $docs");
  ASSERT_TRUE(st.docs_param.has_value());
  EXPECT_EQ(st.docs_param->param, "docs");
}

TEST(Parser, AggregateWithGroup) {
  Statement st = Ok("AGGREGATE entries COUNT(*), SUM(amount), min(amount), MAX(seq), count(memo) "
                    "WHERE amount > 0 GROUP BY account");
  EXPECT_EQ(st.kind, StatementKind::kAggregate);
  ASSERT_EQ(st.aggs.size(), 5u);
  EXPECT_EQ(st.aggs[0].Label(), "count(*)");
  EXPECT_EQ(st.aggs[1].Label(), "sum(amount)");
  EXPECT_EQ(st.aggs[2].Label(), "min(amount)");
  EXPECT_EQ(st.aggs[3].Label(), "max(seq)");
  EXPECT_EQ(st.aggs[4].Label(), "count(memo)");
  EXPECT_EQ(st.where.size(), 1u);
  EXPECT_EQ(st.group_by, "account");
}

TEST(Parser, KeywordsAreNotReserved) {
  Statement st = Ok("FIND limit WHERE count = 1 LIMIT 2");
  EXPECT_EQ(st.collection, "limit");
  EXPECT_EQ(st.where[0].field, "count");
}

TEST(Parser, HnswAttributeAndItsMetrics) {
  Statement st = Ok("CREATE COLLECTION docs (a VECTOR(4) @hnsw, b VECTOR(4) @HNSW(cosine), c VECTOR(2) @hnsw(IP),\n"
                    "  d VECTOR(2) @hnsw(l2), e VECTOR(2))");
  ASSERT_EQ(st.fields.size(), 5u);
  EXPECT_TRUE(st.fields[0].field.hnsw);
  EXPECT_EQ(st.fields[0].field.metric, VectorMetric::kL2);
  EXPECT_EQ(st.fields[1].field.metric, VectorMetric::kCosine);
  EXPECT_EQ(st.fields[2].field.metric, VectorMetric::kInnerProduct);
  EXPECT_TRUE(st.fields[3].field.hnsw);
  EXPECT_EQ(st.fields[3].field.metric, VectorMetric::kL2);
  EXPECT_FALSE(st.fields[4].field.hnsw);
}

TEST(Parser, FindNearWithEfWhereAndLimit) {
  Statement st = Ok("FIND docs NEAR emb [0.5, -1, 2e1] EF 200 WHERE tag = 'a' LIMIT 3");
  EXPECT_EQ(st.kind, StatementKind::kFind);
  EXPECT_EQ(st.near_field, "emb");
  EXPECT_EQ(st.near_field_offset, 15u);
  EXPECT_EQ(st.near_vector.literal.vector(), (std::vector<float>{0.5f, -1.0f, 20.0f}));
  ASSERT_TRUE(st.ef.has_value());
  EXPECT_EQ(st.ef->literal.int_value(), 200);
  ASSERT_EQ(st.where.size(), 1u);
  EXPECT_EQ(st.limit->literal.int_value(), 3);

  st = Ok("find docs near emb $v ef $ef limit $k");
  EXPECT_EQ(st.near_vector.kind, Operand::Kind::kParam);
  EXPECT_EQ(st.near_vector.param, "v");
  EXPECT_EQ(st.ef->param, "ef");
  EXPECT_EQ(st.limit->param, "k");

  st = Ok("FIND docs NEAR near [1]");  // a field may be called near
  EXPECT_EQ(st.near_field, "near");
  EXPECT_FALSE(st.ef.has_value());
  EXPECT_FALSE(st.limit.has_value());
  st = Ok("FIND docs WHERE near = 1");  // and NEAR is a name after WHERE
  EXPECT_TRUE(st.near_field.empty());
}

TEST(Parser, OutOfRangeFloatsAreValuesNotParseErrors) {
  // The planner refuses them as `type` (not finite); the text itself is well formed.
  Statement st = Ok("FIND docs NEAR emb [1e400, -1e400, 1e-400]");
  const std::vector<float>& v = st.near_vector.literal.vector();
  ASSERT_EQ(v.size(), 3u);
  EXPECT_TRUE(std::isinf(v[0]) && v[0] > 0);
  EXPECT_TRUE(std::isinf(v[1]) && v[1] < 0);
  EXPECT_EQ(v[2], 0.0f);
}

TEST(ParserErrors, UnknownStatement) {
  Error e = Bad("SELECT * FROM users");
  EXPECT_EQ(e.offset, 0);
  EXPECT_EQ(e.where, "statement 1:1");
  EXPECT_NE(e.message.find("unknown statement 'SELECT'"), std::string::npos) << e.message;
  e = Bad("");
  EXPECT_EQ(e.offset, 0);
  e = Bad("42");
  EXPECT_NE(e.message.find("expected a statement"), std::string::npos) << e.message;
}

TEST(ParserErrors, PositionsPointAtTheOffendingToken) {
  Error e = Bad("FIND users WHERE age >> 3");
  EXPECT_EQ(e.offset, 22);  // the second '>'
  EXPECT_EQ(e.where, "statement 1:23");
  e = Bad("FIND users WHERE age 3");
  EXPECT_EQ(e.offset, 21);
  EXPECT_NE(e.message.find("expected a comparison"), std::string::npos) << e.message;
  e = Bad("GET users");
  EXPECT_EQ(e.offset, 9);
  EXPECT_NE(e.message.find("found the end of the statement"), std::string::npos) << e.message;
  e = Bad("CREATE COLLECTION t (a TEXT,\n  b STRING)");
  EXPECT_EQ(e.where, "statement 2:5");
  EXPECT_NE(e.message.find("unknown type 'STRING'"), std::string::npos) << e.message;
}

TEST(ParserErrors, EachRuleSaysWhatItExpected) {
  struct Case {
    const char* text;
    int64_t offset;
    const char* words;
  };
  const Case cases[] = {
      {"CREATE TABLE t (a INT)", 7, "expected COLLECTION"},
      {"CREATE COLLECTION t a INT", 20, "expected '('"},
      {"CREATE COLLECTION t (a INT @primary)", 28, "unknown attribute '@primary'"},
      {"CREATE COLLECTION t (v VECTOR(0))", 30, "vector's dimension"},
      {"CREATE COLLECTION t (v VECTOR)", 29, "expected '('"},
      {"CREATE COLLECTION t (a INT", 26, "expected ')'"},
      {"FIND users LIMIT 'x'", 17, "expected a limit"},
      {"FIND users WHERE", 16, "expected a field name"},
      {"PUT users", 9, "expected a document"},
      {"PUT users []", 10, "at least one document"},
      {"PUT users {a: 1, a: 2}", 17, "given twice"},
      {"PUT users {a 1}", 13, "expected ':'"},
      {"PUT users {a: [1, 'x']}", 18, "expected a number in the vector"},
      {"PUT users {a: 99999999999999999999}", 14, "64-bit"},
      {"AGGREGATE t AVG(x)", 12, "unknown aggregate 'AVG'"},
      {"AGGREGATE t SUM(*)", 16, "expected a field name"},
      {"AGGREGATE t COUNT(*) GROUP account", 27, "expected BY"},
      {"GET users 1 2", 12, "unexpected '2' after the statement"},
      {"GET users $0", 10, "numbered from $1"},
      {"GET users $", 10, "after '$'"},
      {"GET users 'abc", 10, "string not closed"},
      {"GET users #", 10, "unexpected character '#'"},
      {"FIND t WHERE a = 1.", 19, "digit after '.'"},
      {"FIND t WHERE a = 'x\\q'", 19, "unknown escape"},
      {"FIND t WHERE a ! 1", 15, "expected '!='"},
      {"CREATE COLLECTION t (v VECTOR(2) @hnsw(euclid))", 39, "unknown metric 'euclid'"},
      {"CREATE COLLECTION t (v VECTOR(2) @hnsw(l2)", 42, "expected ')'"},
      {"FIND t NEAR", 11, "expected the vector field"},
      {"FIND t NEAR v 3", 14, "expected the vector to search near"},
      {"FIND t NEAR v 'x'", 14, "expected the vector to search near"},
      {"FIND t NEAR v [1, 2] EF 'x'", 24, "expected the search's ef"},
      {"FIND t NEAR v [1, 'x']", 18, "expected a number in the vector"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    Error e = Bad(c.text);
    EXPECT_EQ(e.offset, c.offset) << e.message;
    EXPECT_NE(e.message.find(c.words), std::string::npos) << e.message;
  }
}

TEST(ParserErrors, ErrorJsonCarriesWhatAndWhere) {
  Error e = Bad("GET users 'abc");
  std::string json = e.ToJson();
  EXPECT_EQ(json, "{\"error\":{\"code\":\"parse\",\"message\":\"string not closed\",\"where\":\"statement 1:11\",\"offset\":10}}");
}

TEST(Lexer, UnicodeEscapesBecomeUtf8) {
  auto toks = Lex("'caf\\u00e9 \\u20ac'");
  ASSERT_EQ(toks[0].kind, Tok::kString);
  EXPECT_EQ(toks[0].text, "caf\xc3\xa9 \xe2\x82\xac");
}

TEST(Lexer, SurrogatePairsBecomeOneCharacter) {
  auto toks = Lex("'\\uD83D\\uDE00 \\udbff\\udfff \\uD7FF\\uE000'");
  ASSERT_EQ(toks[0].kind, Tok::kString) << toks[0].text;
  EXPECT_EQ(toks[0].text, "\xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF \xED\x9F\xBF\xEE\x80\x80");
}

// Every surrogate escape that is not a high-low pair, and every byte that
// cannot start UTF-8, is refused at its offset: the string never reaches a
// document.
TEST(Lexer, LoneSwappedSurrogatesAndBadBytesAreRefused) {
  struct Case {
    std::string text;
    size_t offset;
    const char* words;
  };
  std::vector<Case> cases = {
      {"'\\uD800'", 1, "high surrogate with no"},
      {"'ab\\uDBFF'", 3, "high surrogate with no"},
      {"'\\uDC00'", 1, "low surrogate with no high one"},
      {"'\\uDFFF\\uD800'", 1, "low surrogate"},
      {"'\\uD800\\uD800'", 1, "followed by \\uD800"},
      {"'\\uD800\\u0041'", 1, "followed by \\u0041"},
      {"'\\uD800x'", 1, "high surrogate with no"},
      {"'\\uD800\\uDC0'", 12, "four hex digits"},
      {"'a\xC3'", 2, "byte 0xC3 (not UTF-8)"},
      {"'a\xC0\xAF'", 2, "byte 0xC0"},
      {"'a\xED\xA0\x80'", 2, "byte 0xED"},
      {"'a\xF4\x90\x80\x80'", 2, "byte 0xF4"},
  };
  // Every byte from 0x80 up, alone in a string: none starts a sequence there.
  for (int b = 0x80; b <= 0xFF; ++b) cases.push_back({std::string("'x") + static_cast<char>(b) + "'", 2, "not UTF-8"});
  size_t n = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    Error e = Bad("PUT t {s: " + c.text + "}");
    EXPECT_EQ(e.offset, static_cast<int64_t>(10 + c.offset));
    EXPECT_NE(e.message.find(c.words), std::string::npos) << e.message;
    ++n;
  }
  EXPECT_EQ(n, 12u + 128u);
}

TEST(ParserErrors, NonAsciiOutsideStringsIsNamedWhole) {
  Error e = Bad("GET caf\xC3\xA9 1");
  EXPECT_EQ(e.offset, 7);
  EXPECT_NE(e.message.find("unexpected character '\xC3\xA9'"), std::string::npos) << e.message;
  e = Bad("GET t\xFF 1");
  EXPECT_NE(e.message.find("unexpected character byte 0xFF (not UTF-8)"), std::string::npos) << e.message;
  e = Bad("GET t\x01 1");
  EXPECT_NE(e.message.find("unexpected character byte 0x01"), std::string::npos) << e.message;
}

TEST(ParserErrors, RepeatedAttributesAndFieldsAreRefused) {
  struct Case {
    const char* text;
    int64_t offset;
    const char* words;
  };
  const Case cases[] = {
      {"CREATE COLLECTION u (a INT @unique @unique)", 36, "attribute @unique given twice for field 'a'"},
      {"CREATE COLLECTION u (a INT @unique @UNIQUE)", 36, "given twice"},
      {"CREATE COLLECTION u (a TEXT @text @unique @text)", 43, "attribute @text given twice"},
      {"CREATE COLLECTION u (v VECTOR(2) @hnsw @hnsw)", 40, "attribute @hnsw given twice"},
      {"CREATE COLLECTION u (v VECTOR(2) @hnsw(l2) @hnsw(ip))", 44, "attribute @hnsw given twice"},
      {"CREATE COLLECTION u (a INT, a TEXT)", 28, "field 'a' is declared twice"},
      {"CREATE COLLECTION u (a INT, b INT, a INT)", 35, "field 'a' is declared twice"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    Error e = Bad(c.text);
    EXPECT_EQ(e.offset, c.offset) << e.message;
    EXPECT_NE(e.message.find(c.words), std::string::npos) << e.message;
  }
  // Distinct attributes, and names differing in case, are fine.
  Statement st = Ok("CREATE COLLECTION u (a TEXT @unique @text, A INT)");
  ASSERT_EQ(st.fields.size(), 2u);
}

TEST(Parser, FloatsPastADoubleAreInfinitiesForThePlannerToRefuse) {
  Statement st = Ok("PUT t {f: 1e400, g: -1.8e308, h: 1e-400, k: -1e-400}");
  const auto& e = st.docs[0].entries;
  EXPECT_TRUE(std::isinf(e[0].value.literal.float_value()) && e[0].value.literal.float_value() > 0);
  EXPECT_TRUE(std::isinf(e[1].value.literal.float_value()) && e[1].value.literal.float_value() < 0);
  // Below the smallest subnormal: the nearest double, a zero of the number's sign.
  EXPECT_EQ(e[2].value.literal.float_value(), 0.0);
  EXPECT_FALSE(std::signbit(e[2].value.literal.float_value()));
  EXPECT_TRUE(std::signbit(e[3].value.literal.float_value()));
}

// Tokens are lexed as the parser reads them, but a statement is judged as if
// lexed whole first: a lexing error anywhere beats what the grammar found
// before it, and the error's place is the lexer's.
TEST(ParserErrors, ALexingErrorAnywhereBeatsAGrammarError) {
  Error e = Bad("GETT users 'not closed");
  EXPECT_EQ(e.message, "string not closed");
  EXPECT_EQ(e.where, "statement 1:12");
  e = Bad("PUT users {a: 1 b: 2} -- then ! alone\n !");
  EXPECT_EQ(e.message, "expected '!='");
  EXPECT_EQ(e.where, "statement 2:2");
  e = Bad("PUT users {a: 1 b: 2}");
  EXPECT_EQ(e.message, "expected '}' to close the document, found 'b'");
}

TEST(ParserErrors, RepeatsFoundAmongManyKeysAndFields) {
  std::string doc = "PUT t {";
  std::string create = "CREATE COLLECTION c (";
  for (int i = 0; i < 3000; ++i) {
    doc += "k" + std::to_string(i) + ": 1, ";
    create += "f" + std::to_string(i) + " INT, ";
  }
  EXPECT_EQ(Ok(doc + "last: 1}").docs[0].entries.size(), 3001u);
  EXPECT_EQ(Bad(doc + "k2999: 2}").message, "field 'k2999' given twice in one document");
  EXPECT_EQ(Bad(doc + "'k0': 2}").message, "field 'k0' given twice in one document");
  EXPECT_EQ(Ok(create + "last INT)").fields.size(), 3001u);
  EXPECT_EQ(Bad(create + "f1234 TEXT)").message, "field 'f1234' is declared twice");
}

TEST(ParserErrors, OverALimitIs413NamingIt) {
  Limits l;
  l.max_tokens = 5;
  ParseResult r = Parse("GET users 1", l);  // 3 tokens
  EXPECT_TRUE(r.ok()) << r.error.message;
  r = Parse("FIND users WHERE a = 1", l);  // 6
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error.http, 413);
  EXPECT_EQ(r.error.code, "too_large");
  EXPECT_EQ(r.error.where, "statement 1:22 (limit max_tokens = 5)");
  EXPECT_EQ(r.error.offset, 21);
  // The limit beats a grammar error before it, as a lexing error does.
  r = Parse("FIND users users users users users", l);
  EXPECT_EQ(r.error.where, "statement 1:30 (limit max_tokens = 5)");
  l.max_statement_bytes = 10;
  r = Parse("GET users 1", l);
  EXPECT_EQ(r.error.http, 413);
  EXPECT_EQ(r.error.where, "statement (limit max_statement_bytes = 10)");
}

}  // namespace parser_test
}  // namespace fenec::query
