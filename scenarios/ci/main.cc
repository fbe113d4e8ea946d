// fenec-ci: the CI regression step after the quick suite has run.
//
// Reads the run's results (<results>/<scenario>/latest.csv and callgrind
// dumps) through the metric definitions, judges every metric against the
// committed baseline and recent recorded runs, writes <out>/report.txt,
// run.csv, charts/, index.html, github-action-benchmark and Bencher files,
// optionally appends the run to the history, and exits 1 on a regression of
// a stable metric or a confirmed one of a noisy metric (not of a trend).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "scenarios/ci/detector.h"
#include "scenarios/ci/outputs.h"
#include "scenarios/ci/runs.h"
#include "engine/src/base/cli.h"

namespace {

using namespace fenec::scenarios::ci;

std::string read_all(const std::string& path, bool* ok) {
  std::ifstream in(path);
  *ok = static_cast<bool>(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app(
      "fenec-ci: compares one run of the quick suite with results/baseline/ci.csv and the recorded "
      "history, writes a text report, charts (PNG+SVG), index.html, github-action-benchmark and "
      "Bencher files. Exit 1 on a regression of a stable metric (counts, instruction counts) or a "
      "confirmed regression of a noisy one (factor + Mann-Whitney U); 0 otherwise.");
  std::string config = "scripts/ci-charts/metrics.conf", results = "results/ci/runs", callgrind;
  std::string baseline = "results/baseline/ci.csv", history = "results/history.csv", out = "results/ci";
  RunInfo info{"", "unknown", "ci"};
  bool append = false, no_gate = false, write_baseline = false;
  size_t recent = 4;
  Policy policy;
  app.add_option("--config", config, "metric definitions")->capture_default_str();
  app.add_option("--results", results, "results root the quick suite wrote")->capture_default_str();
  app.add_option("--callgrind", callgrind, "folder of callgrind dumps (micro-icount)");
  app.add_option("--baseline", baseline, "the committed reference run")->capture_default_str();
  app.add_option("--history", history, "history CSV, one row per metric per run")->capture_default_str();
  app.add_option("--out", out, "output folder")->capture_default_str();
  app.add_option("--commit", info.commit, "commit of this run")->capture_default_str();
  app.add_option("--date", info.date, "UTC date of this run")->required();
  app.add_option("--tag", info.tag, "ci (a check) or record (a run kept as a reference)")
      ->check(CLI::IsMember({"ci", "record"}))
      ->capture_default_str();
  app.add_flag("--append", append, "append this run to the history");
  app.add_flag("--no-gate", no_gate, "exit 0 even on a regression (make record)");
  app.add_flag("--write-baseline", write_baseline, "make this run the baseline (overwrites it)");
  app.add_option("--recent", recent, "recorded runs pooled with the baseline as reference")
      ->capture_default_str();
  app.add_option("--alpha", policy.alpha, "Mann-Whitney significance")->capture_default_str()
      ->check(CLI::Range(1e-9, 0.5));
  if (int rc = fenec::base::ParseFlags(app, argc, argv); rc >= 0) return rc;

  bool ok = false;
  const std::string conf_text = read_all(config, &ok);
  std::vector<MetricDef> defs;
  if (!ok) {
    std::cerr << "fenec-ci: cannot read " << config << "\n";
    return 3;
  }
  if (std::string err = parse_config(conf_text, &defs); !err.empty()) {
    std::cerr << "fenec-ci: " << err << "\n";
    return 3;
  }
  std::vector<std::string> missing;
  const std::vector<MetricRun> current = extract(defs, results, callgrind, info, &missing);
  std::vector<MetricRun> base, hist;
  for (auto [path, dst] : {std::pair{baseline, &base}, std::pair{history, &hist}}) {
    if (std::string err = read_runs(path, dst); !err.empty()) {
      std::cerr << "fenec-ci: " << err << "\n";
      return 3;
    }
  }

  std::set<std::string> trends;
  for (const MetricDef& d : defs) {
    if (!d.gates) trends.insert(d.id);
  }
  std::vector<Judgement> js;
  for (const MetricRun& cur : current) {
    js.push_back(judge(reference_for(base, hist, cur.metric, recent), cur, policy));
    if (trends.count(cur.metric) != 0) as_trend(&js.back());
  }

  std::vector<std::string> errors;
  const auto charts = write_charts(hist, base, current, out, &errors);
  const std::string report = report_text(js, missing, info);
  const std::pair<std::string, std::string> files[] = {
      {out + "/report.txt", report},
      {out + "/run.csv", runs_csv(current)},
      {out + "/index.html", index_html(js, charts, missing, info)},
      {out + "/github-action-benchmark-smaller.json", gab_json(current, Better::kLower)},
      {out + "/github-action-benchmark-bigger.json", gab_json(current, Better::kHigher)},
      {out + "/bencher.json", bencher_json(current)},
  };
  for (const auto& [path, text] : files) {
    if (std::string err = write_text(path, text); !err.empty()) errors.push_back(err);
  }
  if (append) {
    if (std::string err = append_runs(history, current); !err.empty()) errors.push_back(err);
  }
  if (write_baseline) {
    std::vector<MetricRun> b = current;
    for (auto& r : b) r.tag = "baseline";
    if (std::string err = write_text(baseline, runs_csv(b)); !err.empty()) errors.push_back(err);
  }
  std::cout << report;
  for (const auto& e : errors) std::cerr << "fenec-ci: " << e << "\n";
  std::cout << fmt::format("fenec-ci: wrote {}/report.txt, index.html, {} charts{}\n", out,
                           charts.size(), append ? fmt::format("; appended {} rows to {}", current.size(), history) : "");
  const bool regression = std::any_of(js.begin(), js.end(),
                                      [](const Judgement& j) { return j.change == Change::kRegression; });
  if (current.empty()) {
    std::cerr << "fenec-ci: no metric was measured\n";
    return 3;
  }
  return regression && !no_gate ? 1 : 0;
}
