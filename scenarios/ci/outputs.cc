#include "scenarios/ci/outputs.h"
#include "engine/src/base/json.h"

#include <fmt/format.h>

#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "iobench/kit/plot.h"
#include "iobench/kit/results.h"

namespace fenec::scenarios::ci {
namespace {

std::string num(double v) {
  if (!std::isfinite(v)) return "null";
  return kit::format_value(v);
}

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

int order(Change c) {
  switch (c) {
    case Change::kRegression: return 0;
    case Change::kImprovement: return 1;
    case Change::kUnconfirmed: return 2;
    case Change::kNew: return 3;
    case Change::kSame: return 4;
  }
  return 5;
}

}  // namespace

std::string report_text(const std::vector<Judgement>& js, const std::vector<std::string>& missing,
                        const RunInfo& info) {
  std::vector<const Judgement*> sorted;
  for (const auto& j : js) sorted.push_back(&j);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](auto a, auto b) { return order(a->change) < order(b->change); });
  std::map<Change, int> counts;
  for (const auto& j : js) ++counts[j.change];
  std::string out = fmt::format(
      "fenec CI regression check  commit={} date={}\n"
      "{} metrics: {} regressions, {} improvements, {} unconfirmed, {} new, {} unchanged; {} not "
      "measured\n",
      info.commit, info.date, js.size(), counts[Change::kRegression], counts[Change::kImprovement],
      counts[Change::kUnconfirmed], counts[Change::kNew], counts[Change::kSame], missing.size());
  Change section = Change::kSame;
  bool first = true;
  for (const Judgement* j : sorted) {
    if (j->change == Change::kSame) break;
    if (first || j->change != section) {
      out += fmt::format("\n{}:\n", change_name(j->change));
      section = j->change;
      first = false;
    }
    out += fmt::format("  {:<58} {:>7} {:>14} -> {:<14} {}\n", j->metric, kind_name(j->kind),
                       num(j->reference), num(j->current), j->why);
  }
  if (!missing.empty()) {
    out += "\nnot measured:\n";
    for (const auto& m : missing) out += "  " + m + "\n";
  }
  return out;
}

std::string gab_json(const std::vector<MetricRun>& current, Better which) {
  std::vector<std::string> items;
  for (const MetricRun& r : current) {
    if (r.better != which) continue;
    std::string range;
    if (r.samples.size() > 1) {
      const auto [lo, hi] = std::minmax_element(r.samples.begin(), r.samples.end());
      range = fmt::format(",\"range\":\"{}..{}\"", num(*lo), num(*hi));
    }
    items.push_back(fmt::format(
        "  {{\"name\":\"{}\",\"unit\":\"{}\",\"value\":{}{},\"extra\":\"{} metric, {} samples, "
        "commit {}\"}}",
        base::JsonEscape(r.metric), base::JsonEscape(r.unit), num(r.value()), range,
        kind_name(r.kind), r.samples.size(), base::JsonEscape(r.commit)));
  }
  return "[\n" + fmt::format("{}", fmt::join(items, ",\n")) + (items.empty() ? "]\n" : "\n]\n");
}

std::string bencher_json(const std::vector<MetricRun>& current) {
  std::vector<std::string> items;
  for (const MetricRun& r : current) {
    const std::string measure = r.unit == "instructions" ? "instructions"
                                : r.unit == "ratio"      ? "ratio"
                                                         : "count";
    const auto [lo, hi] = std::minmax_element(r.samples.begin(), r.samples.end());
    items.push_back(fmt::format(
        "  \"{}\": {{\"{}\": {{\"value\": {}, \"lower_value\": {}, \"upper_value\": {}}}}}",
        base::JsonEscape(r.metric), measure, num(r.value()), num(r.samples.empty() ? 0 : *lo),
        num(r.samples.empty() ? 0 : *hi)));
  }
  return "{\n" + fmt::format("{}", fmt::join(items, ",\n")) + "\n}\n";
}

std::string slug(const std::string& metric) {
  std::string out;
  for (size_t i = 0; i < metric.size(); ++i) {
    const char c = metric[i];
    if (c == '/') {
      out += "__";
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') {
      out += c;
    } else {
      out += '_';
    }
  }
  return out;
}

