// A sweep cell (CellSpec) written as a fio job section: the same writes
// run_cell makes, asked of fio, so a fleet of `fio --server`s (or a user's
// plain `fio job.fio`) answers the question iobench asks here.
//
//   CellSpec            fio
//   size                bs
//   mode                buffered: -; fsync / fdatasync: fsync=/fdatasync=<depth>
//                       (one sync a round of depth writes); dsync: sync=dsync;
//                       direct: direct=1; direct-dsync: direct=1, sync=dsync
//   jobs, layout        numjobs; per-job: a file each (fio's default naming);
//                       shared: one file, job k writing region k (offset_increment)
//   submit, depth       ioengine (SubmitPath::fio_engine), iodepth
//   prefill             overwrite=1: fio writes the file full and syncs it first
//   append              fallocate=none, overwrite=0: fio unlinks and recreates
//                       the file empty, and each write extends it
//   neither             fallocate=native: preallocated, unwritten extents
//   total / jobs        size: each job's region, which a time_based job wraps
//   duration            time_based=1, runtime; ramp_time before fio counts
// Where the two differ: fio writes one random buffer over and over (iobench
// refills), names its files itself, and in server mode prefixes them with the
// client's address (unique_filename), so clients sharing storage never collide.
// A batch of buffers per op (pwritev) has no fio equivalent: refused.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "iobench/src/sweep.h"

namespace fenec::iobench {

struct FioJobOptions {
  double ramp_s = 0;          // ramp_time: fio runs this long before it counts
  std::string directory;      // "": the working directory of fio (or of its server)
  std::string iops_log;       // write_iops_log's name prefix ("": no log)
  unsigned log_ms = 100;      // log_avg_msec, with unix-epoch timestamps (log_unix_epoch)
  uint64_t randseed = 0;      // fio's randseed for its buffers (0: fio's own)
  // Only lay the files out (create_only=1) and keep them: a later run of the
  // same section finds them whole and starts writing at once.
  bool create_only = false;
};

// The cell as a job section named `name` ("[name]" and its options, one a
// line). "" with *why when fio cannot be told the same thing.
std::string fio_job_section(const CellSpec& spec, const std::string& name, const FioJobOptions& o, std::string* why);

// A job name fio and file systems take from any text: letters, digits and
// "-._+" kept, ';' to '.', '=' to '-', anything else '_'.
std::string fio_section_name(const std::string& text);

// Cells as one job file, each section starting after the one before has
// finished (stonewall), under a header saying where the file came from.
// "" with *why naming the first cell fio cannot run.
std::string fio_job_file(const std::vector<std::pair<std::string, CellSpec>>& cells, const FioJobOptions& o,
                         const std::string& header, std::string* why);

}  // namespace fenec::iobench
