// FenecQL's planner and binder: the input's first line is a statement, the
// rest the request's "params" JSON. The statement is parsed and planned
// against the fuzz database's schema (fuzz_db.h), then the parameters bound
// to its slots: every input ends in a bound request or an Error with a code
// and a where, never a crash. Nothing is executed (fuzz_request does that).
#include <cstdint>
#include <string>
#include <string_view>

#include <simdjson.h>

#include "engine/src/query/bind.h"
#include "engine/src/query/plan.h"
#include "fuzz/check.h"
#include "fuzz/fuzz_db.h"

namespace {

void CheckError(const fenec::query::Error& e, size_t body_size) {
  FUZZ_CHECK(e.http >= 400 && e.http < 500, "an input answered %d", e.http);
  FUZZ_CHECK(!e.code.empty() && !e.message.empty(), "an error without code or message");
  FUZZ_CHECK(e.offset < 0 || static_cast<size_t>(e.offset) <= body_size, "error offset %lld of %zu",
             static_cast<long long>(e.offset), body_size);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fenec::query;
  static fenec::fuzz::FuzzDb fdb;  // the process's one: closed and removed at exit
  std::string_view in(reinterpret_cast<const char*>(data), size);
  size_t nl = in.find('\n');
  std::string_view text = in.substr(0, nl);
  ParseResult parsed = Parse(text);
  if (!parsed.ok()) return 0;  // fuzz_parser's domain
  PlanResult planned = Prepare(*parsed.statement, text, *fdb.db());
  if (!planned.ok()) {
    CheckError(planned.error, text.size());
    return 0;
  }
  const Plan& plan = *planned.plan;
  // The params JSON in a string simdjson may read past the end of, as the service gives it.
  std::string body(nl == std::string_view::npos ? std::string_view() : in.substr(nl + 1));
  body.reserve(body.size() + simdjson::SIMDJSON_PADDING);
  static sj::parser parser;
  JsonReader reader(body.data());
  Bound bound;
  std::optional<Error> err;
  if (nl == std::string_view::npos) {
    err = reader.ReadParams(plan, nullptr, "params", &bound);
  } else {
    sj::document doc;
    sj::value v;
    if (auto ec = parser.iterate(simdjson::padded_string_view(body.data(), body.size(), body.capacity())).get(doc)) {
      err = reader.Malformed(ec, "params");
    } else if (auto ec2 = doc.get_value().get(v)) {
      err = reader.Malformed(ec2, "params");
    } else {
      err = reader.ReadParams(plan, &v, "params", &bound);
    }
  }
  if (err) {
    CheckError(*err, body.size());
    return 0;
  }
  FUZZ_CHECK(bound.values.size() == plan.slots.size(), "%zu values bound for %zu slots", bound.values.size(),
             plan.slots.size());
  return 0;
}
