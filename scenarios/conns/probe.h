// What the bench asks fenec-server over loopback HTTP: a collection to read,
// a timed run of gets by id from a new client, and /metrics.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace fenec::scenarios::conns {

// Creates collection `items` and puts `docs` documents (ids 1..docs). Returns "" or why not.
std::string Prefill(int port, int docs);

struct GetFigures {
  double p50_us = 0, p99_us = 0;
  uint64_t count = 0;
  // The server's fenec_http_connections gauge, asked over this client's own
  // connection just before its first timed get and just after its last.
  double gauge_before = -1, gauge_after = -1;
  std::string error;  // "" when every get answered 200
};
// A new client (one kept-alive connection, as an application's would be)
// gets `warmup` then `count` documents by id, round-robin over 1..docs,
// timing each round trip; stops early once stop() says so.
GetFigures MeasureGets(int port, int docs, int warmup, int count, const std::function<bool()>& stop);

// Polls the server's fenec_http_connections gauge (every 20 ms, up to
// `bound_ms`) until ok(gauge); returns the last value read (-1 if none).
double WaitForGauge(int port, const std::function<bool(double)>& ok, int bound_ms);

}  // namespace fenec::scenarios::conns
