// Valid values at the edge of each type, sent every way a value arrives and
// read back: the engine must hold exactly the value sent (bit for bit for
// floats: -0.0 stays negative) and GET must serve it as valid JSON that reads
// back as the same value. The refusals beside these are in values_test.cc.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fenec/database.h"
#include "engine/src/base/testing.h"
#include "engine/src/query/answer_check.h"
#include "engine/src/query/service.h"

namespace fenec::query {
namespace values_roundtrip_test {

struct Edge {
  std::string name;
  std::string field;
  std::string ql;    // as it stands in a FenecQL statement, inside the request's JSON
  std::string json;  // as it stands in a JSON body
  Value want;
};

template <typename T>
bool SameBits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Exact equality, floats by their bits (so -0.0 != 0.0, and NaN would show).
bool Same(const Value& a, const Value& b) {
  if (a.is_float() && b.is_float()) return SameBits(a.float_value(), b.float_value());
  if (a.is_vector() && b.is_vector()) {
    if (a.vector().size() != b.vector().size()) return false;
    for (size_t i = 0; i < a.vector().size(); ++i)
      if (!SameBits(a.vector()[i], b.vector()[i])) return false;
    return true;
  }
  return a == b;
}

// The value GET served for `field`, read back by simdjson as the field's type.
Value Served(const std::string& body, const std::string& field) {
  simdjson::dom::parser parser;
  simdjson::padded_string text(body);
  simdjson::dom::element v;
  if (parser.parse(text)["doc"][field].get(v)) return Value();
  int64_t i = 0;
  double d = 0;
  std::string_view s;
  simdjson::dom::array arr;
  if (field == "i" && !v.get_int64().get(i)) return Value(i);
  if (field == "f" && !v.get_double().get(d)) return Value(d);
  if (field == "s" && !v.get_string().get(s)) return Value(s);
  if (field == "v" && !v.get_array().get(arr)) {
    std::vector<float> out;
    for (simdjson::dom::element e : arr) {
      if (e.get_double().get(d)) return Value();
      out.push_back(static_cast<float>(d));  // served as the float's shortest text: reads back exact
    }
    return Value(std::move(out));
  }
  return Value();
}

std::vector<Edge> Edges() {
  const double dmax = std::numeric_limits<double>::max();
  const float fmax = std::numeric_limits<float>::max();
  const std::string pair = "\xF0\x9F\x98\x80";  // U+1F600
  return {
      {"int64 max", "i", "9223372036854775807", "9223372036854775807", Value(std::numeric_limits<int64_t>::max())},
      {"int64 min", "i", "-9223372036854775808", "-9223372036854775808", Value(std::numeric_limits<int64_t>::min())},
      {"zero", "i", "0", "0", Value(int64_t{0})},
      {"minus one", "i", "-1", "-1", Value(int64_t{-1})},
      {"largest double", "f", "1.7976931348623157e308", "1.7976931348623157e308", Value(dmax)},
      {"most negative double", "f", "-1.7976931348623157e308", "-1.7976931348623157e308", Value(-dmax)},
      {"minus zero", "f", "-0.0", "-0.0", Value(-0.0)},
      {"smallest subnormal", "f", "5e-324", "5e-324", Value(std::numeric_limits<double>::denorm_min())},
      {"smallest normal", "f", "2.2250738585072014e-308", "2.2250738585072014e-308",
       Value(std::numeric_limits<double>::min())},
      {"below a subnormal rounds to zero", "f", "1e-400", "1e-400", Value(0.0)},
      {"2^53 as an int", "f", "9007199254740992", "9007199254740992", Value(9007199254740992.0)},
      {"empty text", "s", "''", "\"\"", Value("")},
      {"4-byte UTF-8 as is", "s", "'" + pair + "'", "\"" + pair + "\"", Value(pair)},
      {"surrogate pair escape", "s", "'\\\\uD83D\\\\uDE00'", "\"\\uD83D\\uDE00\"", Value(pair)},
      {"U+10FFFF escape", "s", "'\\\\uDBFF\\\\uDFFF'", "\"\\uDBFF\\uDFFF\"", Value("\xF4\x8F\xBF\xBF")},
      {"U+D7FF, below the surrogates", "s", "'\\\\uD7FF'", "\"\\uD7FF\"", Value("\xED\x9F\xBF")},
      {"U+E000, above the surrogates", "s", "'\\\\uE000'", "\"\\uE000\"", Value("\xEE\x80\x80")},
      {"U+FFFF", "s", "'\\\\uFFFF'", "\"\\uFFFF\"", Value("\xEF\xBF\xBF")},
      {"NUL", "s", "'a\\\\u0000b'", "\"a\\u0000b\"", Value(std::string("a\0b", 3))},
      {"2-byte UTF-8 as is", "s", "'caf\xC3\xA9'", "\"caf\xC3\xA9\"", Value("caf\xC3\xA9")},
      {"largest floats", "v", "[3.4028234663852886e38, -3.4028234663852886e38]",
       "[3.4028234663852886e38, -3.4028234663852886e38]", Value(std::vector<float>{fmax, -fmax})},
      {"minus zero and subnormal", "v", "[-0.0, 1e-45]", "[-0.0, 1e-45]",
       Value(std::vector<float>{-0.0f, std::numeric_limits<float>::denorm_min()})},
      {"below a float rounds to zero", "v", "[1e-50, 0.5]", "[1e-50, 0.5]", Value(std::vector<float>{0.0f, 0.5f})},
  };
}

class RoundTripTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Options o;
    o.durability = Durability::kBuffered;
    auto db = Database::Open(dir_.path() + "/db", o);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    svc_ = std::make_unique<Service>(db_.get());
    std::string body = R"j({"statement": "CREATE COLLECTION t (i INT, f FLOAT, s TEXT, v VECTOR(2))"})j";
    ASSERT_EQ(svc_->Query(body).http, 200);
    cid_ = *db_->FindCollection("t");
  }
  void TearDown() override {
    if (db_) {
      EXPECT_TRUE(db_->Check().ok());
      EXPECT_TRUE(db_->Close().ok());
    }
  }

