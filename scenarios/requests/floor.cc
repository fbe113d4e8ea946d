#include "scenarios/requests/floor.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace fenec::scenarios::requests {
namespace {

// The bytes fenec-server answers GET /health with, so both carry as much.
constexpr char kAnswer[] =
    "HTTP/1.1 200 OK\r\nServer: fenec-server\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n"
    "{\"status\":\"ok\"}";

// One connection: an answer each time a header's end ("\r\n\r\n", which may
// span reads) passes. Only system calls, as the child of a threaded process
// may use after fork.
void Serve(int fd) {
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  char buf[4096];
  unsigned tail = 0;  // the last bytes seen, as a shift register of 4
  for (;;) {
    const ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (ssize_t i = 0; i < n; ++i) {
      tail = (tail << 8) | static_cast<unsigned char>(buf[i]);
      if (tail != 0x0d0a0d0a) continue;
      tail = 0;
      for (size_t sent = 0; sent < sizeof(kAnswer) - 1;) {
        const ssize_t w = send(fd, kAnswer + sent, sizeof(kAnswer) - 1 - sent, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
          close(fd);
          return;
        }
        sent += static_cast<size_t>(w);
      }
    }
  }
  close(fd);
}

}  // namespace

std::string LoopbackFloor::Start() {
  Stop();
  const int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (lfd < 0) return fmt::format("loopback floor: socket: {}", std::strerror(errno));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  if (bind(lfd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 || listen(lfd, 16) != 0 ||
      getsockname(lfd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    std::string err = fmt::format("loopback floor: listen: {}", std::strerror(errno));
    close(lfd);
    return err;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    std::string err = fmt::format("loopback floor: fork: {}", std::strerror(errno));
    close(lfd);
    return err;
  }
  if (pid == 0) {
    // None of the bench's descriptors stay open here (a connection the bench
    // closes must close); then connections one after another: the floor
    // serves the one-client cells only.
    if (lfd > 3) syscall(SYS_close_range, 3u, static_cast<unsigned>(lfd - 1), 0u);
    syscall(SYS_close_range, static_cast<unsigned>(lfd + 1), ~0u, 0u);
    for (;;) {
      const int fd = accept(lfd, nullptr, nullptr);
      if (fd >= 0) Serve(fd);
      else if (errno != EINTR && errno != ECONNABORTED) _exit(1);
    }
  }
  close(lfd);
  pid_ = pid;
  port_ = ntohs(a.sin_port);
  return "";
}

void LoopbackFloor::Stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  port_ = -1;
}

}  // namespace fenec::scenarios::requests
