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

}  // namespace fenec::server
