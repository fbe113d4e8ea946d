// Line-oriented TCP for diskcheck: connect, listen, and a buffered reader.
#pragma once

#include <cstdint>
#include <string>

namespace fenec::iobench {

class LineConn {
 public:
  explicit LineConn(int fd = -1) : fd_(fd) {}
  LineConn(const LineConn&) = delete;
  LineConn& operator=(const LineConn&) = delete;
  ~LineConn();
  int fd() const { return fd_; }
  // Reads one line without its '\n'; false at end of stream or on error.
  bool read_line(std::string* line);
  bool write_all(const std::string& data);
  // Sends a request line and reads the one-line reply.
  bool call(const std::string& request, std::string* reply);
 private:
  int fd_;
  std::string buf_;
};

// Connects to host:port; returns the fd, or -1 with *error set.
int tcp_connect(const std::string& host, uint16_t port, std::string* error);
// Binds and listens on bind:port (port 0 = any); returns the fd or -1.
int tcp_listen(const std::string& bind, uint16_t port, uint16_t* bound, std::string* error);

}  // namespace fenec::iobench
