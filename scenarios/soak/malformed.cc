#include "scenarios/soak/malformed.h"

#include <fmt/format.h>
#include <simdjson.h>

#include "engine/src/query/answer_check.h"
#include "engine/src/query/value_defects.h"

namespace fenec::scenarios::soak {
namespace {

std::string Query(const std::string& statement, const std::string& params = "") {
  std::string body = "{\"statement\": \"" + statement + "\"";
  if (!params.empty()) body += ", \"params\": " + params;
  return HttpBytes("POST", "/query", body + "}");
}

// values_test.cc's defects, three ways each; v has no @hnsw, so its NEAR is a refusal of its own (index).
void AddValueDefects(std::vector<BadRequest>& out) {
  struct Type {
    std::string field;
    std::vector<query::Defect> defects;
  };
  const std::vector<Type> types = {{"i", query::NumberDefects(true)}, {"f", query::NumberDefects(false)},
                                   {"s", query::TextDefects()},       {"v", query::VectorDefects()},
                                   {"h", query::VectorDefects()}};
  for (const Type& t : types) {
    const std::string other_ql = t.field == "i" ? "s: 'ok'" : "i: 1";
    const std::string first_doc = t.field == "i" ? R"j({"s": "ok"})j" : R"j({"i": 1})j";
    for (const query::Defect& d : t.defects) {
      const std::string what = t.field + ": " + d.name;
      if (!d.ql.empty()) {
        out.push_back({"value", what + " (literal)", Query("PUT edge {" + other_ql + ", " + t.field + ": " + d.ql + "}")});
      }
      if (!d.json.empty()) {
        out.push_back({"value", what + " ($1)", Query("PUT edge {" + other_ql + ", " + t.field + ": $1}", "[" + d.json + "]")});
        out.push_back({"value", what + " (/docs)",
                       HttpBytes("POST", "/docs/edge", "[" + first_doc + ", {\"" + t.field + "\": " + d.json + "}]")});
      }
    }
  }
}

}  // namespace

std::vector<BadRequest> BadRequests() {
  std::vector<BadRequest> out;
  AddValueDefects(out);
  const std::pair<const char*, std::string> json[] = {
      {"unterminated object", "{"},
      {"missing value", R"j({"statement": })j"},
      {"unterminated array", "[1, 2"},
      {"trailing content", R"j({"statement": "FIND edge"} {"statement": "FIND edge"})j"},
      {"not an object", "null"},
      {"statement not a string", R"j({"statement": 42})j"},
      {"key given twice", R"j({"statement": "FIND edge", "statement": "FIND edge"})j"},
      {"unknown key", R"j({"statement": "FIND edge", "parms": []})j"},
      {"single quotes", "{'statement': 'FIND edge'}"},
  };
  for (const auto& [name, body] : json) out.push_back({"json", name, HttpBytes("POST", "/query", body)});
  out.push_back({"json", "empty /docs body", HttpBytes("POST", "/docs/edge", "[]")});
  out.push_back({"json", "/docs body not documents", HttpBytes("POST", "/docs/edge", "[1, 2]")});
  out.push_back({"json", "/batch with a FIND", HttpBytes("POST", "/batch", R"j({"statements": [{"statement": "FIND edge"}]})j")});
  const char* fenecql[] = {
      "FIND",
      "SELECT * FROM edge",
      "PUT edge {i: }",
      "FIND edge WHERE",
      "FIND edge WHERE i >",
      "FIND edge LIMIT -1",
      "PUT edge {i: 1",
      "GET edge",
      "CREATE COLLECTION u (a INT @unique @unique)",
      "CREATE COLLECTION u (a INT, a TEXT)",
      "CREATE COLLECTION edge (a INT)",
      "PUT edge {i: 1, i: 2}",
      "PUT edge {nosuch: 1}",
      "FIND nosuch",
      "FIND edge WHERE s = 5",
      "FIND edge NEAR v [1, 2]",
      "FIND edge NEAR h [1, 2, 3]",
      "FIND edge NEAR h [1, 2] LIMIT 5000",
      "PUT edge {i: 'text'}",
      "GET edge 0",
      "GET edge 999999999",
  };
  for (const char* st : fenecql) out.push_back({"fenecql", st, Query(st)});
  out.push_back({"fenecql", "parameter missing", Query("FIND edge WHERE i = $2", "[1]")});
  out.push_back({"fenecql", "$1 and $name mixed", Query("FIND edge WHERE i = $1 AND f = $x", "[1]")});
  out.push_back({"utf8", "path not UTF-8", HttpBytes("GET", "/docs/ed\xFFge/1", "")});
  out.push_back({"utf8", "collection name not UTF-8", HttpBytes("POST", "/docs/a\xC3", "[{}]")});
  out.push_back({"utf8", "statement not UTF-8", Query("FIND ed\xC0\xAF" "ge")});
  out.push_back({"utf8", "key not UTF-8", HttpBytes("POST", "/docs/edge", "[{\"\xFF\": 1}]")});
  out.push_back({"utf8", "key a lone surrogate", HttpBytes("POST", "/docs/edge", R"j([{"\uD800": 1}])j")});
  out.push_back({"header", "header over --max-header-bytes",
                 HttpBytes("GET", "/health", "", "X-Big: " + std::string(20000, 'a') + "\r\n")});
  std::string fields;
  for (int i = 0; i < 150; ++i) fields += fmt::format("X-F{}: {}\r\n", i, i);
  out.push_back({"header", "150 header fields", HttpBytes("GET", "/health", "", fields)});
  out.push_back({"http", "request line not HTTP", "HELLO THERE\r\n\r\n"});
  out.push_back({"http", "header line without a colon", "GET /health HTTP/1.1\r\nHost soak\r\n\r\n"});
  out.push_back({"http", "bad Content-Length", "POST /query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: x\r\n\r\n"});
  out.push_back({"http", "body over --max-body", HttpBytes("POST", "/query", "{", "", 1ll << 40)});
  out.push_back({"route", "no such path", HttpBytes("GET", "/nope", "")});
  out.push_back({"route", "DELETE /query", HttpBytes("DELETE", "/query", "")});
  out.push_back({"route", "GET /docs/edge", HttpBytes("GET", "/docs/edge", "")});
  return out;
}

std::string JudgeRefusal(const RawAnswer& a) {
  if (!a.error.empty()) return "no answer: " + a.error;
  if (a.status < 400 || a.status >= 500) return fmt::format("answered {}: {}", a.status, a.body.substr(0, 200));
  if (std::string p = query::JsonProblem(a.body); !p.empty()) return fmt::format("{}: {}", a.status, p);
  simdjson::dom::parser parser;
  simdjson::padded_string text(a.body);
  std::string_view message;
  if (parser.parse(text)["error"]["message"].get_string().get(message) || message.empty()) {
    return fmt::format("{} without an error message: {}", a.status, a.body.substr(0, 200));
  }
  return "";
}

}  // namespace fenec::scenarios::soak
