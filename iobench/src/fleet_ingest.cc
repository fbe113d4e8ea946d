// What a fleet reads besides fio's JSON: the iops logs fio's client carries
// back from each server (write_iops_log, unix-epoch timestamps), which say
// when each host measured and so the window all of them shared; and fio
// output files made elsewhere (--ingest).
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "iobench/src/fleet.h"

namespace fenec::iobench::fleet {
namespace {

namespace fs = std::filesystem;

// One job's log: (end of the interval in unix ms, ops/s over it).
using Series = std::vector<std::pair<double, double>>;

Series read_series(const fs::path& p) {
  Series s;
  std::ifstream in(p);
  for (std::string line; std::getline(in, line);) {
    // "1796315129315, 398, 1, 0, 0": time, value, direction, block size, offset
    char* end = nullptr;
    const double t = std::strtod(line.c_str(), &end);
    if (end == line.c_str() || *end != ',') continue;
    const double v = std::strtod(end + 1, &end);
    s.emplace_back(t, v);
  }
  return s;
}

// The job's mean rate over the intervals that lie inside [from, to].
double rate_within(const Series& s, double from, double to, unsigned log_ms) {
  double ops = 0, ms = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const double start = i ? s[i - 1].first : s[i].first - log_ms;
    if (start + 1 < from || s[i].first > to + 1) continue;
    ops += s[i].second * (s[i].first - start);
    ms += s[i].first - start;
  }
  return ms > 0 ? ops / ms : 0;
}

}  // namespace

void read_iops_logs(FleetData& d, RunMode mode, int rep, const std::string& dir,
                    const std::map<std::string, std::string>& log_prefix, unsigned log_ms) {
  std::map<std::pair<std::string, std::string>, std::vector<Series>> logs;  // (host, cell) -> a series a job
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    for (const auto& [host, prefix] : log_prefix) {
      if (name.rfind(prefix + ".", 0) != 0) continue;
      const size_t tail = name.find("_iops.", prefix.size() + 1);
      if (tail == std::string::npos) continue;
      Series s = read_series(entry.path());
      if (!s.empty()) logs[{host, name.substr(prefix.size() + 1, tail - prefix.size() - 1)}].push_back(std::move(s));
    }
  }
  std::map<std::string, std::vector<Sample*>> by_cell;
  for (Sample& s : d.samples) {
    if (s.mode != mode || s.rep != rep) continue;
    auto it = logs.find({s.host, s.cell});
    if (it == logs.end()) continue;
    // The host measured while every one of its jobs did.
    s.start_ms = 0, s.end_ms = 1e300;
    for (const Series& job : it->second) {
      s.start_ms = std::max(s.start_ms, job.front().first - log_ms);
      s.end_ms = std::min(s.end_ms, job.back().first);
    }
    by_cell[s.cell].push_back(&s);
  }
  if (mode != RunMode::kTogether) return;
  for (auto& [cell, samples] : by_cell) {
    Window w{cell, rep, 0, 1e300, samples.size(), false};
    for (const Sample* s : samples) w.start_ms = std::max(w.start_ms, s->start_ms), w.end_ms = std::min(w.end_ms, s->end_ms);
    // Three of the logs' intervals at least, or no host's rate can be read in it.
    w.used = w.end_ms - w.start_ms >= 3.0 * log_ms;
    if (w.used)
      for (Sample* s : samples) {
        s->window_iops = 0;
        for (const Series& job : logs[{s->host, cell}]) s->window_iops += rate_within(job, w.start_ms, w.end_ms, log_ms);
      }
    d.windows.push_back(w);
  }
}

FleetData ingest_files(const std::vector<std::string>& paths) {
  FleetData d;
  std::map<std::pair<std::string, std::string>, int> seen;  // (host, cell) -> repetitions so far
  for (const std::string& path : paths) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      d.failures.push_back({path, "", RunMode::kIngest, -1, fmt::format("cannot read it: {}", std::strerror(errno))});
      continue;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    const FioOutput out = parse_fio_output(ss.str());
    d.files.push_back(path);
    if (d.fio_version.empty()) d.fio_version = out.fio_version;
    const std::string file_host = fs::path(path).stem().string();
    int rep = 0;
    for (const FioJob& j : out.jobs) {
      Host h;
      h.addr = j.hostname;
      h.port = j.port;
      const std::string host = j.hostname.empty() ? file_host : h.label();
      rep = std::max(rep, seen[{host, j.jobname}]);
    }
    const size_t before = d.samples.size();
    ingest_output(d, out, RunMode::kIngest, rep, file_host, {}, {});
    for (size_t i = before; i < d.samples.size(); ++i) seen[{d.samples[i].host, d.samples[i].cell}] = rep + 1;
    if (!out.problem.empty()) d.failures.push_back({path, "", RunMode::kIngest, rep, out.problem});
  }
  return d;
}

}  // namespace fenec::iobench::fleet
