// Which engine read answers an AGGREGATE:
//   - COUNT(*) alone, no WHERE: Database::Count, a short read under the shared lock;
//   - aggregates of one field (or COUNT(*) alone) with no GROUP BY:
//     Database::Aggregate, which computes count/sum/min/max in one pass;
//   - anything else (GROUP BY, several fields): one Database::ScanEach, folded
//     here as the rows stream by (no row is kept; the groups are, kMaxGroups).
// The engine's Aggregate has no grouping, so groups are computed over one
// scan. That scan is deliberately NOT given a ReadOptions::snapshot of our
// own: it is the engine's long read, pinned or held under the shared lock as
// Options::long_reads says, so the one answer is one consistent view either
// way, and RC-1's arms (recon-pinned vs recon-locked) measure the engine's
// choice rather than ours.
#include "engine/src/query/aggregate.h"

#include <algorithm>

#include <fmt/format.h>

#include "engine/src/query/json_out.h"
#include "engine/src/query/name_table.h"
#include "engine/src/query/request_limits.h"

namespace fenec::query {
namespace {

// Orders values of one field's type; null first.
bool ValueLess(const Value& a, const Value& b) {
  if (a.is_null() || b.is_null()) return a.is_null() && !b.is_null();
  if ((a.is_int() || a.is_float()) && (b.is_int() || b.is_float())) {
    if (a.is_int() && b.is_int()) return a.int_value() < b.int_value();
    return a.as_double() < b.as_double();
  }
  if (a.is_text() && b.is_text()) return a.text() < b.text();
  if (a.is_bool() && b.is_bool()) return !a.bool_value() && b.bool_value();
  return false;
}

struct Acc {
  uint64_t count = 0;
  int64_t int_sum = 0;
  double sum = 0;
  Value min, max;

