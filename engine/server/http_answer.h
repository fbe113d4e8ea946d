// An answer's status line and header fields, as fenec-server sends them:
// Server, Content-Type, the connection's fate, Retry-After when set, and
// Content-Length. The request's side (its header's checks) is http_guard.h.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fenec::server {

// Appends the head, through its blank line, to out. version: the request's
// (10 or 11); keep: whether the connection stays open, said as Beast's
// keep_alive() says it (HTTP/1.1 only a close, HTTP/1.0 only a keep-alive).
void AppendAnswerHead(std::string& out, unsigned version, int status, std::string_view content_type, bool keep,
                      int retry_after_s, size_t body_size);

}  // namespace fenec::server
