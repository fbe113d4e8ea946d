#include "scenarios/soak/raw_http.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <regex>

#include <fmt/format.h>

#include "scenarios/procs/loopback.h"

namespace fenec::scenarios::soak {
namespace {

// Reads what arrives before `deadline`, appending to *got; false at end of stream, error or deadline.
bool ReadSome(int fd, std::string* got, std::chrono::steady_clock::time_point deadline, std::string* why) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  pollfd p{fd, POLLIN, 0};
  if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) {
    *why = "timed out";
    return false;
  }
  char buf[16384];
  const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
  if (n <= 0) {
    *why = n == 0 ? "closed without a (whole) answer" : fmt::format("recv: {}", std::strerror(errno));
    return false;
  }
  got->append(buf, static_cast<size_t>(n));
  return true;
}

}  // namespace

std::string HttpBytes(const std::string& method, const std::string& target, const std::string& body,
                      const std::string& extra, long long declared) {
  std::string r = fmt::format("{} {} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n", method, target);
  r += extra;
  if (!body.empty() || declared >= 0) {
    r += fmt::format("Content-Type: application/json\r\nContent-Length: {}\r\n",
                     declared >= 0 ? static_cast<unsigned long long>(declared) : body.size());
  }
  r += "\r\n";
  r += body;
  return r;
}

RawAnswer RawExchange(int port, const std::string& bytes, int timeout_ms) {
  RawAnswer a;
  const int fd = procs::ConnectLoopback(static_cast<uint16_t>(port));
  if (fd < 0) {
    a.error = fmt::format("connect: {}", std::strerror(-fd));
    a.connect_failed = true;
    return a;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  // A refusal may come (and the server stop reading) before all is sent: the answer decides.
  (void)procs::SendAll(fd, bytes.data(), bytes.size());
  std::string got, why;
  size_t head_end = std::string::npos;
  while ((head_end = got.find("\r\n\r\n")) == std::string::npos) {
    if (got.size() > (1u << 20) || !ReadSome(fd, &got, deadline, &why)) break;
  }
  if (head_end == std::string::npos) {
    ::close(fd);
    a.error = got.empty() ? why : fmt::format("{} after {} bytes of header", why, got.size());
    return a;
  }
  const std::string head = got.substr(0, head_end);
  std::smatch m;
  if (!std::regex_search(head, m, std::regex("^HTTP/1\\.[01] ([0-9]{3})"))) {
    ::close(fd);
    a.error = "no status line: " + head.substr(0, 80);
    return a;
  }
  a.status = std::stoi(m[1]);
  size_t length = 0;
  if (std::regex_search(head, m, std::regex("\r\n[Cc]ontent-[Ll]ength: *([0-9]+)"))) length = std::stoul(m[1]);
  std::string body = got.substr(head_end + 4);
  while (body.size() < length && body.size() < (64u << 20) && ReadSome(fd, &body, deadline, &why)) {
  }
  ::close(fd);
  if (body.size() < length) {
    a.error = fmt::format("{} after {} of {} bytes of body", why, body.size(), length);
    return a;
  }
  a.body = body.substr(0, length);
  return a;
}

}  // namespace fenec::scenarios::soak
