// A kept-alive connection's wait for its next request, with one recv a
// request where Boost.Asio's read costs two.
//
// Boost 1.74's epoll reactor tries a socket read at once, before it waits
// (a "speculative" recv), unless an earlier read on that socket told it the
// socket was exhausted; for a stream socket only an EOF does. So every wait
// for a request began with a recv that found nothing (EAGAIN), and an
// async_wait instead costs an epoll_ctl (RQ-1: two of a request's four
// system calls). AsyncIdleRead reads through the same reactor with an
// operation whose short read (fewer bytes than asked) also counts as
// exhausted: the socket was drained then, and any byte after it raises a
// new edge-triggered event. The next wait then goes straight to the
// reactor's queue; the event's arrival marks the socket readable again
// before the read runs. Nothing else changes: the completion runs on the
// socket's io thread, a close cancels it (operation_aborted), and an
// io_context that goes away drops it uncalled.
//
// It reaches into asio's implementation (the socket's reactor data and the
// reactor itself), so it is used only with the Boost and reactor it was
// written against; elsewhere it is async_read_some.
#pragma once

#include <sys/socket.h>

#include <cerrno>
#include <cstddef>
#include <memory>
#include <utility>

#include <boost/asio/ip/tcp.hpp>
#include <boost/version.hpp>

#if BOOST_VERSION == 107400 && defined(BOOST_ASIO_HAS_EPOLL) && !defined(BOOST_ASIO_HAS_IO_URING)
#define FENEC_IDLE_READ_VIA_REACTOR 1
#include <boost/asio/detail/epoll_reactor.hpp>
#include <boost/asio/detail/reactor_op.hpp>
#include <boost/asio/execution/context.hpp>
#include <boost/asio/query.hpp>
#endif

namespace fenec::server {

#ifdef FENEC_IDLE_READ_VIA_REACTOR
namespace idle_read_detail {

namespace net = boost::asio;
using ErrorCode = boost::system::error_code;

// The socket's protected implementation, named through a derived class.
struct SocketImpl : net::ip::tcp::socket {
  static auto& Of(net::ip::tcp::socket& s) { return (s.*(&SocketImpl::impl_)).get_implementation(); }
};

template <class Handler>
class Op : public net::detail::reactor_op {
 public:
  Op(int fd, char* buf, size_t len, Handler h)
      : reactor_op(ErrorCode(), &Perform, &Complete), fd_(fd), buf_(buf), len_(len), handler_(std::move(h)) {}

 private:
  static status Perform(reactor_op* base) {
    auto* o = static_cast<Op*>(base);
    for (;;) {
      const ssize_t n = ::recv(o->fd_, o->buf_, o->len_, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return not_done;
      if (n < 0) {
        o->ec_ = ErrorCode(errno, net::error::get_system_category());
        return done;
      }
      o->bytes_transferred_ = static_cast<size_t>(n);
      if (n == 0) {
        o->ec_ = net::error::eof;
        return done_and_exhausted;
      }
      return static_cast<size_t>(n) < o->len_ ? done_and_exhausted : done;
    }
  }

  static void Complete(void* owner, net::detail::operation* base, const ErrorCode&, size_t) {
    std::unique_ptr<Op> o(static_cast<Op*>(base));
    if (owner == nullptr) return;  // the io_context is being destroyed: dropped, not called
    Handler h = std::move(o->handler_);
    const ErrorCode ec = o->ec_;
    const size_t n = o->bytes_transferred_;
    o.reset();
    h(ec, n);
  }

  int fd_;
  char* buf_;
  size_t len_;
  Handler handler_;
};

}  // namespace idle_read_detail
#endif

// Reads up to len bytes into buf (which must stay valid until the handler
// runs), then calls handler(ec, n) on the socket's io thread, as
// socket.async_read_some would. The socket must be in non-blocking mode.
template <class Handler>
void AsyncIdleRead(boost::asio::ip::tcp::socket& socket, char* buf, size_t len, Handler handler) {
#ifdef FENEC_IDLE_READ_VIA_REACTOR
  namespace net = boost::asio;
  namespace d = idle_read_detail;
  auto& impl = d::SocketImpl::Of(socket);
  auto& reactor = net::use_service<net::detail::epoll_reactor>(
      net::query(socket.get_executor(), net::execution::context));
  auto* op = new d::Op<Handler>(impl.socket_, buf, len, std::move(handler));
  reactor.start_op(net::detail::epoll_reactor::read_op, impl.socket_, impl.reactor_data_, op,
                   /*is_continuation=*/false, /*allow_speculative=*/true);
#else
  socket.async_read_some(boost::asio::buffer(buf, len), std::move(handler));
#endif
}

}  // namespace fenec::server
