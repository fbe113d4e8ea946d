// fenec-server's HTTP/1.1 transport: Boost.Beast, one thread per
// kept-alive connection, blocking reads and writes.
//
// Why Beast, and why blocking threads, for latency under 8+ concurrent
// keep-alive clients:
//  - An answer goes out in ONE write: Beast serializes the header and the
//    body as one buffer sequence, sent by one sendmsg. cpp-httplib 0.11.4
//    (Debian's) sends the header and the body in two send() calls, a second
//    syscall per request and, without TCP_NODELAY, the write-write-read
//    pattern that Nagle plus delayed ACK turns into 40 ms stalls.
//  - cpp-httplib serves from a fixed pool (max(8, cores - 1) threads here)
//    in which every kept-alive connection holds a thread: the ninth client
//    waits for a connection to close, and its default closes each one after
//    5 requests. Here every connection has its thread for as long as it
//    lives (up to --max-connections), so 8, 16 or 64 clients never queue
//    behind one another in the transport.
//  - A blocking read -> handle -> write on the connection's own thread has
//    no hand-off between a reactor and a worker: on two cores, each hand-off
//    is a context switch in the request's path. Beast's async API would
//    bring one back for no gain at these connection counts.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <thread>

#include "engine/src/base/mutex.h"
#include "fenec/status.h"
#include "engine/src/base/thread_annotations.h"

namespace fenec::server {

struct HttpRequest {
  std::string method;         // "GET", "POST", ...
  std::string target;         // path and query, as sent
  std::string body;
  std::string authorization;  // the Authorization header, "" if absent
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::string endpoint;  // for metrics: "query", "docs_get", ...
  std::string kind;      // for metrics: the statement kind, "" if none
};

class HttpServer {
 public:
  struct Config {
    std::string host = "127.0.0.1";
    uint16_t port = 8080;              // 0: an ephemeral port (see port())
    size_t max_body = 64u << 20;       // larger bodies are answered 413
    size_t max_connections = 256;      // more are answered 503 and closed
  };
  using Handler = std::function<void(HttpRequest&, HttpResponse&)>;
  // Called for each answer once built, before it is written (so a client
  // that has its answer sees it counted): handle_ns is the handler's time.
  using Done = std::function<void(const HttpResponse&, uint64_t handle_ns)>;
  // Called after each answer's write, with the write's time.
  using Written = std::function<void(const HttpResponse&, uint64_t write_ns)>;
  // Called for requests refused by the transport itself (413, 431, 400, 503).
  using Refused = std::function<void(int status)>;

  HttpServer(Config config, Handler handler, Done done, Written written, Refused refused);
  ~HttpServer();  // Stop()s

  // Binds and starts accepting. Fails: kInvalidArgument (host is not an IP
  // address), kIOError (socket, bind or listen; errno carried).
  Status Start();
  uint16_t port() const { return port_; }
  // Stops accepting, lets every request already read finish and its answer
  // be written, closes idle connections, and joins every thread.
  void Stop();
  size_t open_connections() const;
  uint64_t connections_total() const { return connections_total_.load(); }

 private:
  struct Session;
  void AcceptLoop() FENEC_EXCLUDES(mu_);
  void Serve(Session* s) FENEC_EXCLUDES(mu_);
  void Reap(bool all) FENEC_EXCLUDES(mu_);

  Config config_;
  Handler handler_;
  Done done_;
  Written written_;
  Refused refused_;
  std::atomic<uint64_t> connections_total_{0};
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  // Guards sessions_, each session's closed flag, and shutting its socket
  // down or closing it (its own thread reads and writes it without mu_).
  mutable base::Mutex mu_;
  std::list<std::unique_ptr<Session>> sessions_ FENEC_GUARDED_BY(mu_);
};

}  // namespace fenec::server
