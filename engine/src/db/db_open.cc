// Open and recovery, checkpoints, close, stats.
//
// Recovery: load the last checkpoint's catalog (collections, schemas, id
// indexes whose entries point into the data file), then replay every
// journal record after the checkpoint's LSN, landing rows exactly where the
// live run landed them (records carry their ids). Then each @unique and
// @text index is loaded from its own branch storage (JR-1, db/branch.h), or
// rebuilt from the rows if its branch is behind. A database that replayed
// anything, or rebuilt a branch, checkpoints at once, so the next open
// replays nothing twice.
//
// Catalog blob (written at each checkpoint, checksum in the superblock):
//   varint collections; per collection (ids ascending): varint id, string
//   name, schema, varint live, varint last_lsn (the last root LSN that
//   touched it), varint entries, entries x 12 bytes (offset lo, hi, length;
//   never an in-buffer entry: a checkpoint writes every buffer first); then
//   varint next collection id (ids below it were given; a catalog written
//   before DropCollection existed ends without it, its ids 0..n-1).
#include <fmt/format.h>

#include <cstdio>

#include "engine/src/db/db_impl.h"
#include "engine/src/db/async_commit.h"
#include "engine/src/db/merger.h"
#include "engine/src/db/payload.h"
#include "engine/src/journal/reader.h"
#include "engine/src/base/coding.h"

