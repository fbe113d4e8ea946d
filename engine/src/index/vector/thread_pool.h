// ThreadPool: the batch arm's workers (VS-1). ParallelFor splits [0, n)
// into ranges of `grain` items and returns when every range has run. The
// caller works too, so `threads` counts it: a pool of 2 has one worker.
//
// Ranges are dealt in blocks, one block a thread: thread t takes the ranges
// of block t first (through that block's atomic cursor), then helps with
// the others'. So item i lands on the same core round after round when the
// work is even (a batch's insert process keeps its visited set and heaps in
// that core's L2 instead of moving between cores every round), and a slow
// thread's block is still finished by the others.
//
// A batch runs many short rounds (ParallelFor calls) one after
// another, so a worker that has finished one spins on the job
// counter for a while (200 us of clock time) before it sleeps on the
// condition variable: waking a sleeping thread costs about as much as a
// round's tail. Outside a batch the workers sleep.
//
// One caller at a time (the index's write lock): ParallelFor is not
// reentrant.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "engine/src/base/mutex.h"
#include "engine/src/base/thread_annotations.h"

namespace fenec::index::vec {

class ThreadPool {
 public:
  using Fn = std::function<void(size_t begin, size_t end)>;

  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned threads() const { return static_cast<unsigned>(workers_.size()) + 1; }
  void ParallelFor(size_t n, size_t grain, const Fn& fn) FENEC_EXCLUDES(mu_);

 private:
  static constexpr unsigned kMaxThreads = 256;
  struct Job {
    const Fn* fn = nullptr;
    size_t n = 0, grain = 1, ranges = 0;
    unsigned blocks = 1;
    std::atomic<size_t> next[kMaxThreads];  // per block: the next range to hand out
    std::atomic<size_t> done{0};            // ranges finished
    std::atomic<int> joined{0};             // workers inside RunRanges
    size_t BlockEnd(unsigned b) const { return ranges * (b + 1) / blocks; }
  };
  static void RunRanges(Job* job, unsigned thread);
  void WorkerLoop(unsigned thread) FENEC_EXCLUDES(mu_);

  base::Mutex mu_;
  base::CondVar cv_;
  Job* job_ FENEC_GUARDED_BY(mu_) = nullptr;
  bool stop_ FENEC_GUARDED_BY(mu_) = false;
  std::atomic<uint64_t> epoch_{0};  // bumped (under mu_) for each job; workers spin on it
  std::vector<std::thread> workers_;
};

}  // namespace fenec::index::vec
