// judge_fleet: the exact merge per cell, then each host against the fleet.
//
// Lying is IO-4's rule, lies.h's judge() as `iobench lies` applies it: the
// host's 4 KiB O_DIRECT|O_DSYNC write p50 over its 4 KiB buffered write p50
// (a write + fdatasync where O_DIRECT failed). Nothing of the host's device
// is known here (iobench never reaches the host itself), so the verdict rests
// on the latencies alone.
//
// Slow or fast: in each durable cell and repetition, the hosts not lying are
// compared with their median (the typical host, which an odd one cannot
// drag); a host's figure in a repetition is its mean log ratio over the
// cells, and over the repetitions those give its ratio to the fleet with a
// 95% interval (kit::of_reps). The line it must clear is the fleet's spread:
// kSpreadSigmas robust standard deviations (1.4826 x the median absolute
// deviation) of every compared host's ratio, at least kMinLine, so in a
// fleet of unlike disks no host stands out for being unlike, and noise alone
// (a straddling interval) names nobody. The judged host is among them: the
// median deviation is not moved by one odd host, where the spread of the
// others alone (two, in a fleet of three) is half their gap, so one very
// slow host would hide a second, merely slow, one.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "iobench/kit/console.h"
#include "iobench/src/fleet.h"
#include "iobench/src/probe.h"

