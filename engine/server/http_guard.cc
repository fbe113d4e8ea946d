#include "engine/server/http_guard.h"

#include <algorithm>
#include <cctype>

namespace fenec::server {
namespace {

// ASCII only, as HTTP's names and media types are (the C locale's tolower,
// without its call a character).
std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool AllDigits(std::string_view s) {
  return !s.empty() && s.size() <= 5 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A host name or IPv4 address as a Host may spell it (RFC 3986 reg-name,
// without percent-encoding, which no real client sends).
bool PlainName(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
  });
}

bool Allowed(const std::string& name, const std::vector<std::string>& allowed) {
  return std::find(allowed.begin(), allowed.end(), name) != allowed.end();
}

char LowerChar(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// a == lower, ASCII case aside; with underscores, '_' also matches '-'.
bool NameIs(std::string_view a, std::string_view lower, bool underscores = false) {
  if (a.size() != lower.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (LowerChar(a[i]) != lower[i] && !(underscores && a[i] == '_' && lower[i] == '-')) return false;
  }
  return true;
}

bool Decimal(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// RFC 9110's token: what a coding's name is made of.
bool Token(std::string_view s) {
  static constexpr std::string_view kMarks = "!#$%&'*+-.^_`|~";
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || kMarks.find(c) != std::string_view::npos;
  });
}

}  // namespace

std::vector<std::string> AllowedHostNames(const std::string& listen_host, const std::vector<std::string>& extra) {
  std::vector<std::string> names;
  auto add = [&names](const std::string& n) {
    if (!n.empty() && !Allowed(n, names)) names.push_back(n);
  };
  const std::string listen = Lower(listen_host);
  add(listen.find(':') != std::string::npos ? "[" + listen + "]" : listen);
  add("localhost");
  if (listen == "0.0.0.0" || listen == "::") {
    add("127.0.0.1");
    add("[::1]");
  }
  for (const std::string& e : extra) {
    auto a = ParseAuthority(e);
    add(a ? a->name : Lower(e));
  }
  return names;
}

std::optional<Authority> ParseAuthority(std::string_view s) {
  Authority a;
  std::string_view port;
  if (!s.empty() && s.front() == '[') {
    size_t close = s.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    std::string_view inside = s.substr(1, close - 1);
    if (inside.empty() || !std::all_of(inside.begin(), inside.end(), [](char c) {
          return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
        }))
      return std::nullopt;
    a.name = Lower(s.substr(0, close + 1));
    std::string_view rest = s.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return std::nullopt;
      port = rest.substr(1);
      if (!AllDigits(port)) return std::nullopt;
    }
  } else {
    size_t colon = s.find(':');
    std::string_view name = s.substr(0, colon);
    if (!PlainName(name)) return std::nullopt;
    if (colon != std::string_view::npos) {
      port = s.substr(colon + 1);
      if (!AllDigits(port)) return std::nullopt;
    }
    a.name = Lower(name);
  }
  a.port = std::string(port);
  return a;
}

bool HostAllowed(std::string_view host, const std::vector<std::string>& allowed) {
  auto a = ParseAuthority(Trim(host));
  return a && Allowed(a->name, allowed);
}

bool OriginAllowed(std::string_view origin, std::string_view host, const std::vector<std::string>& allowed) {
  origin = Trim(origin);
  std::string_view default_port;
  if (origin.substr(0, 7) == "http://") {
    origin.remove_prefix(7);
    default_port = "80";
  } else if (origin.substr(0, 8) == "https://") {
    origin.remove_prefix(8);
    default_port = "443";
  } else {
    return false;  // "null" (a sandboxed or file: page), or not an origin at all
  }
  auto o = ParseAuthority(origin);
  auto h = ParseAuthority(Trim(host));
  if (!o || !h || !Allowed(o->name, allowed)) return false;
  // Same origin as the request's own Host: another port is another page (a
  // local dev server's), which may not use our data.
  std::string_view oport = o->port.empty() ? default_port : std::string_view(o->port);
  std::string_view hport = h->port.empty() ? default_port : std::string_view(h->port);
  return oport == hport;
}

