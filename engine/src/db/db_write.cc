// The write path: prepare (no lock) -> land (write lock) -> write buffers,
// journal write + fsync (no lock) -> acknowledge.
#include <fmt/format.h>

#include <cerrno>
#include <exception>
#include <new>
#include <utility>

#include "engine/src/db/db_impl.h"
#include "engine/src/db/merger.h"
#include "engine/src/db/payload.h"
#include "engine/src/ring/global_ring.h"
#include "engine/src/base/coding.h"

namespace fenec {
namespace {

constexpr auto kRelaxed = std::memory_order_relaxed;

// A value as its field would read it back (ints given for floats become doubles).
FieldRef RefOf(const Field& field, const Value& v) {
  FieldRef r;
  if (v.is_null()) return r;
  r.present = true;
  switch (field.type) {
    case FieldType::kInt: r.i = v.int_value(); break;
    case FieldType::kFloat: r.f = v.as_double(); break;
    case FieldType::kBool: r.b = v.bool_value(); break;
    case FieldType::kText: r.text = v.text(); break;
    case FieldType::kVector: r.vec = reinterpret_cast<const uint8_t*>(v.vector().data()); break;
  }
  return r;
}

}  // namespace

Status DbImpl::WriteCheck() const {
  if (closed_.load(std::memory_order_acquire)) return Status::Closed();
  return fail_.Check();
}

// Only empty(), branch_fields() and Prepare() are called on it: they read
// the field lists FieldIndexes' constructor built, never the tables.
const FieldIndexes& DbImpl::IndexSet(const CollectionState* c) { return *c->indexes; }

Status DbImpl::Prepare(CollectionState* c, std::vector<Document>* docs, PreparedBatch* out) const {
  const Schema& schema = *c->schema;
  for (size_t i = 0; i < docs->size(); ++i) {
    if (Status s = schema.Check((*docs)[i]); !s.ok()) {
      if (docs->size() == 1) return s;
      return Status::InvalidArgument(fmt::format("document {} of the batch: {}", i, s.message()));
    }
  }
  // Measured before an id is taken or a byte built: a record recovery
  // would refuse is never written (fenec/limits.h).
  const uint64_t limit = options_.max_commit_bytes;
  auto what = [&] { return docs->size() == 1 ? std::string("the put") : fmt::format("the batch of {} documents", docs->size()); };
  uint64_t rows_bytes = 0;
  for (const Document& doc : *docs) {
    const size_t n = EncodedRowSize(schema, doc);
    rows_bytes += VarintSize(n) + n;
  }
  if (uint64_t least = PutPayloadSize(c->id, 1, docs->size(), rows_bytes); least > limit)
    return CommitTooLarge(what(), least, limit);
  out->coll = c;
  out->count = docs->size();
  out->first_id = c->next_id.fetch_add(docs->size(), std::memory_order_relaxed);
  // Refused after taking its ids (a longer id, an index record over the
  // limit): they go back unless another put took ids since. count 0: they
  // are no longer this batch's to give back (LandRows).
  auto refuse = [&](Status s) {
    uint64_t end = out->first_id + out->count;
    c->next_id.compare_exchange_strong(end, out->first_id, std::memory_order_relaxed);
    out->count = 0;
    return s;
  };
  const uint64_t root_bytes = PutPayloadSize(c->id, out->first_id, out->count, rows_bytes);
  if (root_bytes > limit) return refuse(CommitTooLarge(what(), root_bytes, limit));
  out->payload.clear();
  out->payload.reserve(root_bytes);
  out->row_spans.clear();
  EncodePutHeader(c->id, out->first_id, out->count, &out->payload);
  base::Bytes row;
  for (const Document& doc : *docs) {
    row.clear();
    EncodeRow(schema, doc, &row);
    base::PutVarint(&out->payload, row.size());
    out->row_spans.emplace_back(static_cast<uint32_t>(out->payload.size()), static_cast<uint32_t>(row.size()));
    base::PutBytes(&out->payload, row);
  }
  const FieldIndexes& index_set = IndexSet(c);
  if (!index_set.empty()) {
    std::vector<std::vector<FieldRef>> refs(docs->size());
    for (size_t i = 0; i < docs->size(); ++i) {
      refs[i].reserve(schema.fields.size());
      for (size_t f = 0; f < schema.fields.size(); ++f) refs[i].push_back(RefOf(schema.fields[f], (*docs)[i][f]));
    }
    index_set.Prepare(refs, out->first_id, &out->idx);
    // JR-1: each branch's record, built here outside the lock like the rest.
    std::vector<FieldIndexes::BranchField> bf = index_set.branch_fields();
    out->branch_payloads.resize(bf.size());
    for (size_t k = 0; k < bf.size(); ++k) {
      const Field& field = schema.fields[bf[k].field];
      size_t n = 0;
      for (const auto& r : refs) n += r[bf[k].field].present;
      BeginBranchRecord(n, &out->branch_payloads[k]);
      for (size_t i = 0; i < refs.size(); ++i) {
        const FieldRef& ref = refs[i][bf[k].field];
        if (ref.present)
          AddBranchPut(out->first_id + i, FieldIndexes::BranchValue(field, bf[k], ref), &out->branch_payloads[k]);
      }
      // An index's record can outgrow the root's (ids, small rows): it must fit too.
      if (const uint64_t bytes = out->branch_payloads[k].size(); bytes > limit)
        return refuse(CommitTooLarge(fmt::format("{} (the index on '{}')", what(), field.name), bytes, limit));
    }
    // The vectors each @hnsw field's linker gets once the rows have landed.
    out->vector_blocks.clear();
    for (int f : index_set.hnsw_fields()) {
      auto block = std::make_shared<VectorBlock>();
      for (size_t i = 0; i < docs->size(); ++i) {
        const Value& v = (*docs)[i][f];
        if (v.is_null()) continue;
        block->ids.push_back(out->first_id + i);
        block->vectors.insert(block->vectors.end(), v.vector().begin(), v.vector().end());
      }
      out->vector_blocks.push_back(block->ids.empty() ? nullptr : std::move(block));
    }
  }
  return Status::OK();
}

void DbImpl::HandoverPiece(BufferList* retired) {
  if (!rows_->handover_pending()) return;
  size_t n = rows_->Handover(
      options_.handover_piece,
      // Called by Handover, here, under the write lock.
      [this](uint32_t coll, uint64_t id) FENEC_REQUIRES(lock_) -> IdEntry* {
        CollectionState* c = Lookup(CollectionId{coll});
        if (c == nullptr || id >= c->index.size()) return nullptr;  // dropped: its rows are no one's
        // Read first: an entry with nothing to hand over must not copy a pinned chunk.
        const IdEntry& e = std::as_const(c->index)[id];
        if (!e.present() || !e.in_buffer()) return nullptr;
        return &c->index.Mut(id);
      },
      retired);
  stats_.Add(Stat::handover_pieces);
  stats_.Add(Stat::handover_entries, n);
}

Status DbImpl::Land(PreparedBatch* b, CommitTicket* t, BufferList* sealed, BufferList* retired,
                    std::optional<uint64_t>* await_capture, RoomNeed* room) {
  if (Status s = fail_.Check(); !s.ok()) return s;
  HandoverPiece(retired);
  CollectionState* c = b->coll;
  if (!c->indexes->empty()) {
    if (Status s = c->indexes->Check(b->idx); !s.ok()) return s;
  }
  // Replay counts the ids this record skips past the collection's end
  // (ApplyRecord); records land in journal order, so this count is its.
  if (OwesIdGapCheckpoint(*b)) {
    // The next checkpoint starts replay at or past this record's first
    // id, so the record skips nothing after it.
    id_floors_.emplace_back(c->id, b->first_id);
    *await_capture = checkpoint_captures_;
    return Status::OK();
  }
  uint64_t row_bytes = 0;
  for (const auto& span : b->row_spans) row_bytes += span.second;
  const bool unsynced = options_.durability != Durability::kDurable;
  if (!TakeRoom(c, b->payload.size(), b->branch_payloads, row_bytes, unsynced, room)) return Status::OK();
  if (b->first_id > c->index.size()) replay_id_gap_ += b->first_id - c->index.size();
  if (!c->indexes->empty()) c->indexes->Apply(b->idx);
  uint64_t end = b->first_id + b->count;
  if (c->index.size() < end) c->index.resize(end);
  for (size_t i = 0; i < b->count; ++i) {
    auto [at, len] = b->row_spans[i];
    c->index.Mut(b->first_id + i) = rows_->Land(c->id, b->first_id + i, std::span(b->payload).subspan(at, len), sealed);
  }
  c->live += b->count;
  AppendCommit(c, b->payload, &b->branch_payloads, t);
  if (options_.durability != Durability::kDurable) ReserveIds(c, end, t);
  // Visible by id now; the graph links them later, outside the lock, and a
  // NEAR meanwhile finds them in the queue.
  for (size_t k = 0; k < c->vectors.size(); ++k) c->vectors[k]->Enqueue(std::move(b->vector_blocks[k]), b->count);
  return Status::OK();
}

bool DbImpl::OwesIdGapCheckpoint(const PreparedBatch& b) const {
  const CollectionState* c = b.coll;
  return b.first_id > c->index.size() && replay_id_gap_ + (b.first_id - c->index.size()) > MaxReplayIdGap();
}

Status DbImpl::WriteSealed(const BufferList& sealed, bool under_lock) {
  for (const auto& buf : sealed) {
    // GR-5: no write waits for the periodic fsync; the syncer writes it once its fsync is done.
    if (options_.durability == Durability::kBuffered && gc_->periodic_sync_active()) {
      base::MutexLock lock(&deferred_mu_);
      deferred_.push_back(buf);
      gc_->CountDeferred();
      continue;
    }
    if (Status s = FlushBuffer(buf); !s.ok()) {
      Status stop = fail_.Trip(s);
      rows_->NotifyWritten();
      return stop;
    }
    stats_.Add(Stat::buffer_flushes);
    if (under_lock) stats_.Add(Stat::buffer_flushes_under_lock);
    // Room kept ahead of the rows landing, so a put rarely waits for it; a
    // full disk here refuses nothing (the next put that lacks room is refused).
    (void)storage_->MakeDataRoom(buf->base + buf->capacity + Storage::kDataRoomAhead / 2);
  }
  return Status::OK();
}

Status DbImpl::FlushBuffer(const std::shared_ptr<WriteBuffer>& buf) {
  // IO-6/JR-3: handed to the process's one ring, written at BE/7 behind the
  // journal's writes; the committer goes on. The buffer stays readable in
  // memory until the ring's completion marks it written (then handover).
  if (options_.data_flush == DataFlush::kGlobalRing && storage_->data_fd() >= 0 &&
      ring::GlobalRing().status().ok()) {
    if (!RowStore::Claim(buf.get())) return Status::OK();
    {
      base::MutexLock lock(&ring_mu_);
      ++ring_inflight_;
    }
    storage_->CountRingWrite(buf->size);
    ring::GlobalRing().Flush(
        storage_->data_fd(), {ring::Page{buf->base, buf->bytes.get(), static_cast<uint32_t>(buf->size)}},
        [this, buf](const ring::FlushResult& r) {
          if (r.error != 0) fail_.Trip(Status::IOError("ring write", storage_->folder() + "/data.fdb", -r.error));
          rows_->Completed(buf.get(), r.error == 0);
          if (r.error != 0) rows_->NotifyWritten();
          stats_.Add(Stat::ring_flushes);
          base::MutexLock lock(&ring_mu_);
          if (--ring_inflight_ == 0) ring_cv_.SignalAll();
        });
    return Status::OK();
  }
  return rows_->Write(storage_.get(), buf.get());
}

void DbImpl::DrainRing() {
  base::MutexLock lock(&ring_mu_);
  while (ring_inflight_ != 0) ring_cv_.Wait(&ring_mu_);
}

void DbImpl::WriteDeferred() {
  BufferList todo;
  {
    base::MutexLock lock(&deferred_mu_);
    todo.swap(deferred_);
  }
  for (const auto& buf : todo) {
    if (Status s = FlushBuffer(buf); !s.ok()) {
      fail_.Trip(s);
      rows_->NotifyWritten();
      return;
    }
    stats_.Add(Stat::buffer_flushes);
  }
}

Status DbImpl::AwaitCommit(const CommitTicket& t, bool may_write) {
  if (Status s = gc_->AwaitDurable(t.lsn, nullptr, may_write); !s.ok()) return s;
  for (const auto& [gc, lsn] : t.branches)
    if (Status s = gc->AwaitDurable(lsn, nullptr, may_write); !s.ok()) return s;
  if (t.ids_lsn != 0) {
    bool waited = false;
    if (Status s = gc_->AwaitSynced(t.ids_lsn, may_write, &waited); !s.ok()) return s;
    if (waited) {
      stats_.Add(Stat::id_reservation_waits);
      // The disk is slow for this put rate: reserve further ahead (db_impl.h).
      if (t.keep) {
        uint64_t step = t.keep->ids_step.load(std::memory_order_relaxed);
        if (step < kMaxIdsReservedAhead) t.keep->ids_step.compare_exchange_strong(step, step * 2);
      }
    }
  }
  stats_.Add(Stat::commits);
  return Status::OK();
}

Status DbImpl::FinishCommit(const CommitTicket& t, const BufferList& sealed) {
  Status written = WriteSealed(sealed, false);
  if (Status s = AwaitCommit(t); !s.ok()) return s;
  return written;
}

Result<std::vector<DocId>> DbImpl::PutRows(CollectionId collection, std::vector<Document> docs) {
  if (merger_) return merger_->Submit(collection, std::move(docs));  // JR-2
  CommitTicket t;
  auto ids = LandRows(collection, std::move(docs), &t);
  if (!ids.ok()) return ids;
  if (Status s = AwaitCommit(t); !s.ok()) return s;
  return ids;
}

Result<std::vector<DocId>> DbImpl::LandRows(CollectionId collection, std::vector<Document> docs, CommitTicket* t) {
  return LandRowsInto(collection, &docs, t, nullptr);
}

namespace {
Status WouldWait(const char* what) {
  return Status::Busy(fmt::format("the put would wait for {} (TryPutBatchAsync): nothing landed", what));
}
}  // namespace

Result<std::vector<DocId>> DbImpl::LandRowsInto(CollectionId collection, std::vector<Document>* docs_in,
                                                CommitTicket* t, BufferList* sealed_out) {
  const bool no_wait = sealed_out != nullptr;
  std::vector<Document>& docs = *docs_in;
  if (Status s = WriteCheck(); !s.ok()) return s;
  std::shared_ptr<CollectionState> keep = Acquire(collection);
  CollectionState* c = keep.get();
  if (c == nullptr) return Status::NotFound(fmt::format("no collection with handle {}", collection.value));
  if (docs.empty()) return std::vector<DocId>{};
  // No-wait prepares under the lock it got at once: a refusal then has
  // taken no ids, so a retry elsewhere leaves no gap in them.
  const bool outside = !no_wait && options_.batch_build == BatchBuild::kOutsideLock;
  PreparedBatch b;
  if (outside) {
    // Nothing has landed yet: running out of memory building the rows is
    // this write's failure alone.
    try {
      if (Status s = Prepare(c, &docs, &b); !s.ok()) return s;
    } catch (const std::bad_alloc&) {
      return Status::IOError("build rows", c->name, ENOMEM);
    }
  }
  // Room in each @hnsw queue, waited for here, never under the write lock.
  // Land gives it back (Enqueue); a write that fails before landing releases it.
  const size_t count = docs.size();
  for (size_t k = 0; k < c->vectors.size(); ++k) {
    if (!no_wait) {
      c->vectors[k]->Reserve(count);
    } else if (!c->vectors[k]->TryReserve(count)) {
      for (size_t j = 0; j < k; ++j) c->vectors[j]->Release(count);
      return WouldWait("room in an @hnsw queue");
    }
  }
  BufferList sealed, retired;  // retired: freed when this function returns, after the lock
  Status landed;
  bool enqueued = false, prepared = outside;
  for (;;) {
    std::optional<uint64_t> await_capture;  // set: the record waits for a checkpoint (Land)
    RoomNeed room;                          // wanted: the record waits for room (Land)
    auto land = [&]() FENEC_REQUIRES(lock_) {
      if (c->dropped) landed = Status::NotFound(fmt::format("no collection with handle {}", collection.value));
      if (landed.ok() && !prepared) {
        prepared = true;
        try {
          landed = Prepare(c, &docs, &b);
        } catch (const std::bad_alloc&) {
          landed = Status::IOError("build rows", c->name, ENOMEM);  // nothing landed: this write's failure alone
        }
      }
      if (landed.ok() && no_wait && OwesIdGapCheckpoint(b)) {
        landed = WouldWait("a checkpoint");  // its ids go back below, as a failed prepare's
        return;
      }
      if (landed.ok()) landed = Land(&b, t, &sealed, &retired, &await_capture, &room);
      if (!await_capture && !room.wanted) {
        enqueued = landed.ok();
        if (landed.ok() && options_.commit_mode == CommitMode::kNaive) landed = CommitUnderLockAll(c);
        if (landed.ok() && options_.buffer_write == BufferWrite::kUnderLock) {
          landed = WriteSealed(sealed, true);
          sealed.clear();
        }
      }
    };
    try {
      if (!no_wait) {
        WriteLock lock(&lock_);
        land();
      } else if (lock_.TryLock()) {
        WriteLock lock(&lock_, WriteLock::Adopt{});
        land();
      } else {
        landed = WouldWait("the write lock");
      }
    } catch (const std::exception& e) {
      // Thrown while landing, the rows may be half in place: no write lands
      // after it until a reopen recovers what the journal holds.
      const int err = dynamic_cast<const std::bad_alloc*>(&e) != nullptr ? ENOMEM : ECANCELED;
      landed = fail_.Trip(Status::IOError(std::string("land rows: ") + e.what(), c->name, err));
      await_capture.reset();
    }
    // Spares taken under the lock (an id-index chunk, a write buffer) are
    // replaced here, their pages faulted in while no one waits on us.
    pool_->Refill();
    rows_->RefillSpare();
    if (room.wanted) {
      if (no_wait) {
        landed = WouldWait("room in the journal or the data file");
        break;
      }
      // A full disk refuses it here, before anything landed: its ids go back below.
      if (Status s = MakeRoom(room); !s.ok()) {
        landed = s;
        break;
      }
      continue;
    }
    if (!await_capture) break;
    // Replay would refuse the record: it lands after a checkpoint, never fails for it.
    if (Status s = CheckpointForIdGap(*await_capture); !s.ok()) {
      landed = s;
      break;
    }
  }
  if (!enqueued) {
    for (auto& vf : c->vectors) vf->Release(count);
    // Its ids go back unless another put took ids since: replay lets records
    // skip at most kMaxReplayIdGap ids in all, so failed batches must not
    // burn them needlessly. (count 0: none taken, or Prepare gave them back.)
    if (b.count > 0) {
      uint64_t end = b.first_id + b.count;
      c->next_id.compare_exchange_strong(end, b.first_id, std::memory_order_relaxed);
    }
  }
  if (!landed.ok()) {
    Status w = WriteSealed(sealed, false);  // rows already landed in them belong to other commits too
    (void)w;
    return landed;
  }
  t->keep = std::move(keep);
  if (no_wait) {
    *sealed_out = std::move(sealed);
  } else if (Status s = WriteSealed(sealed, false); !s.ok()) {
    return s;
  }
  std::vector<DocId> ids(b.count);
  for (size_t i = 0; i < b.count; ++i) ids[i] = b.first_id + i;
  return ids;
}

Status DbImpl::CheckpointForIdGap(uint64_t captures) {
  if (closed_.load(std::memory_order_acquire)) return Status::Closed();
  base::MutexLock ck(&checkpoint_mu_);
  if (checkpoint_committed_ > captures) return Status::OK();  // another put's, or anyone's, served it
  Status s = CheckpointNow();
  if (s.ok()) stats_.Add(Stat::id_gap_checkpoints);
  return s;
}

namespace {
std::atomic<uint64_t> max_replay_id_gap_for_testing{0};
}  // namespace

uint64_t DbImpl::MaxReplayIdGap() {
  const uint64_t gap = max_replay_id_gap_for_testing.load(kRelaxed);
  return gap != 0 ? gap : kMaxReplayIdGap;
}

void DbImpl::SetMaxReplayIdGapForTesting(uint64_t gap) { max_replay_id_gap_for_testing.store(gap, kRelaxed); }

Status DbImpl::BurnIdsForTesting(CollectionId collection, uint64_t n) {
  std::shared_ptr<CollectionState> c = Acquire(collection);
  if (c == nullptr) return Status::NotFound(fmt::format("no collection with handle {}", collection.value));
  c->next_id.fetch_add(n, kRelaxed);
  return Status::OK();
}

Result<DocId> DbImpl::Put(CollectionId collection, Document doc) {
  std::vector<Document> docs;
  docs.push_back(std::move(doc));
  auto r = PutRows(collection, std::move(docs));
  if (!r.ok()) return r.status();
  return r.value()[0];
}

Result<std::vector<DocId>> DbImpl::PutBatch(CollectionId collection, std::vector<Document> docs) {
  return PutRows(collection, std::move(docs));
}

Status DbImpl::Delete(CollectionId collection, DocId id) {
  if (Status s = WriteCheck(); !s.ok()) return s;
  base::Bytes payload;
  EncodeDelete(collection.value, id, &payload);
  CommitTicket t;
  BufferList retired;
  for (;;) {
    RoomNeed room;
    // Under the lock: the delete lands, or nothing changed (a refusal, or room wanted).
    auto land = [&]() FENEC_REQUIRES(lock_) -> Status {
      if (Status s = fail_.Check(); !s.ok()) return s;
      CollectionState* c = Lookup(collection);
      if (c == nullptr) return Status::NotFound(fmt::format("no collection with handle {}", collection.value));
      t.keep = collections_[collection.value % kMaxCollections];
      HandoverPiece(&retired);
      if (id >= c->index.size() || !c->index[id].present())
        return Status::NotFound(fmt::format("no document {} in '{}'", id, c->name));
      std::vector<base::Bytes> branch_payloads(c->branches.size());
      for (auto& bp : branch_payloads) {
        BeginBranchRecord(1, &bp);
        AddBranchErase(id, &bp);
      }
      if (!TakeRoom(c, payload.size(), branch_payloads, 0, false, &room)) return Status::OK();
      if (!c->indexes->empty()) {
        std::vector<FieldRef> refs;
        if (!DecodeFields(*c->schema, rows_->Resolve(c->index[id]), &refs)) {
          GiveBackRoom(c, payload.size(), branch_payloads, false);
          return Status::Corruption(fmt::format("document {} of '{}' does not decode", id, c->name));
        }
        c->indexes->Erase(id, refs);
        // A NEAR stops answering it at once (its row is gone); the graph
        // tombstones it when the linker reaches this erase.
        for (auto& vf : c->vectors) {
          if (!refs[vf->field()].present) continue;
          auto block = std::make_shared<VectorBlock>();
          block->erase = true;
          block->ids.push_back(id);
          vf->Enqueue(std::move(block), 0);
        }
      }
      c->index.Mut(id).len = 0;
      --c->live;
      AppendCommit(c, payload, &branch_payloads, &t);
      if (options_.commit_mode == CommitMode::kNaive) return CommitUnderLockAll(c);
      return Status::OK();
    };
    Status landed;
    {
      WriteLock lock(&lock_);
      landed = land();
    }
    if (!landed.ok()) return landed;
    if (!room.wanted) break;
    // A full disk refuses the delete here, before anything changed.
    if (Status s = MakeRoom(room); !s.ok()) return s;
  }
  pool_->Refill();
  return FinishCommit(t, {});
}

}  // namespace fenec
