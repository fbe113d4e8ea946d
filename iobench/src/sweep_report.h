// Turning sweep cells into what people read: tidy rows (Results), the JSON
// sidecar (histogram bins and interval series per cell), a console table and
// the four plots (throughput vs size per mode, total and per-job throughput vs
// jobs, latency CDF, throughput over time).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "iobench/kit/results.h"
#include "iobench/src/sweep.h"

namespace fenec::iobench {

// Rows for one cell under arm()/case_() (+ case_suffix, e.g. ";rep=2" for one
// repetition of it): iops, mb_per_s, job_mb_per_s[_min], writes, syncs,
// cpu_per_write_us, lat_* and (sync modes) sync_* and commit_*.
// A skipped, failed or interrupted cell becomes a skip with its reason.
void add_cell_rows(kit::Results& results, const CellResult& cell, const std::string& finding,
                   const std::string& case_suffix = "");

std::string cell_json(const CellResult& cell);
// {"cells":[...]} for Results::attach_json.
std::string cells_json(const std::vector<CellResult>& cells);

std::string sweep_table(const std::vector<CellResult>& cells);

// Each plot is written to <base>.{png,svg,gp}; returns "" or why not (e.g.
// "no data to plot": too few cells of the shape the plot needs).
// Cells of the same spec (arm and case) are repetitions of one cell
// (CellResult::rep): a throughput plot draws their geometric mean with its 95%
// interval as an error bar (kit::of_reps), a latency CDF merges their
// histograms; one run of each spec draws exactly as before.
// One line per arm over sizes, at the fewest jobs among the cells (IO-1).
std::string plot_throughput_vs_size(const std::vector<CellResult>& cells, const std::string& base);
// Total and per-job MB/s over jobs, per (arm, size, layout) (IO-2).
std::string plot_throughput_vs_jobs(const std::vector<CellResult>& cells, const std::string& base);
// CDF of op latency at the smallest size among the cells, per arm and job count.
std::string plot_latency_cdf(const std::vector<CellResult>& cells, const std::string& base);
// MB/s per interval of the cells that lasted the most intervals (IO-3), one
// line per run (repetitions each their own line, labelled rep=N).
std::string plot_throughput_over_time(const std::vector<CellResult>& cells, const std::string& base);
// MB/s over --batch, one line per arm: merged vs one-by-one writes (IO-7).
std::string plot_throughput_vs_batch(const std::vector<CellResult>& cells, const std::string& base);
// All of them (throughput_vs_batch only when a cell batches), at <prefix><name>; (base path, "" or why not) for each.
std::vector<std::pair<std::string, std::string>> write_sweep_plots(const std::vector<CellResult>& cells,
                                                                   const std::string& prefix);

}  // namespace fenec::iobench
