#include "engine/src/query/service.h"

#include <cctype>
#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <optional>

#include <fmt/format.h>

#include "engine/src/query/bind.h"
#include "engine/src/query/json_out.h"
#include "engine/src/query/statement.h"
#include "engine/src/query/statements.h"

namespace fenec::query {
namespace {

// One On-Demand parser per thread: it keeps its buffers between requests,
// so a request allocates nothing to parse its body.
sj::parser& ThreadParser() {
  thread_local sj::parser parser;
  return parser;
}

// Held for a request's length: at its end, if a body larger than
// keep_parser_bytes grew the thread's parser, its buffers (~6x the body) are
// freed, or each worker thread would keep its largest body's for good.
class ParserLease {
 public:
  explicit ParserLease(size_t keep) : keep_(keep) {}
  ~ParserLease() {
    sj::parser& p = ThreadParser();
    if (p.capacity() > keep_) {
      p = sj::parser{};
      ++Work().parser_releases;
    }
  }
  ParserLease(const ParserLease&) = delete;
  ParserLease& operator=(const ParserLease&) = delete;

 private:
  size_t keep_;
};

Error BodyError(std::string code, std::string message, std::string where = "body") {
  return Error{400, std::move(code), std::move(message), std::move(where), -1};
}

// Iterates `body` as a JSON document. simdjson reads past the last byte, so
// the string is grown to allow it first (before anything keeps body.data()).
simdjson::error_code Iterate(std::string& body, sj::document* doc) {
  return ThreadParser().iterate(simdjson::padded_string_view(body.data(), body.size(), body.capacity())).get(*doc);
}

// The body as a JSON object, or the 400 answer saying why; `shape` is what a
// client should have sent. Grows body first (simdjson reads past the end).
std::optional<Answer> BodyObject(std::string& body, JsonReader& reader, sj::document* doc, sj::object* obj,
                                 std::string_view shape) {
  body.reserve(body.size() + simdjson::SIMDJSON_PADDING);
  if (auto ec = Iterate(body, doc)) return ErrorAnswer(reader.Malformed(ec, "body"));
  if (auto ec = doc->get_object().get(*obj)) {
    if (ec == simdjson::INCORRECT_TYPE) return ErrorAnswer(BodyError("json", fmt::format("the body must be a JSON object {}", shape)));
    return ErrorAnswer(reader.Malformed(ec, "body"));
  }
  return std::nullopt;
}

// The raw text of a key as the body spells it (escapes and all), for an
// error about it: simdjson has checked the body, so the closing quote is there.
std::string_view RawKey(const sj::raw_json_string& key) {
  const char* p = key.raw();
  size_t n = 0;
  while (p[n] != '"') n += p[n] == '\\' ? 2 : 1;
  return std::string_view(p, n);
}

// Refuses a key given twice or not one of `keys` in a request object (the
// body, or one statement of a batch), then rewinds it for the caller's
// find_field_unordered, which would take the first of two "params" and
// ignore the second, and ignores a misspelt "parms". Keys are compared as
// written, as find_field_unordered compares them. With `root` (the body's
// document), content after the object is refused too: On-Demand never reads
// that far, so a second object would be dropped without a word.
std::optional<Error> CheckKeys(sj::object& obj, std::initializer_list<std::string_view> keys, const std::string& where,
                               JsonReader& reader, sj::document* root = nullptr, const char* body = nullptr) {
  uint32_t seen = 0;
  for (auto field_res : obj) {
    sj::field f;
    if (auto ec = std::move(field_res).get(f)) return reader.Malformed(ec, where);
    uint32_t bit = 1;
    auto it = keys.begin();
    while (it != keys.end() && !f.key().unsafe_is_equal(*it)) {
      ++it;
      bit <<= 1;
    }
    std::string_view raw = RawKey(f.key());
    sj::value v = f.value();
    if (it == keys.end()) {
      std::string expected;
      for (std::string_view k : keys) expected += fmt::format("{}\"{}\"", expected.empty() ? "" : ", ", k);
      return reader.At(v, 400, "json", fmt::format("unknown key \"{}\": expected {}", raw, expected),
                       fmt::format("{}.{}", where, raw));
    }
    if (seen & bit) {
      return reader.At(v, 400, "json", fmt::format("key \"{}\" given twice", raw), fmt::format("{}.{}", where, raw));
    }
    seen |= bit;
  }
  const char* rest = nullptr;
  if (root != nullptr && root->current_location().get(rest) == simdjson::SUCCESS) {
    Error e = BodyError("json", "trailing content after the body's object");
    e.offset = rest - body;
    return e;
  }
  if (auto ec = obj.reset().error()) return reader.Malformed(ec, where);
  return std::nullopt;
}

bool Batchable(const StatementDef& d) { return d.traits.batchable; }

std::string IdsJson(const std::vector<DocId>& ids, size_t from, size_t n) {
  std::string out = "[";
  for (size_t i = 0; i < n; ++i) fmt::format_to(std::back_inserter(out), "{}{}", i ? "," : "", ids[from + i]);
  out.push_back(']');
  return out;
}

}  // namespace

size_t ThreadParserCapacity() { return ThreadParser().capacity(); }

PlanResult Service::PlanFor(std::string_view text) {
  if (auto plan = cache_.Find(text)) return PlanResult{std::move(plan), {}};
  ParseResult parsed = Parse(text, limits_);
  if (!parsed.ok()) return PlanResult{nullptr, std::move(parsed.error)};
  PlanResult planned = Prepare(*parsed.statement, text, *db_, limits_);
  if (planned.ok()) cache_.Insert(text, planned.plan);
  return planned;
}

Answer Service::Query(std::string& body, const AnswerLater& later) { return *RunQuery(body, Only::kAny, later); }

std::optional<Answer> Service::QueryPointRead(std::string& body) { return RunQuery(body, Only::kPointRead); }

std::optional<Answer> Service::QueryPutNoWait(std::string& body, const AnswerLater& later) {
  if (!later) return std::nullopt;
  return RunQuery(body, Only::kPutNoWait, later);
}

// With `only` a kind, any answer but its (an error included) gives nullopt
// instead, and nothing is counted, so that Query, called next on the same
// body, answers and counts as if this had not run.
std::optional<Answer> Service::RunQuery(std::string& body, Only only, const AnswerLater& later) {
  const bool one_kind = only != Only::kAny;
  auto fail = [one_kind](Answer a) -> std::optional<Answer> {
    if (one_kind) return std::nullopt;
    return a;
  };
  ParserLease lease(limits_.keep_parser_bytes);
  body.reserve(body.size() + simdjson::SIMDJSON_PADDING);  // before reader keeps body.data()
  JsonReader reader(body.data(), limits_);
  sj::document doc;
  sj::object obj;
  if (auto bad = BodyObject(body, reader, &doc, &obj, "{\"statement\": ..., \"params\": ...}")) return fail(*bad);
  if (auto err = CheckKeys(obj, {"statement", "params"}, "body", reader, &doc, body.data())) return fail(ErrorAnswer(*err));
  sj::value text_v;
  auto ec = obj.find_field_unordered("statement").get(text_v);
  if (ec == simdjson::NO_SUCH_FIELD) return fail(ErrorAnswer(BodyError("json", "the body has no \"statement\"", "body.statement")));
  if (ec) return fail(ErrorAnswer(reader.Malformed(ec, "body")));
  std::string_view text;
  if (auto se = text_v.get_string().get(text)) {
    if (se == simdjson::STRING_ERROR) return fail(ErrorAnswer(reader.Malformed(se, "body.statement")));
    return fail(ErrorAnswer(reader.At(text_v, 400, "json", "\"statement\" must be a string", "body.statement")));
  }
  // The unescaped text lives in the parser's string buffer, which the params
  // read below appends to without moving; it is only used before then.
  PlanResult planned;
  if (one_kind) {
    // Only a plan already cached, looked up uncounted: a miss (or another
    // kind) is left to Query, which parses, plans and counts it once.
    planned.plan = cache_.Peek(text);
    if (!planned.plan) return std::nullopt;
    if (only == Only::kPointRead ? !StatementOf(planned.plan->kind).traits.point_read
                                 : planned.plan->kind != StatementKind::kPut)
      return std::nullopt;
  } else {
    planned = PlanFor(text);
    if (!planned.ok()) return ErrorAnswer(planned.error);
  }
  const Plan& plan = *planned.plan;

  Bound bound;
  sj::value params_v;
  ec = obj.find_field_unordered("params").get(params_v);
  if (ec && ec != simdjson::NO_SUCH_FIELD) return fail(ErrorAnswer(reader.Malformed(ec, "body")));
  if (auto err = reader.ReadParams(plan, ec ? nullptr : &params_v, "params", &bound)) return fail(ErrorAnswer(*err));
  if (only == Only::kPutNoWait) {
    std::optional<Answer> a = TryExecutePutLater(plan, bound, *db_, later);
    if (a) cache_.CountHit();
    return a;
  }
  if (one_kind) cache_.CountHit();
  Answer a = Run(plan, bound, later);
  if (StatementOf(plan.kind).traits.clears_plan_cache && a.http == 200) cache_.Clear();
  return a;
}

Answer Service::Run(const Plan& plan, Bound& bound, const AnswerLater& later) {
  if (later && plan.kind == StatementKind::kPut) return ExecutePutLater(plan, bound, *db_, later);
  ReadOptions ro;
  ro.cancel = &cancel_;
  if (limits_.read_timeout.count() > 0) ro.deadline = std::chrono::steady_clock::now() + limits_.read_timeout;
  return Execute(plan, bound, *db_, limits_, ro);
}

Answer Service::PutDocs(std::string_view collection, std::string& body, const AnswerLater& later) {
  PlanResult planned = PathPlan("PUT", collection, "$docs");
  if (!planned.ok()) return ErrorAnswer(planned.error);
  const Plan& plan = *planned.plan;
  ParserLease lease(limits_.keep_parser_bytes);
  body.reserve(body.size() + simdjson::SIMDJSON_PADDING);
  sj::document doc;
  JsonReader reader(body.data(), limits_);
  if (auto ec = Iterate(body, &doc)) return ErrorAnswer(reader.Malformed(ec, "body"));
  sj::value root;
  if (auto ec = doc.get_value().get(root)) return ErrorAnswer(reader.Malformed(ec, "body"));
  Bound bound;
  bound.values.resize(plan.slots.size());
  if (auto err = reader.ReadDocs(root, plan, "body", &bound.docs)) return ErrorAnswer(*err);
  // A location still in bounds once the root is read is content after it.
  const char* rest = nullptr;
  if (doc.current_location().get(rest) == simdjson::SUCCESS) {
    Error e = BodyError("json", "trailing content after the documents");
    e.offset = rest - body.data();
    return ErrorAnswer(e);
  }
  return Run(plan, bound, later);
}

Answer Service::Batch(std::string& body, const AnswerLater& later) {
  ParserLease lease(limits_.keep_parser_bytes);
  body.reserve(body.size() + simdjson::SIMDJSON_PADDING);  // before reader keeps body.data()
  JsonReader reader(body.data(), limits_);
  sj::document doc;
  sj::object obj;
  if (auto bad = BodyObject(body, reader, &doc, &obj, "{\"statements\": [...]}")) return *bad;
  if (auto err = CheckKeys(obj, {"statements"}, "body", reader, &doc, body.data())) return ErrorAnswer(*err);
  sj::array list;
  auto ec = obj.find_field_unordered("statements").get_array().get(list);
  if (ec == simdjson::NO_SUCH_FIELD) return ErrorAnswer(BodyError("json", "the body has no \"statements\"", "body.statements"));
  if (ec == simdjson::INCORRECT_TYPE) return ErrorAnswer(BodyError("json", "\"statements\" must be an array", "body.statements"));
  if (ec) return ErrorAnswer(reader.Malformed(ec, "body"));

  std::shared_ptr<const Plan> first;
  std::vector<Document> docs;
  std::vector<size_t> counts;
  size_t i = 0;
  for (auto item_res : list) {
    std::string where = fmt::format("statements[{}]", i);
    sj::value item_v;
    if (auto e = item_res.get(item_v)) return ErrorAnswer(reader.Malformed(e, where));
    if (i == limits_.max_batch_statements) {
      return ErrorAnswer(TooLarge(fmt::format("a batch holds at most {} statements", limits_.max_batch_statements),
                                  where, "max_batch_statements", limits_.max_batch_statements,
                                  item_v.raw_json_token().data() - body.data()));
    }
    sj::object item;
    if (auto e = item_v.get_object().get(item)) {
      if (e == simdjson::INCORRECT_TYPE) return ErrorAnswer(BodyError("json", "each statement is an object {\"statement\": ..., \"params\": ...}", where));
      return ErrorAnswer(reader.Malformed(e, where));
    }
    if (auto err = CheckKeys(item, {"statement", "params"}, where, reader)) return ErrorAnswer(*err);
    std::string_view text;
    if (auto e = item.find_field_unordered("statement").get_string().get(text)) {
      if (e == simdjson::NO_SUCH_FIELD || e == simdjson::INCORRECT_TYPE) {
        return ErrorAnswer(BodyError("json", "\"statement\" must be a string", where + ".statement"));
      }
      return ErrorAnswer(reader.Malformed(e, where));
    }
    PlanResult planned = PlanFor(text);
    if (!planned.ok()) {
      planned.error.where = where + " " + planned.error.where;
      return ErrorAnswer(planned.error);
    }
    const Plan& plan = *planned.plan;
    if (!StatementOf(plan.kind).traits.batchable) {
      return ErrorAnswer(BodyError("batch", fmt::format("a batch lands as one write, so it holds only {}s; this is a {}",
                                                        StatementKeywords(Batchable), StatementKindName(plan.kind)),
                                   where));
    }
    if (first && !(plan.cid == first->cid)) {
      return ErrorAnswer(BodyError("batch", fmt::format("a batch lands as one write in one collection: '{}' after '{}'",
                                                        plan.collection, first->collection), where));
    }
    if (!first) first = planned.plan;
    Bound bound;
    sj::value params_v;
    auto pe = item.find_field_unordered("params").get(params_v);
    if (pe && pe != simdjson::NO_SUCH_FIELD) return ErrorAnswer(reader.Malformed(pe, where));
    if (auto err = reader.ReadParams(plan, pe ? nullptr : &params_v, where + ".params", &bound)) return ErrorAnswer(*err);
    std::vector<Document> these = PutDocuments(plan, bound);
    // The documents written out in the statements count with those of their parameters.
    const size_t total = docs.size() + these.size(), width = plan.schema.fields.size();
    if (total > limits_.max_docs) {
      return ErrorAnswer(TooLarge(fmt::format("a batch lands at most {} documents", limits_.max_docs), where,
                                  "max_docs", limits_.max_docs));
    }
    if (total > limits_.max_doc_values / width) {
      return ErrorAnswer(TooLarge(fmt::format("{} documents of {} fields each are over {} values", total, width,
                                              limits_.max_doc_values),
                                  where, "max_doc_values", limits_.max_doc_values));
    }
    counts.push_back(these.size());
    for (auto& d : these) docs.push_back(std::move(d));
    ++i;
  }
  if (!first) return ErrorAnswer(BodyError("batch", "the batch has no statements", "body.statements"));
  // Every statement's ids, in its own array.
  auto answer = [counts = std::move(counts), where = fmt::format("batch into {}", first->collection)](
                    const Result<std::vector<DocId>>& ids) {
    if (!ids.ok()) return ErrorAnswer(StatusError(ids.status(), where));
    std::string out = "{\"ids\":[";
    size_t at = 0;
    for (size_t k = 0; k < counts.size(); ++k) {
      if (k) out.push_back(',');
      out += IdsJson(*ids, at, counts[k]);
      at += counts[k];
    }
    out += "]}";
    return Answer{200, std::move(out), "batch"};
  };
  if (later) {
    db_->PutBatchAsync(first->cid, std::move(docs),
                       [answer = std::move(answer), later](Result<std::vector<DocId>> ids) { later(answer(ids)); });
    Answer a;
    a.deferred = true;
    a.kind = "batch";
    return a;
  }
  return answer(db_->PutBatch(first->cid, std::move(docs)));
}

Answer Service::GetDoc(std::string_view collection, std::string_view id_text) {
  DocId id = 0;
  auto r = std::from_chars(id_text.data(), id_text.data() + id_text.size(), id);
  if (r.ec != std::errc{} || r.ptr != id_text.data() + id_text.size() || id == 0 || id > INT64_MAX) {
    return ErrorAnswer(Error{400, "type", fmt::format("'{}' is not a document id (a whole number >= 1)", id_text), "path", -1});
  }
  PlanResult planned = PathPlan("GET", collection, "$1");
  if (!planned.ok()) return ErrorAnswer(planned.error);
  Bound bound;
  bound.values.push_back(Value(static_cast<int64_t>(id)));
  return Run(*planned.plan, bound);
}

// The REST paths are statements too ("GET c $1", "PUT c $docs"), so they
// share the plan cache: a get by id does not look its collection up again.
PlanResult Service::PathPlan(std::string_view verb, std::string_view collection, std::string_view param) {
  bool ident = !collection.empty() && !std::isdigit(static_cast<unsigned char>(collection[0]));
  for (char c : collection) ident = ident && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ident) {
    return PlanResult{nullptr, Error{404, "unknown_collection",
                                     fmt::format("no collection named '{}'", collection), "path", -1}};
  }
  PlanResult planned = PlanFor(fmt::format("{} {} {}", verb, collection, param));
  if (!planned.ok()) {
    planned.error.where = "path";
    planned.error.offset = -1;
  }
  return planned;
}

}  // namespace fenec::query
