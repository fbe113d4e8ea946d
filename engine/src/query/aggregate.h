// AGGREGATE: count, sum, min and max, over a whole collection or grouped by a field.
#pragma once

#include "fenec/database.h"
#include "engine/src/query/execute.h"
#include "engine/src/query/plan.h"

namespace fenec::query {

// Answers {"columns":[...],"rows":[[...],...]}: one row without GROUP BY,
// one row a group (ordered by the group's value) with it.
Answer RunAggregate(const Plan& plan, const Filter& filter, Database& db);

}  // namespace fenec::query
