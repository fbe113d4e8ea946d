// RwLock: the database's one lock. Readers share it; a write holds it
// exclusively only to land its rows.
//
// pthread_rwlock with writer preference: glibc's default prefers readers,
// and a steady stream of short reads would starve every writer. With
// PREFER_WRITER_NONRECURSIVE a waiting writer holds new readers back, so a
// write waits at most for the reads already running.
//
// The exclusive side is timed (two steady_clock reads, no system call with the
// vDSO) so a bench can read how long writers waited for and held the lock.
// The figures are updated while the lock is held exclusively, so plain
// relaxed atomics suffice.
//
// Probe (Options::probe_lock_holds): a hold also reads the thread's CPU
// time (CLOCK_THREAD_CPUTIME_ID: exact; getrusage's times only advance at
// scheduler ticks), and its page faults and involuntary switches
// (getrusage(RUSAGE_THREAD)): four syscalls a hold, so off by default. A
// hold long in wall time but short in CPU time was preempted, not busy.
//
// Lock rules are annotations the compiler checks: RwLock is a capability,
// ReadLock and WriteLock hold it for a scope (shared, exclusive), and what
// it guards says FENEC_GUARDED_BY(lock_) (db_impl.h). `make test` runs
// clang's -Wthread-safety over the engine (engine/src/base/thread_annotations.h).
#pragma once

#include <pthread.h>
#include <sys/resource.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdint>

#include "engine/src/base/thread_annotations.h"

namespace fenec {

struct LockCounters {
  uint64_t acquisitions = 0, wait_ns = 0, wait_max_ns = 0, hold_ns = 0, hold_max_ns = 0;
  uint64_t holds_over_1ms = 0;
  // CC-2's handover: acquisitions by another thread than the last holder,
  // and those that found the lock held (they wait, in a futex, for it).
  uint64_t handovers = 0, contended = 0;
  // Probe only: CPU time (us resolution), minor faults, involuntary switches during holds.
  uint64_t hold_cpu_ns = 0, hold_cpu_max_ns = 0, longest_hold_cpu_ns = 0, hold_faults = 0, longest_hold_faults = 0,
           hold_preemptions = 0, longest_hold_preemptions = 0;
};

class FENEC_CAPABILITY("mutex") RwLock {
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

  void LockShared() FENEC_ACQUIRE_SHARED() { pthread_rwlock_rdlock(&lock_); }
  // False at once when a writer holds the lock or waits for it (writer preference).
  bool TryLockShared() FENEC_TRY_ACQUIRE_SHARED(true) { return pthread_rwlock_tryrdlock(&lock_) == 0; }
  void UnlockShared() FENEC_RELEASE_SHARED() { pthread_rwlock_unlock(&lock_); }

  void Lock() FENEC_ACQUIRE() {
    auto t0 = Now();
    if (pthread_rwlock_trywrlock(&lock_) != 0) {
      contended_.fetch_add(1, kRelaxed);  // outside the lock, so a real atomic add
      pthread_rwlock_wrlock(&lock_);
    }
    Acquired(t0);
  }
  // False at once when anyone holds it (a writer that may not wait: TryPutBatchAsync).
  bool TryLock() FENEC_TRY_ACQUIRE(true) {
    auto t0 = Now();
    if (pthread_rwlock_trywrlock(&lock_) != 0) return false;
    Acquired(t0);
    return true;
  }
  void Unlock() FENEC_RELEASE() {
    uint64_t hold = Now() - held_since_;
    bool longest = hold > hold_max_ns_.load(kRelaxed);
    Add(hold_ns_, hold);
    Max(hold_max_ns_, hold);
    if (hold > 1'000'000) Add(holds_over_1ms_, 1);
    if (probe_) Probe(longest);
    pthread_rwlock_unlock(&lock_);
  }

  void set_probe(bool on) { probe_ = on; }  // before the database is shared

  LockCounters counters() const {
    LockCounters c;
    c.acquisitions = acquisitions_.load(kRelaxed);
    c.wait_ns = wait_ns_.load(kRelaxed);
    c.wait_max_ns = wait_max_ns_.load(kRelaxed);
    c.hold_ns = hold_ns_.load(kRelaxed);
    c.hold_max_ns = hold_max_ns_.load(kRelaxed);
    c.holds_over_1ms = holds_over_1ms_.load(kRelaxed);
    c.handovers = handovers_.load(kRelaxed);
    c.contended = contended_.load(kRelaxed);
    c.hold_cpu_ns = cpu_ns_.load(kRelaxed);
    c.hold_cpu_max_ns = cpu_max_ns_.load(kRelaxed);
    c.longest_hold_cpu_ns = longest_cpu_ns_.load(kRelaxed);
    c.hold_faults = faults_.load(kRelaxed);
    c.longest_hold_faults = longest_faults_.load(kRelaxed);
    c.hold_preemptions = preempt_.load(kRelaxed);
    c.longest_hold_preemptions = longest_preempt_.load(kRelaxed);
    return c;
  }
  void ResetCounters() {
    for (auto* a : {&acquisitions_, &wait_ns_, &wait_max_ns_, &hold_ns_, &hold_max_ns_, &holds_over_1ms_,
                    &handovers_, &contended_, &cpu_ns_,
                    &cpu_max_ns_, &longest_cpu_ns_, &faults_, &longest_faults_, &preempt_, &longest_preempt_})
      a->store(0, kRelaxed);
  }

