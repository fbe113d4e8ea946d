// DbImpl: fenecdb's Database.
//
// Locking (one RwLock, writer-preferring):
//  - shared: Get, Count, index-answered scans, LongReads::kUnderLock scans,
//    and pinning (sharing id-index chunks and buffers: O(chunks), no copy)
//    for long reads.
//  - exclusive: landing a commit - uniqueness check and index inserts, copy
//    of row bytes into the write buffer, id-index entries, the journal
//    append - plus a handover piece and, for checkpoints, capturing state.
// Everything else - validating, typing and encoding rows, hashing keys,
// tokenizing, building the journal payload (CC-3), writing a full buffer
// (CC-4), the journal write and fsync (CC-1) - runs with no lock.
//
// Ids: reserved per collection by an atomic counter before the lock, so a
// batch's rows and index keys are final while it is built; a batch that
// fails leaves its ids unused. Journal records carry ids explicitly, so
// replay lands each row where it was.
//
// Collections: a handle (CollectionId) is the collection's id, unique for
// the database's life (a dropped collection's id is never given again); its
// slot is id % kMaxCollections, free while no live collection holds it.
// collections_ (by slot, under lock_) owns the live ones; handles_ mirrors
// it for the write path and long reads, which take a reference without the
// lock (Acquire) and hold it until they are done, so a DropCollection never
// frees a state under them. A write that lands after the drop finds
// `dropped` set under the write lock and returns kNotFound.
//
// Lock rules are annotations, not comments: state a lock guards is declared
// FENEC_GUARDED_BY(lock_) (a collection's, FENEC_GUARDED_BY(&DbImpl::lock_):
// the lock of the database that owns it), a function that needs a lock held
// FENEC_REQUIRES(lock_) or FENEC_REQUIRES_SHARED(lock_), and locks are taken
// with ReadLock / WriteLock (rw_lock.h) or base::MutexLock
// (engine/src/base/mutex.h). `make test` has clang's -Wthread-safety check
// every access against them (scripts/check-thread-safety.py); what it cannot
// see - state set once before the database is shared, RowStore's and
// GroupCommit's calls that need the write lock - is said in comments.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/src/base/mutex.h"
#include "engine/src/io/stat_counters.h"
#include "engine/src/base/thread_annotations.h"
#include "engine/src/db/branch.h"
#include "engine/src/base/coding.h"
#include "engine/src/db/field_index.h"
#include "engine/src/db/id_index.h"
#include "engine/src/db/filter.h"
#include "engine/src/db/row.h"
#include "engine/src/db/row_store.h"
#include "engine/src/db/rw_lock.h"
#include "engine/src/db/vector_field.h"
#include "fenec/database.h"
#include "engine/src/io/fail_stop.h"
#include "engine/src/journal/format.h"
#include "engine/src/journal/group_commit.h"
#include "engine/src/journal/reader.h"
#include "engine/src/journal/writer.h"
#include "engine/src/storage/storage.h"

