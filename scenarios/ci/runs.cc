#include "scenarios/ci/runs.h"

#include <fmt/format.h>
#include <fnmatch.h>

#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace fenec::scenarios::ci {
namespace {

namespace fs = std::filesystem;

const char* kRunsHeader = "date,commit,tag,metric,kind,better,bound,unit,value,samples";

std::string fmt_num(double v) {
  if (v == static_cast<double>(static_cast<int64_t>(v)) && std::fabs(v) < 1e15) {
    return fmt::format("{}", static_cast<int64_t>(v));
  }
  return fmt::format("{:.8g}", v);
}

bool parse_double(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

bool glob(const std::string& pattern, const std::string& s) {
  return fnmatch(pattern.c_str(), s.c_str(), 0) == 0;
}

// "a;b;rep=3" -> ("a;b", "3"); no rep -> (case, "").
std::pair<std::string, std::string> split_rep(const std::string& c) {
  const size_t at = c.rfind(";rep=");
  if (at == std::string::npos) return {c, ""};
  return {c.substr(0, at), c.substr(at + 5)};
}

}  // namespace

std::string runs_csv(const std::vector<MetricRun>& runs, bool header) {
  std::string out = header ? std::string(kRunsHeader) + "\n" : "";
  for (const MetricRun& r : runs) {
    std::vector<std::string> s;
    for (double v : r.samples) s.push_back(fmt_num(v));
    out += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", r.date, r.commit, r.tag, r.metric,
                       kind_name(r.kind), better_name(r.better), fmt_num(r.bound), r.unit,
                       fmt_num(r.value()), fmt::join(s, ";"));
  }
  return out;
}

std::string read_runs(const std::string& path, std::vector<MetricRun>* out) {
  std::ifstream file(path);
  if (!file) return "";
  std::stringstream text;
  text << file.rdbuf();
  return parse_runs(text.str(), path, out);
}

std::string parse_runs(const std::string& text, const std::string& path, std::vector<MetricRun>* out) {
  std::stringstream in(text);
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line[0] == '#' || line.rfind("date,", 0) == 0) continue;
    const auto f = split_csv(line);
    MetricRun r;
    if (f.size() != 10 || !parse_kind(f[4], &r.kind) || !parse_better(f[5], &r.better) ||
        !parse_double(f[6], &r.bound)) {
      return fmt::format("{}:{}: not a run row (want {})", path, n, kRunsHeader);
    }
    r.date = f[0];
    r.commit = f[1];
    r.tag = f[2];
    r.metric = f[3];
    r.unit = f[7];
    std::stringstream ss(f[9]);
    std::string item;
    while (std::getline(ss, item, ';')) {
      double v = 0;
      if (!parse_double(item, &v)) return fmt::format("{}:{}: bad sample '{}'", path, n, item);
      r.samples.push_back(v);
    }
    out->push_back(std::move(r));
  }
  return "";
}

std::string write_text(const std::string& path, const std::string& text) {
  std::error_code ec;
  const fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  std::ofstream out(path + ".tmp");
  out << text;
  out.close();
  if (!out) return fmt::format("cannot write {}", path);
  fs::rename(path + ".tmp", path, ec);
  return ec ? fmt::format("rename to {}: {}", path, ec.message()) : "";
}

std::string append_runs(const std::string& path, const std::vector<MetricRun>& runs) {
  const bool fresh = !fs::exists(path) || fs::file_size(path) == 0;
  std::error_code ec;
  if (fs::path(path).has_parent_path()) fs::create_directories(fs::path(path).parent_path(), ec);
  std::ofstream out(path, std::ios::app);
  out << runs_csv(runs, fresh);
  out.close();
  return out ? "" : fmt::format("cannot append to {}", path);
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> fields;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  fields.push_back(cur);
  return fields;
}

std::string read_results(const std::string& path, std::vector<ResultRow>* out) {
  std::ifstream file(path);
  if (!file) return fmt::format("cannot read {}", path);
  std::stringstream text;
  text << file.rdbuf();
  return parse_results(text.str(), path, out);
}

std::string parse_results(const std::string& text, const std::string& path, std::vector<ResultRow>* out) {
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    // An interrupted run (a CI timeout) has partial counts: none of it is a measurement.
    if (line.rfind("# incomplete=", 0) == 0) {
      out->clear();
      return fmt::format("{}: incomplete run ({})", path, line.substr(13));
    }
    if (line.empty() || line[0] == '#' || line.rfind("finding,", 0) == 0) continue;
    const auto f = split_csv(line);
    ResultRow r;
    if (f.size() < 7 || !parse_double(f[5], &r.value)) continue;  // nan/inf rows are not metrics
    r.finding = f[0];
    r.scenario = f[1];
    r.arm = f[2];
    r.case_ = f[3];
    r.metric = f[4];
    r.unit = f[6];
    out->push_back(std::move(r));
  }
  return "";
}

