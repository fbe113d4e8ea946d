// FailStop: the engine's one sticky error.
//
// Once a journal write, an fdatasync or a data-file write fails, the state
// of the files is unknown (after a failed fsync the kernel may already have
// dropped the dirty pages, so a retry that "succeeds" proves nothing). The
// first error is kept; every later write is refused with kFailStopped
// carrying it, until the database is reopened and recovers from what is
// really on disk.
#pragma once

#include <atomic>

#include "engine/src/base/mutex.h"
#include "engine/src/base/thread_annotations.h"
#include "fenec/status.h"

namespace fenec {

class FailStop {
 public:
  bool stopped() const { return stopped_.load(std::memory_order_acquire); }
  // Records s (if it is the first error) and returns the fail-stop status.
  Status Trip(const Status& s) {
    base::MutexLock lock(&mu_);
    if (!stopped_.load(std::memory_order_relaxed)) {
      cause_ = s;
      stopped_.store(true, std::memory_order_release);
    }
    return Status::FailStopped(cause_);
  }
  // OK while running; kFailStopped (with the first cause) once tripped.
  Status Check() const {
    if (!stopped()) return Status::OK();
    base::MutexLock lock(&mu_);
    return Status::FailStopped(cause_);
  }
  Status cause() const {
    base::MutexLock lock(&mu_);
    return cause_;
  }

 private:
  std::atomic<bool> stopped_{false};  // set once, under mu_, after cause_
  mutable base::Mutex mu_;
  Status cause_ FENEC_GUARDED_BY(mu_);
};

}  // namespace fenec
