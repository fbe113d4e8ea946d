#include "engine/src/query/execute.h"

#include <fmt/format.h>

#include <cmath>

#include "engine/src/query/aggregate.h"
#include "engine/src/query/json_out.h"
#include "engine/src/query/statements.h"

namespace fenec::query {

Answer ErrorAnswer(const Error& e) { return Answer{e.http, e.ToJson(), ""}; }

Error StatusError(const Status& s, std::string where) {
  Error e;
  e.where = std::move(where);
  e.message = s.message().empty() ? s.ToString() : s.message();
  switch (s.code()) {
    case StatusCode::kNotFound: e.http = 404; e.code = "not_found"; break;
    case StatusCode::kInvalidArgument: e.http = 400; e.code = "invalid"; break;
    case StatusCode::kTooLarge: e.http = 413; e.code = "too_large"; break;
    case StatusCode::kTimedOut: e.http = 503; e.code = "timeout"; break;
    case StatusCode::kConstraint: e.http = 409; e.code = "unique"; break;
    case StatusCode::kAlreadyExists: e.http = 409; e.code = "exists"; break;
    case StatusCode::kFailStopped: e.http = 503; e.code = "fail_stopped"; e.message = s.ToString(); break;
    case StatusCode::kClosed: e.http = 503; e.code = "closed"; break;
    case StatusCode::kNoSpace: e.http = 507; e.code = "no_space"; e.message = s.ToString(); break;
    default: e.http = 500; e.code = "internal"; e.message = s.ToString(); break;
  }
  return e;
}

void AppendDocJson(std::string& out, const Schema& schema, const Document& doc) {
  out.push_back('{');
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    if (i) out.push_back(',');
    AppendJsonString(out, schema.fields[i].name);
    out.push_back(':');
    if (i < doc.size()) {
      AppendJsonValue(out, doc[i]);
    } else {
      out += "null";
    }
  }
  out.push_back('}');
}

std::string Where(const Plan& plan) { return fmt::format("{} {}", StatementOf(plan.kind).name, plan.collection); }