std::string parse_config(const std::string& text, std::vector<MetricDef>* out) {
  std::stringstream in(text);
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::stringstream ls(line);
    std::vector<std::string> w;
    std::string word;
    while (ls >> word) w.push_back(word);
    if (w.empty()) continue;
    if (w[0] == "run") {  // run.sh's flags for a scenario's quick run; no metric
      if (w.size() < 2) return fmt::format("metrics.conf:{}: 'run SCENARIO FLAGS...'", n);
      continue;
    }
    MetricDef d;
    bool ok = false;
    if ((w[0] == "ratio" || w[0] == "trend") && w.size() == 10) {
      d.type = MetricDef::Type::kRatio;
      d.gates = w[0] == "ratio";
      d.id = w[1], d.scenario = w[2], d.metric = w[3], d.arm = w[4], d.case_glob = w[5];
      d.ref_arm = w[6], d.ref_case_glob = w[7];
      ok = parse_better(w[8], &d.better) && parse_double(w[9], &d.bound) && d.bound > 1;
    } else if (w[0] == "count" && w.size() == 8) {
      d.type = MetricDef::Type::kCount;
      d.id = w[1], d.scenario = w[2], d.metric = w[3], d.arm = w[4], d.case_glob = w[5];
      ok = parse_better(w[6], &d.better) && parse_double(w[7], &d.bound) && d.bound >= 0;
    } else if (w[0] == "icount" && w.size() == 3) {
      d.type = MetricDef::Type::kIcount;
      d.id = w[1];
      d.better = Better::kLower;
      ok = parse_double(w[2], &d.bound) && d.bound >= 0;
    }
    if (!ok) return fmt::format("metrics.conf:{}: cannot parse '{}'", n, line);
    if (d.id.find(',') != std::string::npos) return fmt::format("metrics.conf:{}: ',' in id", n);
    out->push_back(std::move(d));
  }
  return "";
}

bool read_callgrind(const std::string& path, std::string* name, double* instructions) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return parse_callgrind(text.str(), name, instructions);
}

bool parse_callgrind(const std::string& text, std::string* name, double* instructions) {
  std::stringstream in(text);
  std::string line;
  bool have_name = false, have_count = false;
  const std::string trigger = "desc: Trigger: Client Request: ";
  while (std::getline(in, line)) {
    if (line.rfind(trigger, 0) == 0) {
      *name = line.substr(trigger.size());
      have_name = true;
    } else if (line.rfind("summary:", 0) == 0) {
      // "summary:" alone (a dump cut short) has no count: substr(npos) would throw.
      const size_t at = line.find_first_not_of(' ', 8);
      have_count = at != std::string::npos && parse_double(line.substr(at), instructions);
    }
  }
  return have_name && have_count;
}

std::vector<MetricRun> extract(const std::vector<MetricDef>& defs, const std::string& results_root,
                               const std::string& callgrind_dir, const RunInfo& info,
                               std::vector<std::string>* missing) {
  std::map<std::string, std::vector<ResultRow>> by_scenario;
  std::map<std::string, std::string> unreadable;  // scenario -> why (reported once)
  auto rows_of = [&](const std::string& scenario) -> const std::vector<ResultRow>& {
    auto it = by_scenario.find(scenario);
    if (it == by_scenario.end()) {
      std::vector<ResultRow> rows;
      const std::string err = read_results(results_root + "/" + scenario + "/latest.csv", &rows);
      if (!err.empty() && unreadable.emplace(scenario, err).second) missing->push_back(err);
      it = by_scenario.emplace(scenario, std::move(rows)).first;
    }
    return it->second;
  };
  std::vector<MetricRun> runs;
  auto start = [&](const MetricDef& d, const std::string& id, Kind kind, const std::string& unit) {
    MetricRun r;
    r.date = info.date, r.commit = info.commit, r.tag = info.tag;
    r.metric = id, r.kind = kind, r.better = d.better, r.bound = d.bound, r.unit = unit;
    return r;
  };
  for (const MetricDef& d : defs) {
    if (d.type == MetricDef::Type::kIcount) {
      std::vector<std::pair<std::string, double>> found;
      std::error_code ec;
      if (!callgrind_dir.empty() && fs::is_directory(callgrind_dir, ec)) {
        for (const auto& e : fs::directory_iterator(callgrind_dir, ec)) {
          std::string name;
          double ir = 0;
          if (read_callgrind(e.path().string(), &name, &ir)) found.emplace_back(name, ir);
        }
      }
      std::sort(found.begin(), found.end());
      for (const auto& [name, ir] : found) {
        MetricRun r = start(d, d.id + "/" + name, Kind::kStable, "instructions");
        r.samples.push_back(ir);
        runs.push_back(std::move(r));
      }
      if (found.empty()) missing->push_back(fmt::format("{}/*: no callgrind dumps", d.id));
      continue;
    }
    const auto& rows = rows_of(d.scenario);
    if (d.type == MetricDef::Type::kCount) {
      MetricRun r = start(d, d.id, Kind::kStable, "count");
      for (const ResultRow& row : rows) {
        if (row.metric == d.metric && glob(d.arm, row.arm) && glob(d.case_glob, row.case_)) {
          r.samples.push_back(row.value);
          r.unit = row.unit;
        }
      }
      if (r.samples.empty()) {
        missing->push_back(fmt::format("{}: no {} rows ({} {} {})", d.id, d.scenario, d.metric, d.arm, d.case_glob));
      } else {
        runs.push_back(std::move(r));
      }
      continue;
    }
    // Ratio: pair the arm's and the reference arm's rows by repetition.
    std::map<std::string, double> num, den;
    for (const ResultRow& row : rows) {
      if (row.metric != d.metric) continue;
      if (row.arm == d.arm && glob(d.case_glob, row.case_)) num[split_rep(row.case_).second] = row.value;
      if (row.arm == d.ref_arm && glob(d.ref_case_glob, row.case_)) den[split_rep(row.case_).second] = row.value;
    }
    MetricRun r = start(d, d.id, Kind::kNoisy, "ratio");
    for (const auto& [rep, v] : num) {
      const auto it = den.find(rep);
      if (it != den.end() && it->second != 0) r.samples.push_back(v / it->second);
    }
    if (r.samples.empty()) {
      missing->push_back(fmt::format("{}: no paired {} rows ({} over {})", d.id, d.scenario, d.arm, d.ref_arm));
    } else {
      runs.push_back(std::move(r));
    }
  }
  return runs;
}

}  // namespace fenec::scenarios::ci
