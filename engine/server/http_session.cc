// One connection's life, a request at a time (http_server.h says why it is
// asynchronous, and which deadline bounds which wait):
//
//   idle --first byte--> header --header read--> body --body read--> handling
//     ^                                                                  |
//     +------------------- answer written, kept alive ---- writing <-----+
//
// Every step but the handler runs on the session's strand. Each wait arms
// the one timer with its deadline; a deadline that passes closes the socket
// and counts why, and the read it interrupted then ends with an error that
// finds the session already closed. An io thread never blocks here: reads,
// writes and waits are all asynchronous, and a handler that may block (any
// request but a GET, or a POST the Inline hook answers) runs on a worker.
#include "engine/server/http_session.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <limits>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <fmt/format.h>

namespace fenec::server {
namespace {

// After a refusal, what is read and dropped before closing, at most: enough
// for any body a client sends before reading, bounded so a refused client
// cannot keep the server reading.
constexpr uint64_t kMaxDiscard = 256u << 20;
constexpr uint64_t kHeaderDiscard = 64u << 10;
constexpr std::chrono::milliseconds kLinger{2000};

uint64_t NowNs() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

std::string ErrorJson(const char* code, const std::string& message) {
  return fmt::format(R"({{"error":{{"code":"{}","message":"{}","where":"request"}}}})", code, message);
}

bool IsDisconnect(const beast::error_code& ec) {
  return ec == http::error::end_of_stream || ec == http::error::partial_message || ec == net::error::eof ||
         ec == net::error::connection_reset || ec == net::error::operation_aborted || ec == net::error::bad_descriptor ||
         ec == net::error::broken_pipe || ec == net::error::not_connected || ec == net::error::shut_down;
}

}  // namespace

void WorkerPool::Start(size_t threads) {
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

void WorkerPool::Post(std::function<void()> task) {
  base::MutexLock lock(&mu_);
  tasks_.push_back(std::move(task));
  work_.Signal();
}

size_t WorkerPool::queued() const {
  base::MutexLock lock(&mu_);
  return tasks_.size();
}

void WorkerPool::Run() {
  base::MutexLock lock(&mu_);
  for (;;) {
    while (tasks_.empty() && !stop_) work_.Wait(&mu_);
    if (tasks_.empty()) return;  // stopping, and nothing left to run
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.Unlock();
    task();
    task = nullptr;  // what it captured (a session) is let go outside the lock
    lock.Lock();
  }
}

void WorkerPool::Stop() {
  {
    base::MutexLock lock(&mu_);
    stop_ = true;
    work_.SignalAll();
  }
  for (auto& t : threads_) t.join();
  threads_.clear();
}

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
  base::MutexLock lock(&shared_.mu);
  shared_.sessions.erase(id_);
  if (shared_.open.fetch_sub(1) == 1) shared_.all_closed.SignalAll();
}

void Session::Begin() {
  {
    base::MutexLock lock(&shared_.mu);
    shared_.sessions[id_] = weak_from_this();
  }
  net::dispatch(socket_.get_executor(), [self = shared_from_this()] { self->WaitForRequest(); });
}

void Session::CloseIfWaiting() {
  net::post(socket_.get_executor(), [self = shared_from_this()] {
    if (self->phase_ != Phase::kHandling && self->phase_ != Phase::kWriting) self->Close();
  });
}

void Session::Arm(std::chrono::milliseconds deadline) {
  const uint64_t armed = ++armed_;
  timer_.expires_after(deadline);
  timer_.async_wait([self = shared_from_this(), armed](const beast::error_code& ec) {
    if (!ec && armed == self->armed_ && self->phase_ != Phase::kClosed) self->OnDeadline();
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
  // Waiting for readability needs no buffer: an idle connection holds none.
  buffer_.shrink_to_fit();
  phase_ = Phase::kIdle;
  Arm(shared_.config.idle_timeout);
  socket_.async_wait(tcp::socket::wait_read, [self = shared_from_this()](const beast::error_code& ec) {
    if (ec || self->phase_ != Phase::kIdle) return self->Close();
    self->ReadHeader();  // a first byte, or the peer's close (which the read then sees)
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
  Arm(shared_.config.header_timeout);
  http::async_read_header(socket_, buffer_, *parser_,
                          [self = shared_from_this()](const beast::error_code& ec, size_t) { self->OnHeader(ec); });
}

void Session::OnHeader(const beast::error_code& ec) {
  if (ec) return OnReadError(ec);
  const auto& head = parser_->get();
  const auto fields = static_cast<size_t>(std::distance(head.begin(), head.end()));
  if (fields > shared_.config.max_header_fields) {
    shared_.over_header_fields.fetch_add(1);
    return Refuse(431, "headers_too_large",
                  fmt::format("{} header fields, over --max-header-fields ({})", fields, shared_.config.max_header_fields),
                  kHeaderDiscard);
  }
  const auto length = parser_->content_length();
  declared_ = length ? *length : shared_.config.max_body;
  parser_->body_limit(shared_.config.max_body);
  if (length && *length > shared_.config.max_body) {
    // Refused before its body is read: the client learns at once, and the server reads nothing it would keep.
    shared_.over_body.fetch_add(1);
    return Refuse(413, "too_large", fmt::format("the body is over --max-body ({} bytes)", shared_.config.max_body),
                  declared_);
  }
  auto expect = head.find(http::field::expect);
  if (expect != head.end() && beast::iequals(expect->value(), "100-continue") && !parser_->is_done()) {
    static constexpr char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
    phase_ = Phase::kBody;
    Arm(shared_.config.body_timeout);
    net::async_write(socket_, net::buffer(kContinue, sizeof(kContinue) - 1),
                     [self = shared_from_this()](const beast::error_code& wec, size_t) {
                       if (wec || self->phase_ == Phase::kClosed) return self->Close();
                       self->ReadBody();
                     });
    return;
  }
  ReadBody();
}

void Session::ReadBody() {
  if (parser_->is_done()) return Dispatch();  // no body (a GET), or all of it came with the header
  phase_ = Phase::kBody;
  Arm(shared_.config.body_timeout);
  http::async_read(socket_, buffer_, *parser_,
                   [self = shared_from_this()](const beast::error_code& ec, size_t) { self->OnBody(ec); });
}

void Session::OnBody(const beast::error_code& ec) {
  if (ec) return OnReadError(ec);
  Dispatch();
}

void Session::OnReadError(const beast::error_code& ec) {
  if (phase_ == Phase::kClosed) return;  // a deadline (counted) or Stop() closed it
  if (ec == http::error::body_limit) {
    shared_.over_body.fetch_add(1);
    return Refuse(413, "too_large", fmt::format("the body is over --max-body ({} bytes)", shared_.config.max_body),
                  declared_);
  }
  if (ec == http::error::header_limit) {
    shared_.over_header_bytes.fetch_add(1);
    return Refuse(431, "headers_too_large",
                  fmt::format("the request's header is over --max-header-bytes ({})", shared_.config.max_header_bytes),
                  kHeaderDiscard);
  }
  if (!IsDisconnect(ec) && ec.category() == beast::error_code(http::error::bad_target).category()) {
    shared_.bad_http.fetch_add(1);
    return Refuse(400, "http", fmt::format("malformed HTTP request: {}", ec.message()), kHeaderDiscard);
  }
  Close();  // the peer left
}

void Session::Dispatch() {
  phase_ = Phase::kHandling;
  ++armed_;  // no deadline while the handler runs: the engine bounds it
  timer_.cancel();
  auto& msg = parser_->get();
  req_.method = std::string(msg.method_string());
  req_.target = std::string(msg.target());
  req_.body = std::move(msg.body());
  auto auth = msg.find(http::field::authorization);
  req_.authorization = auth != msg.end() ? std::string(auth->value()) : std::string();
  keep_alive_ = msg.keep_alive();
  version_ = msg.version();
  const bool read_only = msg.method() == http::verb::get;
  parser_.reset();
  if (read_only) {
    // Reads answer on the io thread: microseconds, never an fsync (http_server.h).
    RunHandler(false);
    return Write();
  }
  // A POST that is a read as quick as a GET (the Inline hook decides) is
  // answered here too, sparing the two thread wake-ups of a hand-off.
  if (shared_.inline_handler && RunHandler(true)) {
    shared_.answered_inline.fetch_add(1, std::memory_order_relaxed);
    return Write();
  }
  shared_.workers.Post([self = shared_from_this()] {
    self->RunHandler(false);
    net::post(self->socket_.get_executor(), [self] { self->Write(); });
  });
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
    res_.body = ErrorJson("internal", e.what());
  }
  handle_ns_ = NowNs() - t0;
  if (shared_.done) shared_.done(res_, handle_ns_);
  return true;
}

void Session::Write() {
  if (phase_ == Phase::kClosed) return;
  const bool keep = keep_alive_ && !shared_.stopping.load();
  response_ = std::make_unique<http::response<http::string_body>>(static_cast<http::status>(res_.status), version_);
  response_->set(http::field::server, "fenec-server");
  response_->set(http::field::content_type, res_.content_type);
  response_->keep_alive(keep);
  response_->body() = std::move(res_.body);
  response_->prepare_payload();
  phase_ = Phase::kWriting;
  Arm(shared_.config.write_timeout);
  write_start_ns_ = NowNs();
  // Header and body in one buffer sequence: one sendmsg.
  http::async_write(socket_, *response_, [self = shared_from_this(), keep](const beast::error_code& ec, size_t) {
    self->OnWritten(ec, keep);
  });
}

void Session::OnWritten(const beast::error_code& ec, bool keep) {
  if (shared_.written) shared_.written(res_, NowNs() - write_start_ns_);
  response_.reset();
  req_ = HttpRequest{};
  res_ = HttpResponse{};
  if (ec || !keep || phase_ == Phase::kClosed) return Close();
  WaitForRequest();
}

void Session::Refuse(int status, const char* code, const std::string& message, uint64_t discard) {
  if (shared_.refused) shared_.refused(status);
  parser_.reset();
  response_ = std::make_unique<http::response<http::string_body>>(static_cast<http::status>(status), 11);
  response_->set(http::field::server, "fenec-server");
  response_->set(http::field::content_type, "application/json");
  response_->keep_alive(false);
  response_->body() = ErrorJson(code, message);
  response_->prepare_payload();
  phase_ = Phase::kWriting;
  Arm(shared_.config.write_timeout);
  http::async_write(socket_, *response_, [self = shared_from_this(), discard](const beast::error_code& ec, size_t) {
    self->response_.reset();
    if (ec || self->phase_ == Phase::kClosed) return self->Close();
    self->Linger(discard);
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
      self->socket_.async_read_some(net::buffer(self->discard_), *this);
    }
  };
  if (discard_left_ == 0) return Close();
  socket_.async_read_some(net::buffer(discard_), Drain{shared_from_this()});
}

}  // namespace fenec::server
