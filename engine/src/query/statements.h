// Every FenecQL statement, one row each: the registry (engine/doc/statements.md
// is the language's reference).
//
// A statement kind is one row of the table in statements.cc: the keyword it
// starts with, its name, the functions that parse, plan and run it, and the
// traits the service asks about. Nothing else names a kind: the parser finds
// the row by its keyword and calls its production, the planner and the
// executor call the row's functions, the service reads its traits (fio's
// table of engine operations, taken to a language). Adding a statement is a
// StatementKind value, its row, and the three functions the row names,
// declared below: its production (parser.cc, on the grammar's shared rules),
// its planning (plan.cc, on the Planner's) and its run (execute.cc).
// statements_test.cc checks every row is complete, its keyword parses into
// its kind, its kind runs end to end (an example a kind, there), and the
// rows are the statements the reference's table and grammar list, in order.
//
// Statement and Plan stay one struct each, every field labelled with the
// kinds that use it, rather than a std::variant of a payload per kind:
// - kinds share parts (GET and DELETE an id, FIND and AGGREGATE a WHERE) that
//   the shared rules fill in place; with a variant each rule would be
//   written once per alternative or visited;
// - a plan's parameters are renumbered over all of its operands in one pass,
//   and binding reads the same common part (schema, slots) of every plan;
// - the plan cache holds one immutable Plan per text, whatever its kind: a
//   variant changes neither its key (the text) nor its one allocation;
// - a std::visit in every reader is a switch over the kinds by another name.
// The price: a row's functions read only their kind's fields, as labelled.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "engine/src/query/statement.h"

namespace fenec {
class Database;
struct ReadOptions;
}  // namespace fenec

namespace fenec::query {

class Grammar;  // parser.cc: the recursive-descent parser and its shared rules
class Planner;  // plan.cc: a statement planned against its collection's schema
struct Plan;
struct Bound;
struct Answer;
struct Limits;

// ASCII case-insensitive equality: a keyword matches in any case.
bool IEquals(std::string_view a, std::string_view b);

struct StatementDef {
  StatementKind kind;
  std::string_view keyword;  // what the statement starts with, in any case
  const char* name;          // its grammar rule, metrics' `kind` label, an error's place ("find users")

  // The production after the keyword, filling st (st.kind is set).
  void (*parse)(Grammar& grammar, Statement& st);
  // Its planning: false when it failed, the Planner holding the error.
  bool (*plan)(Planner& planner);
  // Runs the plan with its parameters bound. Long reads take `ro`.
  Answer (*run)(const Plan& plan, Bound& bound, Database& db, const Limits& limits, const ReadOptions& ro);

  // What the service asks of a kind; a row names only those it has.
  struct Traits {
    // Planned against its collection's schema; CREATE and DROP leave the name to the engine.
    bool resolves_collection = true;
    // A cached plan may be answered on an io thread (Service::QueryPointRead):
    // a short read that never waits for an fsync.
    bool point_read = false;
    // May stand in a /batch: its documents (PutDocuments) land in the batch's one PutBatch.
    bool batchable = false;
    // Once it succeeds, cached plans may name what it removed: the plan cache is emptied.
    bool clears_plan_cache = false;
  } traits;
};

// The rows, in the order errors list the keywords; row i has kind i.
std::span<const StatementDef> Statements();
const StatementDef& StatementOf(StatementKind kind);
// The row whose keyword this is (any case), or nullptr.
const StatementDef* FindStatement(std::string_view keyword);
// The rows' keywords: "CREATE, DROP, ... or AGGREGATE"; with a filter, only theirs.
std::string StatementKeywords(bool (*only)(const StatementDef&) = nullptr);

// The functions the rows name, grouped by the layer that defines them.
// parser.cc:
void ParseCreate(Grammar& g, Statement& st);
void ParseDrop(Grammar& g, Statement& st);
void ParseById(Grammar& g, Statement& st);  // GET, DELETE
void ParseFind(Grammar& g, Statement& st);
void ParsePut(Grammar& g, Statement& st);
void ParseAggregate(Grammar& g, Statement& st);
// plan.cc:
bool PlanCreate(Planner& p);
bool PlanDrop(Planner& p);
bool PlanById(Planner& p);  // GET, DELETE
bool PlanFind(Planner& p);
bool PlanPut(Planner& p);
bool PlanAggregate(Planner& p);
// execute.cc:
Answer RunCreate(const Plan& plan, Bound& bound, Database& db, const Limits& limits, const ReadOptions& ro);
Answer RunDrop(const Plan& plan, Bound& bound, Database& db, const Limits& limits, const ReadOptions& ro);
Answer RunGet(const Plan& plan, Bound& bound, Database& db, const Limits& limits, const ReadOptions& ro);
Answer RunFind(const Plan& plan, Bound& bound, Database& db, const Limits& limits, const ReadOptions& ro);
Answer RunPut(const Plan& plan, Bound& bound, Database& db, const Limits& limits, const ReadOptions& ro);
Answer RunDelete(const Plan& plan, Bound& bound, Database& db, const Limits& limits, const ReadOptions& ro);
Answer RunAggregateStatement(const Plan& plan, Bound& bound, Database& db, const Limits& limits,
                             const ReadOptions& ro);

}  // namespace fenec::query
