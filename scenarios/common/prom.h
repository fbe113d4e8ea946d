// One sample's value from fenec-server's /metrics (Prometheus text), for
// every scenario that reads the server's own figures.
#pragma once

#include <string>

namespace fenec::scenarios {

// The value of `series` ("name{labels}" exactly as exported), or -1 when absent.
double PromValue(const std::string& text, const std::string& series);

}  // namespace fenec::scenarios
