// What one request may ask of the statement language, declared once:
// past a limit the request is answered 413 `too_large` before the
// engine is called, so nothing is stored, and its `where` names the place and
// the limit ("body[100000] (limit max_docs = 100000)"). The engine's own
// limits (a commit's bytes) are in fenec/limits.h; the body's bytes are
// fenec-server's --max-body. engine/doc/statements.md lists these.
//
// Together they bound a request's memory by what is set here rather than by
// what a client sends: a statement's text and its tokens (lexed one at a
// time, never all held), the documents it lands and the values they hold
// (each document is as wide as the collection's schema, whatever it gives),
// its parameters, a batch's statements.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fenec/limits.h"
#include "engine/src/query/statement.h"

namespace fenec::query {

struct Limits {
  // A statement's text, in bytes (a statement written out; bulk documents go as parameters).
  size_t max_statement_bytes = 4u << 20;
  // A statement's tokens (names, numbers, strings, punctuation): what its parse holds.
  size_t max_tokens = 1u << 20;
  // A statement's distinct parameters ($1..$n, or names).
  size_t max_params = 65535;
  // Keys in one document. A schema has at most limits::kMaxFields fields, so a
  // document with more keys has an unknown or repeated one.
  size_t max_doc_keys = limits::kMaxFields;
  // Documents one request lands: a PUT's, a /docs body's, all of a /batch's together.
  size_t max_docs = 100000;
  // Documents times the collection's fields: every document is a Value per field
  // (absent ones null), so this, not the body's bytes, bounds their memory.
  size_t max_doc_values = 8u << 20;
  // Statements in one /batch.
  size_t max_batch_statements = 100000;
  // Rows a FIND answers when it gives no LIMIT (or LIMIT 0): a page, never the
  // whole collection; the answer's "next" is the AFTER that asks for the rest.
  size_t find_page = 1000;
  // The largest LIMIT a FIND (without NEAR) may ask for.
  size_t max_find_rows = 100000;
  // A long read (FIND, AGGREGATE) still going this long after its request
  // began to run stops, answered 503 `timeout`; zero: no deadline.
  std::chrono::milliseconds read_timeout{30000};
  // A thread's JSON parser keeps its buffers for the next request up to a body
  // this large; after a larger one they are freed (they are ~6x the body).
  // Above load-bench's bodies (1 000 rows of 128-d vectors, ~1.4 MB), which
  // would otherwise allocate and fault in a parser's buffers every request.
  size_t keep_parser_bytes = 4u << 20;
};

// The Limits a caller that sets none gets.
inline const Limits& DefaultLimits() {
  static const Limits limits;
  return limits;
}

// "statement 1:9 (limit max_tokens = 1048576)": where a request went over, and what.
inline std::string LimitWhere(std::string_view place, std::string_view limit, size_t value) {
  std::string out(place);
  out += " (limit ";
  out += limit;
  out += " = ";
  out += std::to_string(value);
  out += ")";
  return out;
}

// The 413 answered when a request is over one of the Limits.
inline Error TooLarge(std::string message, std::string_view place, std::string_view limit, size_t value,
                      int64_t offset = -1) {
  return Error{413, "too_large", std::move(message), LimitWhere(place, limit, value), offset};
}

}  // namespace fenec::query
