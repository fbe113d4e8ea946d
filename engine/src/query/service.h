// The statement language as a service: what fenec-server's endpoints call,
// with no HTTP in it (so it is tested without sockets).
//
// Every request body is read and bound here with no engine lock held: the
// engine's lock is taken only inside Database's own calls. Bodies must be
// std::strings the service may grow by SIMDJSON_PADDING (simdjson reads
// ahead of the last byte).
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "fenec/database.h"
#include "engine/src/query/execute.h"
#include "engine/src/query/request_limits.h"
#include "engine/src/query/plan_cache.h"

namespace fenec::query {

// Requests over one of `limits` (request_limits.h) are answered 413 `too_large`, nothing run.
class Service {
 public:
  explicit Service(Database* db, Limits limits = {}) : db_(db), limits_(limits) {}

  // With `later` given, a write (a PUT; a /docs body; a batch) is submitted
  // without waiting for its fsync: the method returns an Answer with
  // `deferred` set, and later gets the answer once the write is durable (on
  // the engine's thread, or on this one before the return when it is
  // refused). Anything else is answered as without it; later is not called.
  //
  // POST /query: {"statement": "...", "params": [...] | {...}}.
  Answer Query(std::string& body, const AnswerLater& later = {});
  // The same, but only for a point read (its row's trait, statements.h: a
  // get by id, "GET c $1") whose plan is cached:
  // its answer, or nullopt (nothing counted, body's content unchanged) for
  // anything else, which the caller then sends to Query. fenec-server calls
  // it on an io thread, since a get by id takes microseconds and never
  // waits for an fsync; a hand-off to a worker would cost more (RQ-1).
  std::optional<Answer> QueryPointRead(std::string& body);
  // The same for a PUT whose plan is cached, landed through
  // Database::TryPutBatchAsync (never waiting: fenec-server calls it on an
  // io thread, and the answer comes to `later` once durable): its deferred
  // answer (the engine's refusal too, through later), or nullopt (nothing
  // counted or landed, body unchanged) for any other statement, a body
  // that does not bind, or a put the engine would have waited for.
  std::optional<Answer> QueryPutNoWait(std::string& body, const AnswerLater& later);
  // POST /docs/{collection}: a JSON array of documents (or one), landed as one write.
  Answer PutDocs(std::string_view collection, std::string& body, const AnswerLater& later = {});
  // POST /batch: {"statements": [{"statement": "PUT c ...", "params": ...}, ...]};
  // every statement a PUT into one collection, landed as one PutBatch (one commit).
  Answer Batch(std::string& body, const AnswerLater& later = {});
  // GET /docs/{collection}/{id}.
  Answer GetDoc(std::string_view collection, std::string_view id);

  // The plan for a statement text: from the cache, or parsed and planned
  // now (and kept, if it planned). Errors carry the text's line:col.
  PlanResult PlanFor(std::string_view text);

  const PlanCache& cache() const { return cache_; }
  const Limits& limits() const { return limits_; }

  // Stops every long read running now or later at its next check, answered
  // 503 `timeout` (a stopping server calls it before waiting for its workers).
  void CancelReads() { cancel_.store(true, std::memory_order_relaxed); }

 private:
  // What RunQuery answers: anything (Query), or only the one kind an io
  // thread may run (the two above), nullopt for the rest.
  enum class Only { kAny, kPointRead, kPutNoWait };
  std::optional<Answer> RunQuery(std::string& body, Only only, const AnswerLater& later = {});
  // Runs a planned request: its long reads bounded by Limits::read_timeout
  // from now, and by CancelReads; a PUT deferred if later is given.
  Answer Run(const Plan& plan, Bound& bound, const AnswerLater& later = {});
  PlanResult PathPlan(std::string_view verb, std::string_view collection, std::string_view param);

  Database* db_;
  Limits limits_;
  PlanCache cache_;
  std::atomic<bool> cancel_{false};
};

// The bytes of body this thread's JSON parser has room for now (for tests:
// after a body over Limits::keep_parser_bytes it is freed again).
size_t ThreadParserCapacity();

}  // namespace fenec::query
