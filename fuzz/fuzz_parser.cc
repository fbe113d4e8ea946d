// FenecQL's parser on arbitrary text: a statement or an Error whose offset
// is inside the text and whose where is "statement line:col" (a 413 over a
// request limit also names the limit), never a crash or a stack overflow
// (the grammar has nested vectors and documents).
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/src/query/statement.h"
#include "fuzz/check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  fenec::query::ParseResult r = fenec::query::Parse(text);
  if (r.ok()) {
    FUZZ_CHECK(r.statement->collection_offset <= size, "collection offset %zu of %zu", r.statement->collection_offset,
               size);
    return 0;
  }
  const auto& e = r.error;
  // Over a request limit (engine/src/query/request_limits.h): 413, naming it.
  const bool over = e.http == 413 && e.code == "too_large";
  FUZZ_CHECK((e.http == 400 && e.code == "parse") || over, "a parse failure answered %d %s", e.http, e.code.c_str());
  FUZZ_CHECK(!over || e.where.find("(limit max_") != std::string::npos, "a 413 naming no limit: '%s'", e.where.c_str());
  FUZZ_CHECK(e.offset >= 0 && static_cast<size_t>(e.offset) <= size, "error offset %lld of %zu",
             static_cast<long long>(e.offset), size);
  FUZZ_CHECK(e.where.rfind("statement ", 0) == 0, "where is '%s'", e.where.c_str());
  FUZZ_CHECK(!e.message.empty(), "an error without a message");
  return 0;
}