  // The id a put answered: {"ids":[n]} or, from a batch, {"ids":[[n]]}.
  static DocId IdOf(const Answer& a) {
    simdjson::dom::parser parser;
    simdjson::padded_string text(a.body);
    simdjson::dom::element ids;
    uint64_t id = 0;
    if (parser.parse(text)["ids"].at(0).get(ids)) return 0;
    if (ids.is_array()) return ids.at(0).get_uint64().get(id) ? 0 : id;
    return ids.get_uint64().get(id) ? 0 : id;
  }

  base::ScratchDir dir_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<Service> svc_;
  CollectionId cid_{};
};

TEST_F(RoundTripTest, EdgeValuesComeBackExactlyEveryWay) {
  const std::map<std::string, int> index = {{"i", 0}, {"f", 1}, {"s", 2}, {"v", 3}};
  size_t cases = 0;
  for (const Edge& e : Edges()) {
    const std::string& f = e.field;
    auto query = [&](const std::string& statement, const std::string& params) {
      std::string body = "{\"statement\": \"" + statement + "\"" + (params.empty() ? "" : ", \"params\": " + params) + "}";
      return svc_->Query(body);
    };
    auto check = [&](const std::string& way, DocId id, const std::string& answer) {
      ++cases;
      const std::string label = e.name + " / " + way;
      ASSERT_NE(id, 0u) << label << " -> " << answer;
      auto doc = db_->Get(cid_, id);
      ASSERT_TRUE(doc.ok()) << label;
      EXPECT_TRUE(Same((*doc)[index.at(f)], e.want)) << label << ": stored " << (*doc)[index.at(f)].ToString();
      Answer got = svc_->GetDoc("t", std::to_string(id));
      ASSERT_EQ(got.http, 200) << label << " -> " << got.body;
      EXPECT_EQ(JsonProblem(got.body), "") << label;
      EXPECT_TRUE(Same(Served(got.body, f), e.want)) << label << ": served " << got.body;
    };
    auto via = [&](const std::string& way, const Answer& a) {
      EXPECT_EQ(a.http, 200) << e.name << " / " << way << " -> " << a.body;
      check(way, IdOf(a), a.body);
    };
    via("literal PUT", query("PUT t {" + f + ": " + e.ql + "}", ""));
    via("parameter $1", query("PUT t {" + f + ": $1}", "[" + e.json + "]"));
    via("$docs parameter", query("PUT t $docs", "{\"docs\": {\"" + f + "\": " + e.json + "}}"));
    std::string body = "[{\"" + f + "\": " + e.json + "}]";
    via("/docs body", svc_->PutDocs("t", body));
    body = "{\"statements\": [{\"statement\": \"PUT t {" + f + ": $1}\", \"params\": [" + e.json + "]}]}";
    via("parameter in a batch", svc_->Batch(body));
    Document doc(4);
    doc[index.at(f)] = e.want;
    auto id = db_->Put(cid_, doc);
    check("API Put", id.ok() ? *id : 0, id.status().ToString());
  }
  std::printf("round trips: %zu cases\n", cases);
  EXPECT_EQ(cases, Edges().size() * 6);
  EXPECT_EQ(Edges().size(), 23u);
}

}  // namespace values_roundtrip_test
}  // namespace fenec::query
