// Submission paths: how a job hands its writes to the kernel, one interface
// with one file per path, in the manner of fio's engines. A job queues a write
// (one or more buffers landing contiguously in the file), reaps completions,
// and makes its sync calls through the same path, so a path can also carry
// the sync (io_uring does, as IORING_OP_FSYNC).
//
//   pwrite   one pwrite(2) per buffer: a batch of N buffers is N system calls
//   pwritev  the batch's buffers merged into one pwritev(2) (IO-7)
//   uring    one IORING_OP_WRITE[V] per batch, up to --depth in flight (liburing)
//   null     no I/O at all: counts what it was asked to do, so tests can check
//            the harness's plan (writes and syncs issued) without a disk
//
// Every path counts the kernel write calls, bytes and sync calls it made.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <sys/uio.h>
#include <vector>

#include "iobench/src/io_error.h"
#include "iobench/src/mode.h"

namespace fenec::iobench {

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

std::unique_ptr<Submitter> make_pwrite_submitter();
std::unique_ptr<Submitter> make_pwritev_submitter();
std::unique_ptr<Submitter> make_null_submitter(unsigned depth);
// Fails (with the reason in *error, e.g. io_uring disabled by sysctl or seccomp)
// when the ring cannot be set up.
std::unique_ptr<Submitter> make_uring_submitter(unsigned depth, std::string* error);
std::unique_ptr<Submitter> make_submitter(SubmitKind kind, unsigned depth, std::string* error);

}  // namespace fenec::iobench
