// The durable-write cells a database's commit comes down to, declared once:
// `iobench advise` measures them on this disk (advise_measure.cc), `iobench
// fleet` asks them of every host as fio jobs (fio_job.h), and `iobench sweep
// --fio-jobs` writes any grid the same way, so every tool asks one question.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "iobench/src/sweep.h"

namespace fenec::iobench {

// What a cell's writes land on.
enum class Writes {
  kFresh,      // fallocated, never-written blocks (unwritten extents to convert)
  kOverwrite,  // blocks the file already has (written and synced first): a database rewriting its pages
  kAppend,     // a new, empty file each write extends: a log that is only appended to
};
const char* writes_name(Writes w);

// One cell: `jobs` writers of `size` bytes in `mode` over `writes`. The
// submission path, duration and byte bound stay the caller's.
CellSpec durable_cell(uint64_t size, Mode mode, Writes writes, unsigned jobs = 1, Layout layout = Layout::kShared);

// A cell a fleet asks of each host (iobench fleet --cells), by name.
struct FleetCell {
  const char* name;    // "direct-4k"
  const char* what;    // one line for --help and the report
  uint64_t size;
  Mode mode;
  Writes writes;
  uint64_t region;     // bytes the cell's jobs write over (shared out) before fio wraps to the start
};
// Every fleet cell, in the order a run asks them.
std::span<const FleetCell> fleet_cells();
const FleetCell* find_fleet_cell(const std::string& name);
// The name of the buffered cell IO-4's check compares durable writes with,
// and of the durable one it compares (lies.cc's O_DIRECT|O_DSYNC write).
inline constexpr const char* kBufferedReference = "buffered-4k";
inline constexpr const char* kDurableReference = "direct-4k";
// The overwrite cell whose write + fdatasync stands in for the durable
// reference on a host where O_DIRECT failed.
inline constexpr const char* kSyncReference = "overwrite-4k";

// One cell of a run: a fleet cell at a job count and submission path, as
// the CellSpec the sweep runs and the name its rows and fio section carry
// ("direct-4k-j4-psync": fio's ioengine names the path).
struct CellInstance {
  std::string name;
  const FleetCell* cell = nullptr;
  unsigned jobs = 1;
  SubmitKind submit = SubmitKind::kPwrite;
  CellSpec spec;
};
CellInstance instance_of(const FleetCell& c, unsigned jobs, SubmitKind submit, double seconds);
// The cells a run asks: each named cell at every job count and submission
// path; the buffered reference once, at the first of each (IO-4's yardstick,
// not a question). Empty, with *why, for an unknown name or a path fio has
// no engine for.
std::vector<CellInstance> cell_instances(const std::vector<std::string>& names, const std::vector<unsigned>& jobs,
                                         const std::vector<SubmitKind>& submits, double seconds, std::string* why);
// Every fleet cell's name, comma separated.
std::string fleet_cell_names();
// The instance a name like "direct-4k-j4-psync" stands for; false if none.
bool parse_instance_name(const std::string& name, const FleetCell** cell, unsigned* jobs, SubmitKind* submit);

}  // namespace fenec::iobench
