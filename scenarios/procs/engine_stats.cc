#include "scenarios/procs/engine_stats.h"

#include <cmath>

#include "scenarios/procs/metrics.h"

namespace fenec::scenarios::procs {

void AddStatRows(kit::Results& rows, const std::string& finding, const std::string& arm, const std::string& case_,
                 const Stats& st) {
  for (Stat s : kAllStats) {
    const StatInfo& i = Info(s);
    rows.add(i.finding[0] != '\0' ? i.finding : finding, arm, case_, i.name, static_cast<double>(st.get(s)),
             UnitName(i.unit));
  }
}

Stats StatsFromMetrics(const std::string& text) {
  Stats st;
  for (Stat s : kAllStats) {
    const double v = PromValue(text, MetricName(s));
    if (v <= 0) continue;
    // MetricValue's inverse: seconds back to ns.
    st.set(s, static_cast<uint64_t>(std::llround(Info(s).unit == StatUnit::kNs ? v * 1e9 : v)));
  }
  return st;
}

}  // namespace fenec::scenarios::procs
