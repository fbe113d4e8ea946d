// A kept-alive connection's wait for its next request, with one recv a
// request where Boost.Asio's read costs two.
//
// Boost 1.74's epoll reactor tries a socket read at once, before it waits
// (a "speculative" recv), unless an earlier read on that socket told it the
// socket was exhausted; for a stream socket only an EOF does. So every wait
// for a request began with a recv that found nothing (EAGAIN), and an
// async_wait instead costs an epoll_ctl (RQ-1: two of a request's four
// system calls). IdleReader reads through the same reactor with an
// operation whose short read (fewer bytes than asked) also counts as
// exhausted: the socket was drained then, and any byte after it raises a
// new edge-triggered event. The next wait then goes straight to the
// reactor's queue; the event's arrival marks the socket readable again
// before the read runs. The read lands in the io thread's scratch (up to
// kIdleReadMax) and is copied out at once, so a request of up to that size,
// a put's body with it, is that one recv, and an idle connection still
// holds no buffer. Nothing else changes: the completion runs on the
// socket's io thread, a close cancels it (operation_aborted), and an
// io_context that goes away drops it uncalled.
//
// It reaches into asio's implementation (the socket's reactor data and the
// reactor itself), so it is used only with the Boost and reactor it was
// written against; elsewhere it is async_read_some.
#pragma once

#include <sys/socket.h>

#include <array>
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

// The most one wait reads: a request this size or smaller arrives in one
// recv, and the short read tells the reactor the socket is drained.
inline constexpr size_t kIdleReadMax = 16 * 1024;

#ifdef FENEC_IDLE_READ_VIA_REACTOR
namespace idle_read_detail {

namespace net = boost::asio;
using ErrorCode = boost::system::error_code;

// The socket's protected implementation, named through a derived class.
struct SocketImpl : net::ip::tcp::socket {
  static auto& Of(net::ip::tcp::socket& s) { return (s.*(&SocketImpl::impl_)).get_implementation(); }
};

// The io thread's landing place for a wait's bytes: the sink copies them
// out before Perform returns, so an idle connection holds no buffer.
inline char* Scratch() {
  thread_local std::array<char, kIdleReadMax> scratch;
  return scratch.data();
}

template <class Sink, class Handler>
class Op : public net::detail::reactor_op {
 public:
  Op(int fd, Sink sink, Handler h)
      : reactor_op(ErrorCode(), &Perform, &Complete), fd_(fd), sink_(std::move(sink)), handler_(std::move(h)) {}

 private:
  static status Perform(reactor_op* base) {
    auto* o = static_cast<Op*>(base);
    char* buf = Scratch();
    for (;;) {
      const ssize_t n = ::recv(o->fd_, buf, kIdleReadMax, 0);
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
      try {
        o->sink_(buf, static_cast<size_t>(n));
      } catch (...) {  // no memory for the bytes: the connection closes, as on a failed read
        o->ec_ = net::error::no_buffer_space;
        return done;
      }
      return static_cast<size_t>(n) < kIdleReadMax ? done_and_exhausted : done;
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
  Sink sink_;
  Handler handler_;
};

}  // namespace idle_read_detail
#endif

// One a connection, made after its socket and living no longer: it finds
// the socket's reactor once (a service lookup takes the io_context's lock).
class IdleReader {
 public:
  explicit IdleReader(boost::asio::ip::tcp::socket& socket)
      : socket_(socket)
#ifdef FENEC_IDLE_READ_VIA_REACTOR
        ,
        reactor_(boost::asio::use_service<boost::asio::detail::epoll_reactor>(
            boost::asio::query(socket.get_executor(), boost::asio::execution::context)))
#endif
  {
  }

  // Reads what has come, up to kIdleReadMax bytes; hands them to
  // sink(const char*, size_t) (which copies them: they are not kept), then
  // calls handler(ec, n) on the socket's io thread, as async_read_some
  // would. The sink runs on that thread too, before the handler; it may
  // throw (the handler then gets an error). The socket must be in
  // non-blocking mode.
  template <class Sink, class Handler>
  void Read(Sink sink, Handler handler) {
#ifdef FENEC_IDLE_READ_VIA_REACTOR
    namespace d = idle_read_detail;
    auto& impl = d::SocketImpl::Of(socket_);
    auto* op = new d::Op<Sink, Handler>(impl.socket_, std::move(sink), std::move(handler));
    reactor_.start_op(boost::asio::detail::epoll_reactor::read_op, impl.socket_, impl.reactor_data_, op,
                      /*is_continuation=*/false, /*allow_speculative=*/true);
#else
    // Elsewhere: asio's own read, into a small buffer this object holds.
    socket_.async_read_some(boost::asio::buffer(fallback_),
                            [this, sink = std::move(sink), handler = std::move(handler)](
                                const boost::system::error_code& ec, size_t n) mutable {
                              boost::system::error_code e = ec;
                              if (!e && n > 0) {
                                try {
                                  sink(fallback_.data(), n);
                                } catch (...) {
                                  e = boost::asio::error::no_buffer_space;
                                }
                              }
                              handler(e, n);
                            });
#endif
  }

 private:
  boost::asio::ip::tcp::socket& socket_;
#ifdef FENEC_IDLE_READ_VIA_REACTOR
  boost::asio::detail::epoll_reactor& reactor_;
#else
  std::array<char, 256> fallback_{};
#endif
};

}  // namespace fenec::server
