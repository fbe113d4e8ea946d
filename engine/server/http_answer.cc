#include "engine/server/http_answer.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <ostream>

#include <boost/beast/http/status.hpp>

namespace fenec::server {
namespace {

void AppendDecimal(std::string& out, uint64_t v) {
  char digits[20];
  const auto r = std::to_chars(digits, digits + sizeof(digits), v);
  out.append(digits, r.ptr);
}

}  // namespace

// Appended piece by piece: fmt's parsing of a format string at run time
// stood out in the io thread's user-mode profile of an empty request (RQ-1).
void AppendAnswerHead(std::string& out, unsigned version, int status, std::string_view content_type, bool keep,
                      int retry_after_s, size_t body_size) {
  namespace http = boost::beast::http;
  out += version == 10 ? "HTTP/1.0 " : "HTTP/1.1 ";
  AppendDecimal(out, static_cast<uint64_t>(std::max(status, 0)));
  out += ' ';
  const auto reason = http::obsolete_reason(static_cast<http::status>(status));
  out.append(reason.data(), reason.size());
  out += "\r\nServer: fenec-server\r\nContent-Type: ";
  out += content_type;
  out += "\r\n";
  if (version >= 11 && !keep) out += "Connection: close\r\n";
  if (version < 11 && keep) out += "Connection: keep-alive\r\n";
  if (retry_after_s > 0) {
    out += "Retry-After: ";
    AppendDecimal(out, static_cast<uint64_t>(retry_after_s));
    out += "\r\n";
  }
  out += "Content-Length: ";
  AppendDecimal(out, body_size);
  out += "\r\n\r\n";
}

}  // namespace fenec::server
