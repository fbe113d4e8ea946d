// What a request's header must show before its body is read:
// checks on the header's fields alone, so a refused request costs no body
// byte and no reservation.
//
// Why: fenec-server listens on loopback with no token by default, and any
// web page the user opens can send requests there. A browser sends a
// cross-origin POST without asking first (no CORS preflight) only when its
// Content-Type is text/plain, a form's or multipart, so requiring
// application/json makes every page ask first, and we never answer yes. A
// page that does reach us says where it came from in Origin: only a page of
// our own host is let through. DNS rebinding (a page whose own host name
// now resolves to 127.0.0.1) is same-origin to the browser, but its Host
// names the attacker's domain: only the names we listen as are served.
//
//   Host     the listen address (on a wildcard address, the loopback
//            addresses too), "localhost", or an --allow-host name; any port
//            (a forwarded port is still us)                          else 421
//   Origin   absent (not a browser's cross-site request), or http(s)://
//            an allowed host, with the port the Host names           else 403
//   token    "Authorization: Bearer <token>" when one is set         else 401
//   type     a POST, or any request with a body: application/json
//            (parameters such as "; charset=utf-8" allowed)          else 415
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fenec::server {

// The names a Host header may carry (lower case, IPv6 bracketed): the listen
// address, "localhost", the loopback addresses when listening on a wildcard
// address, and `extra` (--allow-host).
std::vector<std::string> AllowedHostNames(const std::string& listen_host, const std::vector<std::string>& extra);

// A Host (or Origin authority) split into its lower-cased name and its port
// ("" when none); nullopt when it is not name[:digits] or [v6][:digits].
struct Authority {
  std::string name, port;
};
std::optional<Authority> ParseAuthority(std::string_view s);

bool HostAllowed(std::string_view host, const std::vector<std::string>& allowed);
// origin: the Origin header's value; host: the request's Host (already allowed).
bool OriginAllowed(std::string_view origin, std::string_view host, const std::vector<std::string>& allowed);
// True when the media type is application/json, whatever its parameters.
bool IsJsonContentType(std::string_view content_type);
// "Bearer <token>", compared in full whatever the first difference, so the
// time taken does not tell how much matched.
bool BearerMatches(std::string_view authorization, std::string_view token);

}  // namespace fenec::server
