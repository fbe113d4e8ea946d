// The CI's files: the run/history CSV, the scenarios' tidy CSV it reads, the
// metric definitions (metrics.conf) and the extraction of one run's metrics.
//
// Run and history files share one format, one row per metric per run:
//   date,commit,tag,metric,kind,better,bound,unit,value,samples
// `value` is the median of `samples` (';'-separated). results/history.csv
// accumulates rows; results/baseline/ci.csv holds the committed reference run.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "scenarios/ci/detector.h"

namespace fenec::scenarios::ci {

std::string runs_csv(const std::vector<MetricRun>& runs, bool header = true);
// Missing file: ok, no runs. Returns "" or the error (with path and line).
std::string read_runs(const std::string& path, std::vector<MetricRun>* out);
// The same from the file's text; `path` only names it in errors.
std::string parse_runs(const std::string& text, const std::string& path, std::vector<MetricRun>* out);
// Appends rows (the header first if the file is new). Returns "" or the error.
std::string append_runs(const std::string& path, const std::vector<MetricRun>& runs);
std::string write_text(const std::string& path, const std::string& text);

// A row of a scenario's results/<name>/latest.csv.
struct ResultRow {
  std::string finding, scenario, arm, case_, metric, unit;
  double value = 0;
};
std::string read_results(const std::string& path, std::vector<ResultRow>* out);
std::string parse_results(const std::string& text, const std::string& path, std::vector<ResultRow>* out);
// Splits one CSV line, honouring "quoted, fields" with "" escapes.
std::vector<std::string> split_csv(const std::string& line);

// One line of metrics.conf:
//   ratio  ID SCENARIO METRIC ARM CASE-GLOB REF-ARM REF-CASE-GLOB BETTER FACTOR
//     noisy: ARM's METRIC over REF-ARM's, paired by repetition (";rep=N" in
//     the case), one sample a repetition.
//   trend  (the same fields as ratio)
//     a noisy ratio too sensitive to the machine's load to gate (e.g. two
//     threads contending on a 2-core box): measured, judged, charted and
//     reported like a ratio, but a change never fails the build.
//   count  ID SCENARIO METRIC ARM-GLOB CASE-GLOB BETTER TOLERANCE
//     stable: the value(s) of the matching rows; TOLERANCE relative (0 = exact).
//   icount PREFIX TOLERANCE
//     stable: every callgrind dump becomes PREFIX/<dump name>, unit instructions.
//   run    SCENARIO FLAGS...
//     no metric: the flags run.sh gives that scenario's quick run (the cells
//     its counts need, not the whole quick run).
struct MetricDef {
  enum class Type { kRatio, kCount, kIcount } type = Type::kRatio;
  std::string id, scenario, metric, arm, case_glob, ref_arm, ref_case_glob;
  Better better = Better::kLower;
  double bound = 0;
  bool gates = true;  // false for a trend: its changes never fail the build
};
std::string parse_config(const std::string& text, std::vector<MetricDef>* out);

struct RunInfo {
  std::string date, commit, tag;
};

// Builds one run's metrics from <results_root>/<scenario>/latest.csv files and
// the callgrind dumps in callgrind_dir ("" = none). `missing` gets one line per
// definition that found nothing to measure (scenario not run, no rows).
std::vector<MetricRun> extract(const std::vector<MetricDef>& defs, const std::string& results_root,
                               const std::string& callgrind_dir, const RunInfo& info,
                               std::vector<std::string>* missing);

// A callgrind output file: the name given to CALLGRIND_DUMP_STATS_AT and the
// "summary:" instruction count. False if the file has neither.
bool read_callgrind(const std::string& path, std::string* name, double* instructions);
bool parse_callgrind(const std::string& text, std::string* name, double* instructions);

}  // namespace fenec::scenarios::ci