bool IsJsonContentType(std::string_view content_type) {
  std::string_view media = Trim(content_type.substr(0, content_type.find(';')));
  return Lower(media) == "application/json";
}

bool BearerMatches(std::string_view authorization, std::string_view token) {
  if (token.empty()) return false;
  static constexpr std::string_view kBearer = "Bearer ";
  if (authorization.substr(0, kBearer.size()) != kBearer) return false;
  std::string_view got = authorization.substr(kBearer.size());
  unsigned diff = got.size() != token.size();
  for (size_t i = 0; i < got.size(); ++i)
    diff |= static_cast<unsigned char>(got[i]) ^ static_cast<unsigned char>(token[i % token.size()]);
  return diff == 0;
}

void FramingCheck::Field(std::string_view name, std::string_view value) {
  if (NameIs(name, "transfer-encoding")) {
    te_exact_ = ++te_fields_ == 1 && NameIs(value, "chunked");
    // Several fields are one list (RFC 9110 5.3), so codings run on across them.
    for (size_t start = 0; start <= value.size();) {
      const size_t comma = std::min(value.find(',', start), value.size());
      Coding(Trim(value.substr(start, comma - start)));
      start = comma + 1;
    }
  } else if (NameIs(name, "content-length")) {
    ++cl_fields_;
    cl_plain_ = cl_plain_ && Decimal(value);
  } else if (name.find('_') != std::string_view::npos) {
    lookalike_ = lookalike_ || NameIs(name, "transfer-encoding", true) || NameIs(name, "content-length", true);
  }
}

void FramingCheck::Coding(std::string_view element) {
  if (element.empty()) return;  // an empty list element (RFC 9110 5.6.1)
  ++codings_;
  const size_t semi = element.find(';');
  const std::string_view name = Trim(element.substr(0, semi));
  const bool chunked = NameIs(name, "chunked");
  bad_coding_ = bad_coding_ || !Token(name) || (chunked && semi != std::string_view::npos);
  chunked_ += chunked ? 1 : 0;
  last_chunked_ = chunked && semi == std::string_view::npos;
}

int FramingCheck::Verdict(unsigned version, bool folded) {
  auto refuse = [this](int status, const char* why) {
    why_ = why;
    return status;
  };
  if (folded) return refuse(400, "obsolete line folding (a header line that starts with a space or tab) is refused");
  if (lookalike_) return refuse(400, "a field named Transfer_Encoding or Content_Length is refused");
  if (cl_fields_ > 1 || !cl_plain_) return refuse(400, "Content-Length must be one field holding one decimal number");
  if (te_fields_ == 0) return 0;
  // RFC 9112 6.1: an HTTP/1.0 recipient may not know chunked, so the framing is faulty.
  if (version < 11) return refuse(400, "Transfer-Encoding in an HTTP/1.0 request");
  // RFC 9112 6.3: Transfer-Encoding wins, but a proxy may have used the length.
  if (cl_fields_ > 0) return refuse(400, "Transfer-Encoding and Content-Length together");
  if (te_exact_) return 0;
  if (chunked_ > 1) return refuse(400, "chunked is applied more than once");
  if (bad_coding_ || !last_chunked_) {
    return refuse(400, "chunked is not the final transfer coding: the body's length cannot be determined");
  }
  if (codings_ == 1) return refuse(400, "Transfer-Encoding must be chunked alone, in one field");
  return refuse(501, "transfer codings other than chunked are not implemented");
}

bool HasObsFold(std::string_view raw) {
  for (size_t at = raw.find('\n'); at != std::string_view::npos && at + 1 < raw.size(); at = raw.find('\n', at + 1)) {
    if (raw[at + 1] == ' ' || raw[at + 1] == '\t') return true;
  }
  return false;
}

bool ChunkExtensionClean(std::string_view extensions) {
  return std::none_of(extensions.begin(), extensions.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && u != '\t') || u == 0x7f;
  });
}

}  // namespace fenec::server
