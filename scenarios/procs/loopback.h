// Raw TCP to a server on 127.0.0.1, for the clients that must send what no
// HTTP library would (a header dripped a byte at a time, a malformed request
// line, invalid UTF-8 in a path): conns-holder and soak-bench share these.
#pragma once

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>

namespace fenec::scenarios::procs {

// A connected socket's descriptor, or -errno.
inline int ConnectLoopback(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -errno;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    int err = errno;
    ::close(fd);
    return -err;
  }
  return fd;
}

// False once the peer is gone (no SIGPIPE: MSG_NOSIGNAL).
inline bool SendAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// A socket the server has closed reads as end of file (or an error) at once.
inline bool ClosedByPeer(int fd) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  char c;
  return ::recv(fd, &c, 1, MSG_DONTWAIT) <= 0;
}

}  // namespace fenec::scenarios::procs
