// The engine's counters (fenec/stats.h) as bench result rows, from an
// embedded database's GetStats or read back from a fenec-server's /metrics:
// every declared counter, so a counter added to the declaration shows in
// every bench that reports the engine, with no bench edited.
#pragma once

#include <string>

#include "fenec/stats.h"
#include "iobench/kit/results.h"

namespace fenec::scenarios::procs {

// One row per declared counter: metric = its Stats field, unit = its unit,
// finding = the one it evidences, else `finding`.
void AddStatRows(kit::Results& rows, const std::string& finding, const std::string& arm, const std::string& case_,
                 const Stats& st);
// A server's Stats from its /metrics text (MetricName's series; one absent reads 0).
Stats StatsFromMetrics(const std::string& text);

}  // namespace fenec::scenarios::procs
