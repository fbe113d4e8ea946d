// RwLock: the database's one lock. Readers share it; a write holds it
// exclusively only to land its rows.
//
// pthread_rwlock with writer preference: glibc's default prefers readers,
// and a steady stream of short reads would starve every writer. With
// PREFER_WRITER_NONRECURSIVE a waiting writer holds new readers back, so a
// write waits at most for the reads already running.
//
// The exclusive side is timed (two steady_clock reads, ~25 ns each with the
// vDSO) so a bench can read how long writers waited for and held the lock.
// The figures are updated while the lock is held exclusively, so plain
// relaxed atomics suffice.
#pragma once

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstdint>

namespace fenec {

struct LockCounters {
  uint64_t acquisitions = 0, wait_ns = 0, wait_max_ns = 0, hold_ns = 0, hold_max_ns = 0;
};

class RwLock {
 public:
  RwLock() {
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&lock_, &attr);
    pthread_rwlockattr_destroy(&attr);
  }
  ~RwLock() { pthread_rwlock_destroy(&lock_); }
  RwLock(const RwLock&) = delete;
  RwLock& operator=(const RwLock&) = delete;

  void lock_shared() { pthread_rwlock_rdlock(&lock_); }
  void unlock_shared() { pthread_rwlock_unlock(&lock_); }

  void lock() {
    auto t0 = Now();
    pthread_rwlock_wrlock(&lock_);
    held_since_ = Now();
    uint64_t wait = held_since_ - t0;
    Add(acquisitions_, 1);
    Add(wait_ns_, wait);
    Max(wait_max_ns_, wait);
  }
  void unlock() {
    uint64_t hold = Now() - held_since_;
    Add(hold_ns_, hold);
    Max(hold_max_ns_, hold);
    pthread_rwlock_unlock(&lock_);
  }

  LockCounters counters() const {
    return {acquisitions_.load(kRelaxed), wait_ns_.load(kRelaxed), wait_max_ns_.load(kRelaxed), hold_ns_.load(kRelaxed),
            hold_max_ns_.load(kRelaxed)};
  }
  void ResetCounters() {
    for (auto* a : {&acquisitions_, &wait_ns_, &wait_max_ns_, &hold_ns_, &hold_max_ns_}) a->store(0, kRelaxed);
  }

  static uint64_t Now() {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
  }

 private:
  static constexpr auto kRelaxed = std::memory_order_relaxed;
  static void Add(std::atomic<uint64_t>& a, uint64_t v) { a.store(a.load(kRelaxed) + v, kRelaxed); }
  static void Max(std::atomic<uint64_t>& a, uint64_t v) {
    if (v > a.load(kRelaxed)) a.store(v, kRelaxed);
  }

  pthread_rwlock_t lock_;
  uint64_t held_since_ = 0;
  std::atomic<uint64_t> acquisitions_{0}, wait_ns_{0}, wait_max_ns_{0}, hold_ns_{0}, hold_max_ns_{0};
};

}  // namespace fenec
