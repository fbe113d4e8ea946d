// The transport's insides, shared by http_server.cc (accepting, starting and
// stopping) and http_session.cc (one connection's life): the worker pool,
// the state every session reads, and the session itself.
//
// A session's every step runs on its socket's executor: one io_context run
// by one io thread, so its state needs no lock and its handlers never hand
// off between threads. The one exception is a handler run by a
// worker: it touches only the request and answer, while the session has no
// operation pending and no deadline armed, and hands back by posting to the
// strand (which orders the worker's writes before the strand's reads).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include "engine/server/http_guard.h"
#include "engine/server/http_server.h"
#include "engine/server/idle_read.h"
#include "engine/src/base/mutex.h"
#include "engine/src/base/thread_annotations.h"

namespace fenec::server {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;

// A fixed pool of threads running posted tasks in order of arrival.
class WorkerPool {
 public:
  void Start(size_t threads);
  // Queues task unless max_queued tasks already wait: false, and task is dropped.
  bool TryPost(std::function<void()> task, size_t max_queued) FENEC_EXCLUDES(mu_);
  // Runs every task already posted, then joins the threads.
  void Stop() FENEC_EXCLUDES(mu_);
  size_t queued() const FENEC_EXCLUDES(mu_);

 private:
  void Run() FENEC_EXCLUDES(mu_);

  mutable base::Mutex mu_;
  base::CondVar work_;
  std::deque<std::function<void()>> tasks_ FENEC_GUARDED_BY(mu_);
  bool stop_ FENEC_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

class Session;

struct HttpServer::Shared {
  Shared(Config c, Handler h, Done d, Written w, Refused r, Inline i, Later l)
      : allowed_hosts(AllowedHostNames(c.host, c.allowed_hosts)),
        config(std::move(c)),
        handler(std::move(h)),
        done(std::move(d)),
        written(std::move(w)),
        refused(std::move(r)),
        inline_handler(std::move(i)),
        later(std::move(l)) {
    for (size_t k = 0; k < std::max<size_t>(config.io_threads, 1); ++k) iocs.push_back(std::make_unique<net::io_context>(1));
  }

  const std::vector<std::string> allowed_hosts;  // http_guard.h
  const Config config;
  const Handler handler;
  const Done done;
  const Written written;
  const Refused refused;
  const Inline inline_handler;
  const Later later;

  // One io_context a thread, each run by that thread alone (concurrency hint
  // 1): a connection's handlers stay on one thread, so a request wakes no
  // other io thread (RQ-1: with one io_context run by two threads, each
  // request woke the second thread and back, four switches a request).
  // Connections are dealt to them in turn; the acceptor lives on the first.
  std::vector<std::unique_ptr<net::io_context>> iocs;
  std::atomic<size_t> next_ioc{0};
  WorkerPool workers;
  std::atomic<bool> stopping{false};

  // Counted by sessions on any io thread; read by /metrics (see ConnectionStats).
  std::atomic<uint64_t> accepted{0}, open{0}, idle_timeouts{0}, header_timeouts{0}, body_timeouts{0},
      write_timeouts{0}, over_header_bytes{0}, over_header_fields{0}, over_body{0}, over_connections{0}, bad_http{0},
      answered_inline{0}, bad_host{0}, bad_origin{0}, unauthorized{0}, bad_content_type{0}, over_inflight{0},
      over_queue{0}, exceptions{0}, bad_framing{0};
  // Body bytes reserved by sessions now, against config.max_inflight_bytes.
  std::atomic<uint64_t> inflight_bytes{0};

  // Every live session, so Stop() can close the idle ones; a weak pointer,
  // since a session ends on its own (its last handler drops it).
  base::Mutex mu;
  base::CondVar all_closed;  // signalled when the last session ends
  std::unordered_map<uint64_t, std::weak_ptr<Session>> sessions FENEC_GUARDED_BY(mu);
  uint64_t next_id FENEC_GUARDED_BY(mu) = 0;
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  // Registers itself in shared.sessions; the socket's executor is its strand.
  Session(HttpServer::Shared& shared, tcp::socket socket);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Starts waiting for the first request (on the strand).
  void Begin();
  // Stop(): closes the connection unless a request is being handled or
  // answered (that one finishes, and its answer closes the connection).
  void CloseIfWaiting();

