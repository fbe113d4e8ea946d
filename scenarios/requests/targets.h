// The requests RQ-1 asks, and a connection to each system that asks them.
//
// Both systems are asked the same thing for the same draw (a number the
// client loop derives from the seed, the client and the request's index):
// the same id, the same filter bound, the same query vector, the same row
// to put. Each answer is the rows whole (name, n, vec), as an application
// reading them would want.
//
//   request    fenec-server (POST /query, parameters beside the text)   PostgreSQL (prepared)
//   empty      GET /health                                             ";" (the empty query)
//   get-by-id  GET items $1                                            SELECT ... WHERE id = $1
//   filter     FIND items WHERE n >= $1 LIMIT 10                       ... WHERE n >= $1 ORDER BY id LIMIT 10
//   near       FIND items NEAR vec $1 LIMIT 10  (the @hnsw graph)      ORDER BY an L2 distance in SQL LIMIT 10
//   put        PUT puts {name: $1, n: $2, vec: $3}                     INSERT INTO puts ... RETURNING id
//
// PostgreSQL's near is an exact scan (postgres-exact): pgvector is not
// packaged for Debian 12, so this is what a user of Debian's PostgreSQL
// writes: a float4[] column and the distance in SQL over unnest().
#pragma once

#include <libpq-fe.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "scenarios/pg/pq.h"
#include "scenarios/requests/dataset.h"
#include "scenarios/requests/http_client.h"

namespace fenec::scenarios::requests {

// kMixed is no request of its own: each draw picks a get, a filter or a put
// (MixedPick), the load at more connections than cores.
enum class Kind { kEmpty, kGetById, kFilter, kNear, kPut, kMixed };
inline constexpr Kind kKinds[] = {Kind::kEmpty, Kind::kGetById, Kind::kFilter, Kind::kNear, Kind::kPut};
// The request a mixed draw asks: of every 8, 5 gets by id, 2 filters, 1 put.
Kind MixedPick(uint64_t draw);
inline constexpr int kLimit = 10;

// "empty", "get-by-id", "filter", "near", "put", "mixed".
const char* KindName(Kind k);

// What the rows of an answer hold, read back for comparing the systems.
struct AnswerRow {
  int64_t id = 0;
  std::string name;
  int64_t n = 0;
  std::vector<float> vec;
  bool operator==(const AnswerRow&) const = default;
};

class Conn {
 public:
  virtual ~Conn() = default;
  // Asks request `k` with draw `draw`; "" when answered as it must be (200;
  // the rows a get, a filter or a near must have), else why not. With `rows`,
  // the answer's rows are read back into it (not on the timed path).
  virtual std::string Do(Kind k, uint64_t draw, std::vector<AnswerRow>* rows = nullptr) = 0;
  // The process that answers this connection alone (PostgreSQL's backend),
  // 0 when the server is one process for every connection (fenec-server).
  virtual int ServerPid() const { return 0; }
  // PostgreSQL's backend keeps its statistics (pg_stat_wal's syncs among
  // them) to itself for up to a second: this has it publish them now, so a
  // cell's counts read exact. "" or why not; nothing for fenec-server.
  virtual std::string FlushStats() { return ""; }
};

// The parameters of draw `draw`, for both systems alike.
int64_t DrawId(const Dataset& d, uint64_t draw);
int64_t DrawBound(const Dataset& d, uint64_t draw);
size_t DrawQuery(const Dataset& d, uint64_t draw);
size_t DrawPut(const Dataset& d, uint64_t draw);

// One kept-alive connection to fenec-server on 127.0.0.1:port. "" or why not.
std::string ConnectFenec(int port, const Dataset& d, std::unique_ptr<Conn>* out);
// One libpq connection over TCP loopback, its statements prepared, with
// synchronous_commit on (durable) or off, and commit_delay_us (durable,
// > 0: PostgreSQL's own group-commit wait, at most kPgMaxCommitDelayUs).
// "" or why not.
std::string ConnectPg(const std::string& conninfo, const Dataset& d, bool durable, std::unique_ptr<Conn>* out,
                      int commit_delay_us = 0);
// PostgreSQL's largest commit_delay.
inline constexpr int kPgMaxCommitDelayUs = 100000;

}  // namespace fenec::scenarios::requests
