// Memory sampling that does not harm the process it samples (MM-1).
//
// /proc/PID/smaps walks every mapping under the mm lock; read often, from
// several threads, it stalls the process's own mmap/munmap. This sampler
// reads only /proc/PID/smaps_rollup (one summary), from one thread, no more
// often than its interval; every other caller gets the cached sample.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <sys/types.h>
#include <thread>
#include <vector>

#include "engine/src/base/mutex.h"
#include "engine/src/base/thread_annotations.h"

namespace fenec::base {

struct MemSample {
  double t_s = 0;          // seconds since the sampler started
  uint64_t rss_kb = 0;
  uint64_t pss_kb = 0;
  uint64_t anon_kb = 0;
  uint64_t swap_kb = 0;
};

// One read of /proc/<pid>/smaps_rollup (pid 0 = self). ok=false if unreadable.
MemSample ReadSmapsRollup(pid_t pid, bool* ok = nullptr);
// Sum over a full /proc/<pid>/smaps: the expensive read, kept for the MM-1 bench.
MemSample ReadSmapsFull(pid_t pid, bool* ok = nullptr);

class SmapsRollupSampler {
 public:
  // Starts one background thread that samples every `interval` and keeps the
  // series (bounded to max_samples, oldest dropped by halving the resolution).
  explicit SmapsRollupSampler(pid_t pid = 0,
                              std::chrono::milliseconds interval = std::chrono::milliseconds(100),
                              size_t max_samples = 100000);
  ~SmapsRollupSampler();
  SmapsRollupSampler(const SmapsRollupSampler&) = delete;
  SmapsRollupSampler& operator=(const SmapsRollupSampler&) = delete;

  // The newest sample; never reads /proc itself.
  MemSample latest() const FENEC_EXCLUDES(mu_);
  std::vector<MemSample> series() const FENEC_EXCLUDES(mu_);
  uint64_t peak_rss_kb() const FENEC_EXCLUDES(mu_);
  // How many times /proc was actually read (tests check the throttle with it).
  uint64_t reads() const { return reads_.load(); }
  // Reads that failed (process gone, /proc unreadable); their samples are not kept.
  uint64_t failed_reads() const FENEC_EXCLUDES(mu_);
  // Joins the thread; idempotent. latest()/series() stay valid afterwards.
  void Stop() FENEC_EXCLUDES(mu_);

 private:
  void Run() FENEC_EXCLUDES(mu_);
  void SampleOnce() FENEC_EXCLUDES(mu_);
  pid_t pid_;
  std::chrono::milliseconds interval_;
  size_t max_samples_;
  std::chrono::steady_clock::time_point start_;
  mutable Mutex mu_;
  CondVar cv_;  // stop_ set
  bool stop_ FENEC_GUARDED_BY(mu_) = false;
  MemSample latest_ FENEC_GUARDED_BY(mu_);
  uint64_t peak_rss_kb_ FENEC_GUARDED_BY(mu_) = 0;
  std::vector<MemSample> series_ FENEC_GUARDED_BY(mu_);
  uint64_t failed_reads_ FENEC_GUARDED_BY(mu_) = 0;
  uint64_t tick_ FENEC_GUARDED_BY(mu_) = 0;    // samples taken, for the series stride
  uint64_t stride_ FENEC_GUARDED_BY(mu_) = 1;  // keep one sample in stride_ (doubles each time the series fills)
  std::atomic<uint64_t> reads_{0};
  std::thread thread_;
};

}  // namespace fenec::base
