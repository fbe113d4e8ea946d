// Accepting, starting and stopping; one connection's life is http_session.cc.
#include "engine/server/http_server.h"

#include <future>
#include <iterator>
#include <utility>
#include <optional>
#include <thread>
#include <vector>

#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/write.hpp>
#include <fmt/format.h>

#include "engine/server/http_session.h"
#include "engine/server/metrics.h"

namespace fenec::server {

struct HttpServer::Impl {
  explicit Impl(net::io_context& ioc) : acceptor(net::make_strand(ioc)), backoff(acceptor.get_executor()) {}
  tcp::acceptor acceptor;
  net::steady_timer backoff;  // after a failed accept (out of descriptors): wait, then accept again
  std::vector<net::executor_work_guard<net::io_context::executor_type>> guards;  // one an io_context
  std::vector<std::thread> io_threads;
};

HttpServer::HttpServer(Config config, Handler handler, Done done, Written written, Refused refused,
                       Inline inline_handler, Later later)
    : shared_(std::make_unique<Shared>(std::move(config), std::move(handler), std::move(done), std::move(written),
                                       std::move(refused), std::move(inline_handler), std::move(later))),
      impl_(std::make_unique<Impl>(*shared_->iocs[0])) {}

HttpServer::~HttpServer() { Stop(); }

Status HttpServer::Start() {
  const Config& config = shared_->config;
  if (config.io_threads == 0 || config.workers == 0) {
    return Status::InvalidArgument("the io and worker pools need at least one thread each");
  }
  if (config.max_inflight_bytes < config.max_body) {
    return Status::InvalidArgument(fmt::format("max_inflight_bytes ({}) is below max_body ({}): a largest body could never be read",
                                               config.max_inflight_bytes, config.max_body));
  }
  if (config.max_queue == 0) return Status::InvalidArgument("max_queue must be at least 1");
  beast::error_code ec;
  auto addr = net::ip::make_address(config.host, ec);
  if (ec) return Status::InvalidArgument(fmt::format("'{}' is not an IP address", config.host));
  tcp::endpoint ep(addr, config.port);
  auto& acc = impl_->acceptor;
  acc.open(ep.protocol(), ec);
  if (!ec) acc.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acc.bind(ep, ec);
  if (!ec) acc.listen(net::socket_base::max_listen_connections, ec);
  if (ec) return Status::IOError("listen", fmt::format("{}:{}", config.host, config.port), ec.value());
  port_ = acc.local_endpoint().port();
  started_ = true;
  shared_->workers.Start(config.workers);
  for (auto& ioc : shared_->iocs) impl_->guards.push_back(net::make_work_guard(*ioc));
  Accept();  // no io thread runs yet: nothing else touches the acceptor
  for (auto& ioc : shared_->iocs) impl_->io_threads.emplace_back([this, c = ioc.get()] { RunIo(*c); });
  return Status::OK();
}

namespace {

// The 503 over --max-connections, written at once on the fresh socket: its
// send buffer is empty, so a few hundred bytes never wait.
void RefuseBusy(tcp::socket& socket, size_t max_connections) {
  http::response<http::string_body> res{http::status::service_unavailable, 11};
  res.set(http::field::server, "fenec-server");
  res.set(http::field::content_type, "application/json");
  res.keep_alive(false);
  res.body() = fmt::format(R"j({{"error":{{"code":"busy","message":"over --max-connections ({})","where":"request"}}}})j",
                           max_connections);
  res.prepare_payload();
  beast::error_code ec;
  socket.non_blocking(true, ec);
  http::write(socket, res, ec);
  socket.shutdown(tcp::socket::shutdown_both, ec);
  socket.close(ec);
}

}  // namespace

// A session's steps catch their own exceptions (Session::Guarded); one
// thrown elsewhere (an accept's, a session's construction) is counted here
// and the thread runs on: an io thread never ends the process.
void HttpServer::RunIo(net::io_context& ioc) {
  for (;;) {
    try {
      ioc.run();
      return;
    } catch (...) {
      shared_->exceptions.fetch_add(1);
    }
  }
}

// Runs on the acceptor's strand: one accept pending at a time; each new
// socket goes to the next io_context in turn, whose one thread runs all of
// that session's steps.
void HttpServer::Accept() {
  auto& ioc = *shared_->iocs[shared_->next_ioc.fetch_add(1, std::memory_order_relaxed) % shared_->iocs.size()];
  impl_->acceptor.async_accept(ioc, [this](const beast::error_code& ec, tcp::socket socket) {
    Shared& s = *shared_;
    if (s.stopping.load()) return;  // the socket closes as it goes out of scope
    if (ec) {
      // Out of descriptors, or a connection reset before its accept: back off briefly, keep serving.
      impl_->backoff.expires_after(std::chrono::milliseconds(5));
      impl_->backoff.async_wait([this](const beast::error_code& wec) {
        if (!wec && !shared_->stopping.load()) Accept();
      });
      return;
    }
    s.accepted.fetch_add(1);
    beast::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    if (s.open.load() >= s.config.max_connections) {
      s.over_connections.fetch_add(1);
      RefuseBusy(socket, s.config.max_connections);
      if (s.refused) s.refused(503);
    } else {
      std::make_shared<Session>(s, std::move(socket))->Begin();
    }
    Accept();
  });
}

void HttpServer::Stop() {
  if (!started_ || stopped_) return;
  stopped_ = true;
  Shared& s = *shared_;
  s.stopping.store(true);
  // Close the acceptor on its strand, and wait for that: once it has run, no
  // accept handler can start a session, so the list walked below is final.
  std::promise<void> acceptor_closed;
  net::post(impl_->acceptor.get_executor(), [this, &acceptor_closed] {
    beast::error_code ignored;
    impl_->acceptor.close(ignored);
    impl_->backoff.cancel();
    acceptor_closed.set_value();
  });
  acceptor_closed.get_future().wait();
  // Taken under the lock, let go outside it: a session's last reference
  // dropped here runs its destructor, which takes the lock.
  std::vector<std::shared_ptr<Session>> live;
  {
    base::MutexLock lock(&s.mu);
    for (auto& entry : s.sessions) {
      if (auto session = entry.second.lock()) live.push_back(std::move(session));
    }
  }
  for (auto& session : live) session->CloseIfWaiting();
  live.clear();
  {
    // Requests being handled finish and write their answers (no deadline
    // but the write's bounds that), then their sessions end.
    base::MutexLock lock(&s.mu);
    while (s.open.load() > 0) s.all_closed.Wait(&s.mu);
  }
  s.workers.Stop();
  impl_->guards.clear();
  for (auto& ioc : s.iocs) ioc->stop();
  for (auto& t : impl_->io_threads) t.join();
  impl_->io_threads.clear();
}

ConnectionStats HttpServer::stats() const {
  const Shared& s = *shared_;
  ConnectionStats st;
  st.open = s.open.load();
  st.accepted = s.accepted.load();
  st.idle_timeouts = s.idle_timeouts.load();
  st.header_timeouts = s.header_timeouts.load();
  st.body_timeouts = s.body_timeouts.load();
  st.write_timeouts = s.write_timeouts.load();
  st.over_header_bytes = s.over_header_bytes.load();
  st.over_header_fields = s.over_header_fields.load();
  st.over_body = s.over_body.load();
  st.over_connections = s.over_connections.load();
  st.bad_http = s.bad_http.load();
  st.bad_framing = s.bad_framing.load();
  st.queued = s.workers.queued();
  st.answered_inline = s.answered_inline.load();
  st.bad_host = s.bad_host.load();
  st.bad_origin = s.bad_origin.load();
  st.unauthorized = s.unauthorized.load();
  st.bad_content_type = s.bad_content_type.load();
  st.over_inflight = s.over_inflight.load();
  st.over_queue = s.over_queue.load();
  st.exceptions = s.exceptions.load();
  st.inflight_bytes = s.inflight_bytes.load();
  return st;
}

void HttpServer::AppendMetrics(std::string& out) const {
  const ConnectionStats st = stats();
  const Config& c = shared_->config;
  AppendGauge(out, "fenec_http_connections", "Open HTTP connections (idle, reading, handled or answered).",
              static_cast<double>(st.open));
  AppendCounter(out, "fenec_http_connections_total", "HTTP connections accepted (refused ones included).",
                static_cast<double>(st.accepted));
  out += "# HELP fenec_http_connections_closed_total Connections the server closed at a deadline, by which one.\n"
         "# TYPE fenec_http_connections_closed_total counter\n";
  using Row = std::pair<const char*, uint64_t>;
  const Row closed[] = {{"idle_timeout", st.idle_timeouts},
                        {"header_timeout", st.header_timeouts},
                        {"body_timeout", st.body_timeouts},
                        {"write_timeout", st.write_timeouts}};
  for (const auto& [reason, n] : closed) {
    fmt::format_to(std::back_inserter(out), "fenec_http_connections_closed_total{{reason=\"{}\"}} {}\n", reason, n);
  }
  out += "# HELP fenec_http_rejected_total Requests or connections the transport refused, by limit "
         "(431 header_bytes and header_fields, 413 body_bytes, 503 max_connections, inflight_bytes and queue, "
         "400 bad_http, 400 or 501 framing, 421 host, 403 origin, 401 unauthorized, 415 content_type).\n"
         "# TYPE fenec_http_rejected_total counter\n";
  const Row rejected[] = {{"header_bytes", st.over_header_bytes},
                          {"header_fields", st.over_header_fields},
                          {"body_bytes", st.over_body},
                          {"max_connections", st.over_connections},
                          {"bad_http", st.bad_http},
                          {"framing", st.bad_framing},
                          {"host", st.bad_host},
                          {"origin", st.bad_origin},
                          {"unauthorized", st.unauthorized},
                          {"content_type", st.bad_content_type},
                          {"inflight_bytes", st.over_inflight},
                          {"queue", st.over_queue}};
  for (const auto& [reason, n] : rejected) {
    fmt::format_to(std::back_inserter(out), "fenec_http_rejected_total{{reason=\"{}\"}} {}\n", reason, n);
  }
  AppendGauge(out, "fenec_http_requests_queued", "Requests waiting for a worker thread.", static_cast<double>(st.queued));
  AppendGauge(out, "fenec_http_inflight_bytes", "Request body bytes reserved now, from their declared lengths.",
              static_cast<double>(st.inflight_bytes));
  AppendGauge(out, "fenec_http_max_inflight_bytes", "The budget for body bytes in flight (--max-inflight-bytes).",
              static_cast<double>(c.max_inflight_bytes));
  AppendCounter(out, "fenec_http_exceptions_total",
                "Exceptions caught on io threads or after a worker's handler; each closed its connection.",
                static_cast<double>(st.exceptions));
  AppendCounter(out, "fenec_http_requests_inline_total",
                "Requests other than GETs taken on an io thread, with no hand-off to a worker (a POST /query get by id, "
                "or a PUT that landed without waiting).",
                static_cast<double>(st.answered_inline));
  AppendGauge(out, "fenec_http_io_threads", "Io threads, each running its own io_context (--io-threads).",
              static_cast<double>(c.io_threads));
  AppendGauge(out, "fenec_http_workers", "Threads running requests that may block (--workers).",
              static_cast<double>(c.workers));
}

}  // namespace fenec::server