namespace fenec {

class TxMerger;  // JR-2: db/merger.h
class AsyncCommits;  // PutBatchAsync's waiter: db/async_commit.h
struct CollectionState;  // after DbImpl: its members are guarded by DbImpl::lock_

// A collection as a read sees it: live (under a lock) or pinned.
struct CollectionView {
  const Schema* schema = nullptr;
  const IdIndex* entries = nullptr;
  size_t size = 0;  // entries (ids 0..size-1)
  const BufferList* buffers = nullptr;
  const uint8_t* map = nullptr;
};

class PinnedView final : public Snapshot {
 public:
  struct Pinned {
    bool pinned = false;
    uint32_t id = 0;  // the handle pinned in this slot
    std::shared_ptr<const Schema> schema;
    IdIndex index;
  };
  uint64_t lsn() const override { return lsn_; }
  uint64_t lsn_ = 0;
  std::vector<Pinned> collections;  // by slot (DbImpl: id % kMaxCollections)
  BufferList buffers;
  const uint8_t* map = nullptr;
  const void* owner = nullptr;  // the DbImpl that made it
};

// A put or batch, prepared (with or without the lock, per BatchBuild).
struct PreparedBatch {
  CollectionState* coll = nullptr;
  uint64_t first_id = 0;
  size_t count = 0;
  base::Bytes payload;                                  // the journal payload
  std::vector<std::pair<uint32_t, uint32_t>> row_spans;  // each row's (offset, length) in payload
  PreparedIndexes idx;
  std::vector<base::Bytes> branch_payloads;  // one record per branch (branch.h), root LSN filled in at landing
  // Per @hnsw field (FieldIndexes::hnsw_fields order): the vectors the
  // commit hands to the field's queue once landed (null: none present).
  std::vector<std::shared_ptr<const VectorBlock>> vector_blocks;
};

// What Database::Open refuses in options (db/options.cc). Fails: kInvalidArgument.
Status ValidateOptions(const Options& options);

// The group commit's policy for the root's journal and each branch's own.
inline journal::CommitPolicy CommitPolicyOf(const Options& o) {
  if (o.durability == Durability::kDurable)
    return o.commit_mode == CommitMode::kGroup ? journal::CommitPolicy::kDurableGroup
                                               : journal::CommitPolicy::kDurableNaive;
  // Naive, either unsynced mode writes each record under the lock: write-through.
  if (o.commit_mode == CommitMode::kNaive) return journal::CommitPolicy::kBufferedNaive;
  return o.durability == Durability::kWriteThrough ? journal::CommitPolicy::kWriteThroughGroup
                                                   : journal::CommitPolicy::kBufferedGroup;
}

// Room a commit lacked at landing (DbImpl::TakeRoom): the journal whose
// file lacks it and how much, or the data file's end it must reach.
struct RoomNeed {
  bool wanted = false;
  journal::GroupCommit* gc = nullptr;  // null: the data file
  uint64_t bytes = 0;                  // the journal's room, or the data file's end
};

// What a landed commit must wait for before it is acknowledged: the root's
// LSN and, with separate journals, each branch journal's own LSN.
struct CommitTicket {
  uint64_t lsn = 0;
  std::vector<std::pair<journal::GroupCommit*, uint64_t>> branches;
  std::shared_ptr<CollectionState> keep;  // owns the branches' journals until the commit is awaited
  // Unsynced modes: the id reservation covering the commit's ids, which must
  // be fdatasync'ed before they are acknowledged (DbImpl::ReserveIds); 0: none.
  uint64_t ids_lsn = 0;
};

class DbImpl final : public Database {
 public:
  static constexpr uint32_t kMaxCollections = limits::kMaxCollections;
  // The id index is dense (12 bytes an id, id_index.h), so a journal record's ids
  // are memory: replay lets the records skip at most this many ids in all
  // (about 200 MB of index) rather than let a few bytes of a damaged but
  // checksummed record claim any amount of memory. Live writes skip ids only
  // when a put fails after taking its ids (a @unique clash), one request each;
  // the writer counts them as replay will and checkpoints before a put would
  // pass the limit (Land, CheckpointForIdGap).
  static constexpr uint64_t kMaxReplayIdGap = uint64_t{1} << 24;
  // Unsynced modes: a put acknowledges its ids before its record is durable,
  // so each collection's ids are reserved ahead by a record of their own,
  // fdatasync'ed before any id it covers is acknowledged, and recovery starts
  // past the last reservation (PostgreSQL logs sequences ahead the same way).
  // A reservation reaches a step past the put that makes it, and a new one
  // is made once a put comes within half of it, so the periodic syncer,
  // woken at once, has half a step of puts to sync it before any put waits.
  // The step starts at kIdsReservedAhead and doubles, up to
  // kMaxIdsReservedAhead, each time a put did wait (a disk slow for the put
  // rate). A crash leaves at most a step of unused ids (12 bytes each in the
  // id index); replay refuses a reservation reaching further than the most.
  static constexpr uint64_t kIdsReservedAhead = 8192;
  static constexpr uint64_t kMaxIdsReservedAhead = uint64_t{1} << 20;
  // The limit replay and the writer use: kMaxReplayIdGap unless a test set one.
  static uint64_t MaxReplayIdGap();
  // Tests only: the limit for every database in the process (0: kMaxReplayIdGap again).
  static void SetMaxReplayIdGapForTesting(uint64_t gap);
  // Tests only: takes n of the collection's ids without landing them, as a
  // put refused at landing leaves them when another put took ids meanwhile.
  Status BurnIdsForTesting(CollectionId collection, uint64_t n);

