// AGGREGATE: count, sum, min and max, over a whole collection or grouped by a field.
#pragma once

#include "fenec/database.h"
#include "engine/src/query/execute.h"
#include "engine/src/query/plan.h"

namespace fenec::query {

// The most groups a GROUP BY keeps: the rows are streamed, never held, so
// what an AGGREGATE holds is its groups; past this it is refused (413).
inline constexpr size_t kMaxGroups = 100'000;

// Answers {"columns":[...],"rows":[[...],...]}: one row without GROUP BY,
// one row a group (ordered by the group's value) with it. The read runs with
// `ro` (its deadline and cancel flag).
Answer RunAggregate(const Plan& plan, const Filter& filter, Database& db, const ReadOptions& ro = {});

}  // namespace fenec::query
