#include "scenarios/ci/ci_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "scenarios/ci/outputs.h"

namespace fenec::scenarios::ci {
namespace {

std::string read_all(const std::string& path, bool* ok) {
  std::ifstream in(path);
  *ok = static_cast<bool>(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

int run_ci(const CiOptions& o) {
  const std::string &config = o.config, &results = o.results, &callgrind = o.callgrind, &baseline = o.baseline,
                    &history = o.history, &out = o.out;
  const RunInfo& info = o.info;
  const bool append = o.append, no_gate = o.no_gate, write_baseline = o.write_baseline;
  const size_t recent = o.recent;
  const Policy& policy = o.policy;
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
  std::cout << fmt::format("fenec-ci: wrote {}/report.txt, index.html, {} charts{}\n", out, charts.size(),
                           append ? fmt::format("; appended {} rows to {}", current.size(), history) : "");
  const bool regression =
      std::any_of(js.begin(), js.end(), [](const Judgement& j) { return j.change == Change::kRegression; });
  if (current.empty()) {
    std::cerr << "fenec-ci: no metric was measured\n";
    return 3;
  }
  return regression && !no_gate ? 1 : 0;
}

}  // namespace fenec::scenarios::ci