namespace {

const Value& Resolve(const PlannedOperand& o, const Bound& b) { return o.slot >= 0 ? b.values[o.slot] : o.literal; }

Filter MakeFilter(const Plan& plan, const Bound& b) {
  Filter f;
  f.all.reserve(plan.where.size());
  for (const auto& c : plan.where) f.all.push_back({plan.schema.fields[c.field].name, c.op, Resolve(c.value, b)});
  return f;
}

void AppendRow(std::string& out, const Schema& schema, DocId id, const Document& doc) {
  fmt::format_to(std::back_inserter(out), "{{\"id\":{},\"doc\":", id);
  AppendDocJson(out, schema, doc);
  out.push_back('}');
}

Answer Create(const Plan& plan, Database& db) {
  auto cid = db.CreateCollection(plan.collection, plan.schema);
  if (!cid.ok()) return ErrorAnswer(StatusError(cid.status(), Where(plan)));
  std::string out = "{\"created\":";
  AppendJsonString(out, plan.collection);
  out += "}";
  return {200, std::move(out)};
}

Answer Drop(const Plan& plan, Database& db) {
  if (Status s = db.DropCollection(plan.collection); !s.ok()) {
    Error e = StatusError(s, Where(plan));
    if (e.http == 404) {
      e.code = "unknown_collection";
      e.message = fmt::format("no collection named '{}'", plan.collection);
    }
    return ErrorAnswer(e);
  }
  std::string out = "{\"dropped\":";
  AppendJsonString(out, plan.collection);
  out += "}";
  return {200, std::move(out)};
}

Answer Get(const Plan& plan, const Bound& b, Database& db) {
  DocId id = static_cast<DocId>(Resolve(plan.id, b).int_value());
  auto doc = db.Get(plan.cid, id);
  if (!doc.ok()) {
    Error e = StatusError(doc.status(), Where(plan));
    if (e.http == 404) e.message = fmt::format("no document {} in '{}'", id, plan.collection);
    return ErrorAnswer(e);
  }
  std::string out;
  out.reserve(64 + 32 * plan.schema.fields.size());
  AppendRow(out, plan.schema, id, *doc);
  return {200, std::move(out)};
}

// FIND c NEAR f v [EF n] [WHERE ...] [LIMIT k]: Database::Near, nearest first.
Answer FindNear(const Plan& plan, const Bound& b, Database& db) {
  NearOptions o;
  const int64_t k = Resolve(plan.limit, b).int_value();
  const int64_t ef = Resolve(plan.ef, b).int_value();
  if (plan.limit.slot >= 0 && (k < 1 || k > static_cast<int64_t>(NearOptions::kMaxK)))
    return ErrorAnswer(Error{400, "type", fmt::format("a NEAR's LIMIT is 1..{}, got {}", NearOptions::kMaxK, k),
                             Where(plan), -1});
  if (ef > static_cast<int64_t>(NearOptions::kMaxEf))
    return ErrorAnswer(Error{400, "type", fmt::format("a NEAR's EF is at most {}, got {}", NearOptions::kMaxEf, ef),
                             Where(plan), -1});
  if (k > 0) o.k = static_cast<size_t>(k);
  o.ef = static_cast<size_t>(ef);
  o.where = MakeFilter(plan, b);
  const Value& v = Resolve(plan.near_vector, b);
  auto hits = db.Near(plan.cid, plan.near_field, v.vector(), o);
  if (!hits.ok()) return ErrorAnswer(StatusError(hits.status(), Where(plan)));
  std::string out = "{\"rows\":[";
  for (size_t i = 0; i < hits->size(); ++i) {
    const NearHit& h = (*hits)[i];
    if (i) out.push_back(',');
    fmt::format_to(std::back_inserter(out), "{{\"id\":{},\"distance\":", h.id);
    AppendJsonFloating(out, h.distance);
    out += ",\"doc\":";
    AppendDocJson(out, plan.schema, h.doc);
    out.push_back('}');
  }
  fmt::format_to(std::back_inserter(out), "],\"count\":{}}}", hits->size());
  return {200, std::move(out)};
}

// FIND c [WHERE ...] [AFTER id] [LIMIT n]: one page of Database::Scan in id
// order; "next" (the last id) is there when more rows match, for AFTER.
Answer Find(const Plan& plan, const Bound& b, Database& db, const Limits& limits, ReadOptions ro) {
  if (plan.near_field >= 0) return FindNear(plan, b, db);
  const uint64_t asked = static_cast<uint64_t>(Resolve(plan.limit, b).int_value());
  if (asked > limits.max_find_rows)
    return ErrorAnswer(TooLarge(fmt::format("a FIND answers at most {} rows a page, asked for {}; AFTER pages on",
                                            limits.max_find_rows, asked),
                                Where(plan), "max_find_rows", limits.max_find_rows));
  const uint64_t page = asked > 0 ? asked : limits.find_page;
  ro.after = static_cast<DocId>(Resolve(plan.after, b).int_value());
  // One row past the page says whether there is a next one.
  auto rows = db.Scan(plan.cid, MakeFilter(plan, b), page + 1, ro);
  if (!rows.ok()) return ErrorAnswer(StatusError(rows.status(), Where(plan)));
  const bool more = rows->size() > page;
  if (more) rows->pop_back();
  std::string out = "{\"rows\":[";
  for (size_t i = 0; i < rows->size(); ++i) {
    if (i) out.push_back(',');
    AppendRow(out, plan.schema, (*rows)[i].id, (*rows)[i].doc);
  }
  fmt::format_to(std::back_inserter(out), "],\"count\":{}", rows->size());
  if (more) fmt::format_to(std::back_inserter(out), ",\"next\":{}", rows->back().id);
  out.push_back('}');
  return {200, std::move(out)};
}

// A PUT's answer, the same whether it waited or was called back.
Answer PutAnswer(const Result<std::vector<DocId>>& r, const std::string& where) {
  if (!r.ok()) return ErrorAnswer(StatusError(r.status(), where));
  std::string out = "{\"ids\":[";
  for (size_t i = 0; i < r->size(); ++i) fmt::format_to(std::back_inserter(out), "{}{}", i ? "," : "", (*r)[i]);
  out += "]}";
  return {200, std::move(out)};
}

Answer Put(const Plan& plan, Bound& b, Database& db) {
  std::vector<Document> docs = PutDocuments(plan, b);
  if (docs.size() == 1) {
    auto id = db.Put(plan.cid, std::move(docs[0]));
    if (!id.ok()) return PutAnswer(id.status(), Where(plan));
    return PutAnswer(std::vector<DocId>{*id}, Where(plan));
  }
  return PutAnswer(db.PutBatch(plan.cid, std::move(docs)), Where(plan));
}

Answer Delete(const Plan& plan, const Bound& b, Database& db) {
  DocId id = static_cast<DocId>(Resolve(plan.id, b).int_value());
  Status s = db.Delete(plan.cid, id);
  if (!s.ok()) {
    Error e = StatusError(s, Where(plan));
    if (e.http == 404) e.message = fmt::format("no document {} in '{}'", id, plan.collection);
    return ErrorAnswer(e);
  }
  return {200, fmt::format("{{\"deleted\":{}}}", id)};
}

}  // namespace

