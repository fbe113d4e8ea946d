// Tidy results: one measurement a row, the format every scenario writes.
//
// CSV columns: finding,scenario,arm,case,metric,value,unit (then nothing
// else), preceded by the run's metadata as "# key=value" lines. The JSON
// sidecar carries the same metadata, the same rows, and any extra named JSON
// documents a tool attaches (histogram bins, interval series). A scenario
// that cannot run a case here records a skip (with its reason) instead of a
// number: it appears in both outputs and is never silently dropped.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "iobench/kit/stats.h"
#include "iobench/kit/verdict.h"

namespace fenec::base {
class Histogram;
}  // namespace fenec::base

namespace fenec::kit {


// The run's provenance: commit, host, kernel, filesystem, device, date,
// quick/full, plus anything a tool adds (seed, flags). Ordered for stable output.
struct Metadata {
  std::map<std::string, std::string> kv;

  // Reads git (commit, "-dirty" if the tree has changes), uname, the
  // filesystem type and backing device of `dir` (statfs + /proc/self/mountinfo
  // + /sys/block/<dev>/device/model), and the UTC date. Never fails: a value
  // that cannot be found is "unknown".
  static Metadata collect(const std::string& dir, bool quick);
  void set(const std::string& key, const std::string& value) { kv[key] = value; }
};

struct Row {
  std::string finding;   // e.g. "IO-1"; empty when a row backs no finding
  std::string scenario;  // e.g. "io"
  std::string arm;       // e.g. "direct-dsync+uring"
  std::string case_;     // e.g. "size=4k;jobs=1;layout=shared"
  std::string metric;    // e.g. "iops"
  double value = 0;
  std::string unit;      // e.g. "ops/s", "us", "MB/s", "count"
};

struct Skip {
  std::string scenario, arm, case_, reason;
};

class Results {
 public:
  Results(std::string scenario, Metadata meta);

  void add(const std::string& finding, const std::string& arm, const std::string& case_,
           const std::string& metric, double value, const std::string& unit);
  // The standard percentile rows (lat_p50_us, lat_p90_us, lat_p99_us,
  // lat_p999_us, lat_max_us, lat_mean_us) of a ns histogram, with `prefix`
  // replacing "lat" (e.g. "sync" gives sync_p50_us ...).
  void add_latency(const std::string& finding, const std::string& arm, const std::string& case_,
                   const base::Histogram& ns, const std::string& prefix = "lat");
  // A ratio and its interval: rows <metric>, <metric>_ci95_lo,
  // <metric>_ci95_hi (when known) and <metric>_reps.
  void add_ratio(const std::string& finding, const std::string& arm, const std::string& case_,
                 const std::string& metric, const Ratio& r, const std::string& unit = "x");
  void skip(const std::string& arm, const std::string& case_, const std::string& reason);
  void verdict(Verdict v);
  // Attach a JSON document (already serialized) under `key` in the sidecar.
  void attach_json(const std::string& key, std::string json);
  // Mark the run incomplete (Ctrl-C, ENOSPC): written into metadata as incomplete=<why>.
  void mark_incomplete(const std::string& why);

  const std::vector<Row>& rows() const { return rows_; }
  const std::vector<Skip>& skips() const { return skips_; }
  const std::vector<Verdict>& verdicts() const { return verdicts_; }
  const Metadata& meta() const { return meta_; }
  Metadata& meta() { return meta_; }

  std::string csv() const;
  std::string json() const;
  // Markdown table of the verdicts (finding, source, ours, verdict, plot).
  std::string verdicts_markdown() const;

  // Writes <dir>/latest.csv, <dir>/<UTC date-time>.csv, <dir>/latest.json and
  // <dir>/verdicts.md (creating dir). Returns "" on success, else the error.
  std::string write_dir(const std::string& dir) const;
  // Writes just the CSV or just the JSON to a path ("-" = stdout). "" on success.
  std::string write_csv(const std::string& path) const;
  std::string write_json(const std::string& path) const;

 private:
  std::string scenario_;
  Metadata meta_;
  std::vector<Row> rows_;
  std::vector<Skip> skips_;
  std::vector<Verdict> verdicts_;
  std::vector<std::pair<std::string, std::string>> attachments_;
};

// The time now in UTC, as strftime formats it ("%Y-%m-%dT%H:%M:%SZ").
std::string utc_now(const char* strftime_format);

// A value as CSV/JSON print it: integers (and anything >= 1e6) whole, no
// exponent below 1e15; otherwise 6 significant digits ("{:.6g}"); nan/inf as is.
std::string format_value(double v);
// Histogram as a JSON object: {"count":..,"min":..,"max":..,"p50":..,...,"bins":[[lo,hi,n],...]}.
std::string histogram_json(const base::Histogram& h);

// A run told to write its CSV or JSON to stdout ('-') keeps stdout for that
// data alone, as fio's --output-format=json does: from this call on fd 1 is
// stderr, so every table, progress line and verdict the run prints goes
// there, and whatever is written to "-" (write_csv, write_json) goes to the
// real stdout, kept aside. Does nothing unless a path is "-". Returns "" or
// why not (both given as '-': two documents on one stream cannot be parsed).
std::string hold_stdout_for_data(const std::string& csv_path, const std::string& json_path);

}  // namespace fenec::kit
