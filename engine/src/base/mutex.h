// Mutex, MutexLock, CondVar: std::mutex, std::lock_guard/unique_lock and
// std::condition_variable as clang's thread-safety analysis can see them;
// SharedMutex, ReaderMutexLock, WriterMutexLock: the same for
// std::shared_mutex, std::shared_lock and std::unique_lock over it.
//
// Why they exist: libstdc++'s mutexes carry no capability annotations, so
// the analysis cannot see what std::lock_guard holds, and every
// FENEC_GUARDED_BY would be reported as accessed unlocked. These wrap the
// standard types one to one (no extra work: a MutexLock is a lock_guard
// that may also be unlocked early, like unique_lock) and say what they do in
// the annotations of engine/src/base/thread_annotations.h.
//
//   base::Mutex mu_;
//   int n_ FENEC_GUARDED_BY(mu_);
//   ...
//   base::MutexLock lock(&mu_);
//   while (n_ == 0) cv_.Wait(&mu_);  // not wait(lock, pred): see CondVar
//
// The database's reader/writer lock is engine/src/db/rw_lock.h.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>

#include "engine/src/base/thread_annotations.h"

namespace fenec::base {

class FENEC_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() FENEC_ACQUIRE() { mu_.lock(); }
  void Unlock() FENEC_RELEASE() { mu_.unlock(); }

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds a Mutex for its scope, like std::lock_guard. Unlock() lets it go
// early (the destructor then does nothing) and Lock() takes it again, like
// std::unique_lock.
class FENEC_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) FENEC_ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() FENEC_RELEASE() {
    if (held_) mu_->Unlock();
  }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  void Unlock() FENEC_RELEASE() {
    mu_->Unlock();
    held_ = false;
  }
  void Lock() FENEC_ACQUIRE() {
    mu_->Lock();
    held_ = true;
  }

 private:
  Mutex* const mu_;
  bool held_ = true;
};

// std::condition_variable over a Mutex the caller holds. There is no
// predicate overload on purpose: the analysis checks a lambda as a function
// of its own, with no lock held, so a predicate reading guarded state would
// be reported. Write the loop the predicate overload runs:
//   while (!ready_) cv_.Wait(&mu_);
class CondVar {
 public:
  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  // Releases mu while it waits and holds it again when it returns (also on
  // a spurious wakeup).
  void Wait(Mutex* mu) FENEC_REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();  // still held: it stays the caller's
  }
  // As Wait, until the deadline at the latest: std::cv_status::timeout then.
  template <class Clock, class Duration>
  std::cv_status WaitUntil(Mutex* mu, const std::chrono::time_point<Clock, Duration>& deadline) FENEC_REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    std::cv_status status = cv_.wait_until(lock, deadline);
    lock.release();
    return status;
  }

  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

// A reader/writer lock: std::shared_mutex (glibc's default policy; the
// database's own lock, with writer preference, is engine/src/db/rw_lock.h).
class FENEC_CAPABILITY("mutex") SharedMutex {
 public:
  SharedMutex() = default;
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  void Lock() FENEC_ACQUIRE() { mu_.lock(); }
  void Unlock() FENEC_RELEASE() { mu_.unlock(); }
  void LockShared() FENEC_ACQUIRE_SHARED() { mu_.lock_shared(); }
  void UnlockShared() FENEC_RELEASE_SHARED() { mu_.unlock_shared(); }

 private:
  std::shared_mutex mu_;
};

// Holds a SharedMutex shared for its scope, like std::shared_lock.
class FENEC_SCOPED_CAPABILITY ReaderMutexLock {
 public:
  explicit ReaderMutexLock(SharedMutex* mu) FENEC_ACQUIRE_SHARED(mu) : mu_(mu) { mu_->LockShared(); }
  ~ReaderMutexLock() FENEC_RELEASE() { mu_->UnlockShared(); }
  ReaderMutexLock(const ReaderMutexLock&) = delete;
  ReaderMutexLock& operator=(const ReaderMutexLock&) = delete;

 private:
  SharedMutex* const mu_;
};

// Holds a SharedMutex exclusively for its scope.
class FENEC_SCOPED_CAPABILITY WriterMutexLock {
 public:
  explicit WriterMutexLock(SharedMutex* mu) FENEC_ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~WriterMutexLock() FENEC_RELEASE() { mu_->Unlock(); }
  WriterMutexLock(const WriterMutexLock&) = delete;
  WriterMutexLock& operator=(const WriterMutexLock&) = delete;

 private:
  SharedMutex* const mu_;
};

}  // namespace fenec::base
