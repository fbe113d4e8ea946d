// JSON to typed values, in one forward pass over simdjson's On-Demand
// iterator: a request's documents and parameters become the schema's Values
// without an intermediate DOM, and a vector's numbers go straight from their
// text into floats (std::from_chars on each token), never through a double.
//
// Errors say what and where: "params[1]", "body[3].age", with the byte offset
// of the offending value in the request body.
//
// A document's keys are found in the plan's hashed field names and checked
// for repeats against a stamp per field, so a document costs O(keys) however
// wide the schema; a named parameter is found by hash too.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <simdjson.h>

#include "fenec/schema.h"
#include "engine/src/query/request_limits.h"
#include "engine/src/query/name_table.h"
#include "engine/src/query/plan.h"

namespace fenec::query {

namespace sj = simdjson::ondemand;

// Per-request values of a plan's parameter slots.
struct Bound {
  std::vector<Value> values;   // one per slot (a kDocs slot's entry stays null)
  std::vector<Document> docs;  // the kDocs slot's documents
};

// Reads JSON values as the schema wants them. `base` is the start of the
// request body, so errors can carry offsets into it. One reader reads one
// request: the documents it reads count against limits.max_docs and
// max_doc_values together (413 `too_large` past them), so a /batch's are
// counted across its statements.
class JsonReader {
 public:
  explicit JsonReader(const char* base, const Limits& limits = DefaultLimits()) : base_(base), limits_(limits) {}

  // One value of `field`'s type; null only if `nullable`.
  std::optional<Error> ReadValue(sj::value v, const Field& field, bool nullable, const std::string& where, Value* out);
  // One JSON object as a positional document of the plan's collection; absent fields are null.
  std::optional<Error> ReadDoc(sj::value v, const Plan& plan, const std::string& where, Document* out);
  // The same for a schema of the caller's (its names hashed once per reader).
  std::optional<Error> ReadDoc(sj::value v, const Schema& schema, const std::string& where, Document* out);
  // An array of objects, or one object, as documents (appended to out).
  std::optional<Error> ReadDocs(sj::value v, const Plan& plan, const std::string& where, std::vector<Document>* out);
  // A whole number >= min (document ids, limits).
  std::optional<Error> ReadWhole(sj::value v, int64_t min, const std::string& what, const std::string& where,
                                 int64_t* out);
  // A plan's parameters from `params` (an array for $1.., an object for
  // $name); nullptr when the request has none.
  std::optional<Error> ReadParams(const Plan& plan, sj::value* params, const std::string& where, Bound* out);

  // An error about the value v (offset taken from its token).
  Error At(sj::value& v, int http, std::string code, std::string message, const std::string& where);
  // A 400 `utf8` error unless text (a string or a key read from v; `what`
  // names it) is valid UTF-8.
  std::optional<Error> CheckText(sj::value& v, std::string_view text, std::string_view what, const std::string& where);
  // simdjson could not read the body at `where`.
  Error Malformed(simdjson::error_code ec, const std::string& where, const char* at = nullptr);

 private:
  std::optional<Error> ReadVector(sj::value v, const Field& field, const std::string& where, Value* out);
  std::optional<Error> ReadElement(sj::value& el, const Field& field, const std::string& where, size_t n, float* f);
  std::optional<Error> ReadSlot(const ParamSlot& slot, sj::value v, const std::string& where, size_t index, Bound* out);
  std::optional<Error> ReadDocIn(sj::value v, const Schema& schema, const NameTable& names, const std::string& where,
                                 Document* out);
  // 413 unless one more document of `width` values fits the request's limits.
  std::optional<Error> CountDoc(sj::value& v, size_t width, const std::string& where);
  int64_t OffsetOf(const char* p) const { return p ? static_cast<int64_t>(p - base_) : -1; }

  const char* base_;
  const Limits& limits_;
  size_t docs_read_ = 0;
  // seen_[i] == stamp_: field i was given in the document being read.
  std::vector<uint32_t> seen_;
  uint32_t stamp_ = 0;
  // ReadDoc(Schema)'s names, for the schema last given.
  const Schema* own_schema_ = nullptr;
  NameTable own_names_;
};

// "a string", "a number", ... for error messages about a JSON value.
std::string DescribeJson(sj::json_type t);

}  // namespace fenec::query