std::vector<ChartFiles> write_charts(const std::vector<MetricRun>& history,
                                     const std::vector<MetricRun>& baseline,
                                     const std::vector<MetricRun>& current,
                                     const std::string& out_dir, std::vector<std::string>* errors) {
  std::vector<ChartFiles> files;
  for (const MetricRun& cur : current) {
    kit::Chart c;
    c.title = fmt::format("{} ({}, {} is better)", cur.metric, kind_name(cur.kind), better_name(cur.better));
    c.xlabel = "run (oldest first; the last is this one)";
    c.ylabel = cur.unit;
    c.width = 800;
    c.height = 400;
    kit::Series recorded{"recorded runs", {}, "linespoints"};
    kit::Series ci_runs{"ci runs", {}, "points"};
    double x = 0;
    for (const MetricRun& h : history) {
      if (h.metric != cur.metric) continue;
      x += 1;
      (h.tag == "ci" ? ci_runs : recorded).points.emplace_back(x, h.value());
    }
    const double now = x + 1;
    for (const MetricRun& b : baseline) {
      if (b.metric == cur.metric) c.refs.push_back({b.value(), "baseline", kit::Reference::Kind::kGuide});
    }
    kit::Series samples{"this run's samples", {}, "points pt 1"};
    if (cur.samples.size() > 1) {
      for (double s : cur.samples) samples.points.emplace_back(now, s);
    }
    kit::Series mark{"this run", {{now, cur.value()}}, "points pt 7 ps 2"};
    for (auto* s : {&recorded, &ci_runs, &samples, &mark}) {
      if (!s->points.empty()) c.series.push_back(*s);
    }
    c.marks.push_back({now, "this run"});
    const std::string base_name = "charts/" + slug(cur.metric);
    const std::string err = kit::write_chart(c, out_dir + "/" + base_name);
    if (!err.empty()) {
      errors->push_back(fmt::format("{}: {}", cur.metric, err));
      continue;
    }
    files.push_back({cur.metric, base_name + ".png", base_name + ".svg"});
  }
  return files;
}

std::string index_html(const std::vector<Judgement>& js, const std::vector<ChartFiles>& charts,
                       const std::vector<std::string>& missing, const RunInfo& info) {
  std::string rows;
  std::vector<const Judgement*> sorted;
  for (const auto& j : js) sorted.push_back(&j);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](auto a, auto b) { return order(a->change) < order(b->change); });
  for (const Judgement* j : sorted) {
    rows += fmt::format(
        "<tr class=\"{}\"><td><a href=\"#{}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td></tr>\n",
        change_name(j->change), slug(j->metric), html_escape(j->metric), kind_name(j->kind),
        num(j->reference), num(j->current), change_name(j->change), html_escape(j->why));
  }
  std::string figs;
  for (const ChartFiles& c : charts) {
    figs += fmt::format(
        "<figure id=\"{}\"><a href=\"{}\"><img src=\"{}\" alt=\"{}\" width=\"800\"></a>"
        "<figcaption>{} (<a href=\"{}\">PNG</a>)</figcaption></figure>\n",
        slug(c.metric), c.svg, c.svg, html_escape(c.metric), html_escape(c.metric), c.png);
  }
  std::string miss;
  for (const auto& m : missing) miss += "<li>" + html_escape(m) + "</li>\n";
  return fmt::format(R"(<!doctype html>
<html><head><meta charset="utf-8"><title>fenec CI: {commit}</title>
<style>
body {{ font-family: sans-serif; margin: 2em; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #ccc; padding: 2px 6px; }}
tr.REGRESSION {{ background: #fbb; }} tr.improvement {{ background: #bfb; }}
tr.unconfirmed {{ background: #ffd; }} tr.new {{ background: #def; }}
figure {{ display: inline-block; margin: 1em; }}
</style></head><body>
<h1>fenec CI regression charts</h1>
<p>commit {commit}, {date}. Stable metrics (counts, callgrind instruction counts) are compared
exactly or within a tight bound; noisy ones (ratios of timings to an arm of the same run) only
flag a change past their factor that a Mann-Whitney U test confirms. Source data:
<code>results/history.csv</code>, <code>results/baseline/ci.csv</code>; this run:
<a href="run.csv">run.csv</a>, <a href="report.txt">report.txt</a>.</p>
<table><tr><th>metric</th><th>kind</th><th>reference</th><th>this run</th><th>change</th><th>why</th></tr>
{rows}</table>
{missing_block}
<h2>Charts</h2>
{figs}
</body></html>
)",
                     fmt::arg("commit", html_escape(info.commit)), fmt::arg("date", html_escape(info.date)),
                     fmt::arg("rows", rows), fmt::arg("figs", figs),
                     fmt::arg("missing_block", missing.empty() ? std::string()
                                                               : "<h2>Not measured</h2><ul>\n" + miss + "</ul>"));
}

}  // namespace fenec::scenarios::ci
