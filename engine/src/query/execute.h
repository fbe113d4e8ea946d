// Running a planned statement on the engine, and the JSON it answers with.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fenec/database.h"
#include "engine/src/query/bind.h"
#include "engine/src/query/plan.h"
#include "engine/src/query/request_limits.h"

namespace fenec::query {

// What goes back to the client: an HTTP status and a JSON body.
struct Answer {
  int http = 200;
  std::string body;
  const char* kind = "";  // the statement kind run ("get", "put" ...), for per-kind metrics
  // Not answered yet: the write was submitted, and its answer goes to the
  // caller's AnswerLater once it is durable (Service's methods).
  bool deferred = false;
};
// Called once with a deferred write's answer, on the engine's thread.
using AnswerLater = std::function<void(Answer)>;

Answer ErrorAnswer(const Error& e);
// An engine Status as an Error: kNotFound 404, kConstraint/kAlreadyExists 409,
// kInvalidArgument 400, kFailStopped/kClosed 503, I/O 500 (kNoSpace 507).
Error StatusError(const Status& s, std::string where);
// Where an error happened, for its message: "find users", "aggregate users".
std::string Where(const Plan& plan);

// The documents a PUT lands: its written-out documents with their parameters
// filled in, or those its $docs parameter held. Moves out of `bound`.
std::vector<Document> PutDocuments(const Plan& plan, Bound& bound);

// Runs the plan. Writes land through the engine's Put/PutBatch/Delete, so
// durability and locking are the engine's, as its Options say. Long reads
// (FIND, AGGREGATE) run with `ro`: its deadline and cancel flag bound them;
// a FIND answers pages of `limits` (find_page, max_find_rows).
Answer Execute(const Plan& plan, Bound& bound, Database& db, const Limits& limits = DefaultLimits(),
               const ReadOptions& ro = {});

// A PUT submitted with Database::PutBatchAsync: returns a deferred Answer
// at once; later gets what Execute would have answered.
Answer ExecutePutLater(const Plan& plan, Bound& bound, Database& db, AnswerLater later);
// The same through Database::TryPutBatchAsync, for a thread that may not
// wait: nullopt (nothing landed, later never called) when the engine would.
std::optional<Answer> TryExecutePutLater(const Plan& plan, Bound& bound, Database& db, AnswerLater later);

// {"field": value, ...} in schema order.
void AppendDocJson(std::string& out, const Schema& schema, const Document& doc);

}  // namespace fenec::query
