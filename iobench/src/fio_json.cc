#include "iobench/src/fio_json.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cstdlib>

#include "iobench/src/units.h"

namespace fenec::iobench {
namespace {

using simdjson::dom::element;
using simdjson::dom::object;

constexpr size_t npos = std::string_view::npos;

// Where the line that is "{" alone starts: fio opens its document so, and
// no line of its text does.
size_t document_start(std::string_view s) {
  for (size_t pos = 0; pos < s.size();) {
    size_t eol = s.find('\n', pos);
    if (eol == npos) eol = s.size();
    std::string_view line = s.substr(pos, eol - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line == "{") return pos;
    pos = eol + 1;
  }
  return npos;
}

// The index one past the value that opens at s[open] ('{' or '['),
// skipping strings; npos if the text ends first.
size_t value_end(std::string_view s, size_t open) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = open; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') ++depth;
    else if ((c == '}' || c == ']') && --depth == 0) return i + 1;
  }
  return npos;
}

double number(element e) {
  if (int64_t i; e.get_int64().get(i) == simdjson::SUCCESS) return static_cast<double>(i);
  if (uint64_t u; e.get_uint64().get(u) == simdjson::SUCCESS) return static_cast<double>(u);
  if (double d; e.get_double().get(d) == simdjson::SUCCESS) return d;
  return 0;
}

double field(object o, const char* key) {
  element e;
  return o[key].get(e) == simdjson::SUCCESS ? number(e) : 0;
}

std::string text_field(object o, const char* key) {
  std::string_view v;
  if (o[key].get_string().get(v) == simdjson::SUCCESS) return std::string(v);
  element e;
  if (o[key].get(e) == simdjson::SUCCESS && e.is_number()) return fmt::format("{}", static_cast<int64_t>(number(e)));
  return "";
}

// A latency object ({"N": .., "percentile": {..}, "bins": {"midpoint": count, ...}}) into h.
void read_hist(object parent, const char* key, FioHist* h, std::vector<std::pair<double, uint64_t>>* pct) {
  object lat, bins, ps;
  if (parent[key].get_object().get(lat) != simdjson::SUCCESS) return;
  h->set_samples(static_cast<uint64_t>(field(lat, "N")));
  if (lat["percentile"].get_object().get(ps) == simdjson::SUCCESS)
    for (auto [k, v] : ps) pct->emplace_back(std::strtod(std::string(k).c_str(), nullptr), static_cast<uint64_t>(number(v)));
  if (lat["bins"].get_object().get(bins) != simdjson::SUCCESS) return;
  for (auto [k, v] : bins) {
    char* end = nullptr;
    const std::string key_text(k);
    const unsigned long long mid = std::strtoull(key_text.c_str(), &end, 10);
    if (end && *end == '\0') h->add_key(mid, static_cast<uint64_t>(number(v)));
  }
}

void read_options(object parent, const char* key, std::map<std::string, std::string>* out) {
  object o;
  if (parent[key].get_object().get(o) != simdjson::SUCCESS) return;
  for (auto [k, v] : o) {
    std::string_view s;
    if (v.get_string().get(s) == simdjson::SUCCESS) (*out)[std::string(k)] = std::string(s);
  }
}

// One entry of "jobs" or "client_stats"; false for the client's "All clients".
bool read_job(element e, const std::map<std::string, std::string>& globals, FioJob* j) {
  object o;
  if (e.get_object().get(o) != simdjson::SUCCESS) return false;
  j->jobname = text_field(o, "jobname");
  if (j->jobname == "All clients") return false;
  j->hostname = text_field(o, "hostname");
  j->port = static_cast<unsigned>(field(o, "port"));
  j->error = static_cast<int>(field(o, "error"));
  j->usr_cpu = field(o, "usr_cpu");
  j->sys_cpu = field(o, "sys_cpu");
  j->options = globals;
  read_options(o, "job options", &j->options);
  object w, sync;
  if (o["write"].get_object().get(w) == simdjson::SUCCESS) {
    j->iops = field(w, "iops");
    j->runtime_ms = static_cast<uint64_t>(field(w, "runtime"));
    j->total_ios = static_cast<uint64_t>(field(w, "total_ios"));
    j->io_bytes = static_cast<uint64_t>(field(w, "io_bytes"));
    read_hist(w, "clat_ns", &j->clat, &j->clat_pct);
  }
  if (o["sync"].get_object().get(sync) == simdjson::SUCCESS) read_hist(sync, "lat_ns", &j->sync, &j->sync_pct);
  return true;
}

// The lines of `text` that start with `prefix`, each with the prefix cut.
std::vector<std::string> lines_after(std::string_view text, std::string_view prefix, std::string_view until) {
  std::vector<std::string> out;
  for (size_t pos = 0; (pos = text.find(prefix, pos)) != npos;) {
    if (pos != 0 && text[pos - 1] != '\n' && text[pos - 1] != ' ') {
      pos += prefix.size();
      continue;
    }
    pos += prefix.size();
    size_t end = text.find_first_of(until, pos);
    if (end == npos) end = text.size();
    out.emplace_back(text.substr(pos, end - pos));
    pos = end;
  }
  return out;
}

