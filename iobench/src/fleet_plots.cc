// The fleet's charts: per cell and mode, each host's latency CDF beside the
// merged fleet's (from the summed bins, so the merged curve is the pooled
// samples' own); per mode, each host's rate in every cell with its 95%
// interval. Hosts are titled "h<N> <host>" so the plot style gives each its
// own colour (a title's first word is its family).
#include <fmt/format.h>

#include <cctype>
#include <map>

#include "iobench/kit/plot.h"
#include "iobench/src/fleet.h"

namespace fenec::iobench::fleet {
namespace {

std::string host_title(const FleetData& d, const std::string& host) {
  for (size_t i = 0; i < d.hosts.size(); ++i)
    if (d.hosts[i] == host) return fmt::format("h{} {}", i + 1, host);
  return host;
}

// A file name from a cell's name: letters, digits, '-' and '.' kept.
std::string file_part(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_';
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> write_fleet_plots(const FleetData& d, const Judgement& j,
                                                                   const std::string& prefix) {
  std::vector<std::pair<std::string, std::string>> out;
  std::map<RunMode, std::vector<const CellSummary*>> by_mode;
  for (const CellSummary& c : j.cells) {
    by_mode[c.mode].push_back(&c);
    kit::Chart chart;
    const bool syncs = d.kinds.count(c.cell) && d.kinds.at(c.cell).syncs;
    chart.title = fmt::format("{} ({}): {} latency, each host and the fleet merged", c.cell, run_mode_name(c.mode),
                              syncs ? "fdatasync" : "write");
    chart.xlabel = "latency (us)";
    chart.ylabel = "share of ops at or below";
    chart.logx = true;
    for (const std::string& host : d.hosts) {
      auto it = c.by_host.find(host);
      if (it == c.by_host.end()) continue;
      chart.series.emplace_back(host_title(d, host), it->second.cdf_us(), "lines");
    }
    chart.series.emplace_back("fleet merged", c.merged.cdf_us(), "lines lw 3");
    chart.max_series_per_panel = chart.series.size();
    const std::string base = fmt::format("{}cdf_{}_{}", prefix, run_mode_name(c.mode), file_part(c.cell));
    out.emplace_back(base, kit::write_chart(chart, base));
  }
  for (const auto& [mode, cells] : by_mode) {
    kit::Chart chart;
    chart.title = fmt::format("each host's rate ({}), with its 95% interval over repetitions", run_mode_name(mode));
    chart.xlabel = "host";
    chart.ylabel = "ops/s";
    chart.logy = true;
    for (size_t i = 0; i < d.hosts.size(); ++i) chart.xtics.emplace_back(static_cast<double>(i + 1), d.hosts[i]);
    for (const CellSummary* c : cells) {
      kit::Series s(c->cell, {}, "points");
      for (size_t i = 0; i < d.hosts.size(); ++i) {
        auto it = c->host_rate.find(d.hosts[i]);
        if (it == c->host_rate.end() || !it->second.known()) continue;
        s.points.emplace_back(static_cast<double>(i + 1), it->second.value);
        s.errors.emplace_back(it->second.ci95.known() ? it->second.ci95.lo : it->second.value,
                              it->second.ci95.known() ? it->second.ci95.hi : it->second.value);
      }
      if (!s.points.empty()) chart.series.push_back(std::move(s));
    }
    const std::string base = fmt::format("{}rates_{}", prefix, run_mode_name(mode));
    out.emplace_back(base, chart.series.empty() ? "no rates to plot" : kit::write_chart(chart, base));
  }
  return out;
}

}  // namespace fenec::iobench::fleet