  DbImpl(const Options& options, std::unique_ptr<Storage> storage);
  ~DbImpl() override;
  Status Recover();  // Open's second half: catalog, replay, journal, syncer; then resets the lock figures

  Result<CollectionId> CreateCollection(const std::string& name, const Schema& schema) override;
  Status DropCollection(const std::string& name) override;
  Result<CollectionId> FindCollection(const std::string& name) const override;
  std::vector<std::string> ListCollections() const override;
  Result<Schema> GetSchema(CollectionId collection) const override;
  Result<DocId> Put(CollectionId collection, Document doc) override;
  Result<std::vector<DocId>> PutBatch(CollectionId collection, std::vector<Document> docs) override;
  void PutBatchAsync(CollectionId collection, std::vector<Document> docs, PutDone done) override;
  bool TryPutBatchAsync(CollectionId collection, std::vector<Document>& docs, PutDone& done) override;
  Status Delete(CollectionId collection, DocId id) override;
  Result<Document> Get(CollectionId collection, DocId id, const ReadOptions& ro) const override;
  Result<std::vector<Row>> Scan(CollectionId collection, const Filter& filter, uint64_t limit,
                                const ReadOptions& ro) const override;
  Status ScanEach(CollectionId collection, const Filter& filter, const ReadOptions& ro,
                  const std::function<bool(DocId, const Document&)>& fn) const override;
  Result<AggregateResult> Aggregate(CollectionId collection, const std::string& field, const Filter& filter,
                                    const ReadOptions& ro) const override;
  Result<uint64_t> Count(CollectionId collection) const override;
  using Database::Near;
  Result<std::vector<NearHit>> Near(CollectionId collection, int field, std::span<const float> query,
                                    const NearOptions& options) const override;
  Status WaitForIndexes() override;
  Result<std::shared_ptr<const Snapshot>> Pin() const override;
  Status Checkpoint() override;
  Status Sync() override;
  Status Close() override;
  Status WriteState() const override;  // db_read.cc
  Stats GetStats() const override;
  void ResetStats() override;
  Status Check() const override;

