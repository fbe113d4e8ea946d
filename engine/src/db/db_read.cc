// The read path: short reads under the shared lock; long reads pinned (CC-5)
// or, in the naive arm, under the shared lock for their whole length.
#include <fmt/format.h>

#include <algorithm>

#include "engine/src/db/db_impl.h"

namespace fenec {
namespace {
constexpr auto kRelaxed = std::memory_order_relaxed;

// NoWaitReads' state: how many scopes are open on this thread, and how many
// reads it has been refused (a scope reads the difference).
thread_local int no_wait_depth = 0;
thread_local uint64_t no_wait_refused = 0;

// Takes lock shared: at once or not at all inside a NoWaitReads scope
// (counting the refusal), else waiting as any read.
bool LockForRead(RwLock& lock) FENEC_TRY_ACQUIRE_SHARED(true, lock) {
  if (no_wait_depth == 0) {
    lock.LockShared();
    return true;
  }
  if (lock.TryLockShared()) return true;
  ++no_wait_refused;
  return false;
}

Status Busy() { return Status::Busy("the database's lock is taken and this thread may not wait (NoWaitReads)"); }

}  // namespace

NoWaitReads::NoWaitReads() : busy_at_start_(no_wait_refused) { ++no_wait_depth; }
NoWaitReads::~NoWaitReads() { --no_wait_depth; }
uint64_t NoWaitReads::busy() const { return no_wait_refused - busy_at_start_; }

Status DbImpl::WriteState() const {
  if (closed_.load(std::memory_order_acquire)) return Status::Closed();
  if (Status s = fail_.Check(); !s.ok()) return s;  // an atomic while running; once stopped, the cause under its own short mutex
  if (!no_space_.load(std::memory_order_acquire)) return Status::OK();
  base::MutexLock lock(&no_space_mu_);
  return no_space_cause_;
}

CollectionState* DbImpl::Lookup(CollectionId c) const {
  CollectionState* s = collections_[c.value % kMaxCollections].get();
  return s != nullptr && s->id == c.value ? s : nullptr;
}

std::shared_ptr<CollectionState> DbImpl::Acquire(CollectionId c) const {
  std::shared_ptr<CollectionState> s = handles_[c.value % kMaxCollections].load(std::memory_order_acquire);
  if (s == nullptr || s->id != c.value) return nullptr;
  return s;
}

std::shared_ptr<const Schema> DbImpl::SchemaOf(CollectionId c) const {
  ReadLock lock(&lock_);
  const CollectionState* s = Lookup(c);
  return s ? s->schema : nullptr;
}

std::vector<CollectionState*> DbImpl::LiveLocked() const {
  std::vector<CollectionState*> out;
  out.reserve(live_collections_);
  for (uint32_t i = 0, end = slot_end_.load(kRelaxed); i < end; ++i)
    if (collections_[i]) out.push_back(collections_[i].get());
  std::sort(out.begin(), out.end(), [](const CollectionState* a, const CollectionState* b) { return a->id < b->id; });
  return out;
}

std::vector<std::shared_ptr<CollectionState>> DbImpl::LiveCollections() const {
  ReadLock lock(&lock_);
  std::vector<std::shared_ptr<CollectionState>> out;
  for (CollectionState* c : LiveLocked()) out.push_back(collections_[c->id % kMaxCollections]);
  return out;
}

CollectionView DbImpl::LiveView(const CollectionState* c) const {
  return {c->schema.get(), &c->index, c->index.size(), &rows_->buffers(), rows_->map()};
}

Result<CollectionId> DbImpl::FindCollection(const std::string& name) const {
  if (!LockForRead(lock_)) return Busy();
  ReadLock lock(&lock_, ReadLock::Adopt{});
  auto it = names_.find(name);
  if (it == names_.end()) return Status::NotFound(fmt::format("no collection '{}'", name));
  return CollectionId{it->second};
}

std::vector<std::string> DbImpl::ListCollections() const {
  ReadLock lock(&lock_);
  std::vector<std::string> out;
  for (const CollectionState* c : LiveLocked()) out.push_back(c->name);
  return out;
}

Result<Schema> DbImpl::GetSchema(CollectionId collection) const {
  // A short read like Get: inside NoWaitReads it never waits for the lock.
  if (!LockForRead(lock_)) return Busy();
  ReadLock lock(&lock_, ReadLock::Adopt{});
  const CollectionState* c = Lookup(collection);
  if (c == nullptr) return Status::NotFound(fmt::format("no collection with handle {}", collection.value));
  return *c->schema;
}

// Pins every collection (only == null) or one: each id index's chunks and
// the write buffers shared, nothing copied. Under the shared lock: one
// reference count per chunk and per buffer; no allocation grows with the
// rows (the per-collection slots are sized before the lock).
std::shared_ptr<const PinnedView> DbImpl::PinCollections(const CollectionState* only) const {
  auto view = std::make_shared<PinnedView>();
  view->owner = this;
  view->map = rows_->map();
  // By slot; sized outside the lock for all (one slot's worth for `only`).
  view->collections.resize(only ? only->id % kMaxCollections + 1 : slot_end_.load(kRelaxed));
  uint64_t t0 = RwLock::Now(), t1 = 0, t2 = 0;
  uint64_t rows = 0, chunks = 0;
  {
    ReadLock lock(&lock_);
    t1 = RwLock::Now();
    if (only != nullptr && Lookup(CollectionId{only->id}) != only) return nullptr;  // dropped
    const uint32_t from = only ? only->id % kMaxCollections : 0, to = only ? from + 1 : slot_end_.load(kRelaxed);
    if (to > view->collections.size()) view->collections.resize(to);  // created since: rare
    for (uint32_t i = from; i < to; ++i) {
      const CollectionState* c = collections_[i].get();
      if (c == nullptr) continue;
      PinnedView::Pinned& p = view->collections[i];
      p.pinned = true;
      p.id = c->id;
      p.schema = c->schema;
      p.index = c->index.Share();
      rows += c->index.size();
      chunks += c->index.chunks();
    }
    view->buffers = rows_->buffers();
    view->lsn_ = gc_->last_lsn();
    t2 = RwLock::Now();
  }
  stats_.Add(Stat::pins);
  stats_.Add(Stat::pin_ns, t2 - t0);
  stats_.Add(Stat::pin_wait_ns, t1 - t0);
  stats_.Add(Stat::pin_hold_ns, t2 - t1);
  stats_.Add(Stat::pinned_rows, rows);
  stats_.Add(Stat::pin_chunks_shared, chunks);
  stats_.Max(Stat::pin_max_ns, t2 - t0);
  stats_.Max(Stat::pin_hold_max_ns, t2 - t1);
  return view;
}

Result<std::shared_ptr<const Snapshot>> DbImpl::Pin() const {
  if (closed_.load(std::memory_order_acquire)) return Status::Closed();
  return std::shared_ptr<const Snapshot>(PinCollections(nullptr));
}

Result<CollectionView> DbImpl::SnapshotView(const ReadOptions& ro, CollectionId c) const {
  auto* view = dynamic_cast<const PinnedView*>(ro.snapshot.get());
  if (view == nullptr || view->owner != this) return Status::InvalidArgument("snapshot is not from this database");
  const uint32_t slot = c.value % kMaxCollections;
  if (slot >= view->collections.size() || !view->collections[slot].pinned || view->collections[slot].id != c.value)
    return Status::NotFound(fmt::format("collection {} is not in the snapshot", c.value));
  const PinnedView::Pinned& p = view->collections[slot];
  return CollectionView{p.schema.get(), &p.index, p.index.size(), &view->buffers, view->map};
}

Result<Document> DbImpl::Get(CollectionId collection, DocId id, const ReadOptions& ro) const {
  if (closed_.load(std::memory_order_acquire)) return Status::Closed();
  std::vector<uint8_t> bytes;
  std::shared_ptr<const Schema> schema;
  if (ro.snapshot) {
    // The pin alone answers: a collection dropped since is still in it.
    auto v = SnapshotView(ro, collection);
    if (!v.ok()) return v.status();
    if (id >= v->size || !(*v->entries)[id].present()) return Status::NotFound(fmt::format("no document {}", id));
    auto span = RowStore::Resolve((*v->entries)[id], *v->buffers, v->map);
    bytes.assign(span.begin(), span.end());
    auto* view = static_cast<const PinnedView*>(ro.snapshot.get());
    schema = view->collections[collection.value % kMaxCollections].schema;
  } else {
    // Only the copy of the row's bytes is made under the lock; decoding is not.
    if (!LockForRead(lock_)) return Busy();
    ReadLock lock(&lock_, ReadLock::Adopt{});
    const CollectionState* c = Lookup(collection);
    if (c == nullptr) return Status::NotFound(fmt::format("no collection with handle {}", collection.value));
    if (id >= c->index.size() || !c->index[id].present())
      return Status::NotFound(fmt::format("no document {} in '{}'", id, c->name));
    auto span = rows_->Resolve(c->index[id]);
    bytes.assign(span.begin(), span.end());
    schema = c->schema;
  }
  Document doc;
  if (Status s = DecodeRow(*schema, bytes, &doc); !s.ok()) return s;
  return doc;
}

Result<uint64_t> DbImpl::Count(CollectionId collection) const {
  if (closed_.load(std::memory_order_acquire)) return Status::Closed();
  if (!LockForRead(lock_)) return Busy();
  ReadLock lock(&lock_, ReadLock::Adopt{});
  const CollectionState* c = Lookup(collection);
  if (c == nullptr) return Status::NotFound(fmt::format("no collection with handle {}", collection.value));
  return c->live;
}

namespace {
// Rows a long read visits between looks at its deadline: a clock read per
// row would cost more than many rows' filters.
constexpr uint64_t kDeadlineStride = 256;

Status ReadExpired(const ReadOptions& ro) {
  if (ro.cancel != nullptr && ro.cancel->load(std::memory_order_relaxed)) return Status::TimedOut("the read was cancelled");
  if (ro.deadline != std::chrono::steady_clock::time_point{} && std::chrono::steady_clock::now() >= ro.deadline)
    return Status::TimedOut("the read's deadline passed");
  return Status::OK();
}
}  // namespace

Status DbImpl::ScanView(const CollectionView& v, const CompiledFilter& f, const ReadOptions& ro,
                        const std::function<bool(uint64_t, const std::vector<FieldRef>&)>& fn) const {
  std::vector<FieldRef> refs;
  for (uint64_t id = ro.after + 1, seen = 0; id < v.size; ++id) {
    if (seen++ % kDeadlineStride == 0)
      if (Status s = ReadExpired(ro); !s.ok()) return s;
    const IdEntry& e = (*v.entries)[id];
    if (!e.present()) continue;
    if (!DecodeFields(*v.schema, RowStore::Resolve(e, *v.buffers, v.map), &refs))
      return Status::Corruption(fmt::format("document {} does not decode", id));
    if (f.Matches(refs) && !fn(id, refs)) break;
  }
  return Status::OK();
}

bool DbImpl::IndexCandidates(const CollectionState* c, const CompiledFilter& f, std::vector<uint64_t>* ids) const {
  if (f.unique_eq() >= 0) {
    ids->clear();
    if (auto id = c->indexes->FindUnique(f.field_of(f.unique_eq()), f.constant_of(f.unique_eq()))) ids->push_back(*id);
    return true;
  }
  if (f.text_contains() >= 0) {
    *ids = c->indexes->TextQuery(f.field_of(f.text_contains()), f.constant_of(f.text_contains()).text());
    return true;
  }
  return false;
}

Status DbImpl::ScanRows(CollectionId collection, const Filter& filter, const ReadOptions& ro,
                        const std::function<bool(uint64_t, const std::vector<FieldRef>&)>& fn,
                        std::shared_ptr<const Schema>* schema) const {
  if (closed_.load(std::memory_order_acquire)) return Status::Closed();
  if (ro.snapshot) {
    auto v = SnapshotView(ro, collection);
    if (!v.ok()) return v.status();
    *schema = static_cast<const PinnedView*>(ro.snapshot.get())->collections[collection.value % kMaxCollections].schema;
    CompiledFilter f;
    if (Status s = CompiledFilter::Compile(**schema, filter, &f); !s.ok()) return s;
    return ScanView(*v, f, ro, fn);
  }
  std::shared_ptr<CollectionState> c = Acquire(collection);
  if (c == nullptr) return Status::NotFound(fmt::format("no collection with handle {}", collection.value));
  *schema = c->schema;
  CompiledFilter f;
  if (Status s = CompiledFilter::Compile(*c->schema, filter, &f); !s.ok()) return s;
  {
    // A read an index answers is short and stays under the lock: indexes
    // change in place, and copying one would cost more than the read.
    ReadLock lock(&lock_);
    if (c->dropped) return Status::NotFound(fmt::format("no collection with handle {}", collection.value));
    std::vector<uint64_t> ids;
    if (IndexCandidates(c.get(), f, &ids)) {
      std::vector<FieldRef> refs;
      uint64_t seen = 0;
      for (uint64_t id : ids) {
        if (id <= ro.after || id >= c->index.size() || !c->index[id].present()) continue;
        if (seen++ % kDeadlineStride == 0)
          if (Status s = ReadExpired(ro); !s.ok()) return s;
        if (!DecodeFields(*c->schema, rows_->Resolve(c->index[id]), &refs))
          return Status::Corruption(fmt::format("document {} does not decode", id));
        if (f.Matches(refs) && !fn(id, refs)) break;
      }
      return Status::OK();
    }
    if (options_.long_reads == LongReads::kUnderLock) return ScanView(LiveView(c.get()), f, ro, fn);
  }
  auto pinned = PinCollections(c.get());
  if (pinned == nullptr) return Status::NotFound(fmt::format("no collection with handle {}", collection.value));
  const PinnedView::Pinned& p = pinned->collections[c->id % kMaxCollections];
  return ScanView({p.schema.get(), &p.index, p.index.size(), &pinned->buffers, pinned->map}, f, ro, fn);
}

Result<std::vector<Row>> DbImpl::Scan(CollectionId collection, const Filter& filter, uint64_t limit,
                                      const ReadOptions& ro) const {
  std::vector<Row> out;
  std::shared_ptr<const Schema> schema;
  Status s = ScanRows(
      collection, filter, ro,
      [&](uint64_t id, const std::vector<FieldRef>& refs) {
        Row r{id, {}};
        r.doc.reserve(refs.size());
        for (size_t i = 0; i < refs.size(); ++i) r.doc.push_back(FieldToValue(schema->fields[i], refs[i]));
        out.push_back(std::move(r));
        return limit == 0 || out.size() < limit;
      },
      &schema);
  if (!s.ok()) return s;
  return out;
}

Status DbImpl::ScanEach(CollectionId collection, const Filter& filter, const ReadOptions& ro,
                        const std::function<bool(DocId, const Document&)>& fn) const {
  Document doc;
  std::shared_ptr<const Schema> schema;
  return ScanRows(
      collection, filter, ro,
      [&](uint64_t id, const std::vector<FieldRef>& refs) {
        doc.clear();
        doc.reserve(refs.size());
        for (size_t i = 0; i < refs.size(); ++i) doc.push_back(FieldToValue(schema->fields[i], refs[i]));
        return fn(id, doc);
      },
      &schema);
}

Result<AggregateResult> DbImpl::Aggregate(CollectionId collection, const std::string& field, const Filter& filter,
                                          const ReadOptions& ro) const {
  std::shared_ptr<const Schema> schema;
  if (ro.snapshot) {
    auto v = SnapshotView(ro, collection);
    if (!v.ok()) return v.status();
    schema = static_cast<const PinnedView*>(ro.snapshot.get())->collections[collection.value % kMaxCollections].schema;
  } else {
    schema = SchemaOf(collection);
  }
  if (schema == nullptr) return Status::NotFound(fmt::format("no collection with handle {}", collection.value));
  Aggregator agg;
  if (Status s = Aggregator::Make(*schema, field, &agg); !s.ok()) return s;
  std::shared_ptr<const Schema> used;
  Status s = ScanRows(
      collection, filter, ro,
      [&](uint64_t, const std::vector<FieldRef>& refs) {
        agg.Add(refs);
        return true;
      },
      &used);
  if (!s.ok()) return s;
  return agg.result();
}

Status DbImpl::Check() const {
  // The @hnsw graphs are compared with the rows once their queues are
  // empty. The wait happens unlocked (a checkpoint may hold a linker while
  // it needs the shared lock); a write that queues meanwhile means another
  // round. Writers that never pause leave the graphs unchecked.
  auto all_idle = [this]() FENEC_REQUIRES_SHARED(lock_) {
    for (const CollectionState* c : LiveLocked())
      for (const auto& vf : c->vectors)
        if (!vf->Idle()) return false;
    return true;
  };
  for (int round = 0;; ++round) {
    for (const auto& c : LiveCollections())
      for (const auto& vf : c->vectors) vf->WaitLinked();
    ReadLock lock(&lock_);
    const bool idle = all_idle();
    if (!idle && round < 100) continue;
    return CheckLocked(idle);
  }
}

Status DbImpl::CheckLocked(bool vectors) const {
  for (const CollectionState* c : LiveLocked()) {
    std::vector<std::pair<uint64_t, std::vector<FieldRef>>> rows;
    for (uint64_t id = 1; id < c->index.size(); ++id) {
      if (!c->index[id].present()) continue;
      std::vector<FieldRef> refs;
      if (!DecodeFields(*c->schema, rows_->Resolve(c->index[id]), &refs))
        return Status::Corruption(fmt::format("collection '{}': document {} does not decode", c->name, id));
      rows.emplace_back(id, std::move(refs));
    }
    if (rows.size() != c->live)
      return Status::Corruption(fmt::format("collection '{}': {} documents, count says {}", c->name, rows.size(), c->live));
    if (Status s = c->indexes->Verify(rows); !s.ok())
      return Status::Corruption(fmt::format("collection '{}': {}", c->name, s.message()));
    if (vectors)
      if (Status s = CheckVectors(c, rows); !s.ok())
        return Status::Corruption(fmt::format("collection '{}': {}", c->name, s.message()));
  }
  return Status::OK();
}

}  // namespace fenec
