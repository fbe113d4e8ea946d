// wrk (Debian's) on fenec-server's get by id: a cross-check of the bench's
// own HTTP client only, as scripts/fio-check checks iobench against fio. wrk
// asks the same POST /query (one id, its request built once, so wrk runs at
// its fastest: the check is conservative against our client, whose ids vary).
#pragma once

#include <string>

namespace fenec::scenarios::requests {

struct WrkResult {
  double p50_us = 0, p99_us = 0, per_s = 0;
  std::string error;  // "" when wrk ran and every answer was 2xx
};

// wrk on PATH, or "" if not installed.
std::string FindWrk();

// Runs `wrk -t threads -c connections -d seconds --latency` against
// 127.0.0.1:port, its script and output in `dir`.
WrkResult RunWrk(const std::string& wrk, int port, int64_t id, int connections, int threads, int seconds,
                 const std::string& dir);

// Reads wrk's --latency report (for tests: its format is wrk's, not ours).
WrkResult ParseWrk(const std::string& text);

}  // namespace fenec::scenarios::requests
