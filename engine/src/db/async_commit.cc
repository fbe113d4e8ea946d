#include "engine/src/db/async_commit.h"

#include "engine/src/journal/group_commit.h"

namespace fenec {

void AsyncCommits::Add(CommitTicket ticket, Done done) {
  stats_->Add(Stat::async_puts);
  {
    base::MutexLock lock(&mu_);
    if (stopping_) {
      // Closing: the waiter may be gone, and this commit has landed; it is
      // answered here, as a synchronous put would be.
      lock.Unlock();
      Pending p{std::move(ticket), std::move(done)};
      return Finish(p);
    }
    queue_.push_back(Pending{std::move(ticket), std::move(done)});
    if (!started_) {
      started_ = true;
      thread_ = std::thread([this] { Loop(); });
    }
  }
  cv_.Signal();
}

void AsyncCommits::Stop() {
  {
    base::MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.SignalAll();
  if (thread_.joinable()) thread_.join();  // it completes what was queued before it ends
}

void AsyncCommits::Loop() {
  std::vector<Pending> round;
  for (;;) {
    round.clear();
    {
      base::MutexLock lock(&mu_);
      while (queue_.empty() && !stopping_) cv_.Wait(&mu_);
      if (queue_.empty()) return;  // stopping, and nothing left to complete
      round.swap(queue_);
    }
    stats_->Add(Stat::async_rounds);
    // In landing order: the first await leads the round's fsync (or
    // follows one), the rest are mostly covered by it already.
    for (Pending& p : round) Finish(p);
  }
}

void AsyncCommits::Finish(Pending& p) {
  Status s = db_->AwaitCommit(p.ticket);
  if (s.ok()) {
    bool covered = gc_->durable_lsn() >= p.ticket.lsn;
    for (const auto& [branch, lsn] : p.ticket.branches) covered &= branch->durable_lsn() >= lsn;
    if (!covered) stats_->Add(Stat::async_acks_before_durable);
  }
  p.ticket.keep.reset();  // the collection may go once its commit is answered
  stats_->Add(Stat::async_acks);
  // A callback that throws must not strand the rest of the round.
  try {
    p.done(std::move(s));
  } catch (...) {
  }
}

}  // namespace fenec
