// The refusals at a request's header and at a failed read: what the header
// must show before its body is read (Screen: http_guard.h's checks, the
// body's budget) and how a read Beast failed is answered (OnReadError).
// Every refusal here closes the connection (Refuse, then Linger).
#include <algorithm>
#include <iterator>

#include <boost/beast/http/error.hpp>
#include <fmt/format.h>

#include "engine/server/http_session.h"

namespace fenec::server {
namespace {

// What a refused client may still send when no body is declared: a little,
// read and dropped so it reads the answer, not a reset.
constexpr uint64_t kHeaderDiscard = 64u << 10;

std::string_view Sv(beast::string_view s) { return std::string_view(s.data(), s.size()); }

bool IsDisconnect(const beast::error_code& ec) {
  return ec == http::error::end_of_stream || ec == http::error::partial_message || ec == net::error::eof ||
         ec == net::error::connection_reset || ec == net::error::operation_aborted || ec == net::error::bad_descriptor ||
         ec == net::error::broken_pipe || ec == net::error::not_connected || ec == net::error::shut_down;
}

}  // namespace

// In order: the framing (where the body ends: every later refusal's
// discard trusts it), the header's size, who is asking (Host, Origin, token),
// then what the body would cost (its size, its type, room in the budget).
// Each refusal is answered before a byte of the body is read or reserved.
bool Session::Screen() {
  const HttpServer::Config& config = shared_.config;
  const auto& head = parser_->get();
  size_t fields = 0;
  FramingCheck framing;
  for (const auto& field : head) {
    framing.Field(Sv(field.name_string()), Sv(field.value()));
    ++fields;
  }
  const auto length = parser_->content_length();
  const bool chunked = parser_->chunked();
  declared_ = length ? *length : config.max_body;
  // What a refused client may still send: its body, or (none declared) a little.
  const uint64_t discard = length ? *length : chunked ? config.max_body : kHeaderDiscard;
  if (const int status = framing.Verdict(head.version(), folded_); status != 0) {
    shared_.bad_framing.fetch_add(1);
    // The body's end is unknown: whatever follows is dropped unparsed.
    Refuse(status, status == 501 ? "transfer_coding" : "framing", framing.why(), std::max(discard, kHeaderDiscard));
    return false;
  }
  if (fields > config.max_header_fields) {
    shared_.over_header_fields.fetch_add(1);
    Refuse(431, "headers_too_large",
           fmt::format("{} header fields, over --max-header-fields ({})", fields, config.max_header_fields),
           kHeaderDiscard);
    return false;
  }
  auto hosts = head.equal_range(http::field::host);
  if (std::distance(hosts.first, hosts.second) != 1 ||
      !HostAllowed(Sv(hosts.first->value()), shared_.allowed_hosts)) {
    shared_.bad_host.fetch_add(1);
    Refuse(421, "host", "the Host header must name this server: its listen address, localhost, or an --allow-host name",
           discard);
    return false;
  }
  auto origins = head.equal_range(http::field::origin);
  const auto norigins = std::distance(origins.first, origins.second);
  if (norigins > 1 || (norigins == 1 && !OriginAllowed(Sv(origins.first->value()),
                                                        Sv(hosts.first->value()), shared_.allowed_hosts))) {
    shared_.bad_origin.fetch_add(1);
    Refuse(403, "origin", "requests from another site's pages are refused (Origin is not this server)", discard);
    return false;
  }
  if (!config.token.empty()) {
    auto auth = head.find(http::field::authorization);
    if (auth == head.end() || !BearerMatches(Sv(auth->value()), config.token)) {
      shared_.unauthorized.fetch_add(1);
      Refuse(401, "unauthorized", "this server needs Authorization: Bearer <token>", discard);
      return false;
    }
  }
  parser_->body_limit(config.max_body);
  if (length && *length > config.max_body) {
    // Refused before its body is read: the client learns at once, and the server reads nothing it would keep.
    shared_.over_body.fetch_add(1);
    Refuse(413, "too_large", fmt::format("the body is over --max-body ({} bytes)", config.max_body), declared_);
    return false;
  }
  const bool has_body = chunked || (length && *length > 0);
  if (head.method() == http::verb::post || has_body) {
    auto type = head.find(http::field::content_type);
    if (type == head.end() || !IsJsonContentType(Sv(type->value()))) {
      shared_.bad_content_type.fetch_add(1);
      Refuse(415, "content_type", "a request body must be sent as Content-Type: application/json", discard);
      return false;
    }
  }
  if (!has_body) return true;
  // A chunked body may grow to --max-body: that much is held for it.
  const uint64_t want = chunked ? config.max_body : *length;
  uint64_t now = shared_.inflight_bytes.load();
  do {
    if (now + want > config.max_inflight_bytes) {
      shared_.over_inflight.fetch_add(1);
      Refuse(503, "busy",
             fmt::format("bodies in flight would pass --max-inflight-bytes ({} bytes); retry", config.max_inflight_bytes),
             discard, 1);
      return false;
    }
  } while (!shared_.inflight_bytes.compare_exchange_weak(now, now + want));
  reserved_ = want;
  // Room for the handler's padding now, so the body is never copied to grow.
  if (!chunked) parser_->get().body().reserve(*length + config.body_slack);
  return true;
}

void Session::OnReadError(const beast::error_code& ec) {
  if (phase_ == Phase::kClosed) return;  // a deadline (counted) or Stop() closed it
  if (ec == http::error::body_limit) {
    shared_.over_body.fetch_add(1);
    return Refuse(413, "too_large", fmt::format("the body is over --max-body ({} bytes)", shared_.config.max_body),
                  declared_);
  }
  if (ec == http::error::header_limit) {
    shared_.over_header_bytes.fetch_add(1);
    return Refuse(431, "headers_too_large",
                  fmt::format("the request's header is over --max-header-bytes ({})", shared_.config.max_header_bytes),
                  kHeaderDiscard);
  }
  const bool malformed = !IsDisconnect(ec) && ec.category() == beast::error_code(http::error::bad_target).category();
  // A framing field Beast refused (its share of FramingCheck's rules), or a
  // body malformed part-way (a chunk's line, its trailer): where it ends is not known.
  if (malformed && ((parser_ && parser_->is_header_done()) || ec == http::error::bad_content_length ||
                    ec == http::error::bad_transfer_encoding)) {
    shared_.bad_framing.fetch_add(1);
    return Refuse(400, "framing", fmt::format("the body's end cannot be determined: {}", ec.message()),
                  kHeaderDiscard);
  }
  if (malformed) {
    shared_.bad_http.fetch_add(1);
    return Refuse(400, "http", fmt::format("malformed HTTP request: {}", ec.message()), kHeaderDiscard);
  }
  Close();  // the peer left
}

}  // namespace fenec::server
