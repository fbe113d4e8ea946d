// Test clients for fenec-server's tests over loopback: a raw socket for
// what httplib cannot send (half a header, a silent connection, a body
// declared and never sent), and a reader of /metrics' text.
#pragma once

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace fenec::server {

// A metric's value from Prometheus text ("name{labels} value"), -1 when absent.
inline double MetricValue(const std::string& text, const std::string& series) {
  size_t at = text.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + series.size() + 2));
}

// A raw client socket: what httplib cannot do (send half a header, stay silent).
class RawConn {
 public:
  explicit RawConn(uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~RawConn() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawConn(const RawConn&) = delete;
  RawConn& operator=(const RawConn&) = delete;
  bool ok() const { return fd_ >= 0; }
  bool Send(std::string_view s) {
    while (!s.empty()) {
      ssize_t n = ::send(fd_, s.data(), s.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      s.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  // Reads for at most `bound_ms`, until the server closes (eof) or the bound.
  // Between reads, `drip` (if set) is sent one byte at a time, every 50 ms.
  struct Read {
    std::string bytes;
    bool eof = false;
  };
  Read ReadToClose(int bound_ms = 20'000, const std::string& drip = "") {
    Read r;
    size_t dripped = 0;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(bound_ms);
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      int ready = ::poll(&p, 1, drip.empty() ? 100 : 50);
      if (ready > 0) {
        char buf[4096];
        ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
        if (n <= 0) {
          r.eof = true;
          return r;
        }
        r.bytes.append(buf, static_cast<size_t>(n));
      } else if (!drip.empty() && dripped < drip.size()) {
        if (!Send(drip.substr(dripped++, 1))) {
          r.eof = true;
          return r;
        }
      }
    }
    return r;
  }
  // Reads one whole answer (its header, and Content-Length bytes of body),
  // for at most bound_ms; less if the server closes first.
  Read ReadAnswer(int bound_ms = 20'000) {
    Read r;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(bound_ms);
    while (std::chrono::steady_clock::now() < deadline && !Whole(r.bytes)) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      char buf[4096];
      ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n <= 0) {
        r.eof = true;
        return r;
      }
      r.bytes.append(buf, static_cast<size_t>(n));
    }
    return r;
  }

 private:
  static bool Whole(const std::string& bytes) {
    size_t end = bytes.find("\r\n\r\n");
    if (end == std::string::npos) return false;
    size_t at = bytes.find("Content-Length: ");
    if (at == std::string::npos || at > end) return true;
    return bytes.size() >= end + 4 + std::stoul(bytes.substr(at + 16));
  }

  int fd_ = -1;
};

// The status of an HTTP answer's first line ("HTTP/1.1 421 ..."), -1 if none.
inline int StatusOf(const std::string& answer) {
  if (answer.rfind("HTTP/1.1 ", 0) != 0 || answer.size() < 12) return -1;
  return std::stoi(answer.substr(9, 3));
}

}  // namespace fenec::server
