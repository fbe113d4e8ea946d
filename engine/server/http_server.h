// fenec-server's HTTP/1.1 transport: Boost.Beast's asynchronous model, a
// small pool of io threads each running its own io_context (a connection
// stays on one thread for its life), and a pool of worker
// threads for the requests that may block in the engine.
//
// Why asynchronous: with a thread per connection and no timeouts,
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
// Why a worker pool beside the io threads: a write may wait for the
// engine's lock, and a scan may hold a pin for long. Run on an io thread, that wait would stall every other
// connection the thread serves. So a request is handed to a worker, and its
// session resumes on the io threads (on its strand) to write the answer once
// the worker is done, unless the Inline hook answers it on the io thread: a
// get by id and /health take microseconds and never wait for an fsync, and
// a hand-off would put a context switch in every read's path on a two-core
// box. A get by id there takes the engine's shared lock only if it is free
// at once: behind a writer (or, under --long-reads locked, a writer waiting
// out a long locked scan) it goes to a worker, so no io thread ever waits
// for the engine. /metrics gathers every statistic under locks: a worker's.
// A durable write holds no worker while its fsync runs (the Later hook): it
// lands, and its answer is written when the engine calls back, so one group
// commit round carries every connection's writes. A small one lands on the
// io thread itself when the engine's write lock is free at once
// (Database::TryPutBatchAsync); else a worker lands it, as any write.
// --workers bounds how many requests are in the engine at once; the rest queue, counted
// by fenec_http_requests_queued, up to --max-queue (more: 503, Retry-After).
//
// Memory: every body in flight is counted, from its declared
// length, at its header, against --max-inflight-bytes for the whole server;
// a body that would pass it is refused 503 (Retry-After) before a byte of it
// is read, and its bytes are given back once its answer is written. A
// chunked body counts as --max-body, the most it may grow to. The header's
// screening (http_guard.h: framing, Host, Origin, token, Content-Type) runs first,
// so a refused request never reserves anything.
//
// Since the inline hook answers on an io thread, it must never wait for the
// engine's lock: fenec-server's reads there run under fenec::NoWaitReads and
// go to a worker when the lock is taken. An exception escaping a step on an
// io thread closes that connection and is counted; it never ends the process.
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
#include <vector>

#include "fenec/status.h"

namespace boost::asio {
class io_context;
}

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
  int retry_after_s = 0; // > 0: sent as Retry-After (a 503 the client may retry)
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
  uint64_t bad_framing = 0;       // 400 or 501: the body's end not certain (FramingCheck, http_guard.h); closed
  uint64_t bad_host = 0;          // 421: a Host not among the names served (DNS rebinding)
  uint64_t bad_origin = 0;        // 403: an Origin other than our own host's
  uint64_t unauthorized = 0;      // 401 at the header: no or a wrong bearer token
  uint64_t bad_content_type = 0;  // 415: a POST or body not declared application/json
  uint64_t over_inflight = 0;     // 503: its body would pass --max-inflight-bytes
  uint64_t over_queue = 0;        // 503: the worker queue was full (--max-queue)
  uint64_t exceptions = 0;        // exceptions caught on an io thread or after a worker's handler (each closed its connection)
  uint64_t inflight_bytes = 0;    // body bytes reserved now (a gauge)
  uint64_t queued = 0;            // requests waiting for a worker now (a gauge)
  uint64_t answered_inline = 0;   // non-GET requests answered on an io thread (Inline, or Later with no_wait)
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
    // Body bytes in flight, every connection's together (more: 503). At
    // least max_body, so that a largest body can ever be read. 256 MiB:
    // four bodies of the default max_body, or one of the largest the engine
    // journals (fenec/limits.h); a body's parse needs a few times its size.
    size_t max_inflight_bytes = 256u << 20;
    size_t max_queue = 1024;                // requests waiting for a worker (more: 503)
    // Names a Host may carry besides the listen address and localhost (http_guard.h).
    std::vector<std::string> allowed_hosts;
    std::string token;                      // non-empty: "Authorization: Bearer <token>", checked at the header
    size_t body_slack = 0;                  // bytes reserved past each body, which the handler may pad into
  };
  using Handler = std::function<void(HttpRequest&, HttpResponse&)>;
  // Called for each answer once built, before it is written (so a client
  // that has its answer sees it counted): handle_ns is the handler's time.
  using Done = std::function<void(const HttpResponse&, uint64_t handle_ns)>;
  // Called after each answer's write, with the write's time.
  using Written = std::function<void(const HttpResponse&, uint64_t write_ns)>;
  // Called for requests refused by the transport itself (400, 401, 403, 413, 415, 421, 431, 501, 503).
  using Refused = std::function<void(int status)>;
  // Optional: called on the io thread for every request, before it is
  // handed to a worker. It answers (true) only what is quick and never
  // waits, neither for an fsync nor for the engine's lock (a get by id
  // whose lock is free, /health); false leaves req untouched and the
  // request goes to a worker. Without it, GETs run the Handler on the io
  // thread. RQ-1: the hand-off to a worker and back cost two thread
  // wake-ups per request, the larger part of a get by id's time in the server.
  using Inline = std::function<bool(HttpRequest&, HttpResponse&)>;
  // Optional: called on the worker before the Handler. It may take the
  // request and answer it later (a durable write, answered once its fsync
  // is done, so no worker waits for it): true, and answered() is called
  // exactly once, from any thread, when res is filled (perhaps before it
  // returns); the answer is then written from the session's io thread.
  // False: res untouched, and the Handler runs. Called first on the io
  // thread with no_wait, where it takes only what lands without waiting
  // (a small durable put whose write lock is free): RQ-1, the hand-off to
  // a worker was most of a durable put's CPU in the server. False there
  // leaves req untouched, and the request goes to a worker as before.
  using Later = std::function<bool(HttpRequest&, HttpResponse&, std::function<void()> answered, bool no_wait)>;

  HttpServer(Config config, Handler handler, Done done, Written written, Refused refused, Inline inline_handler = nullptr,
             Later later = nullptr);
  ~HttpServer();  // Stop()s

  // Binds and starts accepting. Fails: kInvalidArgument (host is not an IP
  // address, a pool of zero threads, max_inflight_bytes below max_body), kIOError (socket, bind or listen;
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
  void RunIo(boost::asio::io_context& ioc);  // an io thread's loop: that io_context alone

  std::unique_ptr<Shared> shared_;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint16_t port_ = 0;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace fenec::server
