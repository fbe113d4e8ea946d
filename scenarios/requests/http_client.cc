#include "scenarios/requests/http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include <fmt/format.h>

namespace fenec::scenarios::requests {
namespace {

// The value of header `name` (lower case, with its colon) in `head`, or npos.
size_t HeaderValue(std::string_view head, std::string_view name) {
  for (size_t at = head.find("\r\n"); at != std::string_view::npos; at = head.find("\r\n", at + 2)) {
    const size_t start = at + 2;
    if (head.size() - start < name.size()) return std::string_view::npos;
    bool same = true;
    for (size_t i = 0; i < name.size() && same; ++i) {
      same = static_cast<char>(std::tolower(static_cast<unsigned char>(head[start + i]))) == name[i];
    }
    if (same) return start + name.size();
  }
  return std::string_view::npos;
}

}  // namespace

HttpClient::~HttpClient() { Close(); }

void HttpClient::Close() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

std::string HttpClient::Connect(int port) {
  Close();
  fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return fmt::format("socket: {}", std::strerror(errno));
  const int one = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    std::string err = fmt::format("connect 127.0.0.1:{}: {}", port, std::strerror(errno));
    Close();
    return err;
  }
  return "";
}

std::string HttpClient::Send(std::string_view method, std::string_view path, std::string_view body, int* status,
                             std::string* answer) {
  if (fd_ < 0) return "not connected";
  out_.clear();
  fmt::format_to(std::back_inserter(out_), "{} {} HTTP/1.1\r\nHost: 127.0.0.1\r\n", method, path);
  if (method == "POST") {
    fmt::format_to(std::back_inserter(out_), "Content-Type: application/json\r\nContent-Length: {}\r\n", body.size());
  }
  out_ += "\r\n";
  out_.append(body);
  for (size_t sent = 0; sent < out_.size();) {
    const ssize_t n = send(fd_, out_.data() + sent, out_.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string err = fmt::format("send: {}", n < 0 ? std::strerror(errno) : "closed");
      Close();
      return err;
    }
    sent += static_cast<size_t>(n);
  }
  // Read until the header is whole, then until the body's Content-Length is.
  in_.clear();
  size_t head_end = std::string::npos, need = std::string::npos;
  char buf[65536];
  while (need == std::string::npos || in_.size() < need) {
    const ssize_t n = recv(fd_, buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string err = fmt::format("recv: {}", n < 0 ? std::strerror(errno) : "connection closed by the server");
      Close();
      return err;
    }
    in_.append(buf, static_cast<size_t>(n));
    if (head_end == std::string::npos) {
      head_end = in_.find("\r\n\r\n");
      if (head_end == std::string::npos) continue;
      const std::string_view head(in_.data(), head_end + 2);
      const size_t len_at = HeaderValue(head, "content-length:");
      if (head.size() < 12 || head.substr(0, 5) != "HTTP/" || len_at == std::string_view::npos) {
        Close();
        return fmt::format("an answer this client cannot read: '{}'", in_.substr(0, 120));
      }
      *status = std::atoi(in_.c_str() + 9);
      need = head_end + 4 + std::strtoull(in_.c_str() + len_at, nullptr, 10);
    }
  }
  answer->assign(in_, head_end + 4, need - head_end - 4);
  return "";
}

}  // namespace fenec::scenarios::requests
