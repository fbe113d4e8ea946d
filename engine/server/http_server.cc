#include "engine/server/http_server.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include <chrono>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <fmt/format.h>

namespace fenec::server {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;

struct HttpServer::Impl {
  net::io_context ioc;
  tcp::acceptor acceptor{ioc};
};

struct HttpServer::Session {
  explicit Session(tcp::socket s) : socket(std::move(s)) {}
  tcp::socket socket;
  std::thread thread;
  bool closed FENEC_GUARDED_BY(&HttpServer::mu_) = false;  // the socket may no longer be shut down
  std::atomic<bool> done{false};
};

namespace {

uint64_t NowNs() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

std::string ErrorJson(const char* code, const std::string& message) {
  return fmt::format(R"({{"error":{{"code":"{}","message":"{}","where":"request"}}}})", code, message);
}

// An answer the transport gives itself (the request never reached a handler); the connection is closed after it.
void WriteRefusal(tcp::socket& socket, int status, const char* code, const std::string& message) {
  http::response<http::string_body> res{static_cast<http::status>(status), 11};
  res.set(http::field::server, "fenec-server");
  res.set(http::field::content_type, "application/json");
  res.keep_alive(false);
  res.body() = ErrorJson(code, message);
  res.prepare_payload();
  beast::error_code ec;
  http::write(socket, res, ec);
}

// After refusing a body unread: a client that sends its whole body before
// reading (most do) would meet a reset instead of the answer if the socket
// closed now. Read and drop what it sends, bounded in bytes and time, then close.
void LingerAndDiscard(int fd, uint64_t expected) {
  ::shutdown(fd, SHUT_WR);
  static constexpr uint64_t kMaxDiscard = 256u << 20;
  static constexpr int kLingerMs = 2000;
  std::vector<char> sink(64 * 1024);
  uint64_t left = std::min(expected, kMaxDiscard);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kLingerMs);
  while (left > 0) {
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return;
    pollfd p{fd, POLLIN, 0};
    int ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count()) + 1;
    if (::poll(&p, 1, ms) <= 0) return;
    ssize_t n = ::recv(fd, sink.data(), sink.size(), 0);
    if (n <= 0) return;
    left -= std::min<uint64_t>(left, static_cast<uint64_t>(n));
  }
}

bool IsDisconnect(const beast::error_code& ec) {
  return ec == http::error::end_of_stream || ec == http::error::partial_message || ec == net::error::eof || ec == net::error::connection_reset ||
         ec == net::error::operation_aborted || ec == net::error::bad_descriptor || ec == net::error::broken_pipe ||
         ec == net::error::not_connected || ec == net::error::shut_down;
}

}  // namespace

HttpServer::HttpServer(Config config, Handler handler, Done done, Written written, Refused refused)
    : config_(std::move(config)),
      handler_(std::move(handler)),
      done_(std::move(done)),
      written_(std::move(written)),
      refused_(std::move(refused)),
      impl_(std::make_unique<Impl>()) {}

HttpServer::~HttpServer() { Stop(); }

Status HttpServer::Start() {
  beast::error_code ec;
  auto addr = net::ip::make_address(config_.host, ec);
  if (ec) return Status::InvalidArgument(fmt::format("'{}' is not an IP address", config_.host));
  tcp::endpoint ep(addr, config_.port);
  auto& acc = impl_->acceptor;
  acc.open(ep.protocol(), ec);
  if (!ec) acc.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acc.bind(ep, ec);
  if (!ec) acc.listen(net::socket_base::max_listen_connections, ec);
  if (ec) return Status::IOError("listen", fmt::format("{}:{}", config_.host, config_.port), ec.value());
  port_ = acc.local_endpoint().port();
  acceptor_ = std::thread([this] { AcceptLoop(); });
  return Status::OK();
}

