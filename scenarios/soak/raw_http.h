// One HTTP exchange on a fresh loopback connection, bytes as given: the
// malformed requests (a bad request line, a header past the limit, a path
// that is not UTF-8) that an HTTP library would refuse to send or fix up.
#pragma once

#include <string>

namespace fenec::scenarios::soak {

struct RawAnswer {
  int status = 0;      // 0: no answer read
  std::string body;
  std::string error;   // "" when an answer was read; else why not (connect, reset, timeout)
  bool connect_failed = false;
};

// Connects to 127.0.0.1:port, sends `bytes` (stopping early if the server
// closes: a refusal may come before the whole request is sent), and reads
// one answer: the header, then Content-Length bytes of body, all within
// timeout_ms.
RawAnswer RawExchange(int port, const std::string& bytes, int timeout_ms);

// A request's bytes: METHOD TARGET HTTP/1.1 with Host, Connection: close,
// `extra` header lines (each ending in \r\n) and, when given, the body with
// its Content-Length (or `declared` instead of the body's size, if >= 0).
std::string HttpBytes(const std::string& method, const std::string& target, const std::string& body,
                      const std::string& extra = "", long long declared = -1);

}  // namespace fenec::scenarios::soak
