#include "iobench/src/cells.h"

#include <fmt/format.h>

#include <cstdlib>

namespace fenec::iobench {

const char* writes_name(Writes w) {
  switch (w) {
    case Writes::kFresh: return "fresh";
    case Writes::kOverwrite: return "overwrite";
    case Writes::kAppend: return "append";
  }
  return "?";
}

CellSpec durable_cell(uint64_t size, Mode mode, Writes writes, unsigned jobs, Layout layout) {
  CellSpec s;
  s.size = size;
  s.mode = mode;
  s.jobs = jobs;
  s.layout = layout;
  s.prefill = writes == Writes::kOverwrite;
  s.append = writes == Writes::kAppend;
  return s;
}

std::span<const FleetCell> fleet_cells() {
  // Regions, shared out among a cell's jobs: small enough that fio lays a
  // cell's files out quickly on a slow disk (the hosts' starts stay close),
  // large enough that an append cell on a real disk does not wrap to its
  // start inside a run (on tmpfs it does, at no cost).
  static const FleetCell k[] = {
      {"append-4k", "4 KiB write+fdatasync appending to a new file: each sync also commits its size", 4096,
       Mode::kFdatasync, Writes::kAppend, 64ull << 20},
      {"overwrite-4k", "4 KiB write+fdatasync over written blocks", 4096, Mode::kFdatasync, Writes::kOverwrite,
       8ull << 20},
      {"direct-4k", "4 KiB O_DIRECT|O_DSYNC over written blocks", 4096, Mode::kDirectDsync, Writes::kOverwrite,
       8ull << 20},
      {"direct-16k", "16 KiB O_DIRECT|O_DSYNC over written blocks", 16384, Mode::kDirectDsync, Writes::kOverwrite,
       16ull << 20},
      {"overwrite-1m", "1 MiB write+fdatasync over written blocks (a checkpoint's flush)", 1u << 20,
       Mode::kFdatasync, Writes::kOverwrite, 32ull << 20},
      {"buffered-4k", "4 KiB buffered writes: IO-4's reference for a durable write's cost", 4096, Mode::kBuffered,
       Writes::kOverwrite, 8ull << 20},
  };
  return k;
}

const FleetCell* find_fleet_cell(const std::string& name) {
  for (const FleetCell& c : fleet_cells())
    if (name == c.name) return &c;
  return nullptr;
}

CellInstance instance_of(const FleetCell& c, unsigned jobs, SubmitKind submit, double seconds) {
  CellInstance i;
  i.cell = &c;
  i.jobs = jobs;
  i.submit = submit;
  i.spec = durable_cell(c.size, c.mode, c.writes, jobs, jobs > 1 ? Layout::kPerJob : Layout::kShared);
  i.spec.submit = submit;
  i.spec.duration_s = seconds;
  i.spec.interval_s = seconds;
  i.spec.total = c.region;
  const char* engine = submit_path(submit).fio_engine;
  i.name = fmt::format("{}-j{}-{}", c.name, jobs, engine ? engine : submit_name(submit));
  return i;
}

std::vector<CellInstance> cell_instances(const std::vector<std::string>& names, const std::vector<unsigned>& jobs,
                                         const std::vector<SubmitKind>& submits, double seconds, std::string* why) {
  std::vector<CellInstance> out;
  if (jobs.empty() || submits.empty()) return *why = "no job count or no submission path", out;
  for (SubmitKind k : submits)
    if (!submit_path(k).fio_engine || !submit_path(k).writes_files)
      return *why = fmt::format("{} has no fio engine that writes files", submit_name(k)), std::vector<CellInstance>{};
  for (const std::string& name : names) {
    const FleetCell* c = find_fleet_cell(name);
    if (!c) return *why = fmt::format("unknown cell '{}' (known: {})", name, fleet_cell_names()), std::vector<CellInstance>{};
    if (name == kBufferedReference) {
      out.push_back(instance_of(*c, jobs.front(), submits.front(), seconds));
      continue;
    }
    for (unsigned j : jobs)
      for (SubmitKind k : submits) out.push_back(instance_of(*c, j, k, seconds));
  }
  if (out.empty()) *why = "no cell";
  return out;
}

std::string fleet_cell_names() {
  std::string s;
  for (const FleetCell& c : fleet_cells()) s += (s.empty() ? "" : ",") + std::string(c.name);
  return s;
}

bool parse_instance_name(const std::string& name, const FleetCell** cell, unsigned* jobs, SubmitKind* submit) {
  for (const FleetCell& c : fleet_cells()) {
    const std::string head = std::string(c.name) + "-j";
    if (name.rfind(head, 0) != 0) continue;
    const char* p = name.c_str() + head.size();
    char* end = nullptr;
    const long j = std::strtol(p, &end, 10);
    if (end == p || j < 1 || *end != '-') continue;
    for (const SubmitPath* path : submit_paths())
      if (path->fio_engine && std::string(end + 1) == path->fio_engine) {
        *cell = &c;
        *jobs = static_cast<unsigned>(j);
        *submit = path->kind;
        return true;
      }
  }
  return false;
}

}  // namespace fenec::iobench
