// The data-file flush arms behind one interface, so a bench or a test can put
// the same dirty pages through each and compare what reached the kernel:
//
//   pwrite         one pwrite per page (the baseline: a syscall a page)
//   pwritev        consecutive pages merged into one pwritev (IO-7)
//   ring-per-file  each file its own io_uring and owner thread (the naive
//                  design: every ring's thread grows its own iou-wrk workers)
//   global-ring    one Ring for every file (IO-6)
//
// The two synchronous arms write on the caller's thread and call `done`
// before flush() returns; the ring arms call it on a ring thread.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/src/ring/global_ring.h"

namespace fenec::scenarios::commit {

using ring::Counters;
using ring::Done;
using ring::FlushResult;
using ring::Page;
using ring::RingOptions;

class Flusher {
 public:
  virtual ~Flusher() = default;
  virtual std::string name() const = 0;
  // Thread-safe. Writes every page to fd; `done` runs once, when all are written
  // or the first write failed.
  virtual void flush(int fd, std::vector<Page> pages, Done done) = 0;
  FlushResult flush_sync(int fd, std::vector<Page> pages);
  virtual Counters counters() const = 0;
  // Threads whose io-wq workers ("iou-wrk-<tid>") belong to this flusher.
  virtual std::vector<int> ring_tids() const { return {}; }
  // "" if usable, else why not (io_uring refused by the kernel, ...).
  virtual std::string error() const { return ""; }
  // Ring arms only: waits until every accepted request completed. Destroying
  // the flusher drains too.
  virtual void drain() {}
};

// The arm names, in report order.
const std::vector<std::string>& flusher_arms();
// nullptr if `arm` is not one of flusher_arms(). Ring options apply to the ring arms.
std::unique_ptr<Flusher> make_flusher(std::string_view arm, const RingOptions& options = {});

}  // namespace fenec::scenarios::commit
