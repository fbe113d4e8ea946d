#include "engine/src/db/merger.h"

#include <memory>

#include "engine/src/db/db_impl.h"
#include "engine/src/journal/group_commit.h"

namespace fenec {
namespace {
constexpr auto kRelaxed = std::memory_order_relaxed;
}  // namespace

// A caller's operation, on the caller's stack until it is acknowledged.
struct TxMerger::Op {
  CollectionId collection;
  std::vector<Document> docs;
  CommitTicket ticket;
  Result<std::vector<DocId>> result{std::vector<DocId>{}};
  bool landed = false;  // LandRows succeeded: the ticket must be awaited before the ack
  Database::PutDone callback;  // SubmitAsync's: called at the ack, which then frees the Op
  // Set under mu with cv notified while mu is held, so the caller (which
  // returns, destroying the Op, only after re-taking mu) never races the ack.
  base::Mutex mu;
  base::CondVar cv;
  bool done FENEC_GUARDED_BY(mu) = false;
};

TxMerger::TxMerger(DbImpl* db, const journal::GroupCommit* gc, Completion mode, bool check_durable)
    : db_(db), gc_(gc), mode_(mode), check_durable_(check_durable) {
  merger_ = std::thread([this] { MergerLoop(); });
  completer_ = std::thread([this] { CompleterLoop(); });
}

TxMerger::~TxMerger() { Stop(); }

Result<std::vector<DocId>> TxMerger::Submit(CollectionId collection, std::vector<Document> docs) {
  Op op;
  op.collection = collection;
  op.docs = std::move(docs);
  {
    base::MutexLock lock(&mu_);
    if (stopping_) return Status::Closed();
    queue_.push_back(&op);
  }
  work_cv_.Signal();
  base::MutexLock lock(&op.mu);
  while (!op.done) op.cv.Wait(&op.mu);
  return std::move(op.result);
}

void TxMerger::SubmitAsync(CollectionId collection, std::vector<Document> docs, Database::PutDone done) {
  auto op = std::make_unique<Op>();
  op->collection = collection;
  op->docs = std::move(docs);
  op->callback = std::move(done);
  {
    base::MutexLock lock(&mu_);
    if (!stopping_) {
      queue_.push_back(op.release());
      lock.Unlock();
      work_cv_.Signal();
      return;
    }
  }
  op->callback(Status::Closed());
}

void TxMerger::Stop() {
  {
    base::MutexLock lock(&mu_);
    if (stopped_) return;
    stopped_ = true;
    stopping_ = true;
  }
  work_cv_.SignalAll();
  merger_.join();  // it executes what was queued first, and hands its last batch over
  {
    base::MutexLock lock(&mu_);
    merger_done_ = true;
  }
  handoff_cv_.SignalAll();
  completer_.join();
}

void TxMerger::MergerLoop() {
  Batch batch;
  for (;;) {
    batch.clear();
    {
      base::MutexLock lock(&mu_);
      while (queue_.empty() && !stopping_) work_cv_.Wait(&mu_);
      if (queue_.empty()) return;  // stopping, and nothing left to execute
      batch.swap(queue_);
    }
    bool any_landed = false;
    for (Op* op : batch) {
      // Each op is its own commit: its failure (a @unique clash, a bad
      // document, kFailStopped) is its own, and the others go on.
      op->result = db_->LandRows(op->collection, std::move(op->docs), &op->ticket);
      op->landed = op->result.ok();
      any_landed |= op->landed;
    }
    batches_.fetch_add(1, kRelaxed);
    ops_.fetch_add(batch.size(), kRelaxed);
    if (!any_landed) {  // nothing to make durable: the errors go back at once
      for (Op* op : batch) Ack(op);
      continue;
    }
    bool async = mode_ == Completion::kMergerAsync;
    base::MutexLock lock(&mu_);
    if (!async) async = !queue_.empty();  // kMergerSync: only if more work is already waiting
    if (!async) {
      // The merger completes this batch itself (the source's "before"). Its
      // acknowledgements must follow those of batches the completer still
      // holds, so it waits for them first; handing this one over instead
      // (whenever the completer is busy) is kMergerAsync's rule, not this arm's.
      while (!handoff_.empty()) room_cv_.Wait(&mu_);
      lock.Unlock();
      self_.fetch_add(1, kRelaxed);
      bool work_waited = false;
      Complete(batch, &work_waited);
      if (work_waited) self_with_work_.fetch_add(1, kRelaxed);
      continue;
    }
    while (handoff_.size() >= kMaxInFlight) room_cv_.Wait(&mu_);
    handoff_.push_back(std::move(batch));
    batch = Batch{};
    async_.fetch_add(1, kRelaxed);
    lock.Unlock();
    handoff_cv_.Signal();
  }
}

void TxMerger::CompleterLoop() {
  for (;;) {
    Batch* batch = nullptr;
    {
      base::MutexLock lock(&mu_);
      while (handoff_.empty() && !merger_done_) handoff_cv_.Wait(&mu_);
      if (handoff_.empty()) return;  // the merger has ended and handed over its last batch
      batch = &handoff_.front();     // stays in handoff_ (counted in flight) until acknowledged
    }
    Complete(*batch);
    {
      base::MutexLock lock(&mu_);
      handoff_.pop_front();
    }
    room_cv_.Signal();
  }
}

void TxMerger::Complete(const Batch& batch, bool* work_waited) {
  Status stop;
  for (Op* op : batch) {
    if (!op->landed) continue;
    // In landing order: after the first, these are mostly already durable
    // (one fsync covered the batch) and return at once. Each counts a commit.
    if (Status s = db_->AwaitCommit(op->ticket); !s.ok()) {
      stop = s;
      break;
    }
  }
  if (work_waited != nullptr) {
    // Before the acknowledgements: what queued while the commit was awaited
    // (after them, a writer's next put would count too).
    base::MutexLock lock(&mu_);
    *work_waited = !queue_.empty();
  }
  if (!stop.ok()) {
    // Fail-stop: the batch's fate on disk is unknown, so none of it is acknowledged as written.
    for (Op* op : batch) {
      if (op->landed) op->result = stop;
      op->landed = false;
    }
  }
  uint64_t durable = 0;
  if (check_durable_) durable = gc_->durable_lsn();  // monotonic: a later read only grows
  for (Op* op : batch) {
    if (check_durable_ && op->landed) {
      acks_checked_.fetch_add(1, kRelaxed);
      bool covered = durable >= op->ticket.lsn;
      for (const auto& [branch, lsn] : op->ticket.branches) covered &= branch->durable_lsn() >= lsn;
      if (!covered) acks_early_.fetch_add(1, kRelaxed);
    }
    Ack(op);
  }
}

void TxMerger::Ack(Op* op) {
  acks_.fetch_add(1, kRelaxed);
  if (op->callback) {
    std::unique_ptr<Op> own(op);
    Database::PutDone done = std::move(op->callback);
    Result<std::vector<DocId>> result = std::move(op->result);
    own.reset();  // its ticket's collection may go once answered
    try {
      done(std::move(result));
    } catch (...) {  // a callback that throws must not stop the merger
    }
    return;
  }
  base::MutexLock lock(&op->mu);
  op->done = true;
  op->cv.Signal();
}

MergerCounters TxMerger::counters() const {
  MergerCounters c;
  c.batches = batches_.load(kRelaxed);
  c.ops = ops_.load(kRelaxed);
  c.async_completions = async_.load(kRelaxed);
  c.self_completions = self_.load(kRelaxed);
  c.self_completions_with_work = self_with_work_.load(kRelaxed);
  c.acks = acks_.load(kRelaxed);
  c.acks_checked = acks_checked_.load(kRelaxed);
  c.acks_before_durable = acks_early_.load(kRelaxed);
  return c;
}

void TxMerger::ResetCounters() {
  for (auto* a : {&batches_, &ops_, &async_, &self_, &self_with_work_, &acks_, &acks_checked_, &acks_early_}) a->store(0, kRelaxed);
}

}  // namespace fenec
