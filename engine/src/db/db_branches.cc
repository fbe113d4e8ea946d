// JR-1 in the database: attaching branch storages, appending their records
// in the chosen journal mode, loading indexes from them at open, and their
// checkpoints. The format and the recovery rule are in db/branch.h.
#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>
#include <unordered_set>

#include "engine/src/db/db_impl.h"
#include "engine/src/db/payload.h"
#include "engine/src/base/coding.h"

namespace fenec {
namespace {

std::atomic<bool> fallback_said{false};

}  // namespace

Status DbImpl::SharedJournals(bool* shared) {
  *shared = shared_journals_ == 1;
  if (shared_journals_ >= 0) return Status::OK();
  if (options_.journals != Journals::kShared) {
    shared_journals_ = 0;
    return Status::OK();
  }
  // Branch folders live under Indexes/, so a link from the root's Journals/
  // into Indexes/ working means links into every branch's Journals/ work.
  const std::string root = storage_->folder();
  const std::string from = storage_->journal_dir() + "/.link-probe", to = root + "/Indexes/.link-probe";
  if (Status s = env_->CreateDir(root + "/Indexes"); !s.ok()) return s;
  std::unique_ptr<File> f;
  if (Status s = env_->Open(from, OpenMode::kCreate, &f); !s.ok()) return s;
  f.reset();
  (void)env_->DeleteFile(to);
  Status linked = env_->Link(from, to);
  (void)env_->DeleteFile(to);
  (void)env_->DeleteFile(from);
  if (linked.ok()) {
    shared_journals_ = 1;
    *shared = true;
    return Status::OK();
  }
  // An EIO or ENOSPC says nothing about links: the next collection asks again.
  const bool refused = linked.code() == StatusCode::kNotSupported || linked.err() == EPERM || linked.err() == EMLINK;
  if (!refused) return linked;
  shared_journals_ = 0;
  if (!fallback_said.exchange(true))
    std::fprintf(stderr, "fenecdb: hard links fail in %s (%s): journals are separate (one per storage)\n",
                 root.c_str(), linked.ToString().c_str());
  return Status::OK();
}

Status DbImpl::RebuildBranchIndex(CollectionState* c, FieldIndexes::BranchField b) {
  const Field& field = c->schema->fields[b.field];
  std::vector<FieldRef> refs;
  VectorBlock puts;  // @hnsw: every live vector, linked in batches below
  for (uint64_t id = 1; id < c->index.size(); ++id) {
    if (!c->index[id].present()) continue;
    if (!DecodeFields(*c->schema, rows_->Resolve(c->index[id]), &refs))
      return Status::Corruption(fmt::format("collection '{}': document {} does not decode", c->name, id));
    if (!refs[b.field].present) continue;
    if (b.hnsw) {
      puts.ids.push_back(id);
      const size_t at = puts.vectors.size();
      puts.vectors.resize(at + field.dim);
      std::memcpy(puts.vectors.data() + at, refs[b.field].vec, size_t{field.dim} * 4);
      continue;
    }
    if (Status s = c->indexes->AddEntry(b, id, FieldIndexes::BranchValue(field, b, refs[b.field])); !s.ok())
      return Status::Corruption(s.message());
  }
  if (b.hnsw) {
    if (Status s = VectorOf(c, b.field)->ApplyNow(std::span(&puts, 1)); !s.ok())
      return Status::Corruption(fmt::format("collection '{}': @hnsw '{}': {}", c->name, field.name, s.message()));
  }
  return Status::OK();
}

VectorField* DbImpl::VectorOf(const CollectionState* c, int f) {
  for (const auto& vf : c->vectors)
    if (vf->field() == f) return vf.get();
  return nullptr;
}

Status DbImpl::StartLinkers() {
  for (const auto& c : LiveCollections())
    for (auto& vf : c->vectors)
      if (Status s = vf->StartLinker(); !s.ok()) return s;
  return Status::OK();
}


Status DbImpl::LoadVectorBranch(CollectionState* c, FieldIndexes::BranchField b, VectorField* vf,
                                const BranchState& st, bool whole, bool* rebuilt) {
  const Field& field = c->schema->fields[b.field];
  const std::string what = fmt::format("collection '{}': @hnsw '{}'", c->name, field.name);
  *rebuilt = false;
  if (whole) {
    Status s = LoadFromBranch(st, vf);
    if (s.ok()) return s;
    // Written with another M, metric or dim (the options changed): rebuilt
    // from the documents, as a branch behind is.
    if (s.code() != StatusCode::kInvalidArgument) return Status::Corruption(fmt::format("{}: {}", what, s.message()));
  }
  *rebuilt = true;
  return RebuildBranchIndex(c, b);
}

Status DbImpl::AttachBranches(CollectionState* c, bool recovering, uint64_t max_root_lsn, bool* dirty) {
  bool shared = false;
  if (Status s = SharedJournals(&shared); !s.ok()) return s;
  if (Status s = env_->CreateDir(storage_->folder() + "/Indexes"); !s.ok()) return s;
  std::vector<BranchState> states;
  for (FieldIndexes::BranchField bf : c->indexes->branch_fields()) {
    auto b = std::make_unique<Branch>();
    b->field = bf;
    const std::string folder = BranchFolder(storage_->folder(), c->id, bf);
    // A new collection's id was never live, so whatever is there is a
    // failed create's or an interrupted drop's leftover.
    if (!recovering)
      if (Status s = RemoveFolder(env_, folder); !s.ok()) return s;
    uint64_t id = options_.storage_id == 0 ? 0 : options_.storage_id + 1 + uint64_t{c->id} * 4096 + bf.field * 2 + bf.text;
    if (Status s = Storage::Open(env_, folder, true, false, id, &b->storage); !s.ok()) return s;
    BranchState st;
    if (Status s = RecoverBranch(env_, *b->storage, bf.hnsw, max_root_lsn, &st, options_.recovery); !s.ok()) return s;
    NoteDropped(folder, b->storage->journal_dir(), st.replay);  // point in time: behind now, so rebuilt below
    if (recovering && bf.hnsw) {
      bool whole = !b->storage->created() && st.root_lsn >= c->last_lsn, rebuilt = false;
      if (Status s = LoadVectorBranch(c, bf, VectorOf(c, bf.field), st, whole, &rebuilt); !s.ok()) return s;
      if (rebuilt) {
        stats_.Add(Stat::branches_rebuilt);
        *dirty = true;
      } else {
        stats_.Add(Stat::branches_recovered);
      }
      // A tail applied: checkpoint, so the next open loads it all at once.
      if (st.ignored_ahead > 0 || !st.tail.empty()) *dirty = true;
    } else if (recovering) {
      // The branch is whole iff it reaches the last root commit that touched
      // the collection (its records are a prefix of the root's order).
      bool whole = !b->storage->created() && st.root_lsn >= c->last_lsn;
      Status loaded;
      if (whole) {
        for (uint64_t i = 0; i < st.present.size() && loaded.ok(); ++i)
          if (st.present[i]) loaded = c->indexes->AddEntry(bf, i, st.values[i]);
      }
      if (whole && loaded.ok()) {
        stats_.Add(Stat::branches_recovered);
      } else {
        if (whole) return Status::Corruption(fmt::format("branch {}: {}", folder, loaded.message()));
        if (Status s = RebuildBranchIndex(c, bf); !s.ok()) return s;
        stats_.Add(Stat::branches_rebuilt);
        *dirty = true;
      }
      if (st.ignored_ahead > 0) *dirty = true;
    }
    states.push_back(std::move(st));
    c->branches.push_back(std::move(b));
  }
  // Journals last, once every storage opened: a stream registered in the
  // root's group commit is never taken back.
  for (size_t k = 0; k < c->branches.size(); ++k) {
    Branch* b = c->branches[k].get();
    const Superblock& sb = b->storage->superblock();
    if (shared) {
      b->stream = gc_->AddStream(sb.storage_id, states[k].last_lsn, b->storage->journal_dir());
      continue;
    }
    b->writer = std::make_unique<journal::JournalWriter>(env_, b->storage->journal_dir(), options_.journal_file_bytes,
                                                        options_.journal_zero_ahead);
    b->gc = std::make_unique<journal::GroupCommit>(b->writer.get(), sb.storage_id, states[k].last_lsn,
                                                   CommitPolicyOf(options_), &fail_);
    b->gc->EnableRoom();
    // Its file and room now: a full disk refuses the create, never a commit
    // that landed. (At open: once open's files are set aside, RecoverLocked.)
    if (!recovering)
      if (Status s = b->gc->MakeRoom(1); !s.ok()) return s;
    if (options_.durability != Durability::kDurable) {
      try {
        b->gc->StartPeriodicSync(options_.sync_ms, nullptr);
      } catch (const std::system_error& e) {
        return Status::IOError("start branch syncer thread", b->storage->folder(), e.code().value());
      }
    }
  }
  return Status::OK();
}

Status DbImpl::BuildCollection(CollectionState* c) {
  if (!c->indexes->empty()) {
    bool dirty = false;
    if (Status s = AttachBranches(c, /*recovering=*/false, 0, &dirty); !s.ok()) return s;
  }
  for (auto& vf : c->vectors)
    if (Status s = vf->StartLinker(); !s.ok()) return s;
  return Status::OK();
}

void DbImpl::ReleaseCollection(CollectionState* c) {
  for (auto& vf : c->vectors) vf->StopLinker();
  std::vector<Branch*> branches;
  {
    ReadLock lock(&lock_);  // c is unpublished: nothing changes its branches any more
    for (auto& b : c->branches) branches.push_back(b.get());
  }
  for (Branch* b : branches) {
    if (b->gc) {
      // Commits landed before the drop may still wait on this journal.
      (void)b->gc->SyncAll();
      b->gc->StopPeriodicSync();
    }
    if (b->writer) b->writer->Close();
    (void)RemoveFolder(env_, b->storage->folder());
  }
  // A create that failed before its first branch storage opened left its
  // folders half made, unnamed by any Branch.
  for (FieldIndexes::BranchField bf : IndexSet(c).branch_fields())
    (void)RemoveFolder(env_, BranchFolder(storage_->folder(), c->id, bf));
}

void DbImpl::RemoveOrphanBranches() {
  std::vector<std::string> names;
  const std::string dir = storage_->folder() + "/Indexes";
  if (!env_->ListDir(dir, &names).ok()) return;
  std::unordered_set<std::string> owned;
  for (CollectionState* c : LiveLocked())
    for (FieldIndexes::BranchField bf : c->indexes->branch_fields())
      owned.insert(BranchFolder(storage_->folder(), c->id, bf));
  for (const std::string& name : names) {
    const std::string path = dir + "/" + name;
    if (name.empty() || name[0] != 'c' || owned.count(path)) continue;
    (void)RemoveFolder(env_, path);
  }
}

uint64_t DbImpl::AppendCommit(CollectionState* c, std::span<const uint8_t> root,
                              std::vector<base::Bytes>* branch_payloads, CommitTicket* t) {
  if (c->branches.empty()) {
    t->lsn = gc_->Append(root);
  } else {
    // Appends happen only under the write lock, so the root's next LSN is known.
    uint64_t next = gc_->last_lsn() + 1;
    for (auto& p : *branch_payloads) SetRootLsn(next, &p);
    if (c->branches.front()->gc == nullptr) {  // shared: one append, one write
      std::vector<journal::GroupCommit::StreamRecord> recs(c->branches.size());
      for (size_t k = 0; k < recs.size(); ++k) recs[k] = {c->branches[k]->stream, (*branch_payloads)[k]};
      t->lsn = gc_->Append(root, recs);
    } else {
      t->lsn = gc_->Append(root);
      for (size_t k = 0; k < c->branches.size(); ++k)
        t->branches.emplace_back(c->branches[k]->gc.get(), c->branches[k]->gc->Append((*branch_payloads)[k]));
    }
  }
  c->last_lsn = t->lsn;
  return t->lsn;
}

Status DbImpl::CommitUnderLockAll(CollectionState* c) {
  if (Status s = gc_->CommitUnderLock(); !s.ok()) return s;
  for (auto& b : c->branches)
    if (b->gc)
      if (Status s = b->gc->CommitUnderLock(); !s.ok()) return s;
  return Status::OK();
}

void DbImpl::CaptureBranches(std::vector<BranchCheckpoint>* out) {
  for (CollectionState* c : LiveLocked()) {
    if (c->branches.empty()) continue;
    BranchCheckpoint ck{c, c->schema, c->index.Share(), {}, {}, {}};
    for (auto& b : c->branches) {
      ck.branches.push_back(b.get());
      ck.branch_lsns.push_back(b->gc ? b->gc->last_lsn() : gc_->stream_last_lsn(b->stream));
    }
    // Each graph is checkpointed as of this root LSN: its linker stops at
    // what is queued now (vector_field.h).
    for (auto& vf : c->vectors) {
      vf->HoldAtNow();
      ck.held.push_back(vf.get());
    }
    out->push_back(std::move(ck));
  }
}

Status DbImpl::CheckpointBranches(std::vector<BranchCheckpoint>& todo, const BufferList& buffers,
                                  uint64_t root_lsn) {
  if (Status s = SyncBranches(); !s.ok()) return s;  // a branch's journal never lags its checkpoint
  for (BranchCheckpoint& ck : todo) {
    CollectionState* c = ck.coll;
    for (size_t k = 0; k < ck.branches.size(); ++k) {
      Branch& b = *ck.branches[k];
      const Field& field = ck.schema->fields[b.field.field];
      BranchCatalog cat(root_lsn);
      if (b.field.hnsw) {
        VectorField* vf = VectorOf(c, b.field.field);
        std::vector<uint8_t> graph;
        vf->CheckpointHeld(&graph);  // as of root_lsn; the linker goes on once serialized
        cat.SetHnswTrailer(static_cast<uint8_t>(field.metric), field.dim, vf->index_options().m, graph);
      }
      std::vector<FieldRef> refs;
      for (uint64_t id = 1; id < ck.index.size(); ++id) {
        const IdEntry& e = ck.index[id];
        if (!e.present()) continue;
        if (!DecodeFields(*ck.schema, RowStore::Resolve(e, buffers, rows_->map()), &refs))
          return Status::Corruption(fmt::format("collection '{}': document {} does not decode", c->name, id));
        if (refs[b.field.field].present) cat.Add(id, FieldIndexes::BranchValue(field, b.field, refs[b.field.field]));
      }
      // A full disk: this branch keeps its journals and recovers from them.
      if (Status s = cat.Commit(b.storage.get(), ck.branch_lsns[k]); !s.ok()) return s.IsNoSpace() ? s : fail_.Trip(s);
      if (b.gc) b.gc->RequestRotation();
      uint64_t deleted = 0;
      if (Status s = b.storage->DeleteJournalsThrough(ck.branch_lsns[k], &deleted); !s.ok()) return fail_.Trip(s);
    }
  }
  return Status::OK();
}

DbImpl::BranchRefs DbImpl::AllBranches() const {
  BranchRefs out;
  ReadLock lock(&lock_);  // CreateCollection attaches branches under the write lock
  for (CollectionState* c : LiveLocked()) {
    if (c->branches.empty()) continue;
    out.owners.push_back(collections_[c->id % kMaxCollections]);
    for (auto& b : c->branches) out.branches.push_back(b.get());
  }
  return out;
}

Status DbImpl::SyncBranches() {
  BranchRefs refs = AllBranches();
  for (Branch* b : refs.branches)
    if (b->gc)
      if (Status s = b->gc->SyncAll(); !s.ok()) return s;
  return Status::OK();
}

void DbImpl::StopBranchSyncers() {
  BranchRefs refs = AllBranches();
  for (Branch* b : refs.branches)
    if (b->gc) b->gc->StopPeriodicSync();
}

}  // namespace fenec
