// TxMerger (JR-2): the transaction merger, with async commit.
//
// Puts and batches (Options::completion != kDirect) are queued here instead
// of each writer landing its own commit. One merger thread takes every
// queued operation and executes each with DbImpl::LandRows (its own commit:
// a @unique clash fails only that operation), then completes the batch:
// waits for its journal records to be durable (DbImpl::AwaitCommit) and only
// then acknowledges each caller with its ids or its error.
//
// Async completion (early lock release on the commit): instead of waiting
// itself, the merger hands the batch to a completer thread and goes straight
// on executing the next queued operations, so they land while the previous
// commit's fdatasync runs and are ready for the next one.
//  - kMergerSync hands off only if more operations were already queued when
//    the batch finished; otherwise it waits for the commit before executing
//    more (the original design), first waiting for any batches still with
//    the completer, so acknowledgements keep their submission order.
//  - kMergerAsync hands off whenever it executed any operation (the
//    "one-line change"): a writer arriving during the fsync finds the merger
//    free, not waiting.
// At most kMaxInFlight batches are with the completer (awaiting or being
// awaited); the merger waits for room, so memory and acknowledgement lag
// stay bounded.
//
// Never acknowledged before durable: the completer (or the merger, in sync
// completion) acknowledges an operation only after AwaitCommit returned for
// it. A failed AwaitCommit (fail-stop) fails every operation of the batch.
// counters().acks_before_durable checks this by count: at each
// acknowledgement of a landed operation (kDurable only) the journal's
// durable LSN must already cover its LSN.
//
// Threads: callers block in Submit on their own Op (SubmitAsync's Op is
// the merger's, freed at its acknowledgement); mu_ guards the queue,
// the hand-off list and the stop flags, never held across I/O or LandRows.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <thread>
#include <vector>

#include "engine/src/base/mutex.h"
#include "engine/src/base/thread_annotations.h"
#include "fenec/database.h"

namespace fenec {

class DbImpl;
struct CommitTicket;
namespace journal {
class GroupCommit;
}

struct MergerCounters {
  uint64_t batches = 0;          // batches executed
  uint64_t ops = 0;              // operations executed (puts and batches, each one)
  uint64_t async_completions = 0;  // batches handed to the completer (merger went on)
  uint64_t self_completions = 0;   // batches the merger completed itself (kMergerSync, nothing queued)
  uint64_t self_completions_with_work = 0;  // of them, ones during which more operations queued
  uint64_t acks = 0;             // operations acknowledged
  uint64_t acks_checked = 0;     // landed operations acknowledged with their durability checked (kDurable)
  uint64_t acks_before_durable = 0;  // of those, acknowledged before the durable LSN covered them: must be 0
};

class TxMerger {
 public:
  static constexpr size_t kMaxInFlight = 2;

  // gc: the database's group commit, read for the acks_before_durable check.
  // check_durable: the database is kDurable (kBuffered acknowledges unsynced).
  TxMerger(DbImpl* db, const journal::GroupCommit* gc, Completion mode, bool check_durable);
  ~TxMerger();  // Stop()
  TxMerger(const TxMerger&) = delete;
  TxMerger& operator=(const TxMerger&) = delete;

  // Executes one put or batch through the merger and returns once it is
  // acknowledged. Fails: as Database::PutBatch; kClosed once Stop began.
  Result<std::vector<DocId>> Submit(CollectionId collection, std::vector<Document> docs);
  // The same without waiting (Database::PutBatchAsync): done is called once,
  // by the merger or the completer thread, where Submit would have returned.
  void SubmitAsync(CollectionId collection, std::vector<Document> docs, Database::PutDone done);

  // Executes everything queued, completes everything in flight, joins both
  // threads. Later Submits fail with kClosed. Idempotent.
  void Stop();

  MergerCounters counters() const;
  void ResetCounters();

 private:
  struct Op;
  using Batch = std::vector<Op*>;

  void MergerLoop() FENEC_EXCLUDES(mu_);
  void CompleterLoop() FENEC_EXCLUDES(mu_);
  // Awaits every landed op's commit in order, then acknowledges the batch.
  // *work_waited (if given): whether operations were queued once the commits
  // were awaited, before the acknowledgements.
  void Complete(const Batch& batch, bool* work_waited = nullptr) FENEC_EXCLUDES(mu_);
  void Ack(Op* op);

  DbImpl* const db_;
  const journal::GroupCommit* const gc_;
  const Completion mode_;
  const bool check_durable_;

  mutable base::Mutex mu_;
  base::CondVar work_cv_;     // merger: an op was queued, or stop
  base::CondVar handoff_cv_;  // completer: a batch was handed over, or the merger ended
  base::CondVar room_cv_;     // merger: the completer finished a batch
  std::vector<Op*> queue_ FENEC_GUARDED_BY(mu_);    // submitted, not yet executed
  std::deque<Batch> handoff_ FENEC_GUARDED_BY(mu_);  // with the completer; front() is being completed
  bool stopping_ FENEC_GUARDED_BY(mu_) = false;
  bool merger_done_ FENEC_GUARDED_BY(mu_) = false;
  bool stopped_ FENEC_GUARDED_BY(mu_) = false;

  std::atomic<uint64_t> batches_{0}, ops_{0}, async_{0}, self_{0}, self_with_work_{0}, acks_{0}, acks_checked_{0},
      acks_early_{0};

  std::thread merger_;
  std::thread completer_;
};

}  // namespace fenec
