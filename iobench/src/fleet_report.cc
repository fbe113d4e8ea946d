// A fleet run as people and tools read it: the verdicts and the table host x
// cell first, tidy rows, the JSON sidecar (every merged histogram's bins, the
// windows, the failures, the fio files kept) and a Markdown section.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "engine/src/base/json.h"
#include "iobench/kit/console.h"
#include "iobench/kit/results.h"
#include "iobench/src/fleet.h"

namespace fenec::iobench::fleet {
namespace {

std::string verdict_word(const HostVerdict& v) {
  std::string w;
  if (v.lying()) w = "lying";
  if (!v.speed.empty()) w += (w.empty() ? "" : ", ") + v.speed;
  if (!v.failure.empty()) w += (w.empty() ? "" : ", ") + std::string("failed");
  return w.empty() ? "-" : w;
}

std::string rate_text(const kit::Ratio& r) {
  if (!r.known()) return "-";
  if (!r.ci95.known()) return kit::format_count(r.value) + "/s";
  return fmt::format("{}/s [{}, {}]", kit::format_count(r.value), kit::format_count(r.ci95.lo),
                     kit::format_count(r.ci95.hi));
}

const CellSummary* find(const Judgement& j, RunMode m, const std::string& cell) {
  for (const CellSummary& c : j.cells)
    if (c.mode == m && c.cell == cell) return &c;
  return nullptr;
}

std::vector<RunMode> modes_of(const Judgement& j) {
  std::vector<RunMode> out;
  for (const CellSummary& c : j.cells)
    if (std::find(out.begin(), out.end(), c.mode) == out.end()) out.push_back(c.mode);
  return out;
}

const char* mode_blurb(RunMode m) {
  switch (m) {
    case RunMode::kApart: return "each host alone";
    case RunMode::kTogether: return "every host at once; the fleet's rate over the window they shared";
    case RunMode::kIngest: return "from fio output made elsewhere";
  }
  return "";
}

std::string host_line(const HostVerdict& v) {
  std::string s;
  if (v.lying())
    s += fmt::format("lying (IO-4: {}): durable write p50 {} vs buffered {}", durability_name(v.lies),
                     kit::format_us(v.durable_p50_us), kit::format_us(v.buffered_p50_us));
  if (!v.speed.empty()) s += (s.empty() ? "" : "; ") + v.speed + ": " + v.speed_note;
  return s;
}

void add_hist_rows(kit::Results& r, const std::string& finding, const std::string& arm, const std::string& case_,
                   const std::string& prefix, const FioHist& h) {
  if (h.empty()) return;
  r.add(finding, arm, case_, prefix + "_p50_us", h.percentile_us(50), "us");
  r.add(finding, arm, case_, prefix + "_p99_us", h.percentile_us(99), "us");
  r.add(finding, arm, case_, prefix + "_p999_us", h.percentile_us(99.9), "us");
  r.add(finding, arm, case_, prefix + "_n", static_cast<double>(h.samples()), "count");
}

std::string bins_json(const FioHist& h) {
  std::string out = fmt::format("{{\"n\":{},\"p50_ns\":{},\"p99_ns\":{},\"p999_ns\":{},\"bins\":[", h.samples(),
                                h.percentile(50), h.percentile(99), h.percentile(99.9));
  bool first = true;
  for (const auto& [mid, n] : h.bins()) {
    out += fmt::format("{}[{},{}]", first ? "" : ",", mid, n);
    first = false;
  }
  return out + "]}";
}

std::string str(std::string_view s) {
  std::string out;
  base::AppendJsonString(out, s);
  return out;
}

}  // namespace

std::string fleet_text(const FleetData& d, const Judgement& j) {
  std::string out = fmt::format("iobench fleet: {} host{}, {} cell{}, fio {}\n", d.hosts.size(),
                                d.hosts.size() == 1 ? "" : "s", d.cells.size(), d.cells.size() == 1 ? "" : "s",
                                d.fio_version.empty() ? "unknown" : d.fio_version);
  std::vector<const HostVerdict*> named;
  for (const HostVerdict& v : j.hosts)
    if (v.named()) named.push_back(&v);
  out += named.empty() ? "named: nobody (no host lies, none is slower or faster than the fleet allows)\n"
                       : "named:\n";
  for (const HostVerdict* v : named) out += fmt::format("  {}  {}\n", v->host, host_line(*v));
  for (bool fatal : {true, false}) {
    std::set<std::string> reported;
    for (const Failure& f : d.failures) {
      if (f.fatal != fatal) continue;
      const std::string line = fmt::format("  {}{}: {}", f.host, f.cell.empty() ? "" : " " + f.cell, f.reason);
      if (reported.insert(line).second)
        out += (reported.size() == 1 ? (fatal ? "failed:\n" : "skipped on a host (fio refused the job there):\n") : "") +
               line + "\n";
    }
  }
  for (RunMode m : modes_of(j)) {
    out += fmt::format("\n{} ({}): the durable latency's p50 and the rate\n", run_mode_name(m), mode_blurb(m));
    std::vector<std::string> header = {"host"};
    std::vector<std::string> cells;
    for (const std::string& c : d.cells)
      if (find(j, m, c)) cells.push_back(c), header.push_back(c);
    header.push_back("verdict");
    kit::Table t(header);
    for (const HostVerdict& v : j.hosts) {
      std::vector<std::string> row = {v.host};
      for (const std::string& c : cells) {
        const CellSummary* s = find(j, m, c);
        auto h = s->by_host.find(v.host);
        auto rate = s->host_rate.find(v.host);
        row.push_back(h == s->by_host.end() ? "-"
                                            : fmt::format("{} {}/s", kit::format_us(h->second.percentile_us(50)),
                                                          kit::format_count(rate->second.value)));
      }
      row.push_back(m == j.judged ? verdict_word(v) : "");
      t.row(row);
    }
    std::vector<std::string> fleet = {m == RunMode::kApart ? "fleet (merged; rates summed)" : "fleet (merged)"};
    for (const std::string& c : cells) {
      const CellSummary* s = find(j, m, c);
      fleet.push_back(fmt::format("{} {}/s", kit::format_us(s->merged.percentile_us(50)),
                                  kit::format_count(s->fleet.value)));
    }
    fleet.push_back("");
    t.row(fleet);
    out += t.str();
  }
  out += "\nmerged per cell: fio's percentile rule on the hosts' summed bins, every repetition\n";
  kit::Table m({"mode", "cell", "hosts", "samples", "p50", "p99", "p99.9", "fleet rate [95%]"});
  for (const CellSummary& c : j.cells)
    m.row({run_mode_name(c.mode), c.cell, std::to_string(c.hosts), std::to_string(c.merged.samples()),
           kit::format_us(c.merged.percentile_us(50)), kit::format_us(c.merged.percentile_us(99)),
           kit::format_us(c.merged.percentile_us(99.9)),
           rate_text(c.fleet) + (c.mode == RunMode::kTogether ? (c.windowed ? " (shared window)" : " (fio's own)") : "")});
  out += m.str();
  for (const HostVerdict& v : j.hosts) {
    out += fmt::format("\n{}: {}\n", v.host, verdict_word(v));
    if (d.host_info.count(v.host)) out += "  " + d.host_info.at(v.host) + "\n";
    out += fmt::format("  IO-4: {}\n", durability_name(v.lies));
    for (const std::string& r : v.lies_reasons) out += "    - " + r + "\n";
    if (!v.speed_note.empty()) out += "  speed: " + v.speed_note + "\n";
    if (!v.failure.empty()) out += "  failed: " + v.failure + "\n";
  }
  for (const std::string& n : j.notes) out += "note: " + n + "\n";
  return out;
}

void add_fleet_rows(kit::Results& r, const FleetData& d, const Judgement& j) {
  for (const Sample& s : d.samples) {
    const std::string cs = fmt::format("{};mode={};rep={}", s.cell, run_mode_name(s.mode), s.rep);
    const bool syncs = d.kinds.count(s.cell) && d.kinds.at(s.cell).syncs;
    r.add("", s.host, cs, "iops", s.iops, "ops/s");
    r.add("", s.host, cs, "mb_per_s", s.mb_per_s, "MB/s");
    if (s.window_iops > 0) r.add("", s.host, cs, "window_iops", s.window_iops, "ops/s");
    add_hist_rows(r, "", s.host, cs, "lat", syncs ? s.sync : s.clat);
    if (syncs) add_hist_rows(r, "", s.host, cs, "write", s.clat);
  }
  for (const CellSummary& c : j.cells) {
    const std::string cs = fmt::format("{};mode={}", c.cell, run_mode_name(c.mode));
    for (const auto& [host, h] : c.by_host) {
      add_hist_rows(r, "", host, cs, "lat", h);
      r.add_ratio("", host, cs, "rate", c.host_rate.at(host), "ops/s");
    }
    add_hist_rows(r, "", "fleet", cs, "lat", c.merged);
    r.add_ratio("", "fleet", cs, "rate", c.fleet, "ops/s");
    r.add("", "fleet", cs, "hosts", static_cast<double>(c.hosts), "count");
    if (c.mode == RunMode::kTogether) r.add("", "fleet", cs, "shared_window", c.windowed ? 1 : 0, "bool");
  }
  for (const HostVerdict& v : j.hosts) {
    r.add("IO-4", v.host, "verdict", "durable_p50_us", v.durable_p50_us, "us");
    r.add("IO-4", v.host, "verdict", "buffered_p50_us", v.buffered_p50_us, "us");
    r.add("IO-4", v.host, "verdict", "lying", v.lying() ? 1 : 0, "bool");
    r.add("", v.host, "verdict", "slow", v.speed == "slow" ? 1 : 0, "bool");
    r.add("", v.host, "verdict", "fast", v.speed == "fast" ? 1 : 0, "bool");
    if (v.p50.known()) r.add_ratio("", v.host, "verdict", "p50_to_fleet", v.p50);
    if (v.rate.known()) r.add_ratio("", v.host, "verdict", "rate_to_fleet", v.rate);
    r.add("", v.host, "verdict", "failed", v.failure.empty() ? 0 : 1, "bool");
  }
  for (const Failure& f : d.failures)
    r.skip(f.host, fmt::format("{};mode={};rep={}", f.cell.empty() ? "all" : f.cell, run_mode_name(f.mode), f.rep),
           f.reason);
}

std::string fleet_json(const FleetData& d, const Judgement& j) {
  std::string out = "{\"fio_version\":" + str(d.fio_version) + ",\"judged_mode\":" + str(run_mode_name(j.judged));
  out += ",\"hosts\":[";
  for (size_t i = 0; i < j.hosts.size(); ++i) {
    const HostVerdict& v = j.hosts[i];
    out += fmt::format("{}{{\"host\":{},\"info\":{},\"lies\":{},\"lying\":{},\"speed\":{},\"speed_note\":{},"
                       "\"durable_p50_us\":{},\"buffered_p50_us\":{},\"failure\":{},\"lies_reasons\":[",
                       i ? "," : "", str(v.host), str(d.host_info.count(v.host) ? d.host_info.at(v.host) : ""),
                       str(durability_name(v.lies)), v.lying() ? "true" : "false", str(v.speed), str(v.speed_note),
                       kit::format_value(v.durable_p50_us), kit::format_value(v.buffered_p50_us), str(v.failure));
    for (size_t k = 0; k < v.lies_reasons.size(); ++k) out += (k ? "," : "") + str(v.lies_reasons[k]);
    out += "]}";
  }
  out += "],\"failures\":[";
  for (size_t i = 0; i < d.failures.size(); ++i) {
    const Failure& f = d.failures[i];
    out += fmt::format("{}{{\"host\":{},\"cell\":{},\"mode\":{},\"rep\":{},\"reason\":{}}}", i ? "," : "", str(f.host),
                       str(f.cell), str(run_mode_name(f.mode)), f.rep, str(f.reason));
  }
  out += "],\"windows\":[";
  for (size_t i = 0; i < d.windows.size(); ++i) {
    const Window& w = d.windows[i];
    out += fmt::format("{}{{\"cell\":{},\"rep\":{},\"start_ms\":{},\"end_ms\":{},\"hosts\":{},\"used\":{}}}",
                       i ? "," : "", str(w.cell), w.rep, kit::format_value(w.start_ms), kit::format_value(w.end_ms),
                       w.hosts, w.used ? "true" : "false");
  }
  out += "],\"cells\":[";
  for (size_t i = 0; i < j.cells.size(); ++i) {
    const CellSummary& c = j.cells[i];
    out += fmt::format("{}{{\"mode\":{},\"cell\":{},\"merged\":{},\"fleet_rate\":{},\"by_host\":{{", i ? "," : "",
                       str(run_mode_name(c.mode)), str(c.cell), bins_json(c.merged), kit::format_value(c.fleet.value));
    bool first = true;
    for (const auto& [host, h] : c.by_host) {
      out += (first ? "" : ",") + str(host) + ":" + bins_json(h);
      first = false;
    }
    out += "}}";
  }
  out += "],\"invocations\":[";
  for (size_t i = 0; i < d.invocations.size(); ++i) {
    const Invocation& v = d.invocations[i];
    out += fmt::format("{}{{\"name\":{},\"mode\":{},\"rep\":{},\"hosts\":{},\"cells\":{},\"seconds\":{}}}",
                       i ? "," : "", str(v.name), str(run_mode_name(v.mode)), v.rep, v.hosts, v.cells,
                       kit::format_value(v.seconds));
  }
  out += "],\"fio_outputs\":[";
  for (size_t i = 0; i < d.files.size(); ++i) out += (i ? "," : "") + str(d.files[i]);
  return out + "]}";
}

std::string fleet_markdown(const FleetData& d, const Judgement& j, const std::string& plots_rel) {
  std::string out = "# The fleet: each host against the others\n\n";
  out += fmt::format("{} hosts, fio {}; judged on the {} runs ({}).\n\n", d.hosts.size(), d.fio_version,
                     run_mode_name(j.judged), mode_blurb(j.judged));
  out += "| host | verdict | IO-4 | speed |\n|---|---|---|---|\n";
  for (const HostVerdict& v : j.hosts)
    out += fmt::format("| {} | {} | {}: durable p50 {} vs buffered {} | {} |\n", v.host, verdict_word(v),
                       durability_name(v.lies), kit::format_us(v.durable_p50_us), kit::format_us(v.buffered_p50_us),
                       v.speed_note.empty() ? "-" : v.speed_note);
  out += "\n| mode | cell | hosts | p50 | p99 | p99.9 | fleet rate |\n|---|---|---|---|---|---|---|\n";
  for (const CellSummary& c : j.cells)
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", run_mode_name(c.mode), c.cell, c.hosts,
                       kit::format_us(c.merged.percentile_us(50)), kit::format_us(c.merged.percentile_us(99)),
                       kit::format_us(c.merged.percentile_us(99.9)), rate_text(c.fleet));
  if (!d.failures.empty()) {
    out += "\nFailed:\n\n";
    std::set<std::string> seen;
    for (const Failure& f : d.failures)
      if (seen.insert(f.host + f.reason).second) out += fmt::format("- {}: {}\n", f.host, f.reason);
  }
  if (!plots_rel.empty())
    out += fmt::format("\nPlots: `{}` (a latency CDF a cell, each host and the merge; each host's rate).\n", plots_rel);
  return out;
}

}  // namespace fenec::iobench::fleet
