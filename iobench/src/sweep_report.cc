#include "iobench/src/sweep_report.h"
#include "engine/src/base/json.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <set>

#include "iobench/kit/console.h"
#include "iobench/kit/plot.h"
#include "iobench/kit/stats.h"
#include "iobench/src/units.h"

namespace fenec::iobench {
namespace {

using kit::Chart;
using kit::Series;

bool is_sync_mode(const CellResult& c) { return mode_sync(c.spec.mode) != SyncCall::kNone; }

// The latency a durable op costs: the write, plus its sync in fsync/fdatasync modes.
const base::Histogram& op_latency(const CellResult& c) { return is_sync_mode(c) ? c.commit : c.lat; }

std::string skip_reason(const CellResult& c) {
  if (!c.skipped.empty()) return c.skipped;
  if (!c.error.empty()) return fmt::format("failed: {}", c.error);
  if (c.interrupted) return "interrupted (Ctrl-C): partial cell discarded";
  return "";
}

double mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += x;
  return s / v.size();
}

std::string num(double v) { return fmt::format("{:.6g}", v); }

}  // namespace

void add_cell_rows(kit::Results& r, const CellResult& c, const std::string& finding, const std::string& case_suffix) {
  const std::string arm = c.spec.arm(), cs = c.spec.case_() + case_suffix;
  if (std::string why = skip_reason(c); !why.empty()) {
    r.skip(arm, cs, why);
    return;
  }
  r.add(finding, arm, cs, "iops", c.iops(), "ops/s");
  r.add(finding, arm, cs, "mb_per_s", c.mb_per_s(), "MB/s");
  if (c.spec.batch > 1) r.add(finding, arm, cs, "batches_per_s", c.ops_per_s(), "ops/s");
  r.add(finding, arm, cs, "job_mb_per_s", mean(c.job_mb_per_s), "MB/s");
  if (!c.job_mb_per_s.empty())
    r.add(finding, arm, cs, "job_mb_per_s_min", *std::min_element(c.job_mb_per_s.begin(), c.job_mb_per_s.end()), "MB/s");
  r.add(finding, arm, cs, "writes", static_cast<double>(c.write_calls), "count");
  r.add(finding, arm, cs, "syncs", static_cast<double>(c.sync_calls), "count");
  r.add(finding, arm, cs, "bytes", static_cast<double>(c.bytes), "bytes");
  r.add(finding, arm, cs, "seconds", c.seconds, "s");
  r.add(finding, arm, cs, "cpu_per_write_us", c.cpu_per_write_us(), "us");
  r.add_latency(finding, arm, cs, c.lat);
  if (c.sync_calls) {
    r.add_latency(finding, arm, cs, c.sync, "sync");
    r.add_latency(finding, arm, cs, c.commit, "commit");
  }
}

std::string cell_json(const CellResult& c) {
  std::string iv;
  for (const IntervalPoint& p : c.intervals)
    iv += fmt::format("{}{{\"t_s\":{},\"mb_per_s\":{},\"ops_per_s\":{},\"p50_us\":{},\"p99_us\":{},\"max_us\":{}}}",
                      iv.empty() ? "" : ",", num(p.t_s), num(p.mb_per_s), num(p.ops_per_s), num(p.p50_us),
                      num(p.p99_us), num(p.max_us));
  std::string jobs;
  for (double v : c.job_mb_per_s) jobs += fmt::format("{}{}", jobs.empty() ? "" : ",", num(v));
  return fmt::format(
      "{{\"arm\":\"{}\",\"case\":\"{}\",\"rep\":{},\"mode\":\"{}\",\"submit\":\"{}\",\"size\":{},\"jobs\":{},"
      "\"layout\":\"{}\",\"batch\":{},\"depth\":{},\"duration_s\":{},\"total\":{},\"skipped\":\"{}\","
      "\"error\":\"{}\",\"interrupted\":{},\"ops\":{},\"write_calls\":{},\"sync_calls\":{},\"bytes\":{},"
      "\"seconds\":{},\"mb_per_s\":{},\"iops\":{},\"cpu_per_write_us\":{},\"job_mb_per_s\":[{}],"
      "\"lat_ns\":{},\"sync_ns\":{},\"commit_ns\":{},\"intervals\":[{}]}}",
      base::JsonEscape(c.spec.arm()), base::JsonEscape(c.spec.case_()), c.rep, mode_name(c.spec.mode),
      submit_name(c.spec.submit), c.spec.size, c.spec.jobs, layout_name(c.spec.layout), c.spec.batch,
      c.spec.depth, num(c.spec.duration_s), c.spec.total, base::JsonEscape(c.skipped),
      base::JsonEscape(c.error), c.interrupted ? "true" : "false", c.ops, c.write_calls, c.sync_calls,
      c.bytes, num(c.seconds), num(c.mb_per_s()), num(c.iops()), num(c.cpu_per_write_us()), jobs,
      kit::histogram_json(c.lat), kit::histogram_json(c.sync), kit::histogram_json(c.commit), iv);
}