 private:
  Status CheckLocked(bool vectors) const FENEC_REQUIRES_SHARED(lock_);  // vectors: the queues are empty
  // --- db_write.cc
  Status Prepare(CollectionState* c, std::vector<Document>* docs, PreparedBatch* out) const;
  // Under the write lock: checks, lands rows, appends the journal record.
  // If the record would take replay past MaxReplayIdGap(), nothing lands and
  // *await_capture is set: the put retries once a checkpoint captured after
  // that many captures has committed (CheckpointForIdGap). If the journal or
  // the data file lacks room for it, nothing lands and room->wanted is set:
  // the put retries once MakeRoom made it.
  Status Land(PreparedBatch* b, CommitTicket* t, BufferList* sealed, BufferList* retired,
              std::optional<uint64_t>* await_capture, RoomNeed* room) FENEC_REQUIRES(lock_);
  // Without the write lock: a checkpoint whose capture follows the first
  // `captures` ones, unless one has committed since (one serves every put
  // that waits for it). Fails: as Checkpoint.
  Status CheckpointForIdGap(uint64_t captures) FENEC_EXCLUDES(lock_, checkpoint_mu_);
  // After the lock (or under it, naive arms): writes sealed buffers out.
  Status WriteSealed(const BufferList& sealed, bool under_lock) FENEC_EXCLUDES(deferred_mu_);
  Result<std::vector<DocId>> PutRows(CollectionId collection, std::vector<Document> docs);
  // LandRows' body. With sealed_out (TryPutBatchAsync) it never waits: the
  // write lock is tried, the rows prepared under it (so a refusal takes no
  // ids), and full buffers are handed back unwritten; Busy, nothing
  // changed, when it would have waited.
  Result<std::vector<DocId>> LandRowsInto(CollectionId collection, std::vector<Document>* docs, CommitTicket* ticket,
                                          BufferList* sealed_out);
  // Under the lock: this batch's first id would take replay past
  // kMaxReplayIdGap skipped ids (Land then waits for a checkpoint).
  bool OwesIdGapCheckpoint(const PreparedBatch& b) const FENEC_REQUIRES(lock_);
  // Under the lock, unsynced modes, after a put of ids below end landed:
  // appends a reservation if end comes within half a step of c's
  // (kIdsReservedAhead) and sets t->ids_lsn to the reservation that covers end.
  void ReserveIds(CollectionState* c, uint64_t end, CommitTicket* t) FENEC_REQUIRES(lock_);
  // Open's last step, unsynced modes: a reservation for every collection,
  // fdatasync'ed, so the first puts wait for none. Fails: kFailStopped.
  Status ReserveIdsAtOpen() FENEC_EXCLUDES(lock_);

  // --- db_room.cc: a full disk refuses a write before it lands.
  // The journal bytes of an id reservation record (ReserveIds), taken with every unsynced put's room.
  static constexpr uint64_t kReserveRecordBytes = journal::kHeaderSize + 24;
  // Under the write lock, before anything of the commit lands: takes room
  // for its records (root and branch payloads, in the journals they go to;
  // with `reserve`, an id reservation's too) and its rows' data bytes.
  // False, nothing taken, if one lacks it (*need says which: MakeRoom).
  bool TakeRoom(CollectionState* c, uint64_t root_payload, std::span<const base::Bytes> branch_payloads,
                uint64_t data_bytes, bool reserve, RoomNeed* need) FENEC_REQUIRES(lock_);
  // Gives back TakeRoom's journal room of a commit that will not append.
  void GiveBackRoom(CollectionState* c, uint64_t root_payload, std::span<const base::Bytes> branch_payloads,
                    bool reserve) FENEC_REQUIRES(lock_);
  // Without the lock: makes the room need asked for. While the disk was
  // full a moment ago it answers kNoSpace at once (a probe every
  // kNoSpaceRetry, not one a write). Fails: kNoSpace, kFailStopped, kIOError.
  Status MakeRoom(const RoomNeed& need) FENEC_EXCLUDES(no_space_mu_);
  static constexpr int64_t kNoSpaceRetryNs = 100'000'000;

 public:
  // The write path split in two for the transaction merger (JR-2).
  // LandRows: prepares, lands under the write lock (journal records
  // appended), writes any full buffer; returns the ids without waiting.
  // AwaitCommit: waits until the ticket is durable (as the Durability
  // promises) and counts the commit. Fails: as Put.
  Result<std::vector<DocId>> LandRows(CollectionId collection, std::vector<Document> docs, CommitTicket* ticket);
  // may_write false: kBusy, nothing counted, when a buffered journal's
  // write is due on this caller (GroupCommit::AwaitDurable); call it again
  // where I/O may run.
  Status AwaitCommit(const CommitTicket& ticket, bool may_write = true);
  // Writes sealed (the buffers a landing filled), then awaits the ticket:
  // the write's error, if any, once the commit is durable.
  Status FinishCommit(const CommitTicket& t, const BufferList& sealed);
  // JR-2: the transaction merger (Completion::kMerger*), else nullptr. For tests' counters.
  const TxMerger* merger() const { return merger_.get(); }

