#include "engine/src/db/async_commit.h"

#include "engine/src/db/merger.h"
#include "engine/src/journal/group_commit.h"

namespace fenec {

void AsyncCommits::Add(CommitTicket ticket, BufferList sealed, Done done) {
  stats_->Add(Stat::async_puts);
  {
    base::MutexLock lock(&mu_);
    if (stopping_) {
      // Closing: the waiter may be gone, and this commit has landed; it is
      // answered here, as a synchronous put would be.
      lock.Unlock();
      Pending p{std::move(ticket), std::move(sealed), std::move(done)};
      return Finish(p);
    }
    queue_.push_back(Pending{std::move(ticket), std::move(sealed), std::move(done)});
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
  Status s = p.sealed.empty() ? db_->AwaitCommit(p.ticket) : db_->FinishCommit(p.ticket, p.sealed);
  p.sealed.clear();
  if (s.ok() && durable_) {
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

// DbImpl's two asynchronous puts, beside their waiter.
namespace {
// The waiter's callback for a landed put: its ids once durable, else the error.
AsyncCommits::Done AckWith(std::vector<DocId> ids, Database::PutDone done) {
  return [ids = std::move(ids), done = std::move(done)](Status s) mutable {
    if (!s.ok()) return done(s);
    done(std::move(ids));
  };
}
}  // namespace

void DbImpl::PutBatchAsync(CollectionId collection, std::vector<Document> docs, PutDone done) {
  if (merger_) return merger_->SubmitAsync(collection, std::move(docs), std::move(done));  // JR-2
  // Unsynced or naive: the put returns without an fsync to wait for.
  if (!async_ || options_.durability != Durability::kDurable) return done(PutRows(collection, std::move(docs)));
  CommitTicket t;
  auto ids = LandRows(collection, std::move(docs), &t);
  if (!ids.ok()) return done(std::move(ids));  // refused before landing, or fail-stopped: nothing to wait for
  async_->Add(std::move(t), {}, AckWith(std::move(ids).value(), std::move(done)));
}

bool DbImpl::TryPutBatchAsync(CollectionId collection, std::vector<Document>& docs, PutDone& done) {
  // Only where a put's waits (its fsync, a buffered journal write) can go to AsyncCommits' thread.
  if (!async_ || options_.buffer_write == BufferWrite::kUnderLock) return false;
  CommitTicket t;
  BufferList sealed;
  auto ids = LandRowsInto(collection, &docs, &t, &sealed);
  if (!ids.ok() && ids.status().IsBusy()) {
    stats_.Add(Stat::async_puts_would_wait);
    return false;
  }
  if (!ids.ok()) {
    done(std::move(ids));  // refused before landing, or fail-stopped: nothing to wait for
    return true;
  }
  stats_.Add(Stat::async_puts_no_wait);
  // Unsynced modes: answered here, unless a buffer filled or the journal's
  // write fell due on this put (write-through: unless another put's round
  // already wrote it); then, as durable puts always, the waiter does that
  // I/O (the full buffers go with the ticket: it writes them before it
  // awaits, as FinishCommit does) and answers.
  if (options_.durability != Durability::kDurable && sealed.empty()) {
    // Write-through: the write due is a pwritev, no sync, so this caller
    // leads it rather than hand it to AsyncCommits' thread (the hand-off
    // and its wake-ups cost more than the write); an id reservation still
    // waits for the syncer there.
    const bool write_here = options_.durability == Durability::kWriteThrough && t.ids_lsn == 0;
    Status s = AwaitCommit(t, /*may_write=*/write_here);
    if (!s.IsBusy()) {
      if (!s.ok()) done(s);
      else done(std::move(ids));
      return true;
    }
  }
  async_->Add(std::move(t), std::move(sealed), AckWith(std::move(ids).value(), std::move(done)));
  return true;
}

}  // namespace fenec