std::vector<Document> PutDocuments(const Plan& plan, Bound& b) {
  if (plan.docs_slot >= 0) return std::move(b.docs);
  std::vector<Document> docs;
  docs.reserve(plan.docs.size());
  for (const auto& pd : plan.docs) {
    Document d(plan.schema.fields.size());
    for (const auto& [field, operand] : pd.entries) d[field] = Resolve(operand, b);
    docs.push_back(std::move(d));
  }
  return docs;
}

// The rows' runs (statements.h), each on its kind's part of the plan.
Answer RunCreate(const Plan& plan, Bound&, Database& db, const Limits&, const ReadOptions&) { return Create(plan, db); }
Answer RunDrop(const Plan& plan, Bound&, Database& db, const Limits&, const ReadOptions&) { return Drop(plan, db); }
Answer RunGet(const Plan& plan, Bound& bound, Database& db, const Limits&, const ReadOptions&) {
  return Get(plan, bound, db);
}
Answer RunFind(const Plan& plan, Bound& bound, Database& db, const Limits& limits, const ReadOptions& ro) {
  return Find(plan, bound, db, limits, ro);
}
Answer RunPut(const Plan& plan, Bound& bound, Database& db, const Limits&, const ReadOptions&) {
  return Put(plan, bound, db);
}
Answer RunDelete(const Plan& plan, Bound& bound, Database& db, const Limits&, const ReadOptions&) {
  return Delete(plan, bound, db);
}
Answer RunAggregateStatement(const Plan& plan, Bound& bound, Database& db, const Limits&, const ReadOptions& ro) {
  return RunAggregate(plan, MakeFilter(plan, bound), db, ro);
}

namespace {
Database::PutDone PutDoneFor(const Plan& plan, AnswerLater later) {
  return [where = Where(plan), kind = StatementOf(plan.kind).name, later = std::move(later)](
             Result<std::vector<DocId>> r) {
    Answer a = PutAnswer(r, where);
    a.kind = kind;
    later(std::move(a));
  };
}
Answer Deferred(const Plan& plan) {
  Answer a;
  a.deferred = true;
  a.kind = StatementOf(plan.kind).name;
  return a;
}
}  // namespace

Answer ExecutePutLater(const Plan& plan, Bound& bound, Database& db, AnswerLater later) {
  db.PutBatchAsync(plan.cid, PutDocuments(plan, bound), PutDoneFor(plan, std::move(later)));
  return Deferred(plan);
}

std::optional<Answer> TryExecutePutLater(const Plan& plan, Bound& bound, Database& db, AnswerLater later) {
  std::vector<Document> docs = PutDocuments(plan, bound);
  Database::PutDone done = PutDoneFor(plan, std::move(later));
  if (!db.TryPutBatchAsync(plan.cid, docs, done)) return std::nullopt;
  return Deferred(plan);
}

Answer Execute(const Plan& plan, Bound& bound, Database& db, const Limits& limits, const ReadOptions& ro) {
  const StatementDef& def = StatementOf(plan.kind);
  Answer a = def.run(plan, bound, db, limits, ro);
  a.kind = def.name;
  return a;
}

}  // namespace fenec::query