 private:
  void HandoverPiece(BufferList* retired) FENEC_REQUIRES(lock_);
  void WriteDeferred() FENEC_EXCLUDES(deferred_mu_);  // GR-5: the periodic syncer's after-sync hook
  // A sealed buffer to the data file: pwrite here, or the global ring (DataFlush).
  Status FlushBuffer(const std::shared_ptr<WriteBuffer>& buf) FENEC_EXCLUDES(ring_mu_);
  void DrainRing() FENEC_EXCLUDES(ring_mu_);  // waits for every ring write handed over
  // A collection's index set - which fields, how keys are built - is fixed
  // when the collection is created; only the tables in it change, under
  // lock_. Prepare reads the fixed part with or without the lock
  // (BatchBuild). Not analyzed: the analysis sees *c->indexes as guarded
  // whole and cannot tell its constant part from its tables.
  static const FieldIndexes& IndexSet(const CollectionState* c) FENEC_NO_THREAD_SAFETY_ANALYSIS;
  Status WriteCheck() const;  // kClosed / kFailStopped

  // --- db_branches.cc (JR-1)
  // Under the write lock: appends the root record and c's branch records
  // (their root LSN filled in), per the journal mode; fills t. Returns the root LSN.
  uint64_t AppendCommit(CollectionState* c, std::span<const uint8_t> root, std::vector<base::Bytes>* branch_payloads,
                        CommitTicket* t) FENEC_REQUIRES(lock_);
  // Naive commit mode, under the write lock: the root's and every branch's journal now.
  Status CommitUnderLockAll(CollectionState* c) FENEC_REQUIRES(lock_);
  // Whether shared journals are in effect: decided once, on first need
  // (under the write lock), by trying a hard link between the root's
  // Journals/ and Indexes/. A link refused (another volume, no hard links)
  // decides separate journals; any other failure is returned, undecided.
  Status SharedJournals(bool* shared) FENEC_REQUIRES(lock_);
  // Opens (or creates) c's branch storages and attaches their journals. At
  // open (recovering): loads each index from its branch when the branch
  // reaches c->last_lsn, else rebuilds it from the rows; *dirty is set if a
  // checkpoint must follow (a branch rebuilt or holding ignored records).
  Status AttachBranches(CollectionState* c, bool recovering, uint64_t max_root_lsn, bool* dirty)
      FENEC_REQUIRES(lock_);
  // CreateCollection's fallible part, before c is published: its branch
  // storages (any leftover folder at their paths removed first) and
  // journals, and its linkers. On failure c is left for ReleaseCollection.
  Status BuildCollection(CollectionState* c) FENEC_REQUIRES(lock_);
  // A collection dropped (its record durable) or never published: stops and
  // joins its linkers, flushes and closes its branch journals, removes its
  // branch folders. Best effort: a folder left is removed at the next open.
  void ReleaseCollection(CollectionState* c) FENEC_EXCLUDES(lock_);
  // At open: removes Indexes/ folders no live collection owns (a drop or a
  // failed create that a crash interrupted).
  void RemoveOrphanBranches() FENEC_REQUIRES(lock_);
  Status RebuildBranchIndex(CollectionState* c, FieldIndexes::BranchField b) FENEC_REQUIRES(lock_);
  // An @hnsw branch at open: its graph loaded and its tail applied, or
  // (behind, or written with other index options) rebuilt from the rows.
  Status LoadVectorBranch(CollectionState* c, FieldIndexes::BranchField b, VectorField* vf, const BranchState& st,
                          bool whole, bool* rebuilt) FENEC_REQUIRES(lock_);
  // The collection's VectorField for schema field f, or null.
  static VectorField* VectorOf(const CollectionState* c, int f);
  Status StartLinkers();  // every collection's; after open's recovery. Fails: kIOError (no thread)
  // --- db_near.cc
  // Check's part for c's @hnsw fields, their queues empty: each graph holds
  // exactly the rows' vectors.
  Status CheckVectors(const CollectionState* c,
                      const std::vector<std::pair<uint64_t, std::vector<FieldRef>>>& rows) const
      FENEC_REQUIRES_SHARED(lock_);
  // After the root's checkpoint: each branch checkpoints the index as of the
  // same root LSN (rows read from views pinned then) and drops old journals.
  struct BranchCheckpoint {
    CollectionState* coll;
    std::shared_ptr<const Schema> schema;
    IdIndex index;  // shared, copy-on-write
    std::vector<Branch*> branches;  // coll's, as captured under the lock
    std::vector<uint64_t> branch_lsns;
    std::vector<VectorField*> held;  // @hnsw fields whose linkers wait at the capture (HoldAtNow)
  };
  void CaptureBranches(std::vector<BranchCheckpoint>* out) FENEC_REQUIRES(lock_);
  Status CheckpointBranches(std::vector<BranchCheckpoint>& todo, const BufferList& buffers, uint64_t root_lsn);
  // Takes the shared lock; the collections keep the branches alive.
  struct BranchRefs {
    std::vector<std::shared_ptr<CollectionState>> owners;
    std::vector<Branch*> branches;
  };
  BranchRefs AllBranches() const FENEC_EXCLUDES(lock_);
  Status SyncBranches();
  void StopBranchSyncers();

