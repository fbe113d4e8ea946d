// What a CI comparison writes: the plain-text list of changes, a chart per
// metric over the history with the current run marked, one HTML page of
// them all, and the current run in the formats other CI tools ingest
// (github-action-benchmark's custom JSON, Bencher's metric format).
#pragma once

#include <string>
#include <vector>

#include "scenarios/ci/detector.h"
#include "scenarios/ci/runs.h"

namespace fenec::scenarios::ci {

// Regressions first, then improvements, unconfirmed changes, new metrics,
// metrics not measured, and a count of the unchanged ones.
std::string report_text(const std::vector<Judgement>& js, const std::vector<std::string>& missing,
                        const RunInfo& info);

// github-action-benchmark "custom" tools: a JSON array of {name, unit, value,
// range, extra}; one file per direction (customSmallerIsBetter /
// customBiggerIsBetter), so `which` picks the metrics of one direction.
std::string gab_json(const std::vector<MetricRun>& current, Better which);
// Bencher Metric Format: {"<benchmark>": {"<measure>": {"value", "lower_value", "upper_value"}}}.
std::string bencher_json(const std::vector<MetricRun>& current);

// File-name form of a metric id: "micro/MM-2/x" -> "micro__MM-2__x".
std::string slug(const std::string& metric);

struct ChartFiles {
  std::string metric, png, svg;  // png/svg relative to the output folder
};
// One chart per current metric into <out_dir>/charts/: every earlier run of it
// in `history` (oldest first), the baseline as a line, this run marked.
// Errors (gnuplot missing ...) are appended to *errors; charts that could be
// drawn are still returned.
std::vector<ChartFiles> write_charts(const std::vector<MetricRun>& history,
                                     const std::vector<MetricRun>& baseline,
                                     const std::vector<MetricRun>& current,
                                     const std::string& out_dir, std::vector<std::string>* errors);

std::string index_html(const std::vector<Judgement>& js, const std::vector<ChartFiles>& charts,
                       const std::vector<std::string>& missing, const RunInfo& info);

}  // namespace fenec::scenarios::ci