void HttpServer::AcceptLoop() {
  while (!stopping_.load()) {
    tcp::socket socket(impl_->ioc);
    beast::error_code ec;
    impl_->acceptor.accept(socket, ec);
    if (ec) {
      if (stopping_.load()) break;
      // Out of descriptors or a connection reset before accept: back off briefly, keep serving.
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    socket.set_option(tcp::no_delay(true), ec);
    connections_total_.fetch_add(1);
    Reap(false);
    base::MutexLock lock(&mu_);
    if (sessions_.size() >= config_.max_connections) {
      lock.Unlock();
      WriteRefusal(socket, 503, "busy", fmt::format("over --max-connections ({})", config_.max_connections));
      if (refused_) refused_(503);
      continue;
    }
    auto session = std::make_unique<Session>(std::move(socket));
    Session* s = session.get();
    sessions_.push_back(std::move(session));
    s->thread = std::thread([this, s] { Serve(s); });
  }
}

void HttpServer::Serve(Session* s) {
  beast::flat_buffer buffer;
  for (;;) {
    http::request_parser<http::string_body> parser;
    // The header is read with no body limit, so a declared length over it is
    // seen here (and its size known for the discard); the limit then guards
    // the body, chunked ones included.
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());
    beast::error_code ec;
    http::read_header(s->socket, buffer, parser, ec);
    uint64_t declared = config_.max_body;
    if (!ec) {
      auto& head = parser.get();
      auto length = parser.content_length();
      if (length) declared = *length;
      parser.body_limit(config_.max_body);
      if (length && *length > config_.max_body) {
        // Refused before its body is read: the client learns at once, and the server reads nothing it would drop.
        ec = http::error::body_limit;
      } else {
        auto expect = head.find(http::field::expect);
        if (expect != head.end() && beast::iequals(expect->value(), "100-continue")) {
          static constexpr char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
          net::write(s->socket, net::buffer(kContinue, sizeof(kContinue) - 1), ec);
        }
        if (!ec) http::read(s->socket, buffer, parser, ec);
      }
    }
    if (ec) {
      if (ec == http::error::body_limit) {
        WriteRefusal(s->socket, 413, "too_large", fmt::format("the body is over --max-body ({} bytes)", config_.max_body));
        if (refused_) refused_(413);
        LingerAndDiscard(s->socket.native_handle(), declared);
      } else if (ec == http::error::header_limit) {
        WriteRefusal(s->socket, 431, "headers_too_large", "the request's headers are too large");
        if (refused_) refused_(431);
      } else if (!IsDisconnect(ec) && ec.category() == beast::error_code(http::error::bad_target).category()) {
        WriteRefusal(s->socket, 400, "http", fmt::format("malformed HTTP request: {}", ec.message()));
        if (refused_) refused_(400);
      }
      break;  // a disconnect, or an answer already given: the connection ends
    }
    auto& msg = parser.get();
    HttpRequest req;
    req.method = std::string(msg.method_string());
    req.target = std::string(msg.target());
    req.body = std::move(msg.body());
    auto auth = msg.find(http::field::authorization);
    if (auth != msg.end()) req.authorization = std::string(auth->value());

    HttpResponse res;
    uint64_t t0 = NowNs();
    try {
      handler_(req, res);
    } catch (const std::exception& e) {
      res.status = 500;
      res.body = ErrorJson("internal", e.what());
    }
    uint64_t t1 = NowNs();
    if (done_) done_(res, t1 - t0);
    bool keep = msg.keep_alive() && !stopping_.load();
    http::response<http::string_body> out{static_cast<http::status>(res.status), msg.version()};
    out.set(http::field::server, "fenec-server");
    out.set(http::field::content_type, res.content_type);
    out.keep_alive(keep);
    out.body() = std::move(res.body);
    out.prepare_payload();
    http::write(s->socket, out, ec);  // header and body in one buffer sequence: one sendmsg
    uint64_t t2 = NowNs();
    if (written_) written_(res, t2 - t1);
    if (ec || !keep) break;
  }
  base::MutexLock lock(&mu_);
  beast::error_code ignored;
  s->socket.shutdown(tcp::socket::shutdown_both, ignored);
  s->socket.close(ignored);
  s->closed = true;
  s->done.store(true);
}

void HttpServer::Reap(bool all) {
  std::list<std::unique_ptr<Session>> finished;
  {
    base::MutexLock lock(&mu_);
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      if (all || (*it)->done.load()) {
        finished.push_back(std::move(*it));
        it = sessions_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& s : finished) {
    if (s->thread.joinable()) s->thread.join();
  }
}

void HttpServer::Stop() {
  if (stopping_.exchange(true)) {
    Reap(true);
    return;
  }
  if (acceptor_.joinable()) {
    // shutdown() wakes the thread blocked in accept(); close() alone would not.
    ::shutdown(impl_->acceptor.native_handle(), SHUT_RDWR);
    acceptor_.join();
  }
  beast::error_code ignored;
  impl_->acceptor.close(ignored);
  {
    // An idle connection is blocked reading its next request: SHUT_RD ends
    // that read. A request already read is still handled and its answer
    // written (the write side stays open), then its thread sees stopping_.
    base::MutexLock lock(&mu_);
    for (auto& s : sessions_) {
      if (!s->closed) ::shutdown(s->socket.native_handle(), SHUT_RD);
    }
  }
  Reap(true);
}

size_t HttpServer::open_connections() const {
  base::MutexLock lock(&mu_);
  size_t n = 0;
  for (const auto& s : sessions_) n += s->done.load() ? 0 : 1;
  return n;
}

}  // namespace fenec::server