  // --- db_read.cc
  // The live collection with this handle, or null. Lookup: valid while the
  // lock is held; Acquire: a reference, no lock needed.
  CollectionState* Lookup(CollectionId c) const FENEC_REQUIRES_SHARED(lock_);
  std::shared_ptr<CollectionState> Acquire(CollectionId c) const;
  std::shared_ptr<const Schema> SchemaOf(CollectionId c) const FENEC_EXCLUDES(lock_);
  // Every live collection, in id order (references: used after the lock).
  std::vector<std::shared_ptr<CollectionState>> LiveCollections() const FENEC_EXCLUDES(lock_);
  std::vector<CollectionState*> LiveLocked() const FENEC_REQUIRES_SHARED(lock_);
  CollectionView LiveView(const CollectionState* c) const FENEC_REQUIRES_SHARED(lock_);
  // Null (only given): that collection was dropped.
  std::shared_ptr<const PinnedView> PinCollections(const CollectionState* only) const;
  Result<CollectionView> SnapshotView(const ReadOptions& ro, CollectionId c) const;
  // Visits matching rows with ids after ro.after in id order until fn
  // returns false. Fails: kCorruption, kTimedOut (ro.deadline, ro.cancel).
  Status ScanView(const CollectionView& v, const CompiledFilter& f, const ReadOptions& ro,
                  const std::function<bool(uint64_t, const std::vector<FieldRef>&)>& fn) const;
  // Index-answered scan under the shared lock; false if the filter has no indexed condition.
  bool IndexCandidates(const CollectionState* c, const CompiledFilter& f, std::vector<uint64_t>* ids) const
      FENEC_REQUIRES_SHARED(lock_);
  // *schema: the one fn's rows are decoded with (set before the first call).
  Status ScanRows(CollectionId collection, const Filter& filter, const ReadOptions& ro,
                  const std::function<bool(uint64_t, const std::vector<FieldRef>&)>& fn,
                  std::shared_ptr<const Schema>* schema) const;

