// One connection's life, a request at a time (http_server.h says why it is
// asynchronous, and which deadline bounds which wait):
//
//   idle --first byte--> header --header read--> body --body read--> handling
//     ^                                                                  |
//     +------------------- answer written, kept alive ---- writing <-----+
//
// Every step but the handler runs on the session's io thread. Each wait sets
// its deadline on the one timer (Arm: moved only when it would fire late); a deadline that passes closes the socket
// and counts why, and the read it interrupted then ends with an error that
// finds the session already closed. An io thread never blocks here: reads,
// writes and waits are all asynchronous, and a handler that may block (any
// request the Inline hook does not answer) runs on a worker. Each step runs
// Guarded: an exception closes this connection alone, counted.
#include "engine/server/http_session.h"

#include <algorithm>
#include <chrono>
#include <limits>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <fmt/format.h>

#include "engine/server/http_answer.h"
#include "engine/src/base/json.h"

namespace fenec::server {
namespace {

// After a refusal, what is read and dropped before closing, at most: enough
// for any body a client sends before reading, bounded so a refused client
// cannot keep the server reading.
constexpr uint64_t kMaxDiscard = 256u << 20;
constexpr std::chrono::milliseconds kLinger{2000};

// Beast's hook on each chunk's header (it takes a mutable callback, and keeps
// a reference): a chunk extension with a control character is refused.
struct ChunkExtensionCheck {
  void operator()(std::uint64_t, beast::string_view extensions, beast::error_code& ec) const {
    if (!ChunkExtensionClean(std::string_view(extensions.data(), extensions.size()))) {
      ec = http::error::bad_chunk_extension;
    }
  }
} chunk_extension_check;

uint64_t NowNs() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

std::string ErrorJson(const char* code, const std::string& message) {
  return fmt::format(R"({{"error":{{"code":"{}","message":"{}","where":"request"}}}})", code, message);
}

}  // namespace

Session::Session(HttpServer::Shared& shared, tcp::socket socket)
    : shared_(shared),
      id_([&shared] {
        base::MutexLock lock(&shared.mu);
        shared.open.fetch_add(1);
        return shared.next_id++;
      }()),
      socket_(std::move(socket)),
      timer_(socket_.get_executor()) {}

Session::~Session() {
  beast::error_code ignored;
  socket_.close(ignored);
  ReleaseBody();
  base::MutexLock lock(&shared_.mu);
  shared_.sessions.erase(id_);
  if (shared_.open.fetch_sub(1) == 1) shared_.all_closed.SignalAll();
}

void Session::Begin() {
  {
    base::MutexLock lock(&shared_.mu);
    shared_.sessions[id_] = weak_from_this();
  }
  net::dispatch(socket_.get_executor(), [self = shared_from_this()] { self->Guarded([&] { self->WaitForRequest(); }); });
}

void Session::CloseIfWaiting() {
  net::post(socket_.get_executor(), [self = shared_from_this()] {
    if (self->phase_ != Phase::kHandling && self->phase_ != Phase::kWriting) self->Close();
  });
}

template <class F>
void Session::Guarded(F&& step) noexcept {
  try {
    step();
  } catch (...) {
    shared_.exceptions.fetch_add(1);
    try {
      Close();
    } catch (...) {
      // Close's calls report through error codes; nothing more to do here.
    }
  }
}

void Session::ReleaseBody() {
  if (reserved_ == 0) return;
  shared_.inflight_bytes.fetch_sub(reserved_);
  reserved_ = 0;
}

void Session::Arm(std::chrono::milliseconds deadline) {
  deadline_ = std::chrono::steady_clock::now() + deadline;
  if (timer_pending_ && expiry_ <= deadline_) return;  // it fires first, and then waits on for deadline_
  StartTimer(deadline_);
}

void Session::Disarm() { deadline_ = std::chrono::steady_clock::time_point::max(); }

void Session::StartTimer(std::chrono::steady_clock::time_point at) {
  const uint64_t armed = ++armed_;
  expiry_ = at;
  timer_pending_ = true;
  timer_.expires_at(at);  // a wait pending on it ends with operation_aborted, superseded
  timer_.async_wait([self = shared_from_this(), armed](const beast::error_code& ec) {
    if (armed != self->armed_) return;
    self->timer_pending_ = false;
    if (ec || self->phase_ == Phase::kClosed || self->deadline_ == std::chrono::steady_clock::time_point::max()) return;
    if (std::chrono::steady_clock::now() >= self->deadline_) return self->Guarded([&] { self->OnDeadline(); });
    self->Guarded([&] { self->StartTimer(self->deadline_); });  // fired early: the deadline moved later since
  });
}

void Session::OnDeadline() {
  switch (phase_) {
    case Phase::kIdle: shared_.idle_timeouts.fetch_add(1); break;
    case Phase::kHeader: shared_.header_timeouts.fetch_add(1); break;
    case Phase::kBody: shared_.body_timeouts.fetch_add(1); break;
    case Phase::kWriting: shared_.write_timeouts.fetch_add(1); break;
    case Phase::kLinger:  // a refused client's grace period, over: nothing more to count
    case Phase::kHandling:
    case Phase::kClosed: break;
  }
  Close();
}

void Session::Close() {
  if (phase_ == Phase::kClosed) return;
  phase_ = Phase::kClosed;
  ++armed_;
  timer_.cancel();
  beast::error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
}

void Session::WaitForRequest() {
  if (phase_ == Phase::kClosed || shared_.stopping.load()) return Close();
  if (buffer_.size() > 0) return ReadHeader();  // a pipelined request is already here
  // An idle connection holds no read buffer: the wait is a read whose
  // bytes are copied into buffer_ as they come, not an async_wait, whose
  // re-registration costs an epoll_ctl a request; and not asio's own read,
  // which first tries a recv that finds nothing (idle_read.h).
  buffer_.shrink_to_fit();
  phase_ = Phase::kIdle;
  Arm(shared_.config.idle_timeout);
  beast::error_code nb;
  if (!socket_.non_blocking()) socket_.non_blocking(true, nb);
  if (nb) return Close();
  idle_reader_.Read(
      [this](const char* data, size_t n) {
        net::buffer_copy(buffer_.prepare(n), net::buffer(data, n));
        buffer_.commit(n);
      },
      [self = shared_from_this()](const beast::error_code& ec, size_t) {
        if (ec || self->phase_ != Phase::kIdle) return self->Close();  // the peer's close, or a deadline's
        self->Guarded([&] { self->ReadHeader(); });  // parses what came; reads on only if the header is not all here
      });
}

void Session::ReadHeader() {
  phase_ = Phase::kHeader;
  parser_ = std::make_unique<http::request_parser<http::string_body>>();
  parser_->header_limit(shared_.config.max_header_bytes);
  // The header is read with no body limit, so a declared length over it is
  // seen in OnHeader (and its size known for the discard); the limit then
  // guards the body, chunked ones included.
  parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
  parser_->on_chunk_header(chunk_extension_check);
  folded_ = false;
  beast::error_code ec;
  if (ReadAvailable(true, ec)) return OnHeader(ec);
  Arm(shared_.config.header_timeout);
  AwaitHeader();
}

// Not Beast's async_read_header, which parses what it reads out of our
// sight: every header byte goes through ParseBuffered, the one place that
// sees the header's raw lines.
void Session::AwaitHeader() {
  socket_.async_read_some(buffer_.prepare(4096), [self = shared_from_this()](const beast::error_code& ec, size_t n) {
    self->Guarded([&] {
      self->buffer_.commit(n);
      beast::error_code pec = ec;
      if (pec || self->ParseBuffered(true, pec) || pec) return self->OnHeader(pec);
      self->AwaitHeader();
    });
  });
}

void Session::OnHeader(const beast::error_code& ec) {
  if (ec) return OnReadError(ec);
  if (!Screen()) return;
  const auto& head = parser_->get();
  auto expect = head.find(http::field::expect);
  if (expect != head.end() && beast::iequals(expect->value(), "100-continue") && !parser_->is_done()) {
    static constexpr char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
    phase_ = Phase::kBody;
    Arm(shared_.config.body_timeout);
    net::async_write(socket_, net::buffer(kContinue, sizeof(kContinue) - 1),
                     [self = shared_from_this()](const beast::error_code& wec, size_t) {
                       if (wec || self->phase_ == Phase::kClosed) return self->Close();
                       self->Guarded([&] { self->ReadBody(); });
                     });
    return;
  }
  ReadBody();
}

void Session::ReadBody() {
  if (parser_->is_done()) return Dispatch();  // no body (a GET), or all of it came with the header
  beast::error_code ec;
  if (ReadAvailable(false, ec)) return OnBody(ec);
  phase_ = Phase::kBody;
  Arm(shared_.config.body_timeout);
  http::async_read(socket_, buffer_, *parser_, [self = shared_from_this()](const beast::error_code& ec, size_t) {
    self->Guarded([&] { self->OnBody(ec); });
  });
}

// An async read whose bytes are already buffered completes through a post,
// and a queued handler makes the io thread poll epoll once more before it
// sleeps (RQ-1: four syscalls a request, now three). So what is here is
// parsed here; only a request not all here waits for the socket.
bool Session::ParseBuffered(bool header_only, beast::error_code& ec) {
  auto done = [&] { return header_only ? parser_->is_header_done() : parser_->is_done(); };
  while (!done() && buffer_.size() > 0) {
    const bool header = !parser_->is_header_done();
    const size_t used = parser_->put(buffer_.data(), ec);
    if (header) folded_ = folded_ || HasObsFold({static_cast<const char*>(buffer_.data().data()), used});
    buffer_.consume(used);
    if (ec == http::error::need_more) {
      ec = {};
      return false;
    }
    if (ec) return false;
    if (used == 0) return false;  // no progress: let the socket bring more
  }
  return done();
}

// Beast reads a body 512 bytes at a time, each read a pass through the
// reactor: a 1 KiB put cost four recvs and four epoll_waits (RQ-1). What
// is already here comes in reads sized to what the request still lacks,
// a few at most, so one request cannot hold the io thread for long.
bool Session::ReadAvailable(bool header_only, beast::error_code& ec) {
  constexpr size_t kMinRead = 4096, kMaxRead = 64u << 10;
  constexpr int kMaxReads = 16;
  if (ParseBuffered(header_only, ec) || ec) return true;
  beast::error_code rec;
  if (!socket_.non_blocking()) socket_.non_blocking(true, rec);
  for (int i = 0; i < kMaxReads && !rec; ++i) {
    const uint64_t have = parser_->get().body().size() + buffer_.size();
    const uint64_t lacks = header_only || declared_ <= have ? 0 : declared_ - have;
    const size_t want = std::clamp<uint64_t>(lacks, kMinRead, kMaxRead);
    const size_t n = socket_.read_some(buffer_.prepare(want), rec);
    if (rec) break;  // would block, or a failure the async read meets again
    buffer_.commit(n);
    if (ParseBuffered(header_only, ec) || ec) return true;
    if (n < want) break;  // the socket is drained
  }
  return false;
}

void Session::OnBody(const beast::error_code& ec) {
  if (ec) return OnReadError(ec);
  Dispatch();
}

void Session::Dispatch() {
  phase_ = Phase::kHandling;
  Disarm();  // no deadline while the handler runs: the engine bounds it
  auto& msg = parser_->get();
  req_.method = std::string(msg.method_string());
  req_.target = std::string(msg.target());
  req_.body = std::move(msg.body());
  auto auth = msg.find(http::field::authorization);
  req_.authorization = auth != msg.end() ? std::string(auth->value()) : std::string();
  keep_alive_ = msg.keep_alive();
  version_ = msg.version();
  head_ = msg.method() == http::verb::head;
  const bool read_only = msg.method() == http::verb::get;
  parser_.reset();
  if (shared_.inline_handler) {
    // The hook answers what never waits (http_server.h): a get by id whose
    // lock is free, /health. Everything else goes to a worker.
    if (RunHandler(true)) {
      if (!read_only) shared_.answered_inline.fetch_add(1, std::memory_order_relaxed);
      return Write();
    }
  } else if (read_only) {
    RunHandler(false);
    return Write();
  }
  // A write that lands without waiting is taken here; its answer comes
  // through Answered once durable, as a worker's would.
  if (!read_only && shared_.later && RunLater(true)) {
    shared_.answered_inline.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  auto self = shared_from_this();
  const bool queued = shared_.workers.TryPost(
      [self]() mutable {
        if (self->shared_.later && self->RunLater(false)) return;  // answered through Answered, now or later
        bool ran = true;
        try {
          self->RunHandler(false);
        } catch (...) {
          ran = false;  // the Done hook threw: nothing to answer with
        }
        // The worker lets go of the session as it hands it back: a worker
        // descheduled after the post must not keep a closed connection alive.
        auto strand = self->socket_.get_executor();
        net::post(strand, [self = std::move(self), ran] {
          if (!ran) {
            self->shared_.exceptions.fetch_add(1);
            return self->Close();
          }
          self->Guarded([&] { self->Write(); });
        });
      },
      shared_.config.max_queue);
  if (queued) return;
  shared_.over_queue.fetch_add(1);
  if (shared_.refused) shared_.refused(503);
  res_ = HttpResponse{};
  res_.status = 503;
  res_.body = ErrorJson("busy", fmt::format("{} requests already wait for a worker (--max-queue); retry",
                                            shared_.config.max_queue));
  res_.retry_after_s = 1;
  refused_answer_ = true;  // counted as refused, not as a handled request
  Write();
}

bool Session::RunHandler(bool try_inline) {
  res_ = HttpResponse{};
  const uint64_t t0 = NowNs();
  try {
    if (try_inline) {
      if (!shared_.inline_handler(req_, res_)) return false;
    } else {
      shared_.handler(req_, res_);
    }
  } catch (const std::exception& e) {
    res_.status = 500;
    res_.content_type = "application/json";
    std::string message;
    base::AppendJsonString(message, e.what());
    res_.body = fmt::format(R"({{"error":{{"code":"internal","message":{},"where":"request"}}}})", message);
  } catch (...) {
    res_.status = 500;
    res_.content_type = "application/json";
    res_.body = ErrorJson("internal", "the handler failed");
  }
  handle_ns_ = NowNs() - t0;
  if (shared_.done) shared_.done(res_, handle_ns_);
  return true;
}

bool Session::RunLater(bool no_wait) {
  const uint64_t t0 = NowNs();
  // Once: an answer the hook gave before it threw stands, and a late call
  // after the 500 below is dropped.
  auto fired = std::make_shared<std::atomic<bool>>(false);
  std::function<void()> answered = [self = shared_from_this(), fired, t0] {
    if (!fired->exchange(true)) self->Answered(t0);
  };
  try {
    return shared_.later(req_, res_, answered, no_wait);
  } catch (const std::exception& e) {
    if (fired->exchange(true)) return true;
    res_ = HttpResponse{};
    res_.status = 500;
    std::string message;
    base::AppendJsonString(message, e.what());
    res_.body = fmt::format(R"({{"error":{{"code":"internal","message":{},"where":"request"}}}})", message);
  } catch (...) {
    if (fired->exchange(true)) return true;
    res_ = HttpResponse{};
    res_.status = 500;
    res_.body = ErrorJson("internal", "the handler failed");
  }
  Answered(t0);
  return true;
}

void Session::Answered(uint64_t t0) {
  handle_ns_ = NowNs() - t0;
  bool ran = true;
  try {
    if (shared_.done) shared_.done(res_, handle_ns_);
  } catch (...) {
    ran = false;  // the Done hook threw: nothing to answer with
  }
  auto self = shared_from_this();
  auto strand = socket_.get_executor();
  net::post(strand, [self = std::move(self), ran] {
    if (!ran) {
      self->shared_.exceptions.fetch_add(1);
      return self->Close();
    }
    self->Guarded([&] { self->Write(); });
  });
}

// The answer, header and body, is formatted into one buffer and sent at
// once with a non-blocking send: a fresh answer nearly always fits the
// socket's empty send buffer, so it needs no wait, no deadline and no pass
// through the reactor. What does not fit is written asynchronously, under
// --write-timeout.
void Session::Write() {
  if (phase_ == Phase::kClosed) return;
  const bool keep = keep_alive_ && !shared_.stopping.load();
  out_.clear();
  out_.reserve(160 + res_.body.size());
  AppendAnswerHead(out_, version_, res_.status, res_.content_type, keep, res_.retry_after_s, res_.body.size());
  // A HEAD's answer ends at its header (RFC 9112 6.3): a body would be read as the next answer.
  if (!head_) out_ += res_.body;
  res_.body = std::string();
  phase_ = Phase::kWriting;
  write_start_ns_ = NowNs();
  beast::error_code ec;
  size_t sent = 0;
  if (!socket_.non_blocking()) socket_.non_blocking(true, ec);
  if (!ec) sent = socket_.write_some(net::buffer(out_), ec);
  if (ec && ec != net::error::would_block && ec != net::error::try_again) return OnWritten(ec, keep);
  if (!ec && sent == out_.size()) return OnWritten(ec, keep);
  if (ec) sent = 0;
  Arm(shared_.config.write_timeout);
  net::async_write(socket_, net::buffer(out_.data() + sent, out_.size() - sent),
                   [self = shared_from_this(), keep](const beast::error_code& wec, size_t) {
                     self->Guarded([&] { self->OnWritten(wec, keep); });
                   });
}

void Session::OnWritten(const beast::error_code& ec, bool keep) {
  if (shared_.written && !refused_answer_) shared_.written(res_, NowNs() - write_start_ns_);
  refused_answer_ = false;
  response_.reset();
  std::string().swap(out_);  // an idle connection holds no answer
  req_ = HttpRequest{};
  res_ = HttpResponse{};
  ReleaseBody();
  if (ec || !keep || phase_ == Phase::kClosed) return Close();
  WaitForRequest();
}

void Session::Refuse(int status, const char* code, const std::string& message, uint64_t discard, int retry_after_s) {
  if (shared_.refused) shared_.refused(status);
  parser_.reset();
  ReleaseBody();
  response_ = std::make_unique<http::response<http::string_body>>(static_cast<http::status>(status), 11);
  response_->set(http::field::server, "fenec-server");
  response_->set(http::field::content_type, "application/json");
  if (retry_after_s > 0) response_->set(http::field::retry_after, std::to_string(retry_after_s));
  response_->keep_alive(false);
  response_->body() = ErrorJson(code, message);
  response_->prepare_payload();
  phase_ = Phase::kWriting;
  Arm(shared_.config.write_timeout);
  http::async_write(socket_, *response_, [self = shared_from_this(), discard](const beast::error_code& ec, size_t) {
    self->response_.reset();
    if (ec || self->phase_ == Phase::kClosed) return self->Close();
    self->Guarded([&] { self->Linger(discard); });
  });
}

// A client that sends its whole request before reading (most do) would meet
// a reset instead of the answer if the socket closed with its bytes unread.
// So: no more writes, read and drop what it sends, bounded in bytes and
// time, then close.
void Session::Linger(uint64_t discard) {
  beast::error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_send, ignored);
  phase_ = Phase::kLinger;
  discard_left_ = std::min(discard, kMaxDiscard);
  discard_.resize(64 * 1024);
  Arm(kLinger);
  struct Drain {
    std::shared_ptr<Session> self;
    void operator()(const beast::error_code& ec, size_t n) const {
      self->discard_left_ -= std::min<uint64_t>(self->discard_left_, n);
      if (ec || self->discard_left_ == 0 || self->phase_ == Phase::kClosed) return self->Close();
      self->Guarded([&] { self->socket_.async_read_some(net::buffer(self->discard_), *this); });
    }
  };
  if (discard_left_ == 0) return Close();
  socket_.async_read_some(net::buffer(discard_), Drain{shared_from_this()});
}

}  // namespace fenec::server
