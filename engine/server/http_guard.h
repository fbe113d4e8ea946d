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
//
// And first of all, the framing (FramingCheck): where this request's body
// ends, hence where the next request starts, must be certain, or a proxy in
// front that frames the message otherwise would have us run a request
// hidden in the body (smuggling). Refused, and the connection closed.
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

// A request's framing by RFC 9112 6.1-6.3, from its header's fields as Beast
// parsed them (Beast itself refuses a Content-Length not a number, lists of
// differing lengths, and Transfer-Encoding beside Content-Length in some
// orders). The body's length is certain only with a Content-Length that is
// one plain decimal, or "Transfer-Encoding: chunked" alone in HTTP/1.1, or
// neither (no body). Everything else is refused, though the RFC lets a server
// recover some of it (equal lengths repeated, empty list elements): a proxy
// in front may have recovered otherwise.
class FramingCheck {
 public:
  // Each field of the header, in order: its name as sent, its value as
  // Beast gives it (surrounding whitespace trimmed, a fold unfolded).
  void Field(std::string_view name, std::string_view value);
  // 0 when the length is certain; else the status to refuse with: 501 for
  // codings before a final chunked (which this server does not implement),
  // 400 for the rest. version: 10 or 11; folded: the header had an obs-fold
  // (a line starting with a space or tab), which Beast unfolds unseen.
  int Verdict(unsigned version, bool folded);
  // Why the last Verdict refused, for the answer.
  const char* why() const { return why_; }

 private:
  void Coding(std::string_view element);

  int te_fields_ = 0, cl_fields_ = 0;
  bool te_exact_ = false;      // one Transfer-Encoding field, and it says "chunked"
  bool cl_plain_ = true;       // every Content-Length is 1*DIGIT
  bool lookalike_ = false;     // Transfer_Encoding, Content_Length: the same field to a CGI-style proxy
  int codings_ = 0, chunked_ = 0;
  bool last_chunked_ = false;  // the last coding named so far is bare "chunked"
  bool bad_coding_ = false;    // a coding that is not a token, or chunked with parameters
  const char* why_ = "";
};

// True when a header's raw bytes (request line and fields, CRLF-ended) hold
// an obs-fold: a line break followed by a space or tab.
bool HasObsFold(std::string_view raw);
// A chunk's extensions as Beast passes them (";name=value..."): false when
// they hold a control character. Beast accepts a bare CR or LF inside a quoted
// value, where a proxy that ends lines at a bare LF reads another chunk.
bool ChunkExtensionClean(std::string_view extensions);

}  // namespace fenec::server
