// FenecQL statements as parsed: the text's structure, before any schema is
// known. engine/doc/statements.md is the language's reference; statements.h
// the registry of kinds, each kind's production, planning and run.
//
// A statement is parsed once (Parse) and then planned against the database's
// schema (plan.h); both are kept by the plan cache, keyed by the text, so a
// request that repeats a statement with new parameters parses nothing.
// Every node keeps the byte offset it came from, so an error found while
// planning (unknown field, wrong type) can still say where in the text it is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fenec/schema.h"
#include "fenec/value.h"

namespace fenec::query {

// Where something went wrong, and what: the server's 4xx body is made of it.
struct Error {
  int http = 400;          // the HTTP status it is answered with
  std::string code;        // stable, for clients: "parse", "unknown_field", "type", "conflict" ...
  std::string message;     // what, in words
  std::string where;       // "statement 1:14", "params[2]", "body.docs[3].age", ...
  int64_t offset = -1;     // byte offset in the statement text or body, -1 when none

  std::string ToJson() const;
};

// 1-based line and column of a byte offset, as "line:col".
std::string LineCol(std::string_view text, size_t offset);

// A value written in the statement, or a parameter ($1, $2 ... or $name) to be bound per request.
struct Operand {
  enum class Kind : uint8_t { kLiteral, kParam };
  Kind kind = Kind::kLiteral;
  Value literal;       // kLiteral: as written (int, float, text, bool, null, vector)
  std::string param;   // kParam: "1", "2" ... or the name
  bool positional = false;
  size_t offset = 0;
};

// One value per row of the statement registry (statements.h), in its order.
enum class StatementKind : uint8_t { kCreate, kDrop, kGet, kFind, kPut, kDelete, kAggregate };
const char* StatementKindName(StatementKind kind);  // its row's name: "get", "find" ...

struct FieldDef {
  Field field;
  size_t offset = 0;
};

struct CondNode {
  std::string field;
  size_t field_offset = 0;
  CompareOp op = CompareOp::kEq;
  Operand value;
};

struct DocNode {
  struct Entry {
    std::string field;
    size_t offset = 0;
    Operand value;
  };
  std::vector<Entry> entries;
  size_t offset = 0;
};

enum class AggFn : uint8_t { kCount, kSum, kMin, kMax };
const char* AggFnName(AggFn fn);

struct AggNode {
  AggFn fn = AggFn::kCount;
  std::string field;  // empty: COUNT(*)
  size_t offset = 0;
  std::string Label() const;  // "count(*)", "sum(amount)"
};

struct Statement {
  StatementKind kind = StatementKind::kGet;
  std::string collection;
  size_t collection_offset = 0;

  std::vector<FieldDef> fields;      // kCreate
  Operand id;                        // kGet, kDelete
  std::vector<CondNode> where;       // kFind, kAggregate
  std::optional<Operand> limit;      // kFind
  std::optional<Operand> after;      // kFind AFTER id: the next page starts after it
  std::string near_field;            // kFind NEAR: the @hnsw field, empty: no NEAR
  size_t near_field_offset = 0;
  Operand near_vector;               // kFind NEAR: a vector literal or a parameter
  std::optional<Operand> ef;         // kFind NEAR ... EF n
  std::vector<DocNode> docs;         // kPut, written out
  std::optional<Operand> docs_param; // kPut, `PUT c $docs`: one object or an array of them
  std::vector<AggNode> aggs;         // kAggregate
  std::string group_by;              // kAggregate, empty: no grouping
  size_t group_by_offset = 0;
};

// Parses one statement. On failure the Error carries the offset, a "statement
// line:col" where, and what was expected.
struct ParseResult {
  std::optional<Statement> statement;
  Error error;
  bool ok() const { return statement.has_value(); }
};
// With Limits (request_limits.h) a statement over one is answered 413 `too_large`;
// without, the default Limits hold.
struct Limits;
ParseResult Parse(std::string_view text);
ParseResult Parse(std::string_view text, const Limits& limits);

}  // namespace fenec::query
