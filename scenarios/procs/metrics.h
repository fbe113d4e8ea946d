// A fenec-server's /metrics, asked over loopback and read series by series.
#pragma once

#include <string>

namespace fenec::scenarios::procs {

// GET /metrics, or "" if it failed.
std::string FetchMetrics(int port);
// One series' value from Prometheus text ("name{labels} value"), -1 when absent
// (or not a number).
double PromValue(const std::string& text, const std::string& series);

}  // namespace fenec::scenarios::procs
