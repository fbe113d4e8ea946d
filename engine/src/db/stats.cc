// The generated side of fenec/stats.h: access by Stat, names, merging.
#include "fenec/stats.h"

#include <algorithm>
#include <string_view>

namespace fenec {

const char* UnitName(StatUnit u) {
  switch (u) {
    case StatUnit::kCount: return "count";
    case StatUnit::kNs: return "ns";
    case StatUnit::kBytes: return "bytes";
    case StatUnit::kLsn: return "lsn";
    case StatUnit::kBool: return "bool";
  }
  return "?";
}

const char* KindName(StatKind k) {
  switch (k) {
    case StatKind::kCounter: return "counter";
    case StatKind::kMaximum: return "maximum";
    case StatKind::kPeak: return "peak";
    case StatKind::kGauge: return "gauge";
  }
  return "?";
}

std::string MetricName(Stat s) {
  const StatInfo& i = Info(s);
  std::string_view name = i.name;
  std::string out = "fenec_";
  if (i.unit == StatUnit::kNs && name.ends_with("_ns")) {
    out.append(name.substr(0, name.size() - 3));
    out += "_seconds";
  } else {
    out.append(name);
  }
  if (i.kind == StatKind::kCounter) out += "_total";
  return out;
}

double MetricValue(Stat s, uint64_t v) {
  return Info(s).unit == StatUnit::kNs ? static_cast<double>(v) / 1e9 : static_cast<double>(v);
}

uint64_t Stats::get(Stat s) const {
  switch (s) {
#define FENEC_STAT_GET(name, unit, kind, finding, help) \
  case Stat::name: return static_cast<uint64_t>(name);
    FENEC_STATS(FENEC_STAT_GET)
#undef FENEC_STAT_GET
  }
  return 0;
}

void Stats::set(Stat s, uint64_t v) {
  switch (s) {
#define FENEC_STAT_SET(name, unit, kind, finding, help) \
  case Stat::name: name = static_cast<StatValue<StatUnit::unit>>(v); return;
    FENEC_STATS(FENEC_STAT_SET)
#undef FENEC_STAT_SET
  }
}

void Stats::Accumulate(const Stats& later) {
  for (Stat s : kAllStats) {
    switch (Info(s).kind) {
      case StatKind::kCounter: set(s, get(s) + later.get(s)); break;
      case StatKind::kMaximum:
      case StatKind::kPeak: set(s, std::max(get(s), later.get(s))); break;
      case StatKind::kGauge: set(s, later.get(s)); break;
    }
  }
}

}  // namespace fenec
