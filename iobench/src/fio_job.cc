#include "iobench/src/fio_job.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

#include "iobench/src/submit.h"

namespace fenec::iobench {
namespace {

// fio reads a time as an integer with a unit: milliseconds keep a fraction of a second.
std::string fio_ms(double seconds) { return fmt::format("{}ms", static_cast<uint64_t>(std::llround(seconds * 1000))); }

}  // namespace

std::string fio_job_section(const CellSpec& spec, const std::string& name, const FioJobOptions& o, std::string* why) {
  const SubmitPath& path = submit_path(spec.submit);
  if (!path.fio_engine) {
    *why = fmt::format("{}: submission path {} has no fio engine", name, path.name);
    return "";
  }
  if (spec.batch > 1) {
    *why = fmt::format("{}: a batch of {} buffers an op has no fio equivalent (fio writes one buffer an op)", name,
                       spec.batch);
    return "";
  }
  if (spec.jobs == 0 || spec.size == 0 || spec.duration_s <= 0) {
    *why = fmt::format("{}: jobs, size and duration must be positive", name);
    return "";
  }
  const unsigned depth = path.depth_for(spec.depth);
  // Each job's region, a whole number of writes: what a time_based job wraps over.
  const uint64_t region = std::max<uint64_t>(spec.size, spec.total / spec.jobs / spec.size * spec.size);
  std::string s = fmt::format("[{}]\n", name);
  auto opt = [&s](const std::string& line) { s += line + "\n"; };
  if (!o.directory.empty()) opt("directory=" + o.directory);
  opt("rw=write");
  opt(fmt::format("bs={}", spec.size));
  opt(fmt::format("ioengine={}", path.fio_engine));
  if (depth > 1) opt(fmt::format("iodepth={}", depth));
  opt(fmt::format("numjobs={}", spec.jobs));
  opt(fmt::format("size={}", region));
  if (spec.layout == Layout::kShared && spec.jobs > 1) {
    opt(fmt::format("filename={}.dat", name));
    opt(fmt::format("offset_increment={}", region));
  }
  switch (mode_sync(spec.mode)) {
    case SyncCall::kFsync: opt(fmt::format("fsync={}", depth)); break;
    case SyncCall::kFdatasync: opt(fmt::format("fdatasync={}", depth)); break;
    case SyncCall::kNone: break;
  }
  if (mode_direct(spec.mode)) opt("direct=1");
  if (spec.mode == Mode::kDsync || spec.mode == Mode::kDirectDsync) opt("sync=dsync");
  if (spec.prefill) {
    opt("overwrite=1");
  } else if (spec.append) {
    opt("overwrite=0");
    opt("fallocate=none");
  } else {
    opt("overwrite=0");
    opt("fallocate=native");
  }
  opt("time_based=1");
  opt("runtime=" + fio_ms(spec.duration_s));
  if (o.ramp_s > 0) opt("ramp_time=" + fio_ms(o.ramp_s));
  if (o.randseed) opt(fmt::format("randseed={}", o.randseed));
  if (!o.iops_log.empty() && !o.create_only) {
    opt("write_iops_log=" + o.iops_log);
    opt(fmt::format("log_avg_msec={}", o.log_ms));
    opt("log_unix_epoch=1");
  }
  if (o.create_only) opt("create_only=1");
  else opt("unlink=1");  // iobench removes its scratch files; so does the job
  return s;
}

std::string fio_section_name(const std::string& text) {
  std::string out;
  for (char c : text)
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' || c == '+' ? c
           : c == ';'                                                                           ? '.'
           : c == '='                                                                           ? '-'
                                                                                                : '_';
  return out;
}

std::string fio_job_file(const std::vector<std::pair<std::string, CellSpec>>& cells, const FioJobOptions& o,
                         const std::string& header, std::string* why) {
  std::string out;
  for (size_t pos = 0; pos < header.size();) {
    size_t eol = header.find('\n', pos);
    if (eol == std::string::npos) eol = header.size();
    out += "# " + header.substr(pos, eol - pos) + "\n";
    pos = eol + 1;
  }
  for (size_t i = 0; i < cells.size(); ++i) {
    FioJobOptions each = o;
    if (!o.iops_log.empty()) each.iops_log = o.iops_log + "." + cells[i].first;
    std::string section = fio_job_section(cells[i].second, cells[i].first, each, why);
    if (section.empty()) return "";
    out += "\n" + section;
    if (i > 0) out += "stonewall\n";
  }
  return out;
}

}  // namespace fenec::iobench
