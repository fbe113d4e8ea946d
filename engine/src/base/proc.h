// What /proc says about the machine a run shares: read beside results,
// because on a shared machine the load explains much of a latency figure.
#pragma once

#include <string>

namespace fenec::base {

// /proc/loadavg's three averages as it prints them ("0.52 0.61 0.70"), or
// "unknown" where /proc is not readable.
std::string LoadAverage();

}  // namespace fenec::base