namespace fenec {
namespace {

constexpr auto kRelaxed = std::memory_order_relaxed;

}  // namespace

Result<std::unique_ptr<Database>> Database::Open(const std::string& folder, const Options& options) {
  if (Status s = ValidateOptions(options); !s.ok()) return s;
  Env* env = options.env ? options.env : Env::Default();
  std::unique_ptr<Storage> storage;
  if (Status s = Storage::Open(env, folder, options.create_if_missing, options.error_if_exists, options.storage_id,
                               &storage);
      !s.ok())
    return s;
  auto db = std::make_unique<DbImpl>(options, std::move(storage));
  if (Status s = db->Recover(); !s.ok()) {
    db->Close();
    return s;
  }
  return std::unique_ptr<Database>(std::move(db));
}

DbImpl::DbImpl(const Options& options, std::unique_ptr<Storage> storage)
    : options_(options), env_(options.env ? options.env : Env::Default()), storage_(std::move(storage)) {
  collections_.resize(kMaxCollections);
  handles_ = std::make_unique<std::atomic<std::shared_ptr<CollectionState>>[]>(kMaxCollections);
  lock_.set_probe(options_.probe_lock_holds);
  rows_ = std::make_unique<RowStore>(options_.write_buffer_bytes, storage_->superblock().data_end, storage_->map(),
                                     &stats_);
}

DbImpl::~DbImpl() { Close(); }

Result<std::shared_ptr<CollectionState>> DbImpl::MakeCollection(uint32_t id, const std::string& name,
                                                                const Schema& schema) const {
  auto c = std::make_shared<CollectionState>();
  c->id = id;
  c->name = name;
  c->schema = std::make_shared<const Schema>(schema);
  c->indexes = std::make_unique<FieldIndexes>(*c->schema);
  for (int f : IndexSet(c.get()).hnsw_fields()) {
    auto vf = VectorField::Create(c->schema->fields[f], f, options_.hnsw,
                                  BranchFolder(storage_->folder(), id, FieldIndexes::BranchField{f, false, true}));
    if (!vf.ok())
      return Status::InvalidArgument(fmt::format("collection '{}': @hnsw field '{}': {}", name,
                                                 c->schema->fields[f].name, vf.status().message()));
    c->vectors.push_back(std::move(vf).value());
  }
  c->index = IdIndex(pool_);
  c->index.resize(1);
  return c;
}

void DbImpl::Publish(std::shared_ptr<CollectionState> c) {
  const uint32_t slot = c->id % kMaxCollections;
  names_[c->name] = c->id;
  ++live_collections_;
  if (slot + 1 > slot_end_.load(kRelaxed)) slot_end_.store(slot + 1, kRelaxed);
  next_collection_id_ = std::max(next_collection_id_, c->id + 1);
  handles_[slot].store(c, std::memory_order_release);
  collections_[slot] = std::move(c);
}

void DbImpl::Unpublish(CollectionState* c) {
  const uint32_t slot = c->id % kMaxCollections;
  c->dropped = true;
  names_.erase(c->name);
  --live_collections_;
  handles_[slot].store(nullptr, std::memory_order_release);
  collections_[slot].reset();  // the caller holds a reference
}

uint32_t DbImpl::FreeCollectionId() const {
  uint32_t id = next_collection_id_;
  while (collections_[id % kMaxCollections]) ++id;
  return id;
}

Result<CollectionState*> DbImpl::AddCollection(uint32_t id, const std::string& name, const Schema& schema) {
  auto made = MakeCollection(id, name, schema);
  if (!made.ok()) return made.status();
  CollectionState* raw = made->get();
  Publish(std::move(made).value());
  return raw;
}

Status DbImpl::LoadCatalog() {
  std::vector<uint8_t> blob;
  if (Status s = storage_->ReadCatalog(&blob); !s.ok()) return s;
  if (blob.empty()) return Status::OK();
  base::ByteReader in(blob);
  uint64_t n = in.Varint();
  auto bad = [&] { return Status::Corruption("catalog does not parse", storage_->folder() + "/data.fdb"); };
  if (!in.ok() || n > kMaxCollections) return bad();
  const uint64_t data_end = storage_->superblock().data_end;
  for (uint64_t k = 0; k < n; ++k) {
    uint64_t id = in.Varint();
    std::string name(in.String());
    Schema schema;
    // Ascending ids, one a slot, one a name (a catalog of old: 0..n-1).
    if (!DecodeSchema(&in, &schema) || id > UINT32_MAX || id < next_collection_id_ ||
        collections_[id % kMaxCollections] || names_.count(name))
      return bad();
    auto added = AddCollection(id, name, schema);
    if (!added.ok()) return Status::Corruption(added.status().message(), storage_->folder() + "/data.fdb");
    CollectionState* c = *added;
    c->live = in.Varint();
    c->last_lsn = in.Varint();
    uint64_t entries = in.Varint();
    auto raw = in.Take(entries * sizeof(IdEntry));
    if (!in.ok() || entries == 0) return bad();
    c->index.resize(entries);
    uint64_t present = 0;  // must be the live count it claims: Check() compares them
    for (uint64_t i = 0; i < entries; ++i) {
      const uint8_t* p = raw.data() + i * 12;
      IdEntry& e = c->index.Mut(i);
      e.lo = base::LoadFixed32(p);
      e.hi = base::LoadFixed32(p + 4);
      e.len = base::LoadFixed32(p + 8);
      if (e.present() && (e.in_buffer() || e.offset() + e.len > data_end)) return bad();
      present += e.present();
    }
    if (present != c->live) return bad();
    c->next_id.store(entries, kRelaxed);
  }
  if (!in.done()) {
    uint64_t next = in.Varint();
    if (!in.ok() || next < next_collection_id_ || next > UINT32_MAX) return bad();
    next_collection_id_ = static_cast<uint32_t>(next);
  }
  return in.done() ? Status::OK() : bad();
}

Status DbImpl::ApplyRecord(uint64_t lsn, std::span<const uint8_t> payload) {
  DecodedPayload p;
  if (Status s = DecodePayload(payload, &p); !s.ok()) return s;
  if (p.kind == PayloadKind::kCreateCollection) {
    // Ids are given in ascending order, each to a free slot, while fewer
    // than kMaxCollections are live.
    if (p.collection < next_collection_id_ || collections_[p.collection % kMaxCollections] ||
        names_.count(p.name) || live_collections_ >= kMaxCollections)
      return Status::Corruption(fmt::format("journal: collection {} '{}' out of order", p.collection, p.name));
    auto added = AddCollection(p.collection, p.name, p.schema);
    if (!added.ok()) return Status::Corruption("journal: " + added.status().message());
    (*added)->last_lsn = lsn;
    return Status::OK();
  }
  CollectionState* c = Lookup(CollectionId{p.collection});
  if (c == nullptr) return Status::Corruption(fmt::format("journal: no collection {}", p.collection));
  if (p.kind == PayloadKind::kReserveIds) {
    // Ids below its end may have been acknowledged with records a crash
    // lost: none is given again. It follows the put that made it, so the
    // writer's bound holds against the ids landed so far (DbImpl::ReserveIds).
    // Not a change to the collection's rows: last_lsn stays (no branch has a record of it).
    if (p.first_id > c->index.size() + kMaxIdsReservedAhead)
      return Status::Corruption(fmt::format("journal: an id reservation to {} reaches past collection {}'s {} ids",
                                            p.first_id, p.collection, c->index.size()));
    if (c->index.size() < p.first_id) c->index.resize(p.first_id);
    if (c->next_id.load(kRelaxed) < p.first_id) c->next_id.store(p.first_id, kRelaxed);
    return Status::OK();
  }
  if (p.kind == PayloadKind::kDropCollection) {
    // Its branch folders, if the drop's removal never ran, go with the
    // other orphans once replay is done (RemoveOrphanBranches).
    Unpublish(c);
    return Status::OK();
  }
  c->last_lsn = lsn;
  // Indexes are loaded after replay, from their branches (or rebuilt from
  // the rows), so replay only lands and removes rows.
  const bool index = !recovering_ && !c->indexes->empty();
  if (p.kind == PayloadKind::kDelete) {
    uint64_t id = p.first_id;
    if (id >= c->index.size() || !c->index[id].present()) return Status::OK();
    std::vector<FieldRef> refs;
    if (index) {
      if (!DecodeFields(*c->schema, rows_->Resolve(c->index[id]), &refs))
        return Status::Corruption("journal: deleted row does not decode");
      c->indexes->Erase(id, refs);
    }
    c->index.Mut(id).len = 0;
    --c->live;
    return Status::OK();
  }
  if (p.first_id == 0) return Status::Corruption("journal: row id 0");
  // Ids come from a counter that starts at the catalog's end: a record whose
  // ids wrap, or that skips more ids than any run could have burned, is
  // damage, and must not become an index of that many entries.
  const uint64_t size = c->index.size();
  if (p.first_id > size && replay_id_gap_ + (p.first_id - size) > MaxReplayIdGap())
    return Status::Corruption(fmt::format("journal: row id {} skips past collection {}'s {} ids", p.first_id,
                                          p.collection, size));
  if (p.first_id > size) replay_id_gap_ += p.first_id - size;
  uint64_t end = p.first_id + p.rows.size();
  std::vector<std::vector<FieldRef>> refs(p.rows.size());
  for (size_t i = 0; i < p.rows.size(); ++i)
    if (!DecodeFields(*c->schema, p.rows[i], &refs[i])) return Status::Corruption("journal: row does not decode");
  if (index) {
    PreparedIndexes idx;
    c->indexes->Prepare(refs, p.first_id, &idx);
    if (Status s = c->indexes->Check(idx); !s.ok()) return Status::Corruption("journal: " + s.message());
    c->indexes->Apply(idx);
  }
  // Every put takes fresh ids from the counter, so a record landing on a
  // live document is damage: landing it would count the document twice.
  for (uint64_t id = p.first_id; id < std::min<uint64_t>(end, c->index.size()); ++id)
    if (c->index[id].present()) return Status::Corruption(fmt::format("journal: row id {} landed twice", id));
  if (c->index.size() < end) c->index.resize(end);
  BufferList sealed;
  for (size_t i = 0; i < p.rows.size(); ++i) c->index.Mut(p.first_id + i) = rows_->Land(c->id, p.first_id + i, p.rows[i], &sealed);
  c->live += p.rows.size();
  if (c->next_id.load(kRelaxed) < end) c->next_id.store(end, kRelaxed);
  for (const auto& b : sealed)
    if (Status s = rows_->Write(storage_.get(), b.get()); !s.ok()) return s;
  return Status::OK();
}

Status DbImpl::Recover() {
  uint64_t t0 = RwLock::Now();
  Status s = RecoverLocked();
  stats_.Set(Stat::recovery_ns, RwLock::Now() - t0);
  // Recovery held the write lock for the whole replay: that is recovery_ns,
  // not a hold any writer waited on.
  lock_.ResetCounters();
  pool_->ResetCounters();
  return s;
}

Status DbImpl::RecoverLocked() {
  journal::ReplayResult replay;
  bool dirty = false;
  {
    WriteLock lock(&lock_);  // nothing else can reach this database yet; taken for the invariants' sake
    recovering_ = true;
    if (Status s = LoadCatalog(); !s.ok()) return s;
    const Superblock& sb = storage_->superblock();
    Status s = journal::ReplayJournals(env_, storage_->journal_dir(), sb.storage_id, sb.checkpoint_lsn,
                                       // Called by ReplayJournals, here, under the write lock.
                                       [this](uint64_t lsn, std::span<const uint8_t> payload) FENEC_REQUIRES(lock_) {
                                         return ApplyRecord(lsn, payload);
                                       },
                                       &replay, options_.recovery);
    if (!s.ok()) return s;
    stats_.Set(Stat::recovered_records, replay.records);
    stats_.Set(Stat::recovery_discarded_bytes, replay.discarded_bytes);
    NoteDropped(storage_->folder(), storage_->journal_dir(), replay);
    jwriter_ = std::make_unique<journal::JournalWriter>(env_, storage_->journal_dir(), options_.journal_file_bytes,
                                                         options_.journal_zero_ahead);
    gc_ = std::make_unique<journal::GroupCommit>(jwriter_.get(), sb.storage_id, replay.last_lsn,
                                                 CommitPolicyOf(options_), &fail_);
    gc_->SetCommitWindow(options_.commit_window_us);
    gc_->EnableRoom();  // a full disk refuses a commit before it lands (db_room.cc)
    for (CollectionState* c : LiveLocked()) {
      if (c->indexes->empty()) continue;
      if (Status st = AttachBranches(c, /*recovering=*/true, replay.last_lsn, &dirty); !st.ok()) return st;
    }
    RemoveOrphanBranches();
    recovering_ = false;
  }
  if (Status s = StartLinkers(); !s.ok()) return s;
  // JR-2: the merger exists from here on, before anything else can put.
  if (options_.completion != Completion::kDirect)
    merger_ = std::make_unique<TxMerger>(this, gc_.get(), options_.completion,
                                         options_.durability == Durability::kDurable);
  else if (options_.commit_mode != CommitMode::kNaive)
    async_ = std::make_unique<AsyncCommits>(this, gc_.get(), &stats_, options_.durability == Durability::kDurable);
  if (options_.durability != Durability::kDurable)
    gc_->StartPeriodicSync(options_.sync_ms, [this] { WriteDeferred(); });
  // Point in time: the dropped files go aside once a checkpoint holds what was kept.
  if (replay.records > 0 || dirty || !set_aside_.empty()) {
    // On a full disk the folder opens with what it replayed; the next open
    // replays it again (the same records land the same ids and offsets).
    if (Status s = Checkpoint(); !s.ok() && !(s.IsNoSpace() && set_aside_.empty())) return s;
  }
  for (const auto& [dir, files] : set_aside_)
    if (Status s = journal::SetAsideDropped(env_, dir, files); !s.ok()) return s;
  set_aside_.clear();
  // Room before the first commit needs it (after the set-aside: the next
  // journal file may take a dropped one's name). On a full disk the folder
  // opens all the same, and writes are refused until space returns.
  if (Status s = gc_->MakeRoom(1); !s.ok() && !s.IsNoSpace()) return s;
  const BranchRefs refs = AllBranches();
  for (Branch* b : refs.branches)
    if (b->gc)
      if (Status s = b->gc->MakeRoom(1); !s.ok() && !s.IsNoSpace()) return s;
  uint64_t data_end = 0;
  {
    ReadLock lock(&lock_);
    data_end = rows_->data_end();
  }
  if (Status s = storage_->MakeDataRoom(data_end + 1); !s.ok() && !s.IsNoSpace()) return s;
  if (options_.durability != Durability::kDurable) return ReserveIdsAtOpen();
  return Status::OK();
}

void DbImpl::NoteDropped(const std::string& folder, const std::string& journal_dir,
                         const journal::ReplayResult& r) {
  if (r.set_aside.empty()) return;
  stats_.Add(Stat::recovery_dropped_records, r.records_after);
  stats_.Add(Stat::recovery_dropped_bytes, r.bytes_after);
  set_aside_.emplace_back(journal_dir, r.set_aside);
  std::fprintf(stderr,
               "fenecdb: point-in-time recovery of %s: %s; dropped from LSN %llu on: %llu records, %llu bytes "
               "(%zu journal files set aside as .dropped)\n",
               folder.c_str(), r.stop.c_str(), static_cast<unsigned long long>(r.need_lsn),
               static_cast<unsigned long long>(r.records_after), static_cast<unsigned long long>(r.bytes_after),
               r.set_aside.size());
}

void DbImpl::EncodeCatalog(base::Bytes* out, bool closing) const {
  const std::vector<CollectionState*> live = LiveLocked();
  base::PutVarint(out, live.size());
  for (const CollectionState* c : live) {
    base::PutVarint(out, c->id);
    base::PutString(out, c->name);
    EncodeSchema(*c->schema, out);
    base::PutVarint(out, c->live);
    base::PutVarint(out, c->last_lsn);
    // Past the index: absent ids up to a put's asked floor (Land) and, but
    // at close, up to the ids reserved (ReserveIds), zeros: replay from
    // here starts past any id a lost record could have acknowledged.
    uint64_t entries = c->index.size();
    for (const auto& [coll, floor] : id_floors_)
      if (coll == c->id) entries = std::max<uint64_t>(entries, floor);
    if (!closing) entries = std::max(entries, c->ids_reserved);
    base::PutVarint(out, entries);
    size_t at = out->size();
    out->resize(at + entries * 12);
    uint8_t* p = out->data() + at;
    for (uint64_t id = 0; id < c->index.size(); ++id) {
      const IdEntry& e = c->index[id];
      IdEntry f;
      if (e.present()) f.set(e.offset(), e.len);  // every buffer is written before the catalog is read
      for (uint32_t v : {f.lo, f.hi, f.len}) {
        for (int b = 0; b < 4; ++b) *p++ = static_cast<uint8_t>(v >> (8 * b));
      }
    }
  }
  base::PutVarint(out, next_collection_id_);
}

Status DbImpl::CheckpointNow(bool closing) {
  base::Bytes catalog;
  BufferList to_write;
  uint64_t lsn = 0, catalog_at = 0, data_end = 0;
  std::vector<BranchCheckpoint> branches;
  BufferList buffers;  // the rows as of the capture, for the branches' catalogs
  uint64_t capture = 0, id_gap = 0;
  std::vector<std::pair<uint32_t, uint64_t>> id_floors;
  {
    WriteLock lock(&lock_);
    if (Status s = fail_.Check(); !s.ok()) return s;
    // What replay from this checkpoint will not count (Land's id gap).
    capture = ++checkpoint_captures_;
    id_gap = replay_id_gap_;
    id_floors = id_floors_;
    rows_->SealCurrent();
    for (const auto& b : rows_->buffers())
      if (b->sealed) to_write.push_back(b);
    EncodeCatalog(&catalog, closing);
    lsn = gc_->last_lsn();
    catalog_at = rows_->Reserve(catalog.size());
    data_end = rows_->data_end();
    CaptureBranches(&branches);
    if (!branches.empty()) buffers = rows_->buffers();
  }
  // The capture held each @hnsw linker at its mark; however the checkpoint
  // ends, none stays held (Unhold is idempotent).
  struct Unholder {
    std::vector<BranchCheckpoint>* todo;
    ~Unholder() {
      for (BranchCheckpoint& ck : *todo)
        for (VectorField* vf : ck.held) vf->Unhold();
    }
  } unholder{&branches};
  for (const auto& b : to_write) {
    if (Status s = rows_->Write(storage_.get(), b.get()); !s.ok()) {
      rows_->NotifyWritten();
      return fail_.Trip(s);
    }
  }
  rows_->WaitWritten(to_write, [this] { return fail_.stopped(); });
  if (Status s = fail_.Check(); !s.ok()) return s;
  if (Status s = gc_->SyncAll(); !s.ok()) return s;  // the journal never lags the data file
  // A full disk refuses the catalog's write: nothing of this checkpoint is
  // committed (the superblock is written last), the journals stay, and a
  // later checkpoint tries again. Any other failure stops writes.
  if (Status s = storage_->CommitCheckpoint(lsn, catalog_at, catalog, data_end); !s.ok())
    return s.IsNoSpace() ? s : fail_.Trip(s);
  checkpoint_committed_ = capture;
  if (id_gap > 0 || !id_floors.empty()) {
    // Replay starts here now: the ids skipped before the capture no longer
    // count, and each collection's index reaches its floor as the catalog's did.
    WriteLock lock(&lock_);
    replay_id_gap_ -= id_gap;
    // A collection dropped since has no index to grow and its floors go.
    for (const auto& [coll, floor] : id_floors) {
      CollectionState* c = Lookup(CollectionId{coll});
      if (c != nullptr && c->index.size() < floor) c->index.resize(floor);
    }
    std::erase_if(id_floors_, [this](const std::pair<uint32_t, uint64_t>& f) FENEC_REQUIRES(lock_) {
      const CollectionState* c = Lookup(CollectionId{f.first});
      return c == nullptr || f.second <= c->index.size();
    });
  }
  gc_->RequestRotation();
  uint64_t deleted = 0;
  if (Status s = storage_->DeleteJournalsThrough(lsn, &deleted); !s.ok()) return fail_.Trip(s);
  if (Status s = CheckpointBranches(branches, buffers, lsn); !s.ok()) return s;
  stats_.Add(Stat::checkpoints);
  return Status::OK();
}

Status DbImpl::Checkpoint() {
  if (closed_.load(std::memory_order_acquire)) return Status::Closed();
  base::MutexLock ck(&checkpoint_mu_);
  return CheckpointNow();
}

Status DbImpl::Sync() {
  if (closed_.load(std::memory_order_acquire)) return Status::Closed();
  return gc_->SyncAll();
}

Status DbImpl::Close() {
  if (closed_.exchange(true)) return Status::OK();
  if (!gc_) return Status::OK();  // recovery never got as far as the journal
  // JR-2: what the merger holds is executed (kClosed now) or completed before the journal's last sync.
  if (merger_) merger_->Stop();
  if (async_) async_->Stop();  // every PutBatchAsync answered before the journal's last sync
  // Every landed vector linked before the last checkpoint, so the next open
  // loads whole graphs and applies no tail.
  const std::vector<std::shared_ptr<CollectionState>> live = LiveCollections();
  for (const auto& c : live)
    for (auto& vf : c->vectors) vf->WaitLinked();
  gc_->StopPeriodicSync();
  StopBranchSyncers();
  Status s = fail_.Check();
  if (s.ok()) s = gc_->SyncAll();
  if (s.ok()) s = SyncBranches();
  if (s.ok() && options_.checkpoint_on_close) {
    base::MutexLock ck(&checkpoint_mu_);
    s = CheckpointNow(/*closing=*/true);
  }
  DrainRing();
  for (const auto& c : live)
    for (auto& vf : c->vectors) vf->StopLinker();
  jwriter_->Close();
  BranchRefs refs = AllBranches();
  for (Branch* b : refs.branches)
    if (b->writer) b->writer->Close();
  return s;
}

Stats DbImpl::GetStats() const {
  // The counters kept in StatCounters come whole (stats_, the root's group
  // commit); the subsystems with counters of their own are mapped below.
  Stats st = stats_.Snapshot();
  if (gc_) gc_->AddCountersTo(&st);
  StorageCounters d = storage_->counters();
  LockCounters l = lock_.counters();
  st.data_fsyncs = d.data_syncs;
  st.data_writes = d.data_writes;
  st.bytes_written += d.data_bytes;
  st.durable_lsn = gc_ ? gc_->durable_lsn() : 0;
  st.commit_window_ns = gc_ ? gc_->commit_window_ns() : 0;
  st.last_lsn = gc_ ? gc_->last_lsn() : 0;
  st.write_lock_acquisitions = l.acquisitions;
  st.write_lock_wait_ns = l.wait_ns;
  st.write_lock_wait_max_ns = l.wait_max_ns;
  st.write_lock_hold_ns = l.hold_ns;
  st.write_lock_hold_max_ns = l.hold_max_ns;
  st.write_lock_holds_over_1ms = l.holds_over_1ms;
  st.write_lock_handovers = l.handovers;
  st.write_lock_contended = l.contended;
  st.write_lock_hold_cpu_ns = l.hold_cpu_ns;
  st.write_lock_hold_cpu_max_ns = l.hold_cpu_max_ns;
  st.write_lock_longest_hold_cpu_ns = l.longest_hold_cpu_ns;
  st.write_lock_hold_faults = l.hold_faults;
  st.write_lock_longest_hold_faults = l.longest_hold_faults;
  st.write_lock_hold_preemptions = l.hold_preemptions;
  st.write_lock_longest_hold_preemptions = l.longest_hold_preemptions;
  ChunkPool::Counters pc = pool_->counters();
  st.id_chunks_copied = pc.copied;
  st.id_chunks_prefaulted = pc.prefaulted;
  st.id_chunks_fresh_under_lock = pc.taken_fresh;
  if (merger_) {  // JR-2
    MergerCounters m = merger_->counters();
    st.merger_batches = m.batches;
    st.merger_ops = m.ops;
    st.merger_async_completions = m.async_completions;
    st.merger_self_completions = m.self_completions;
    st.merger_self_completions_with_work = m.self_completions_with_work;
  }
  {
    // Decided under the write lock by the first collection created, which
    // may be running now: read under the lock (it was read without it).
    ReadLock lock(&lock_);
    st.journals_shared = shared_journals_ == 1;
  }
  BranchRefs refs = AllBranches();
  for (const Branch* b : refs.branches) {
    ++st.branches;
    if (!b->gc) continue;
    // A branch's own journal (kSeparate) counts under the root's names.
    const Stats bc = b->gc->counters();
    st.branch_journal_writes += bc.journal_writes;
    st.branch_journal_fsyncs += bc.journal_fsyncs;
    st.bytes_written += bc.bytes_written;
    st.journal_zero_bytes += bc.journal_zero_bytes;
  }
  st.fsyncs = st.journal_fsyncs + st.data_fsyncs + st.branch_journal_fsyncs;
  for (const auto& c : LiveCollections()) {
    for (const auto& vf : c->vectors) {
      VectorFieldStats v = vf->stats();
      ++st.vector_indexes;
      st.vector_nodes += v.index.nodes;
      st.vector_owners += v.index.owners;
      st.vector_tombstones += v.index.tombstones;
      st.vector_pending += v.pending;
      st.vector_queue_waits += v.queue_waits;
      st.vector_linked += v.linked;
      st.vector_link_batches += v.link_batches;
      st.vector_prelink_edges_added += v.index.prelink_edges_added;
      st.vector_prelink_edges_pruned += v.index.prelink_edges_pruned;
      st.vector_rounds += v.index.rounds;
      st.vector_round_distances += v.index.round_distances_total;
      st.vector_round_distances_max = std::max(st.vector_round_distances_max, v.index.round_distances_max);
      st.vector_preloaded += v.index.vectors_preloaded;
      st.vector_pages_preloaded += v.index.pages_preloaded;
      st.vector_link_major_faults += v.index.link_major_faults;
      st.vector_insert_distances += v.index.insert_distances;
      st.vector_searches += v.index.searches;
      st.vector_search_distances += v.index.search_distances;
      st.vector_pending_scanned += v.pending_scanned;
      st.vector_table_growths += v.index.table_growths;
      st.vector_table_entries_moved += v.index.table_entries_moved_total;
      st.vector_table_max_entries_moved = std::max(st.vector_table_max_entries_moved, v.index.table_max_entries_moved);
      st.vector_reads_after_load += v.index.vectors_read_after_load;
      st.vector_cleanups_unlinked += v.cleanups_unlinked;
      st.vector_bytes_full += v.memory.vectors_full;
      st.vector_bytes_binary += v.memory.vectors_binary;
      st.vector_bytes_graph += v.memory.graph_links;
    }
  }
  st.fail_stopped = fail_.stopped();
  st.no_space = no_space_.load(std::memory_order_acquire);
  return st;
}

void DbImpl::ResetStats() {
  stats_.Reset();
  if (gc_) gc_->ResetCounters();
  BranchRefs refs = AllBranches();
  for (Branch* b : refs.branches)
    if (b->gc) b->gc->ResetCounters();
  storage_->ResetCounters();
  lock_.ResetCounters();
  pool_->ResetCounters();
  if (merger_) merger_->ResetCounters();  // JR-2
  for (const auto& c : LiveCollections())
    for (auto& vf : c->vectors) vf->ResetStats();
}

}  // namespace fenec
