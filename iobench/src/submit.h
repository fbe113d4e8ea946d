// Submission paths: how a job hands its writes to the kernel, one interface
// with one file per path, in the manner of fio's engines. A job queues a write
// (one or more buffers landing contiguously in the file), reaps completions,
// and makes its sync calls through the same path, so a path can also carry
// the sync (io_uring does, as IORING_OP_FSYNC).
//
// Every path counts the kernel write calls, bytes and sync calls it made.
//
// Each path (pwrite, pwritev, uring, null) describes itself in its own file
// (SubmitPath: its name, help line, whether it needs files, its write calls
// per op, the depth it keeps, what it must probe, how to make it), and
// submit.cc lists the descriptors once. The planner, the CLI's help and the
// arm names read the traits; nothing outside a path's own file tests its
// kind. A new path is its file, a SubmitKind value and a line in that list.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <sys/uio.h>
#include <vector>

#include "iobench/src/io_error.h"
#include "iobench/src/mode.h"

namespace fenec::iobench {

struct ProbeResult;
class Submitter;

// The paths' identities (CellSpec, Grid and the scenarios name them); what
// each one is and does is its SubmitPath.
enum class SubmitKind { kPwrite, kPwritev, kUring, kNull };

// The most ops a job may keep in flight (--depth's bound).
inline constexpr unsigned kMaxDepth = 4096;

struct SubmitPath {
  SubmitKind kind;
  const char* name;   // the --submit value and the arm's "+name" suffix
  const char* help;   // one line in --help
  // The path a sweep takes without --submit: its arms are the bare mode name.
  bool is_default = false;
  // False: the path touches no file, so a cell makes none and skips the
  // filesystem's checks (O_DIRECT support and alignment).
  bool writes_files = true;
  // A batch of N buffers costs N write calls (else one call per op).
  bool call_per_buffer = false;
  // Ops one job keeps in flight at most; 1 is a synchronous path, whose
  // sync modes sync after every op.
  unsigned max_depth = 1;
  // Why the path cannot run on the probed filesystem ("" if it can); null:
  // nothing to probe.
  std::string (*unavailable)(const ProbeResult& probe) = nullptr;
  // fio's ioengine for the same calls: what a cell written as a fio job
  // (fio_job.h) asks fio to use.
  const char* fio_engine = nullptr;
  // Makes a job's submitter for `depth` ops in flight (depth_for). Null,
  // with the reason in *error, when the path cannot be set up here.
  std::unique_ptr<Submitter> (*make)(unsigned depth, std::string* error) = nullptr;

  // The depth a job of this path runs at when `requested` is asked for.
  unsigned depth_for(unsigned requested) const;
};

// Every registered path, in the order --help lists them.
std::span<const SubmitPath* const> submit_paths();
const SubmitPath& submit_path(SubmitKind k);

const char* submit_name(SubmitKind k);
bool parse_submit(std::string_view text, SubmitKind* out, std::string* error);
bool parse_submit_list(std::string_view text, std::vector<SubmitKind>* out, std::string* error);
// "pwrite, pwritev, uring, null"; with queued_only, the paths whose depth exceeds 1.
std::string submit_names(bool queued_only = false);
// One line a path, "  name     help", for a --help footer.
std::string submit_help_lines();

// "direct-dsync", "direct-dsync+uring", "fsync+pwritev", "buffered+null".
std::string arm_name(Mode m, SubmitKind k);

struct WriteRequest {
  int fd = -1;
  const std::string* path = nullptr;  // for error messages
  uint64_t offset = 0;
  const iovec* iov = nullptr;  // must stay valid until the write is reaped
  int iovcnt = 0;
  uint64_t bytes = 0;  // sum of the iov lengths
  uint32_t tag = 0;    // the caller's slot; must be < depth()
};

struct SubmitStats {
  uint64_t write_calls = 0;  // write system calls or ring submissions entries
  uint64_t bytes = 0;
  uint64_t sync_calls = 0;
};

class Submitter {
 public:
  virtual ~Submitter() = default;
  virtual SubmitKind kind() const = 0;
  // Writes that may be in flight at once; 1 for the synchronous paths.
  virtual unsigned depth() const { return 1; }
  // Starts a write. The synchronous paths perform it before returning; either
  // way its tag is handed back by a later reap().
  virtual IoError submit(const WriteRequest& w) = 0;
  // Blocks until at least `min` queued writes completed; appends their tags.
  virtual IoError reap(unsigned min, std::vector<uint32_t>* done) = 0;
  // fsync or fdatasync of fd; only call it with nothing in flight.
  virtual IoError sync(int fd, const std::string& path, SyncCall call) = 0;
  const SubmitStats& stats() const { return stats_; }

 protected:
  SubmitStats stats_;
};

// The synchronous system-call paths (pwrite, pwritev): a write is done when
// submit() returns, so reap() only hands back its tag and a sync is a plain
// fsync/fdatasync. A path supplies just how it issues the write.
class BlockingSubmitter : public Submitter {
 public:
  IoError submit(const WriteRequest& w) final;
  IoError reap(unsigned min, std::vector<uint32_t>* done) final;
  IoError sync(int fd, const std::string& path, SyncCall call) final;

 protected:
  // Writes all of w's buffers at w.offset, counting each system call in stats_.write_calls.
  virtual IoError write(const WriteRequest& w) = 0;

 private:
  std::vector<uint32_t> done_;
};

// The path's submitter at its depth_for(depth). Fails (null, the reason in
// *error, e.g. io_uring disabled by sysctl or seccomp) when it cannot be set up.
std::unique_ptr<Submitter> make_submitter(SubmitKind kind, unsigned depth, std::string* error);

}  // namespace fenec::iobench
