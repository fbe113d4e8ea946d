// The registry's table: statements.h says what a row is and how to add one.
#include "engine/src/query/statements.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <iterator>
#include <vector>

namespace fenec::query {
namespace {

// In the order errors list them ("expected CREATE, DROP, ..."), which is
// also StatementKind's: row i has kind i (checked below).
constexpr StatementDef kStatements[] = {
    // kind                    keyword      name         parse           plan           run                    traits
    {StatementKind::kCreate,    "CREATE",    "create",    ParseCreate,    PlanCreate,    RunCreate,             {.resolves_collection = false}},
    {StatementKind::kDrop,      "DROP",      "drop",      ParseDrop,      PlanDrop,      RunDrop,               {.resolves_collection = false, .clears_plan_cache = true}},
    {StatementKind::kGet,       "GET",       "get",       ParseById,      PlanById,      RunGet,                {.point_read = true}},
    {StatementKind::kFind,      "FIND",      "find",      ParseFind,      PlanFind,      RunFind,               {}},
    {StatementKind::kPut,       "PUT",       "put",       ParsePut,       PlanPut,       RunPut,                {.batchable = true}},
    {StatementKind::kDelete,    "DELETE",    "delete",    ParseById,      PlanById,      RunDelete,             {}},
    {StatementKind::kAggregate, "AGGREGATE", "aggregate", ParseAggregate, PlanAggregate, RunAggregateStatement, {}},
};

constexpr bool KindsInOrder() {
  for (size_t i = 0; i < std::size(kStatements); ++i)
    if (static_cast<size_t>(kStatements[i].kind) != i) return false;
  return true;
}
static_assert(KindsInOrder(), "row i of kStatements must have StatementKind i");

}  // namespace

bool IEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::span<const StatementDef> Statements() { return kStatements; }

const StatementDef& StatementOf(StatementKind kind) { return kStatements[static_cast<size_t>(kind)]; }

const StatementDef* FindStatement(std::string_view keyword) {
  for (const StatementDef& d : kStatements)
    if (IEquals(d.keyword, keyword)) return &d;
  return nullptr;
}

std::string StatementKeywords(bool (*only)(const StatementDef&)) {
  std::vector<std::string_view> words;
  for (const StatementDef& d : kStatements)
    if (only == nullptr || only(d)) words.push_back(d.keyword);
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += i + 1 == words.size() ? " or " : ", ";
    out += words[i];
  }
  return out;
}

const char* StatementKindName(StatementKind kind) { return StatementOf(kind).name; }

}  // namespace fenec::query