 private:
  // Which deadline is armed, and what a passing deadline counts.
  enum class Phase { kIdle, kHeader, kBody, kHandling, kWriting, kLinger, kClosed };

  void WaitForRequest();
  void ReadHeader();
  // The rest of a header not yet here: read, then parsed by ParseBuffered.
  void AwaitHeader();
  void OnHeader(const beast::error_code& ec);
  // The header's checks (http_guard.h), its framing first, and the body's
  // reservation: false when the request was refused (and answered).
  // http_screen.cc, with OnReadError.
  bool Screen();
  void ReleaseBody();
  // Runs one step; an exception it throws closes the connection, counted.
  template <class F>
  void Guarded(F&& step) noexcept;
  void ReadBody();
  // Parses buffer_ into parser_ up to the header's end (header_only) or the
  // message's: true when there, false when more must be read or ec is set.
  // Every header byte passes here, where its raw lines are seen (folded_).
  bool ParseBuffered(bool header_only, beast::error_code& ec);
  // ParseBuffered, then what the socket already holds read without waiting
  // and parsed: true when there or ec is set, false when the rest has not
  // come yet (an async read waits for it).
  bool ReadAvailable(bool header_only, beast::error_code& ec);
  void OnBody(const beast::error_code& ec);
  void Dispatch();
  // Runs the handler (or, with try_inline, the Inline hook) into res_ and
  // counts it; false only when the hook declined, with nothing counted.
  bool RunHandler(bool try_inline);
  // The Later hook, on a worker (or with no_wait on the io thread). True
  // when it took the request, whose answer then comes through Answered
  // (from the engine's thread).
  bool RunLater(bool no_wait);
  // res_ is filled: counts it (Done) and posts its write to the strand.
  void Answered(uint64_t t0);
  void Write();
  void OnWritten(const beast::error_code& ec, bool keep);
  // A read that failed: a disconnect, a deadline already handled, or bad input answered here.
  void OnReadError(const beast::error_code& ec);
  // Answers a request the transport refuses, then lingers (reading and
  // dropping up to `discard` bytes) so the client reads the answer, not a reset.
  void Refuse(int status, const char* code, const std::string& message, uint64_t discard, int retry_after_s = 0);
  void Linger(uint64_t discard);
  // Sets this phase's deadline. The timer is moved only when it would fire
  // after it: one that fires early finds the deadline later and waits again,
  // so a kept-alive connection re-arms its timer a few times a
  // header-timeout, not at every phase (RQ-1: four timerfd_settime a request).
  void Arm(std::chrono::milliseconds deadline);
  void Disarm();  // no deadline (the handler runs): a pending wait, when it fires, finds none
  void StartTimer(std::chrono::steady_clock::time_point at);
  void OnDeadline();
  void Close();

  HttpServer::Shared& shared_;
  const uint64_t id_;
  tcp::socket socket_;
  IdleReader idle_reader_{socket_};  // after socket_: it keeps a reference to it
  net::steady_timer timer_;
  uint64_t armed_ = 0;  // which StartTimer() the pending wait serves: a superseded one's handler does nothing
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();  // max: none
  std::chrono::steady_clock::time_point expiry_{};  // when the pending wait fires
  bool timer_pending_ = false;
  Phase phase_ = Phase::kIdle;
  beast::flat_buffer buffer_;
  // Held only while a request is read, answered or refused: an idle
  // connection keeps no parser, no answer and no buffer.
  std::unique_ptr<http::request_parser<http::string_body>> parser_;
  std::unique_ptr<http::response<http::string_body>> response_;  // a refusal's
  std::string out_;  // an answer's bytes, header and body, as sent
  std::vector<char> discard_;
  uint64_t declared_ = 0;  // the body's declared length (or --max-body), for the discard after a 413
  uint64_t reserved_ = 0;  // body bytes this request holds of Shared::inflight_bytes
  uint64_t discard_left_ = 0;
  HttpRequest req_;
  HttpResponse res_;
  bool keep_alive_ = false;
  bool head_ = false;    // the request is a HEAD: its answer's Content-Length says the size, no body follows
  bool folded_ = false;  // this request's header has an obs-fold, which Beast unfolds unseen (FramingCheck)
  bool refused_answer_ = false;  // the answer is a 503 over --max-queue: counted as refused, not handled
  unsigned version_ = 11;
  uint64_t handle_ns_ = 0, write_start_ns_ = 0;
};

}  // namespace fenec::server