std::string cells_json(const std::vector<CellResult>& cells) {
  std::string out = "{\"cells\":[";
  for (size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + cell_json(cells[i]);
  return out + "]}";
}

std::string sweep_table(const std::vector<CellResult>& cells) {
  kit::Table t({"arm", "case", "MB/s", "IOPS", "job MB/s", "lat p50", "lat p99", "lat max", "sync p50",
                  "cpu/write", "note"});
  for (const CellResult& c : cells) {
    std::string why = skip_reason(c);
    if (!why.empty()) {
      t.row({c.spec.arm(), c.spec.case_(), "-", "-", "-", "-", "-", "-", "-", "-", "skipped: " + why});
      continue;
    }
    base::LatencySummary l = base::LatencySummary::Of(c.lat);
    double jmin = c.job_mb_per_s.empty() ? 0 : *std::min_element(c.job_mb_per_s.begin(), c.job_mb_per_s.end());
    t.row({c.spec.arm(), c.spec.case_(), fmt::format("{:.1f}", c.mb_per_s()), kit::format_count(c.iops()),
           c.spec.jobs > 1 ? fmt::format("{:.1f}-{:.1f}", jmin, mean(c.job_mb_per_s)) : fmt::format("{:.1f}", c.mb_per_s()),
           kit::format_us(l.p50_us), kit::format_us(l.p99_us), kit::format_us(l.max_us),
           c.sync_calls ? kit::format_us(base::LatencySummary::Of(c.sync).p50_us) : "-",
           kit::format_us(c.cpu_per_write_us()),
           fmt::format("{} writes{}", c.write_calls, c.sync_calls ? fmt::format(", {} syncs", c.sync_calls) : "")});
  }
  return t.str();
}

namespace {

std::vector<const CellResult*> plottable(const std::vector<CellResult>& cells) {
  std::vector<const CellResult*> ran;
  for (const CellResult& c : cells)
    if (skip_reason(c).empty() && c.ops > 0) ran.push_back(&c);
  return ran;
}

// The runs of each spec (its repetitions), specs in the order their first run came.
std::vector<std::vector<const CellResult*>> by_spec(const std::vector<const CellResult*>& ran) {
  std::vector<std::vector<const CellResult*>> groups;
  std::map<std::string, size_t> index;
  for (const CellResult* c : ran) {
    auto [it, fresh] = index.emplace(c->spec.arm() + "|" + c->spec.case_(), groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(c);
  }
  return groups;
}

bool any_repeated(const std::vector<std::vector<const CellResult*>>& groups) {
  for (const auto& g : groups)
    if (g.size() > 1) return true;
  return false;
}

const char kRepsNote[] = ": geometric mean of the repetitions, bars its 95% interval";

// One point of a throughput plot: a single run's figure as it is, or the
// geometric mean of its repetitions' figures with their 95% interval.
void add_point(Series& s, double x, const std::vector<const CellResult*>& reps,
               double (*figure)(const CellResult&)) {
  if (reps.size() == 1) {
    const double y = figure(*reps[0]);
    s.points.emplace_back(x, y);
    s.errors.emplace_back(y, y);
    return;
  }
  std::vector<double> v;
  for (const CellResult* c : reps) v.push_back(figure(*c));
  const kit::Ratio r = kit::of_reps(v);
  s.points.emplace_back(x, r.value);
  s.errors.emplace_back(r.ci95.lo, r.ci95.hi);
}
double mb_per_s_of(const CellResult& c) { return c.mb_per_s(); }
double job_mb_per_s_of(const CellResult& c) { return mean(c.job_mb_per_s); }

// Points (and their bars) in x order.
void sort_points(Series& s) {
  std::vector<size_t> order(s.points.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return s.points[a] < s.points[b]; });
  Series sorted = s;
  for (size_t i = 0; i < order.size(); ++i) {
    sorted.points[i] = s.points[order[i]];
    if (s.errors.size() == s.points.size()) sorted.errors[i] = s.errors[order[i]];
  }
  s = std::move(sorted);
}

Chart chart_of(std::string title, std::string xlabel, std::string ylabel, bool logx, bool logy) {
  Chart c;
  c.title = std::move(title);
  c.xlabel = std::move(xlabel);
  c.ylabel = std::move(ylabel);
  c.logx = logx;
  c.logy = logy;
  return c;
}

std::string emit(const Chart& chart, const std::string& base) {
  if (chart.series.empty()) return "no data to plot";
  return kit::write_chart(chart, base);
}

}  // namespace

std::string plot_throughput_vs_size(const std::vector<CellResult>& cells, const std::string& base) {
  auto ran = plottable(cells);
  unsigned min_jobs = UINT32_MAX;
  for (auto* c : ran) min_jobs = std::min(min_jobs, c->spec.jobs);
  const auto groups = by_spec(ran);
  const bool repeated = any_repeated(groups);
  Chart ch = chart_of("Throughput vs write size (jobs=" + std::to_string(min_jobs) + ")" + (repeated ? kRepsNote : ""),
                      "write size (KiB)", "MB/s", true, true);
  std::map<std::string, Series> by_arm;
  for (const auto& g : groups) {
    const CellResult* c = g.front();
    if (c->spec.jobs != min_jobs) continue;
    std::string key = c->spec.arm() + (c->spec.layout == Layout::kPerJob ? " per-job" : "") +
                      (c->spec.batch > 1 ? fmt::format(" batch={}", c->spec.batch) : "") +
                      (c->spec.prefill ? " prefilled" : "");
    by_arm[key].title = key;
    add_point(by_arm[key], c->spec.size / 1024.0, g, mb_per_s_of);
  }
  for (auto& [k, s] : by_arm) {
    if (!repeated) s.errors.clear();
    if (s.points.size() > 1) ch.series.push_back(s);
  }
  return emit(ch, base);
}

std::string plot_throughput_vs_jobs(const std::vector<CellResult>& cells, const std::string& base) {
  const auto groups = by_spec(plottable(cells));
  const bool repeated = any_repeated(groups);
  Chart ch = chart_of(std::string("Total and per-job throughput vs jobs") + (repeated ? kRepsNote : ""), "jobs",
                      "MB/s", true, true);
  std::map<std::string, std::pair<Series, Series>> by_key;
  for (const auto& g : groups) {
    const CellResult* c = g.front();
    std::string key = fmt::format("{} {} {}", c->spec.arm(), size_label(c->spec.size), layout_name(c->spec.layout));
    auto& [total, per] = by_key[key];
    total.title = key + " total";
    per.title = key + " per job";
    add_point(total, c->spec.jobs, g, mb_per_s_of);
    add_point(per, c->spec.jobs, g, job_mb_per_s_of);
  }
  for (auto& [k, g] : by_key)
    if (g.first.points.size() > 1) {
      if (!repeated) g.first.errors.clear(), g.second.errors.clear();
      ch.series.push_back(g.first);
      ch.series.push_back(g.second);
    }
  return emit(ch, base);
}

std::string plot_latency_cdf(const std::vector<CellResult>& cells, const std::string& base) {
  auto ran = plottable(cells);
  uint64_t min_size = UINT64_MAX;
  for (auto* c : ran) min_size = std::min(min_size, c->spec.size);
  Chart ch = chart_of("Latency CDF of an op (its write, plus its sync in fsync/fdatasync modes), size " +
                          (ran.empty() ? std::string("-") : size_label(min_size)),
                      "latency (us)", "fraction of ops", true, false);
  for (const auto& g : by_spec(ran)) {
    const CellResult* c = g.front();
    if (c->spec.size != min_size || ch.series.size() >= 12) continue;
    base::Histogram h;  // the ops of every repetition together
    for (const CellResult* r : g) h.Merge(op_latency(*r));
    if (!h.count()) continue;
    Series s;
    s.title = fmt::format("{} jobs={}{}{}", c->spec.arm(), c->spec.jobs,
                          c->spec.layout == Layout::kPerJob ? " per-job" : "",
                          g.size() > 1 ? fmt::format(" ({} reps)", g.size()) : "");
    s.style = "lines";
    uint64_t cum = 0;
    for (const auto& b : h.Bins()) {
      cum += b.count;
      s.points.emplace_back(std::max<double>(b.hi, 1) / 1000.0, static_cast<double>(cum) / h.count());
    }
    ch.series.push_back(s);
  }
  return emit(ch, base);
}

std::string plot_throughput_over_time(const std::vector<CellResult>& cells, const std::string& base) {
  auto longest = plottable(cells);
  const bool repeated = any_repeated(by_spec(longest));
  std::stable_sort(longest.begin(), longest.end(),
                   [](auto* a, auto* b) { return a->intervals.size() > b->intervals.size(); });
  Chart ch = chart_of("Throughput over time", "seconds", "MB/s", false, false);
  for (auto* c : longest) {
    if (c->intervals.size() < 3 || ch.series.size() >= 8) continue;
    Series s;
    s.title = c->spec.arm() + " " + c->spec.case_() + (repeated ? fmt::format(" rep={}", c->rep) : "");
    for (const IntervalPoint& p : c->intervals) s.points.emplace_back(p.t_s, p.mb_per_s);
    ch.series.push_back(s);
  }
  return emit(ch, base);
}

std::string plot_throughput_vs_batch(const std::vector<CellResult>& cells, const std::string& base) {
  const auto groups = by_spec(plottable(cells));
  const bool repeated = any_repeated(groups);
  Chart ch = chart_of(std::string("Throughput vs buffers per op (merged into one write, or written one by one)") +
                          (repeated ? kRepsNote : ""),
                      "buffers per op", "MB/s", true, true);
  std::map<std::string, Series> by_arm;
  for (const auto& g : groups) {
    const CellResult* c = g.front();
    std::string key = fmt::format("{} {} buffers", c->spec.arm(), size_label(c->spec.size));
    by_arm[key].title = key;
    add_point(by_arm[key], c->spec.batch, g, mb_per_s_of);
  }
  for (auto& [k, s] : by_arm) {
    if (!repeated) s.errors.clear();
    sort_points(s);
    if (s.points.size() > 1) ch.series.push_back(s);
  }
  // A single point per arm still tells the story when all share one batch size.
  if (ch.series.empty())
    for (auto& [k, s] : by_arm) {
      s.style = "points";
      ch.series.push_back(s);
    }
  return emit(ch, base);
}

std::vector<std::pair<std::string, std::string>> write_sweep_plots(const std::vector<CellResult>& cells,
                                                                   const std::string& prefix) {
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back(prefix + "throughput_vs_size", plot_throughput_vs_size(cells, prefix + "throughput_vs_size"));
  out.emplace_back(prefix + "throughput_vs_jobs", plot_throughput_vs_jobs(cells, prefix + "throughput_vs_jobs"));
  out.emplace_back(prefix + "latency_cdf", plot_latency_cdf(cells, prefix + "latency_cdf"));
  out.emplace_back(prefix + "throughput_over_time", plot_throughput_over_time(cells, prefix + "throughput_over_time"));
  bool batches = false;
  for (const CellResult& c : cells) batches |= c.spec.batch > 1;
  if (batches)
    out.emplace_back(prefix + "throughput_vs_batch", plot_throughput_vs_batch(cells, prefix + "throughput_vs_batch"));
  return out;
}

}  // namespace fenec::iobench
