// AsyncCommits: the waiting half of Database::PutBatchAsync and
// TryPutBatchAsync (kDirect; under kWriteThrough and kBuffered only the
// tries whose write buffer or journal write fell due, which their io thread
// may not do).
//
// A caller lands its rows itself (DbImpl::LandRows: prepare, write lock,
// journal append) and hands the commit's ticket here with its callback; it
// then goes on, holding no thread while the fsync runs. One thread, started
// at the first Add, takes every ticket handed over so far, awaits them in
// landing order (the first leads the group commit's round, which takes every
// record pending, so the rest are mostly already durable) and calls each
// callback with the outcome. Tickets handed over while a round runs are the
// next round's: a round carries every connection's puts, however many, and
// no request's thread is its leader.
//
// kDurable: never acknowledged before durable: a callback gets OK only after
// DbImpl::AwaitCommit returned OK for its ticket (counted by
// async_acks_before_durable, which must stay 0); a failed await (fail-stop)
// gives that error to it and to every later one, since AwaitCommit fails
// for all once the database is fail-stopped.
//
// Threads: mu_ guards the queue and the flags, never held across an await
// or a callback. Callbacks run on the waiter thread and must be short
// (fenec-server posts to the session's io thread).
#pragma once

#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "engine/src/base/mutex.h"
#include "engine/src/base/thread_annotations.h"
#include "engine/src/db/db_impl.h"

namespace fenec {

class AsyncCommits {
 public:
  using Done = std::function<void(Status)>;

  // durable false (kWriteThrough, kBuffered): a ticket is answered once its
  // journal write is done, as such a put returns (TryPutBatchAsync hands
  // over only those whose write fell due on an io thread).
  AsyncCommits(DbImpl* db, const journal::GroupCommit* gc, StatCounters* stats, bool durable)
      : db_(db), gc_(gc), stats_(stats), durable_(durable) {}
  ~AsyncCommits() { Stop(); }
  AsyncCommits(const AsyncCommits&) = delete;
  AsyncCommits& operator=(const AsyncCommits&) = delete;

  // Calls done(status) on the waiter thread once the ticket is durable, or
  // with the error that stopped it. Once Stop began, the caller's thread
  // awaits the ticket itself and calls done before Add returns.
  // sealed: buffers the landing filled, which the waiter writes before it
  // awaits the ticket (TryPutBatchAsync's caller does no I/O).
  void Add(CommitTicket ticket, BufferList sealed, Done done) FENEC_EXCLUDES(mu_);
  // Completes every ticket added, then joins the thread. Later Adds are
  // refused. Idempotent.
  void Stop() FENEC_EXCLUDES(mu_);

 private:
  struct Pending {
    CommitTicket ticket;
    BufferList sealed;
    Done done;
  };
  void Loop() FENEC_EXCLUDES(mu_);
  void Finish(Pending& p);  // writes p's buffers, awaits its ticket, counts, calls p.done

  DbImpl* const db_;
  const journal::GroupCommit* const gc_;
  StatCounters* const stats_;
  const bool durable_;

  base::Mutex mu_;
  base::CondVar cv_;  // a ticket was added, or stop
  std::vector<Pending> queue_ FENEC_GUARDED_BY(mu_);
  bool started_ FENEC_GUARDED_BY(mu_) = false;
  bool stopping_ FENEC_GUARDED_BY(mu_) = false;
  std::thread thread_;  // started under mu_ by the first Add, joined by Stop
};

}  // namespace fenec
