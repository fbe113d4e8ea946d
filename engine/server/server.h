// fenec-server: fenecdb over HTTP/1.1 (see engine/doc/statements.md).
//
//   POST /query                  {"statement": "...", "params": [...] | {...}}
//   POST /docs/{collection}      a JSON array of documents (or one), one write
//   POST /batch                  {"statements": [...]}: PUTs landed as one write
//   GET  /docs/{collection}/{id}
//   GET  /health                 {"status":"ok"}, 503 once the engine is fail-stopped (or closed)
//   GET  /metrics                Prometheus text: requests, latencies, engine, RSS
//
// Bodies are read by the transport and parsed by the query service with no
// engine lock held; the engine takes its lock only inside its own calls.
// The transport screens each header first (http_guard.h): its framing, Host,
// Origin, the token, Content-Type and the body budget, before any body byte.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "fenec/database.h"
#include "engine/src/base/smaps.h"
#include "engine/src/query/service.h"
#include "engine/server/http_server.h"
#include "engine/server/metrics.h"

namespace fenec::server {

class FenecServer {
 public:
  struct Config {
    HttpServer::Config http;
    // Non-empty: every request needs "Authorization: Bearer <token>"; the
    // transport checks it at the header (config.http.token is set from it).
    std::string token;
    // What one request may ask of the statement language (request_limits.h).
    query::Limits limits;
  };

  // The server does not own db; it must outlive the server.
  FenecServer(Database* db, Config config);
  ~FenecServer();

  Status Start();  // Fails: as HttpServer::Start
  uint16_t port() const { return http_->port(); }
  // Finishes requests in flight, closes connections; the caller then syncs and closes db.
  void Stop();

  // Routes one request (public for tests of the routing without sockets).
  void Handle(HttpRequest& req, HttpResponse& res);
  // The io thread's try before a worker gets a request (http_server.h,
  // Inline): answers /health from the engine's atomics, and a get by id
  // (GET /docs/{c}/{id}, or a POST /query "GET c $1" with a cached plan) as
  // Handle would, counted alike, if the engine's lock is free at once; false
  // for anything else, and for a get whose lock was taken (counted in
  // reads_deferred()), which a worker then answers.
  bool HandleInline(HttpRequest& req, HttpResponse& res);
  // The worker's try before Handle (http_server.h, Later): the writing
  // endpoints (POST /query, /docs/{c}, /batch). A write is submitted and
  // answered from the engine's callback once durable, so no worker waits
  // for its fsync; any other statement is answered at once. false for the
  // rest, which Handle answers. With no_wait (the io thread's try): only a
  // POST /query PUT with a cached plan that lands without waiting
  // (Service::QueryPutNoWait); false, nothing changed, for anything else.
  bool HandleLater(HttpRequest& req, HttpResponse& res, std::function<void()> answered, bool no_wait = false);
  std::string MetricsText() const;
  uint64_t reads_deferred() const { return reads_deferred_.load(std::memory_order_relaxed); }
  ConnectionStats connection_stats() const { return http_->stats(); }

 private:
  bool Authorized(const HttpRequest& req) const;
  void Health(HttpResponse& res) const;
  void AppendEngineMetrics(std::string& out) const;

  Database* db_;
  Config config_;
  query::Service service_;
  Metrics metrics_;
  std::unique_ptr<base::SmapsRollupSampler> smaps_;
  std::unique_ptr<HttpServer> http_;
  std::atomic<uint64_t> reads_deferred_{0};
};

// True when host is a loopback address (127.0.0.0/8, ::1, "localhost").
bool IsLoopback(const std::string& host);

}  // namespace fenec::server