namespace fenec::iobench::fleet {
namespace {

const FioHist& latency_of(const Sample& s, const CellKind& k) { return k.syncs ? s.sync : s.clat; }

// The cell of kind `want` the references read: one job on psync first.
std::string reference_cell(const FleetData& d, bool CellKind::*want) {
  std::string best;
  int best_score = -1;
  for (const std::string& c : d.cells) {
    auto it = d.kinds.find(c);
    if (it == d.kinds.end() || !(it->second.*want)) continue;
    const int score = (it->second.jobs == 1 ? 2 : 0) + (it->second.psync ? 1 : 0);
    if (score > best_score) best = c, best_score = score;
  }
  return best;
}

double spread_line(const std::vector<double>& ratios) {
  std::vector<double> logs;
  for (double r : ratios)
    if (r > 0 && std::isfinite(r)) logs.push_back(std::log(r));
  if (logs.empty()) return kMinLine;
  const double mid = kit::median(logs);
  std::vector<double> dev;
  for (double x : logs) dev.push_back(std::fabs(x - mid));
  return std::max(kMinLine, std::exp(kSpreadSigmas * 1.4826 * kit::median(dev)));
}

CellSummary summarize(const FleetData& d, RunMode mode, const std::string& cell) {
  CellSummary c;
  c.mode = mode;
  c.cell = cell;
  const CellKind kind = d.kinds.count(cell) ? d.kinds.at(cell) : CellKind{};
  std::map<std::string, std::vector<double>> rates;
  std::map<int, double> fleet;
  std::set<std::string> hosts;
  bool windowed = true;
  for (const Sample& s : d.samples) {
    if (s.mode != mode || s.cell != cell) continue;
    c.merged.merge(latency_of(s, kind));
    c.by_host[s.host].merge(latency_of(s, kind));
    rates[s.host].push_back(s.rate());
    fleet[s.rep] += s.rate();
    windowed = windowed && s.window_iops > 0;
    hosts.insert(s.host);
  }
  for (const auto& [h, v] : rates) c.host_rate[h] = kit::of_reps(v);
  for (const auto& [rep, v] : fleet) c.fleet_rate.push_back(v);
  c.fleet = kit::of_reps(c.fleet_rate);
  c.windowed = windowed && !hosts.empty();
  c.hosts = hosts.size();
  return c;
}

void judge_lies(const Judgement& j, const FleetData& d, HostVerdict* v) {
  const std::string buffered = reference_cell(d, &CellKind::buffered_ref);
  const std::string direct = reference_cell(d, &CellKind::direct_ref);
  const std::string sync = reference_cell(d, &CellKind::sync_ref);
  // The host's write (or sync) latency in a cell, its repetitions pooled.
  auto pooled = [&](const std::string& cell, bool sync_part) {
    FioHist h;
    for (const Sample& s : d.samples)
      if (s.mode == j.judged && s.cell == cell && s.host == v->host) h.merge(sync_part ? s.sync : s.clat);
    return h;
  };
  if (buffered.empty()) {
    v->lies_reasons.push_back("no 4 KiB buffered cell ran: IO-4's check compares a durable write with one");
    return;
  }
  v->buffered_p50_us = pooled(buffered, false).percentile_us(50);
  if (const FioHist w = direct.empty() ? FioHist{} : pooled(direct, false); !w.empty()) {
    v->durable_p50_us = w.percentile_us(50);
  } else if (!sync.empty()) {
    const FioHist w2 = pooled(sync, false), s = pooled(sync, true);
    if (!w2.empty() && !s.empty()) {
      v->durable_p50_us = w2.percentile_us(50) + s.percentile_us(50);
      v->lies_reasons.push_back("no O_DIRECT|O_DSYNC result here: the durable write is a 4 KiB write + fdatasync");
    }
  }
  ProbeResult unknown;  // the host's device is not seen from here: the latencies decide
  unknown.dir = v->host;
  unknown.device = "unknown";
  v->lies = judge(v->durable_p50_us, v->buffered_p50_us, unknown, &v->lies_reasons);
}

void judge_speed(const Judgement& j, const FleetData& d, std::vector<HostVerdict>& hosts) {
  std::set<std::string> compared;
  for (const HostVerdict& v : hosts)
    if (!v.lying())
      for (const Sample& s : d.samples)
        if (s.mode == j.judged && s.host == v.host && d.kinds.count(s.cell) && d.kinds.at(s.cell).durable)
          compared.insert(v.host);
  if (compared.size() < kMinHostsToCompare) {
    for (HostVerdict& v : hosts)
      v.speed_note = fmt::format("not judged: {} host{} to compare, {} needed (of two, either could be the odd one)",
                                 compared.size(), compared.size() == 1 ? "" : "s", kMinHostsToCompare);
    return;
  }
  // host -> rep -> the log ratios to the fleet's median, a cell each.
  std::map<std::string, std::map<int, std::vector<double>>> p50_logs, rate_logs;
  std::set<std::string> cells_used;
  for (const std::string& cell : d.cells) {
    if (!d.kinds.count(cell) || !d.kinds.at(cell).durable) continue;
    const CellKind& kind = d.kinds.at(cell);
    std::map<int, std::map<std::string, const Sample*>> by_rep;
    for (const Sample& s : d.samples)
      if (s.mode == j.judged && s.cell == cell && compared.count(s.host) && !latency_of(s, kind).empty() &&
          s.rate() > 0)
        by_rep[s.rep][s.host] = &s;
    for (const auto& [rep, at] : by_rep) {
      if (at.size() < kMinHostsToCompare) continue;
      std::vector<double> p50s, rates;
      for (const auto& [h, s] : at) {
        p50s.push_back(static_cast<double>(latency_of(*s, kind).percentile(50)));
        rates.push_back(s->rate());
      }
      const double p50_ref = kit::median(p50s), rate_ref = kit::median(rates);
      for (const auto& [h, s] : at) {
        p50_logs[h][rep].push_back(std::log(static_cast<double>(latency_of(*s, kind).percentile(50)) / p50_ref));
        rate_logs[h][rep].push_back(std::log(s->rate() / rate_ref));
      }
      cells_used.insert(cell);
    }
  }
  // A repetition's figure is the mean over the cells: cells differ from one
  // another for good (a slow disk is slower at some), and only the
  // repetitions' scatter is noise the interval should hold.
  auto over_reps = [](const std::map<int, std::vector<double>>& logs) {
    std::vector<double> per_rep;
    for (const auto& [rep, v] : logs) {
      double sum = 0;
      for (double x : v) sum += x;
      per_rep.push_back(std::exp(sum / static_cast<double>(v.size())));
    }
    return kit::of_reps(per_rep);
  };
  std::map<std::string, double> p50_point, rate_point;
  for (HostVerdict& v : hosts) {
    if (!compared.count(v.host)) continue;
    v.p50 = over_reps(p50_logs[v.host]);
    v.rate = over_reps(rate_logs[v.host]);
    if (v.p50.known()) p50_point[v.host] = v.p50.value;
    if (v.rate.known()) rate_point[v.host] = v.rate.value;
  }
  auto all_of = [](const std::map<std::string, double>& points) {
    std::vector<double> out;
    for (const auto& [h, v] : points) out.push_back(v);
    return out;
  };
  const double p50_line = spread_line(all_of(p50_point)), rate_line = spread_line(all_of(rate_point));
  for (HostVerdict& v : hosts) {
    if (!compared.count(v.host)) {
      if (v.lying()) v.speed_note = "not compared: its durable writes are not a disk's (lying)";
      continue;
    }
    v.p50_line = p50_line;
    v.rate_line = rate_line;
    const bool p50_slow = v.p50.ci95.known() && v.p50.ci95.lo > v.p50_line;
    const bool p50_fast = v.p50.ci95.known() && v.p50.ci95.hi < 1 / v.p50_line;
    const bool rate_slow = v.rate.ci95.known() && v.rate.ci95.hi < 1 / v.rate_line;
    const bool rate_fast = v.rate.ci95.known() && v.rate.ci95.lo > v.rate_line;
    v.speed = p50_slow || rate_slow ? "slow" : p50_fast || rate_fast ? "fast" : "";
    v.speed_note = fmt::format("p50 {} the fleet's median (line {:.2f}x), rate {} (line 1/{:.2f}x), over {} cell{} "
                               "and {} repetition{}",
                               kit::format_ratio(v.p50), v.p50_line, kit::format_ratio(v.rate), v.rate_line,
                               cells_used.size(), cells_used.size() == 1 ? "" : "s", v.p50.reps,
                               v.p50.reps == 1 ? "" : "s");
  }
}

}  // namespace

Judgement judge_fleet(const FleetData& d) {
  Judgement j;
  std::set<RunMode> modes;
  for (const Sample& s : d.samples) modes.insert(s.mode);
  j.judged = modes.count(RunMode::kApart)      ? RunMode::kApart
             : modes.count(RunMode::kTogether) ? RunMode::kTogether
                                               : RunMode::kIngest;
  for (RunMode m : {RunMode::kApart, RunMode::kTogether, RunMode::kIngest}) {
    if (!modes.count(m)) continue;
    for (const std::string& cell : d.cells) {
      CellSummary c = summarize(d, m, cell);
      if (c.hosts) j.cells.push_back(std::move(c));
    }
  }
  for (const std::string& host : d.hosts) {
    HostVerdict v;
    v.host = host;
    for (const Failure& f : d.failures)
      if (f.fatal && f.host == host && v.failure.find(f.reason) == std::string::npos)
        v.failure += (v.failure.empty() ? "" : "; ") + f.reason;
    judge_lies(j, d, &v);
    j.hosts.push_back(std::move(v));
  }
  judge_speed(j, d, j.hosts);
  if (modes.empty()) j.notes.push_back("no host answered a cell: nothing to merge or judge");
  for (const Window& w : d.windows)
    if (!w.used)
      j.notes.push_back(fmt::format("{} repetition {}: the hosts' windows overlapped {:.0f} ms, too short to rate "
                                    "them in; its fleet rate is the sum of each host's own rate",
                                    w.cell, w.rep, std::max(0.0, w.end_ms - w.start_ms)));
  return j;
}

}  // namespace fenec::iobench::fleet
