// ThreadPool: see thread_pool.h.
#include "engine/src/index/vector/thread_pool.h"

#include <immintrin.h>

#include <algorithm>
#include <chrono>

namespace fenec::index::vec {
namespace {
// How long a worker spins for the next job before it sleeps. Measured on
// time, not on pause instructions: a pause takes ~10 cycles on some cores
// and ~140 on others. A spin shorter than the scheduler's gaps between
// rounds (the link step, a group's pre-link) lets the worker sleep through
// each gap and be woken by a futex call: a context switch a gap, where a
// spin past the gap costs none (vector-bench's arms part measures the
// build rate).
constexpr auto kSpinFor = std::chrono::microseconds(200);
// Pauses between two looks at the clock (a clock read costs more than a short pause).
constexpr int kPausesPerClockRead = 16;
}  // namespace

ThreadPool::ThreadPool(unsigned threads) {
  threads = std::min(std::max(1u, threads), kMaxThreads);
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    base::MutexLock lock(&mu_);
    stop_ = true;
    epoch_.fetch_add(1, std::memory_order_release);
  }
  cv_.SignalAll();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::RunRanges(Job* job, unsigned thread) {
  for (unsigned k = 0; k < job->blocks; ++k) {
    const unsigned b = (thread + k) % job->blocks;
    const size_t end = job->BlockEnd(b);
    for (;;) {
      size_t r = job->next[b].fetch_add(1, std::memory_order_relaxed);
      if (r >= end) break;
      size_t begin = r * job->grain;
      (*job->fn)(begin, std::min(job->n, begin + job->grain));
      job->done.fetch_add(1, std::memory_order_release);
    }
  }
}

void ThreadPool::WorkerLoop(unsigned thread) {
  uint64_t seen = 0;
  for (;;) {
    const auto spin_until = std::chrono::steady_clock::now() + kSpinFor;
    for (int i = 0; epoch_.load(std::memory_order_acquire) == seen; ++i) {
      _mm_pause();
      if (i % kPausesPerClockRead == 0 && std::chrono::steady_clock::now() >= spin_until) break;
    }
    Job* job = nullptr;
    {
      base::MutexLock lock(&mu_);
      while (!stop_ && epoch_.load(std::memory_order_relaxed) == seen) cv_.Wait(&mu_);
      if (stop_) return;
      seen = epoch_.load(std::memory_order_relaxed);
      job = job_;
      // Joined under mu_: the caller retires a job (job_ = nullptr) under
      // mu_ only once no worker has joined it, so `job` outlives this use.
      if (job != nullptr) job->joined.fetch_add(1, std::memory_order_relaxed);
    }
    if (job != nullptr) {
      RunRanges(job, thread);
      job->joined.fetch_sub(1, std::memory_order_release);
    }
  }
}

void ThreadPool::ParallelFor(size_t n, size_t grain, const Fn& fn) {
  if (n == 0) return;
  grain = std::max<size_t>(1, grain);
  if (workers_.empty() || n <= grain) {
    for (size_t b = 0; b < n; b += grain) fn(b, std::min(n, b + grain));
    return;
  }
  Job job;
  job.fn = &fn;
  job.n = n;
  job.grain = grain;
  job.ranges = (n + grain - 1) / grain;
  job.blocks = threads();
  for (unsigned b = 0; b < job.blocks; ++b) job.next[b].store(b == 0 ? 0 : job.BlockEnd(b - 1), std::memory_order_relaxed);
  {
    base::MutexLock lock(&mu_);
    job_ = &job;
    epoch_.fetch_add(1, std::memory_order_release);
  }
  cv_.SignalAll();
  RunRanges(&job, 0);
  while (job.done.load(std::memory_order_acquire) < job.ranges) _mm_pause();
  for (;;) {
    base::MutexLock lock(&mu_);
    if (job.joined.load(std::memory_order_acquire) == 0) {
      job_ = nullptr;
      return;
    }
  }
}

}  // namespace fenec::index::vec