  static uint64_t Now() {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
  }

 private:
  static constexpr auto kRelaxed = std::memory_order_relaxed;
  // Just taken exclusively (Lock, TryLock), having asked at t0.
  void Acquired(uint64_t t0) {
    held_since_ = Now();
    if (probe_) {
      getrusage(RUSAGE_THREAD, &ru0_);
      cpu0_ = ThreadCpuNs();
    }
    uint64_t wait = held_since_ - t0;
    // A thread's id: the address of a thread_local, free to read.
    thread_local const char self = 0;
    if (last_holder_ != &self) Add(handovers_, 1);
    last_holder_ = &self;
    Add(acquisitions_, 1);
    Add(wait_ns_, wait);
    Max(wait_max_ns_, wait);
  }
  static void Add(std::atomic<uint64_t>& a, uint64_t v) { a.store(a.load(kRelaxed) + v, kRelaxed); }
  static void Max(std::atomic<uint64_t>& a, uint64_t v) {
    if (v > a.load(kRelaxed)) a.store(v, kRelaxed);
  }

  static uint64_t ThreadCpuNs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return uint64_t(ts.tv_sec) * 1'000'000'000ull + uint64_t(ts.tv_nsec);
  }
  void Probe(bool longest) {
    uint64_t cpu = ThreadCpuNs() - cpu0_;
    rusage ru1;
    getrusage(RUSAGE_THREAD, &ru1);
    uint64_t faults = uint64_t(ru1.ru_minflt - ru0_.ru_minflt) + uint64_t(ru1.ru_majflt - ru0_.ru_majflt);
    uint64_t preempt = uint64_t(ru1.ru_nivcsw - ru0_.ru_nivcsw);
    Add(cpu_ns_, cpu);
    Max(cpu_max_ns_, cpu);
    Add(faults_, faults);
    Add(preempt_, preempt);
    if (longest) {
      longest_cpu_ns_.store(cpu, kRelaxed);
      longest_faults_.store(faults, kRelaxed);
      longest_preempt_.store(preempt, kRelaxed);
    }
  }

  pthread_rwlock_t lock_;
  // Written by the exclusive holder only (Lock, then Unlock): the lock itself
  // guards them, which the analysis cannot see from inside Lock and Unlock.
  uint64_t held_since_ = 0;
  const void* last_holder_ = nullptr;
  bool probe_ = false;
  rusage ru0_{};
  uint64_t cpu0_ = 0;
  std::atomic<uint64_t> acquisitions_{0}, wait_ns_{0}, wait_max_ns_{0}, hold_ns_{0}, hold_max_ns_{0},
      holds_over_1ms_{0}, handovers_{0};
  std::atomic<uint64_t> contended_{0};  // counted before the lock is taken
  std::atomic<uint64_t> cpu_ns_{0}, cpu_max_ns_{0}, longest_cpu_ns_{0}, faults_{0}, longest_faults_{0}, preempt_{0},
      longest_preempt_{0};
};

// Holds an RwLock shared for its scope (reads).
class FENEC_SCOPED_CAPABILITY ReadLock {
 public:
  struct Adopt {};  // the caller already holds it shared (TryLockShared succeeded)
  explicit ReadLock(RwLock* lock) FENEC_ACQUIRE_SHARED(lock) : lock_(lock) { lock_->LockShared(); }
  ReadLock(RwLock* lock, Adopt) FENEC_REQUIRES_SHARED(lock) : lock_(lock) {}
  ~ReadLock() FENEC_RELEASE() { lock_->UnlockShared(); }
  ReadLock(const ReadLock&) = delete;
  ReadLock& operator=(const ReadLock&) = delete;

 private:
  RwLock* const lock_;
};

// Holds an RwLock exclusively for its scope (landing a commit), timed.
class FENEC_SCOPED_CAPABILITY WriteLock {
 public:
  struct Adopt {};  // the caller already holds it (TryLock succeeded)
  explicit WriteLock(RwLock* lock) FENEC_ACQUIRE(lock) : lock_(lock) { lock_->Lock(); }
  WriteLock(RwLock* lock, Adopt) FENEC_REQUIRES(lock) : lock_(lock) {}
  ~WriteLock() FENEC_RELEASE() { lock_->Unlock(); }
  WriteLock(const WriteLock&) = delete;
  WriteLock& operator=(const WriteLock&) = delete;

 private:
  RwLock* const lock_;
};

}  // namespace fenec