  void Add(const Value& v) {
    if (v.is_null()) return;
    ++count;
    if (v.is_int()) {
      // Wraps like the engine's int_sum: unsigned arithmetic has no overflow UB.
      int_sum = static_cast<int64_t>(static_cast<uint64_t>(int_sum) + static_cast<uint64_t>(v.int_value()));
      sum += static_cast<double>(v.int_value());
    } else if (v.is_float()) {
      sum += v.float_value();
    }
    if (min.is_null() || ValueLess(v, min)) min = v;
    if (max.is_null() || ValueLess(max, v)) max = v;
  }
};

struct Group {
  Value key;
  uint64_t docs = 0;
  std::vector<Acc> accs;  // one per aggregate
  std::string json;       // key as JSON text: what groups are found by
};

void AppendAgg(std::string& out, const Plan& plan, const PlannedAgg& a, uint64_t docs, const Acc& acc) {
  switch (a.fn) {
    case AggFn::kCount:
      fmt::format_to(std::back_inserter(out), "{}", a.field < 0 ? docs : acc.count);
      return;
    case AggFn::kSum:
      if (plan.schema.fields[a.field].type == FieldType::kInt) {
        fmt::format_to(std::back_inserter(out), "{}", acc.int_sum);
      } else {
        AppendJsonDouble(out, acc.sum);
      }
      return;
    case AggFn::kMin: AppendJsonValue(out, acc.min); return;
    case AggFn::kMax: AppendJsonValue(out, acc.max); return;
  }
}

std::string Columns(const Plan& plan) {
  std::string out = "{\"columns\":[";
  bool first = true;
  if (plan.group_field >= 0) {
    AppendJsonString(out, plan.schema.fields[plan.group_field].name);
    first = false;
  }
  for (const auto& a : plan.aggs) {
    if (!first) out.push_back(',');
    first = false;
    AppendJsonString(out, a.label);
  }
  out += "],\"rows\":[";
  return out;
}


Answer Single(const Plan& plan, const Filter& filter, Database& db, int field, const ReadOptions& ro) {
  uint64_t docs = 0;
  Acc acc;
  if (field < 0 && filter.all.empty()) {
    auto n = db.Count(plan.cid);
    if (!n.ok()) return ErrorAnswer(StatusError(n.status(), Where(plan)));
    docs = *n;
  } else {
    auto r = db.Aggregate(plan.cid, field < 0 ? std::string() : plan.schema.fields[field].name, filter, ro);
    if (!r.ok()) return ErrorAnswer(StatusError(r.status(), Where(plan)));
    docs = r->count;
    acc.count = r->count;
    acc.int_sum = r->int_sum;
    acc.sum = r->sum;
    acc.min = r->min;
    acc.max = r->max;
  }
  std::string out = Columns(plan);
  out.push_back('[');
  for (size_t i = 0; i < plan.aggs.size(); ++i) {
    if (i) out.push_back(',');
    AppendAgg(out, plan, plan.aggs[i], docs, acc);
  }
  out += "]]}";
  return {200, std::move(out)};
}

Answer Folded(const Plan& plan, const Filter& filter, Database& db, const ReadOptions& ro) {
  // Groups keyed by their value's JSON text: every field type but vector has
  // one, and it is what the answer prints. The values are the clients', so
  // they are found by the keyed hash (name_table.h), which they cannot make collide.
  NameTable index;
  std::vector<Group> groups;
  auto key_of = [&](int i) -> const std::string& { return groups[i].json; };
  std::string key;
  bool too_many = false;
  Status s = db.ScanEach(plan.cid, filter, ro, [&](DocId, const Document& doc) {
    size_t g = 0;
    if (plan.group_field >= 0) {
      key.clear();
      AppendJsonValue(key, doc[plan.group_field]);
      const int have = index.Insert(key, static_cast<int>(groups.size()), key_of);
      if (have < 0) {
        if (groups.size() == kMaxGroups) {  // the table's new entry goes with it
          too_many = true;
          return false;
        }
        g = groups.size();
        groups.push_back(Group{doc[plan.group_field], 0, std::vector<Acc>(plan.aggs.size()), key});
      } else {
        g = static_cast<size_t>(have);
      }
    } else if (groups.empty()) {
      groups.push_back(Group{Value(), 0, std::vector<Acc>(plan.aggs.size()), {}});
    }
    Group& grp = groups[g];
    ++grp.docs;
    for (size_t i = 0; i < plan.aggs.size(); ++i) {
      if (plan.aggs[i].field >= 0) grp.accs[i].Add(doc[plan.aggs[i].field]);
    }
    return true;
  });
  if (!s.ok()) return ErrorAnswer(StatusError(s, Where(plan)));
  if (too_many) {
    return ErrorAnswer(TooLarge(fmt::format("GROUP BY {} has more than {} groups",
                                            plan.schema.fields[plan.group_field].name, kMaxGroups),
                                Where(plan), "max_groups", kMaxGroups));
  }
  if (plan.group_field < 0 && groups.empty()) groups.push_back(Group{Value(), 0, std::vector<Acc>(plan.aggs.size()), {}});
  std::sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) { return ValueLess(a.key, b.key); });

  std::string out = Columns(plan);
  out.reserve(out.size() + groups.size() * (8 + 16 * plan.aggs.size()));
  for (size_t g = 0; g < groups.size(); ++g) {
    if (g) out.push_back(',');
    out.push_back('[');
    bool first = true;
    if (plan.group_field >= 0) {
      AppendJsonValue(out, groups[g].key);
      first = false;
    }
    for (size_t i = 0; i < plan.aggs.size(); ++i) {
      if (!first) out.push_back(',');
      first = false;
      AppendAgg(out, plan, plan.aggs[i], groups[g].docs, groups[g].accs[i]);
    }
    out.push_back(']');
  }
  out += "]}";
  return {200, std::move(out)};
}

}  // namespace

Answer RunAggregate(const Plan& plan, const Filter& filter, Database& db, const ReadOptions& ro) {
  if (plan.group_field < 0) {
    // One engine Aggregate serves when every aggregate reads the same field,
    // or every one is COUNT(*).
    int field = plan.aggs[0].field;
    bool same = std::all_of(plan.aggs.begin(), plan.aggs.end(), [&](const PlannedAgg& a) { return a.field == field; });
    if (same) return Single(plan, filter, db, field, ro);
  }
  return Folded(plan, filter, db, ro);
}

}  // namespace fenec::query
