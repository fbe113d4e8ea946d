// fenec-server's HTTP/1.1 transport: Boost.Beast's asynchronous model, a
// small pool of io threads running one io_context, and a pool of worker
// threads for the requests that may block in the engine.
//
// Why asynchronous (issue 13): with a thread per connection and no timeouts,
// --max-connections idle sockets locked every other client out. Here an open
// connection that sends nothing costs a socket, a timer and a small session
// object (its read buffer and parser are freed between requests), and no
// thread: thousands of idle or slow clients wait in epoll while the io
// threads serve everyone else. Each connection's life is bounded by deadlines:
//   idle     waiting for the first byte of a request    --idle-timeout
//   header   from that first byte to the header's end   --header-timeout
//   body     from the header's end to the body's end    --body-timeout
//   write    the answer's write                          --write-timeout
// and each request's header by --max-header-bytes and --max-header-fields
// (431). A connection whose deadline passes is closed and counted: a
// slow-drip client is not answered (it is not reading in good faith, and a
// write to it could only wait again).
//
// Why a worker pool beside the io threads: a durable write waits in the
// engine for its group commit's fdatasync (milliseconds), and a scan may hold
// a pin for long. Run on an io thread, that wait would stall every other
// connection the thread serves. So a request other than a GET is handed to
// a worker, and its session resumes on the io threads (on its strand) to
// write the answer once the worker is done. A GET (a get by id, /health,
// /metrics) is answered on the io thread itself: it takes microseconds under
// the engine's shared lock and never waits for an fsync, and a hand-off
// would put a context switch in every read's path on a two-core box. (Under
// --long-reads locked a GET can queue for the shared lock behind a writer
// that waits out a long locked scan: that stalls one io thread for the
// scan's length, the naive arm's cost; --io-threads > 1 keeps the others
// serving.)
// --workers bounds how many requests are in the engine at once (and so how
// many durable writes one group commit can gather); the rest queue, counted
// by fenec_http_requests_queued.
//
// Why Beast: an answer goes out in ONE write (header and body as one buffer
// sequence, one sendmsg); cpp-httplib 0.11.4 sends them in two send() calls,
// the write-write-read pattern Nagle plus delayed ACK turns into 40 ms stalls.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "fenec/status.h"

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

// What the transport counted since Start(): a snapshot for /metrics and tests.
struct ConnectionStats {
  uint64_t open = 0;              // sessions alive now (the gauge)
  uint64_t accepted = 0;          // every connection accepted, refused ones included
  uint64_t idle_timeouts = 0;     // closed waiting for a request past --idle-timeout
  uint64_t header_timeouts = 0;   // closed with a header unfinished past --header-timeout
  uint64_t body_timeouts = 0;     // closed with a body unfinished past --body-timeout
  uint64_t write_timeouts = 0;    // closed with an answer unwritten past --write-timeout
  uint64_t over_header_bytes = 0; // 431: a header over --max-header-bytes
  uint64_t over_header_fields = 0;// 431: more fields than --max-header-fields
  uint64_t over_body = 0;         // 413: a body over --max-body
  uint64_t over_connections = 0;  // 503: accepted over --max-connections, answered and closed
  uint64_t bad_http = 0;          // 400: not HTTP/1.x as Beast parses it
  uint64_t queued = 0;            // requests waiting for a worker now (a gauge)
  uint64_t answered_inline = 0;   // non-GET requests the Inline hook answered on an io thread
};

class HttpServer {
 public:
  struct Config {
    std::string host = "127.0.0.1";
    uint16_t port = 8080;                // 0: an ephemeral port (see port())
    size_t max_body = 64u << 20;         // larger bodies are answered 413
    // More are answered 503 and closed. Each costs a descriptor: the
    // process's open-files limit (ulimit -n) bounds it too.
    size_t max_connections = 16384;
    size_t io_threads = 2;               // threads running the io_context
    size_t workers = 64;                 // threads running non-GET handlers
    std::chrono::milliseconds idle_timeout{60'000};
    std::chrono::milliseconds header_timeout{10'000};
    std::chrono::milliseconds body_timeout{30'000};
    std::chrono::milliseconds write_timeout{30'000};
    uint32_t max_header_bytes = 16 * 1024;  // request line and fields together
    size_t max_header_fields = 100;
  };
  using Handler = std::function<void(HttpRequest&, HttpResponse&)>;
  // Called for each answer once built, before it is written (so a client
  // that has its answer sees it counted): handle_ns is the handler's time.
  using Done = std::function<void(const HttpResponse&, uint64_t handle_ns)>;
  // Called after each answer's write, with the write's time.
  using Written = std::function<void(const HttpResponse&, uint64_t write_ns)>;
  // Called for requests refused by the transport itself (413, 431, 400, 503).
  using Refused = std::function<void(int status)>;
  // Optional: called on the io thread for a request other than a GET, before
  // it is handed to a worker. It answers (true) only what is as quick as a
  // GET and never waits for an fsync (a POST /query that is a get by id);
  // false leaves req untouched and the request goes to a worker as before.
  // RQ-1: the hand-off to a worker and back cost two thread wake-ups per
  // request, the larger part of a get by id's time in the server.
  using Inline = std::function<bool(HttpRequest&, HttpResponse&)>;

  HttpServer(Config config, Handler handler, Done done, Written written, Refused refused, Inline inline_handler = nullptr);
  ~HttpServer();  // Stop()s

  // Binds and starts accepting. Fails: kInvalidArgument (host is not an IP
  // address, or a pool of zero threads), kIOError (socket, bind or listen;
  // errno carried).
  Status Start();
  uint16_t port() const { return port_; }
  // Stops accepting, closes connections waiting for or reading a request,
  // lets every request already read finish and its answer be written, then
  // joins every thread.
  void Stop();
  size_t open_connections() const { return static_cast<size_t>(stats().open); }
  uint64_t connections_total() const { return stats().accepted; }
  ConnectionStats stats() const;
  // The transport's series (fenec_http_*), in Prometheus text format.
  void AppendMetrics(std::string& out) const;

  struct Shared;  // what sessions share with the server (http_session.h)

 private:
  void Accept();

  std::unique_ptr<Shared> shared_;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint16_t port_ = 0;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace fenec::server