  // --- db_open.cc
  Status RecoverLocked() FENEC_EXCLUDES(lock_);  // takes the write lock for the replay
  Status ApplyRecord(uint64_t lsn, std::span<const uint8_t> payload) FENEC_REQUIRES(lock_);
  // A collection's state, not yet visible. Fails: kInvalidArgument (an
  // @hnsw field the vector index refuses: a catalog's bad dim).
  Result<std::shared_ptr<CollectionState>> MakeCollection(uint32_t id, const std::string& name,
                                                          const Schema& schema) const FENEC_REQUIRES(lock_);
  // Makes c visible by name and handle, and counts it; Unpublish undoes it.
  void Publish(std::shared_ptr<CollectionState> c) FENEC_REQUIRES(lock_);
  void Unpublish(CollectionState* c) FENEC_REQUIRES(lock_);
  // Replay's and the catalog's: made and published. Fails: as MakeCollection.
  Result<CollectionState*> AddCollection(uint32_t id, const std::string& name, const Schema& schema)
      FENEC_REQUIRES(lock_);
  // The id a new collection gets: the first at or past next_collection_id_
  // whose slot is free (one is: fewer than kMaxCollections live).
  uint32_t FreeCollectionId() const FENEC_REQUIRES(lock_);
  Status LoadCatalog() FENEC_REQUIRES(lock_);
  // closing: no write follows, so ids reserved but not landed need not be
  // kept (every acknowledged id's record is durable by then).
  void EncodeCatalog(base::Bytes* out, bool closing) const FENEC_REQUIRES(lock_);
  Status CheckpointNow(bool closing = false) FENEC_REQUIRES(checkpoint_mu_);

  Options options_;
  Env* env_;
  std::unique_ptr<Storage> storage_;
  FailStop fail_;
  mutable RwLock lock_;  // the database's one lock (see the top)
  std::unique_ptr<RowStore> rows_;
  std::shared_ptr<ChunkPool> pool_ = std::make_shared<ChunkPool>();  // id-index chunks, all collections
  std::vector<std::shared_ptr<CollectionState>> collections_ FENEC_GUARDED_BY(lock_);  // by slot, kMaxCollections
  std::unique_ptr<std::atomic<std::shared_ptr<CollectionState>>[]> handles_;  // the same; set under the write lock
  uint32_t live_collections_ FENEC_GUARDED_BY(lock_) = 0;
  std::atomic<uint32_t> slot_end_{0};  // slots at or past it were never used; raised under the write lock
  uint32_t next_collection_id_ FENEC_GUARDED_BY(lock_) = 0;   // ids below it were given (the catalog keeps it)
  std::unordered_map<std::string, uint32_t> names_ FENEC_GUARDED_BY(lock_);
  std::unique_ptr<journal::JournalWriter> jwriter_;
  std::unique_ptr<journal::GroupCommit> gc_;
  base::Mutex checkpoint_mu_;  // one checkpoint at a time (CheckpointNow)
  std::atomic<bool> closed_{false};
  base::Mutex deferred_mu_;
  BufferList deferred_ FENEC_GUARDED_BY(deferred_mu_);  // GR-5: sealed buffers left for the periodic syncer
  // JR-2: puts and batches go through it when Options::completion != kDirect;
  // made after gc_ in RecoverLocked, stopped (drained) first thing in Close.
  std::unique_ptr<TxMerger> merger_;
  // PutBatchAsync's waiter (kDirect, kDurable, group commit); stopped
  // (drained) in Close right after the merger.
  std::unique_ptr<AsyncCommits> async_;