// The entries of the array under `key` that are whole, from a document cut short.
std::vector<std::string_view> whole_entries(std::string_view doc, std::string_view key) {
  std::vector<std::string_view> out;
  size_t k = doc.find(fmt::format("\"{}\"", key));
  if (k == npos) return out;
  size_t open = doc.find('[', k);
  if (open == npos) return out;
  for (size_t i = open + 1; i < doc.size();) {
    const size_t start = doc.find_first_of("{]", i);
    if (start == npos || doc[start] == ']') break;
    const size_t end = value_end(doc, start);
    if (end == npos) break;
    out.push_back(doc.substr(start, end - start));
    i = end;
  }
  return out;
}

}  // namespace

FioOutput parse_fio_output(std::string_view out, std::string_view err) {
  FioOutput r;
  for (std::string& h : lines_after(err, "fio: failed to connect to ", "\n")) r.unreachable.push_back(h);
  const size_t start = document_start(out);
  const size_t end = start == npos ? npos : value_end(out, start);
  r.text = std::string(out.substr(0, start == npos ? out.size() : start));
  if (end != npos) r.text += std::string(out.substr(end));
  const std::string all_text = r.text + std::string(err);
  for (std::string& h : lines_after(all_text, "client: host=", " \n")) r.disconnected.push_back(h);
  for (std::string& line : lines_after(all_text, "fio: client ", "\n")) {
    const size_t comma = line.find(", timeout on cmd ");
    if (comma != npos) r.timed_out.push_back(line.substr(0, comma));
  }
  for (std::string& v : lines_after(all_text, "fio: bad server cmd version ", "\n")) r.version_errors.push_back(v);
  for (std::string& c : lines_after(all_text, "fio: ", "\n"))
    if (std::find(r.complaints.begin(), r.complaints.end(), "fio: " + c) == r.complaints.end())
      r.complaints.push_back("fio: " + c);
  if (start == npos) {
    r.problem = out.empty() ? "no output" : "no JSON document in the output";
    return r;
  }
  simdjson::dom::parser parser;
  if (end != npos) {
    const simdjson::padded_string doc(out.substr(start, end - start));
    element root;
    if (auto e = parser.parse(doc).get(root); e != simdjson::SUCCESS) {
      r.problem = fmt::format("JSON does not parse: {}", simdjson::error_message(e));
      return r;
    }
    object top;
    if (root.get_object().get(top) != simdjson::SUCCESS) {
      r.problem = "the JSON document is not an object";
      return r;
    }
    r.fio_version = text_field(top, "fio version");
    std::map<std::string, std::string> globals;
    read_options(top, "global options", &globals);
    for (const char* key : {"client_stats", "jobs"}) {
      simdjson::dom::array arr;
      if (top[key].get_array().get(arr) != simdjson::SUCCESS) continue;
      for (element e : arr)
        if (FioJob j; read_job(e, globals, &j)) r.jobs.push_back(std::move(j));
    }
    return r;
  }
  // Cut short: keep the entries that are whole.
  r.truncated = true;
  const std::string_view doc = out.substr(start);
  size_t whole = 0;
  for (const char* key : {"client_stats", "jobs"})
    for (std::string_view entry : whole_entries(doc, key)) {
      const simdjson::padded_string text(entry);
      element e;
      if (parser.parse(text).get(e) != simdjson::SUCCESS) continue;
      if (FioJob j; read_job(e, {}, &j)) r.jobs.push_back(std::move(j));
      ++whole;
    }
  r.problem = fmt::format("truncated JSON: {} whole job entr{} before the cut", whole, whole == 1 ? "y" : "ies");
  if (const size_t v = doc.find("\"fio version\""); v != npos) {
    const size_t q1 = doc.find('"', doc.find(':', v));
    const size_t q2 = q1 == npos ? npos : doc.find('"', q1 + 1);
    if (q2 != npos) r.fio_version = std::string(doc.substr(q1 + 1, q2 - q1 - 1));
  }
  return r;
}

FioJobShape shape_of(const std::map<std::string, std::string>& o) {
  FioJobShape s;
  auto get = [&](const char* k) -> std::string {
    auto it = o.find(k);
    return it == o.end() ? "" : it->second;
  };
  auto on = [&](const char* k) {
    const std::string v = get(k);
    return !v.empty() && v != "0";
  };
  if (std::string bs = get("bs"); !bs.empty()) {
    std::string e;
    uint64_t v = 0;
    if (parse_size(bs, &v, &e)) s.bs = v;
  }
  if (std::string rw = get("rw"); !rw.empty()) s.rw = rw;
  else if (std::string rw2 = get("readwrite"); !rw2.empty()) s.rw = rw2;
  s.direct = on("direct") || get("buffered") == "0";
  const std::string sync = get("sync");
  s.dsync = !sync.empty() && sync != "0" && sync != "none";
  s.fsync = on("fsync");
  s.fdatasync = on("fdatasync");
  s.overwrite = on("overwrite");
  s.buffered = !s.direct && !s.dsync && !s.fsync && !s.fdatasync;
  if (std::string n = get("numjobs"); !n.empty()) s.numjobs = static_cast<unsigned>(std::max(1L, std::atol(n.c_str())));
  if (std::string e = get("ioengine"); !e.empty()) s.ioengine = e;
  return s;
}

}  // namespace fenec::iobench
