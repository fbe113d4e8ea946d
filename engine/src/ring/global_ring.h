// One io_uring for the process (IO-6): data-file flushes go through a single
// ring owned by one thread, instead of a ring (and its kernel workers) per file.
//
// Any thread hands the ring a flush request (a file descriptor and its dirty
// pages) through a lock-free MPSC queue; the owner thread is woken by an
// eventfd only when it sleeps. It merges each request's consecutive pages into
// one IORING_OP_WRITEV (up to IOV_MAX iovecs), tags every sqe with a low I/O
// priority (best effort, level 7) so journal writes issued elsewhere go first
// (JR-3), and calls the request's completion once every byte is written.
// The priority reaches the disk with direct I/O; buffered writes get there
// through writeback, which the sqe's priority does not steer.
// The eventfd is read through the ring itself, so the owner thread blocks in
// io_uring_enter and nowhere else: `syscalls` counts exactly those entries.
#pragma once

#include <sys/uio.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fenec/status.h"

namespace fenec::ring {

// One dirty page (or any extent): where it goes and the bytes to write. The
// bytes must stay valid until the request completes.
struct Page {
  uint64_t offset = 0;
  const void* data = nullptr;
  uint32_t len = 0;
};

struct FlushResult {
  int error = 0;       // 0, or -errno of the first failed write
  uint64_t bytes = 0;  // bytes written
};

using Done = std::function<void(const FlushResult&)>;

// What a flusher did, summed over its life. Read at any time (relaxed).
struct Counters {
  uint64_t submissions = 0;   // flush requests accepted
  uint64_t writes = 0;        // write operations issued: sqes, or pwrite/pwritev calls
  uint64_t pages = 0;         // pages asked for
  uint64_t merged_pages = 0;  // pages that rode in an earlier page's write (pages - runs)
  uint64_t syscalls = 0;      // io_uring_enter calls, or pwrite/pwritev calls
  uint64_t wakeups = 0;       // eventfd writes by producers (ring arms only)
  uint64_t bytes = 0;         // bytes written
};

Counters& operator+=(Counters& a, const Counters& b);
Counters operator-(Counters a, const Counters& b);

// A run of consecutive pages as one vectored write.
struct Extent {
  uint64_t offset = 0;
  std::vector<iovec> iov;
  uint64_t bytes() const;
};

// Sorts pages by offset and groups consecutive ones (offset + len == next
// offset) into extents of at most max_iov iovecs. Shared by every merging arm,
// so they all issue the same writes for the same pages.
std::vector<Extent> PlanExtents(std::vector<Page> pages, size_t max_iov);

// IOV_MAX as the kernel enforces it (UIO_MAXIOV, 1024).
size_t IovMax();

// IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 7): the lowest best-effort priority.
uint16_t BackgroundIoprio();

struct RingOptions {
  unsigned entries = 256;      // sq size; also the cap on writes in flight
  uint16_t ioprio = BackgroundIoprio();  // put on every sqe; 0 = the task's own
  unsigned max_bound_workers = 0;  // io-wq cap for regular-file work; 0 = kernel default
  size_t max_iov = 0;          // per writev; 0 = IovMax()
  // IOSQE_ASYNC on every write. Where buffered writes cannot be done without
  // blocking (ext4 among them) each one is punted to an io-wq worker anyway; without
  // the flag io-wq treats the work as serial and adds a worker only when one
  // sleeps, so a single ring's flushes would all be copied by one worker.
  // With it, io-wq grows workers with the backlog, up to its bound cap, and
  // they serve every file of the ring.
  bool force_async = true;
};

class Ring {
 public:
  explicit Ring(RingOptions options = {});
  // Drains: every request pushed before the destructor runs is written and completed.
  ~Ring();
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;

  // OK if the ring and its thread started, else why not: kIOError from
  // eventfd or io_uring_queue_init (io_uring refused by the kernel, ...).
  const Status& status() const { return status_; }

  // Any thread, lock-free. `done` runs on the ring's thread, once.
  void Flush(int fd, std::vector<Page> pages, Done done);
  std::future<FlushResult> Flush(int fd, std::vector<Page> pages);

  Counters counters() const;
  // The owner thread's id (gettid): its io-wq workers are named "iou-wrk-<tid>".
  int owner_tid() const { return owner_tid_.load(); }

  struct Request;  // internal, public for the queue's node type
  struct Write;

 private:
  void Run();
  void Complete(Request* r);

  RingOptions options_;
  Status status_;
  struct State;
  std::unique_ptr<State> state_;
  std::atomic<int> owner_tid_{0};
  std::thread thread_;
};

// The process-wide ring, started on first use with default options and drained at exit.
Ring& GlobalRing();

}  // namespace fenec::ring