  // The counters the database keeps itself (commits, pins, flushes, what
  // open recovered ...); its subsystems' are added in GetStats.
  mutable StatCounters stats_;
  // RecoveryMode::kPointInTime, while the database opens (before it is
  // shared): each storage's files to set aside (journal folder, files)
  // after open's checkpoint.
  std::vector<std::pair<std::string, std::vector<std::string>>> set_aside_;
  void NoteDropped(const std::string& folder, const std::string& journal_dir, const journal::ReplayResult& r);
  // A full disk (MakeRoom): set when the file system last refused room,
  // cleared when it next gave some; WriteState reports it.
  std::atomic<bool> no_space_{false};
  mutable base::Mutex no_space_mu_;
  Status no_space_cause_ FENEC_GUARDED_BY(no_space_mu_);
  int64_t no_space_at_ns_ FENEC_GUARDED_BY(no_space_mu_) = 0;  // steady clock
  base::Mutex ring_mu_;
  base::CondVar ring_cv_;  // ring_inflight_ reached 0
  uint64_t ring_inflight_ FENEC_GUARDED_BY(ring_mu_) = 0;
  int shared_journals_ FENEC_GUARDED_BY(lock_) = -1;  // -1 undecided; decided under the write lock
  bool recovering_ FENEC_GUARDED_BY(lock_) = false;  // open's replay: indexes are loaded after it, from the branches
  // Ids put records skip (a first id past the collection's end: ids burned
  // by puts that failed after taking them), in all collections, since the
  // last committed checkpoint's capture: replay's count (ApplyRecord), then
  // the writer's (Land), which is never below what replay from either the
  // last checkpoint or one in progress would count. At most MaxReplayIdGap().
  uint64_t replay_id_gap_ FENEC_GUARDED_BY(lock_) = 0;
  // (collection, id) a put asked the next checkpoint to extend the
  // collection's catalog to, so that replay starts past the ids its record
  // skips; the live index follows once that checkpoint commits.
  std::vector<std::pair<uint32_t, uint64_t>> id_floors_ FENEC_GUARDED_BY(lock_);
  uint64_t checkpoint_captures_ FENEC_GUARDED_BY(lock_) = 0;         // checkpoints that captured state
  uint64_t checkpoint_committed_ FENEC_GUARDED_BY(checkpoint_mu_) = 0;  // the last committed one's capture number

  friend struct CollectionState;  // its annotations name lock_
};

// A collection. Its id, name and schema never change; what its rows change
// is guarded by the lock of the database that owns it.
struct CollectionState {
  uint32_t id = 0;
  std::string name;
  std::shared_ptr<const Schema> schema;
  IdIndex index FENEC_GUARDED_BY(&DbImpl::lock_);  // by DocId, [0] unused
  std::atomic<uint64_t> next_id{1};  // ids reserved outside the lock
  uint64_t live FENEC_GUARDED_BY(&DbImpl::lock_) = 0;
  // Set at creation, never replaced; its tables change under the lock (its
  // index set is fixed: DbImpl::IndexSet).
  std::unique_ptr<FieldIndexes> indexes FENEC_PT_GUARDED_BY(&DbImpl::lock_);
  // JR-1: a branch storage per index (FieldIndexes::branch_fields order),
  // attached at open or creation (under the write lock), never removed
  // (a dropped collection's are closed, and freed with it).
  std::vector<std::unique_ptr<Branch>> branches FENEC_GUARDED_BY(&DbImpl::lock_);
  // The last root LSN that touched this collection.
  uint64_t last_lsn FENEC_GUARDED_BY(&DbImpl::lock_) = 0;
  // Unsynced modes (DbImpl::ReserveIds): ids below ids_reserved are covered
  // by the reservation record at reserve_lsn (0: by what open recovered), and
  // those below prev_reserved by the one before it, at prev_reserve_lsn.
  uint64_t ids_reserved FENEC_GUARDED_BY(&DbImpl::lock_) = 0;
  uint64_t reserve_lsn FENEC_GUARDED_BY(&DbImpl::lock_) = 0;
  uint64_t prev_reserved FENEC_GUARDED_BY(&DbImpl::lock_) = 0;
  uint64_t prev_reserve_lsn FENEC_GUARDED_BY(&DbImpl::lock_) = 0;
  // How far a new reservation reaches (doubled after a put waited for one).
  std::atomic<uint64_t> ids_step{DbImpl::kIdsReservedAhead};
  // Set (under the write lock) when it is dropped or its creation failed: a
  // write holding a reference lands nothing.
  bool dropped FENEC_GUARDED_BY(&DbImpl::lock_) = false;
  // One per @hnsw field (FieldIndexes::hnsw_fields order). Made before the
  // collection is published and never replaced, so read without a lock;
  // each is thread-safe (vector_field.h).
  std::vector<std::unique_ptr<VectorField>> vectors;
};

}  // namespace fenec
