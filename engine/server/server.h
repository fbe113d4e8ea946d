// fenec-server: fenecdb over HTTP/1.1 (see engine/doc/statements.md).
//
//   POST /query                  {"statement": "...", "params": [...] | {...}}
//   POST /docs/{collection}      a JSON array of documents (or one), one write
//   POST /batch                  {"statements": [...]}: PUTs landed as one write
//   GET  /docs/{collection}/{id}
//   GET  /health                 {"status":"ok"}, 503 once the engine is fail-stopped
//   GET  /metrics                Prometheus text: requests, latencies, engine, RSS
//
// Bodies are read by the transport and parsed by the query service with no
// engine lock held; the engine takes its lock only inside its own calls.
#pragma once

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
    std::string token;  // non-empty: every request needs "Authorization: Bearer <token>"
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
  // The io thread's try before a worker gets a request other than a GET:
  // answers a POST /query that is a get by id with a cached plan (as Handle
  // would, counted alike), false for anything else (http_server.h, Inline).
  bool HandleInline(HttpRequest& req, HttpResponse& res);
  std::string MetricsText() const;

 private:
  bool Authorized(const HttpRequest& req) const;
  void AppendEngineMetrics(std::string& out) const;

  Database* db_;
  Config config_;
  query::Service service_;
  Metrics metrics_;
  std::unique_ptr<base::SmapsRollupSampler> smaps_;
  std::unique_ptr<HttpServer> http_;
};

// True when host is a loopback address (127.0.0.0/8, ::1, "localhost").
bool IsLoopback(const std::string& host);

}  // namespace fenec::server
