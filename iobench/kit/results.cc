#include "iobench/kit/results.h"

#include <fmt/format.h>

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "engine/src/base/histogram.h"
#include "engine/src/base/json.h"
#include "iobench/kit/machine.h"

namespace fenec::kit {
namespace {

bool needs_quotes(const std::string& s) {
  return s.find_first_of(",\"\n\r") != std::string::npos;
}

std::string csv_field(const std::string& s) {
  if (!needs_quotes(s)) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

// Comment lines must stay one line each, whatever a value contains.
std::string one_line(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

std::string json_str(const std::string& s) { return "\"" + base::JsonEscape(s) + "\""; }

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";  // JSON has no NaN/Inf
  return format_value(v);
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : one_line(s)) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

// The real stdout, once hold_stdout_for_data() moved fd 1 to stderr; else -1.
int g_data_fd = -1;

std::string write_stdout(const std::string& text) {
  if (g_data_fd < 0) {
    std::cout << text << std::flush;
    return std::cout ? "" : "write stdout failed";
  }
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(g_data_fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fmt::format("write stdout: {}", std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  return "";
}

// Write to a temporary beside the target, then rename: a reader of latest.csv
// (report.sh, CI) never sees a half-written file.
std::string write_file(const std::string& path, const std::string& text) {
  if (path == "-") return write_stdout(text);
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p(path);
  if (p.has_parent_path()) {
    fs::create_directories(p.parent_path(), ec);
    if (ec) return fmt::format("create {}: {}", p.parent_path().string(), ec.message());
  }
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return fmt::format("open {}: {}", tmp, std::strerror(errno));
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const int saved = errno;
  if (std::fclose(f) != 0 || !ok) {
    std::remove(tmp.c_str());
    return fmt::format("write {}: {}", tmp, std::strerror(ok ? errno : saved));
  }
  fs::rename(tmp, p, ec);
  if (ec) return fmt::format("rename {} -> {}: {}", tmp, path, ec.message());
  return "";
}

}  // namespace

std::string hold_stdout_for_data(const std::string& csv_path, const std::string& json_path) {
  if (csv_path != "-" && json_path != "-") return "";
  if (csv_path == "-" && json_path == "-") return "--csv and --json cannot both be '-' (stdout)";
  if (g_data_fd >= 0) return "";
  std::cout.flush();
  std::fflush(stdout);
  g_data_fd = ::dup(STDOUT_FILENO);
  if (g_data_fd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) return fmt::format("dup stdout: {}", std::strerror(errno));
  return "";
}

std::string format_value(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";  // not "-0"
  // Counts and byte totals read better whole than as 1.23457e+09.
  if (std::fabs(v) < 1e15 && v == std::trunc(v)) return fmt::format("{:.0f}", v);
  if (std::fabs(v) >= 1e6 && std::fabs(v) < 1e15) return fmt::format("{:.0f}", v);
  return fmt::format("{:.6g}", v);
}

std::string histogram_json(const base::Histogram& h) {
  std::string out = fmt::format(
      "{{\"count\":{},\"min\":{},\"max\":{},\"mean\":{},\"p50\":{},\"p90\":{},\"p99\":{},"
      "\"p999\":{},\"bins\":[",
      h.count(), h.min(), h.max(), json_number(h.mean()), h.Percentile(50), h.Percentile(90),
      h.Percentile(99), h.Percentile(99.9));
  bool first = true;
  for (const auto& b : h.Bins()) {
    out += fmt::format("{}[{},{},{}]", first ? "" : ",", b.lo, b.hi, b.count);
    first = false;
  }
  out += "]}";
  return out;
}

Results::Results(std::string scenario, Metadata meta)
    : scenario_(std::move(scenario)), meta_(std::move(meta)) {
  meta_.kv.emplace("scenario", scenario_);
}

void Results::add(const std::string& finding, const std::string& arm, const std::string& case_,
                  const std::string& metric, double value, const std::string& unit) {
  rows_.push_back(Row{finding, scenario_, arm, case_, metric, value, unit});
}

void Results::add_latency(const std::string& finding, const std::string& arm,
                          const std::string& case_, const base::Histogram& ns,
                          const std::string& prefix) {
  const base::LatencySummary s = base::LatencySummary::Of(ns);
  add(finding, arm, case_, prefix + "_p50_us", s.p50_us, "us");
  add(finding, arm, case_, prefix + "_p90_us", s.p90_us, "us");
  add(finding, arm, case_, prefix + "_p99_us", s.p99_us, "us");
  add(finding, arm, case_, prefix + "_p999_us", s.p999_us, "us");
  add(finding, arm, case_, prefix + "_max_us", s.max_us, "us");
  add(finding, arm, case_, prefix + "_mean_us", s.mean_us, "us");
}

void Results::add_ratio(const std::string& finding, const std::string& arm, const std::string& case_,
                        const std::string& metric, const Ratio& r, const std::string& unit) {
  if (!r.known()) return;
  add(finding, arm, case_, metric, r.value, unit);
  if (r.ci95.known()) {
    add(finding, arm, case_, metric + "_ci95_lo", r.ci95.lo, unit);
    add(finding, arm, case_, metric + "_ci95_hi", r.ci95.hi, unit);
  }
  add(finding, arm, case_, metric + "_reps", static_cast<double>(r.reps), "count");
}

void Results::skip(const std::string& arm, const std::string& case_, const std::string& reason) {
  skips_.push_back(Skip{scenario_, arm, case_, reason});
}

void Results::verdict(Verdict v) { verdicts_.push_back(std::move(v)); }

void Results::attach_json(const std::string& key, std::string json) {
  for (auto& [k, v] : attachments_) {
    if (k == key) {
      v = std::move(json);
      return;
    }
  }
  attachments_.emplace_back(key, std::move(json));
}

void Results::mark_incomplete(const std::string& why) { meta_.set("incomplete", why); }

std::string Results::csv() const {
  std::string out;
  for (const auto& [k, v] : meta_.kv) out += fmt::format("# {}={}\n", one_line(k), one_line(v));
  for (const auto& s : skips_) {
    out += fmt::format("# skip arm={} case={} reason={}\n", one_line(s.arm), one_line(s.case_),
                       one_line(s.reason));
  }
  out += "finding,scenario,arm,case,metric,value,unit\n";
  for (const auto& r : rows_) {
    out += fmt::format("{},{},{},{},{},{},{}\n", csv_field(r.finding), csv_field(r.scenario),
                       csv_field(r.arm), csv_field(r.case_), csv_field(r.metric),
                       format_value(r.value), csv_field(r.unit));
  }
  return out;
}

std::string Results::json() const {
  std::string out = "{\n  \"metadata\": {";
  bool first = true;
  for (const auto& [k, v] : meta_.kv) {
    out += fmt::format("{}{}: {}", first ? "" : ", ", json_str(k), json_str(v));
    first = false;
  }
  out += "},\n  \"rows\": [";
  first = true;
  for (const auto& r : rows_) {
    out += fmt::format(
        "{}\n    {{\"finding\": {}, \"scenario\": {}, \"arm\": {}, \"case\": {}, \"metric\": {}, "
        "\"value\": {}, \"unit\": {}}}",
        first ? "" : ",", json_str(r.finding), json_str(r.scenario), json_str(r.arm),
        json_str(r.case_), json_str(r.metric), json_number(r.value), json_str(r.unit));
    first = false;
  }
  out += rows_.empty() ? "],\n" : "\n  ],\n";
  out += "  \"skips\": [";
  first = true;
  for (const auto& s : skips_) {
    out += fmt::format("{}\n    {{\"scenario\": {}, \"arm\": {}, \"case\": {}, \"reason\": {}}}",
                       first ? "" : ",", json_str(s.scenario), json_str(s.arm), json_str(s.case_),
                       json_str(s.reason));
    first = false;
  }
  out += skips_.empty() ? "],\n" : "\n  ],\n";
  out += "  \"verdicts\": [";
  first = true;
  for (const auto& v : verdicts_) {
    out += fmt::format(
        "{}\n    {{\"finding\": {}, \"claim\": {}, \"source\": {}, \"ours\": {}, \"verdict\": {}, "
        "\"reason\": {}, \"plot\": {}}}",
        first ? "" : ",", json_str(v.finding), json_str(v.claim), json_str(v.source), json_str(v.ours),
        json_str(outcome_name(v.outcome)), json_str(v.reason), json_str(v.plot));
    first = false;
  }
  out += verdicts_.empty() ? "]" : "\n  ]";
  for (const auto& [k, v] : attachments_) out += fmt::format(",\n  {}: {}", json_str(k), v);
  out += "\n}\n";
  return out;
}

std::string Results::verdicts_markdown() const {
  std::string out;
  if (std::string note = machine_note(meta_); !note.empty()) out += note + "\n\n";
  out += verdicts_.empty() ? "_No finding judged in this run._\n"
                           : "| finding | claim | source | ours | verdict | why | plot |\n"
                             "|---|---|---|---|---|---|---|\n";
  for (const auto& v : verdicts_) {
    // Links resolve from results/REPORT.md, where report.sh gathers every verdicts.md.
    const std::string plot = v.plot.empty() ? "" : fmt::format("[{0}](../{0})", md_cell(v.plot));
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", md_cell(v.finding), md_cell(v.claim),
                       md_cell(v.source), md_cell(v.ours), outcome_name(v.outcome), md_cell(v.reason), plot);
  }
  for (const auto& s : skips_) {
    out += fmt::format("\nSkipped: arm `{}` case `{}`: {}\n", md_cell(s.arm), md_cell(s.case_),
                       md_cell(s.reason));
  }
  return out;
}

std::string Results::write_dir(const std::string& dir) const {
  const std::string text = csv();
  if (auto err = write_file(dir + "/latest.csv", text); !err.empty()) return err;
  if (auto err = write_file(dir + "/" + utc_now("%Y%m%dT%H%M%SZ") + ".csv", text); !err.empty()) return err;
  if (auto err = write_file(dir + "/latest.json", json()); !err.empty()) return err;
  return write_file(dir + "/verdicts.md", verdicts_markdown());
}

std::string Results::write_csv(const std::string& path) const { return write_file(path, csv()); }

std::string Results::write_json(const std::string& path) const {
  return write_file(path, json());
}

}  // namespace fenec::kit
