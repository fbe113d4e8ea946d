// WorkerPool (http_session.h): the threads that run requests that may wait
// in the engine, fed from a bounded queue.
#include "engine/server/http_session.h"

namespace fenec::server {

void WorkerPool::Start(size_t threads) {
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

bool WorkerPool::TryPost(std::function<void()> task, size_t max_queued) {
  base::MutexLock lock(&mu_);
  if (tasks_.size() >= max_queued) return false;
  tasks_.push_back(std::move(task));
  work_.Signal();
  return true;
}

size_t WorkerPool::queued() const {
  base::MutexLock lock(&mu_);
  return tasks_.size();
}

void WorkerPool::Run() {
  base::MutexLock lock(&mu_);
  for (;;) {
    while (tasks_.empty() && !stop_) work_.Wait(&mu_);
    if (tasks_.empty()) return;  // stopping, and nothing left to run
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.Unlock();
    task();
    task = nullptr;  // what it captured (a session) is let go outside the lock
    lock.Lock();
  }
}

void WorkerPool::Stop() {
  {
    base::MutexLock lock(&mu_);
    stop_ = true;
    work_.SignalAll();
  }
  for (auto& t : threads_) t.join();
  threads_.clear();
}

}  // namespace fenec::server
