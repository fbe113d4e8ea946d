// fenecdb: an embedded document database whose write path embodies CC-1..CC-5.
//
//   #include <fenec/database.h>
//   auto db = fenec::Database::Open("/data/shop", fenec::Options{});
//   if (!db.ok()) ... db.status().ToString() ...
//   auto users = (*db)->CreateCollection("users", {{fenec::Field::Text("email").Unique(),
//                                                   fenec::Field::Int("age")}});
//   auto id = (*db)->Put(*users, {"ann@example.com", 41});
//
// A database is a folder: `data.fdb` (checkpointed rows and catalog) and
// `Journals/` (every commit since, one record each). Open recovers: it loads
// the last checkpoint and replays every complete journal record after it.
//
// Thread safety: every method may be called from any number of threads at
// once, except Close (and the destructor), which callers must not race with
// calls still in flight. Readers share a lock; a write takes the exclusive lock only to land
// its rows (ids, uniqueness, placement); building rows, writing files and
// fsync all happen outside it. A landed row is visible to readers before its
// fsync completes (early lock release); the writer is acknowledged only after.
//
// Failure: a failed journal write, fdatasync or data write makes the
// database fail-stop: every later write returns kFailStopped (carrying the
// first error) until it is closed and reopened; reads go on. Reopening
// recovers every acknowledged write.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "fenec/env.h"
#include "fenec/options.h"
#include "fenec/schema.h"
#include "fenec/status.h"
#include "fenec/value.h"

namespace fenec {

// A handle to a collection, valid for the life of the Database that gave it.
struct CollectionId {
  uint32_t value = 0;
  bool operator==(const CollectionId&) const = default;
};

struct Row {
  DocId id = kNoDoc;
  Document doc;
};

// What the database did. Counters only grow (until ResetStats); the *_max
// fields are maxima since open or ResetStats. Times are nanoseconds.
struct Stats {
  uint64_t commits = 0;                 // acknowledged write commits (puts, batches, deletes)
  uint64_t commits_already_durable = 0; // CC-1: commits whose LSN an earlier fsync had covered
  uint64_t commits_covered_while_waiting = 0;  // CC-1: commits another leader's fsync covered
  uint64_t group_leads = 0;             // CC-1: fsync rounds led (each one journal write + fsync)
  uint64_t fsyncs = 0;                  // journal_fsyncs + data_fsyncs
  uint64_t journal_fsyncs = 0;
  uint64_t data_fsyncs = 0;             // data file (checkpoints)
  uint64_t journal_writes = 0;          // write syscalls to journal files
  uint64_t journal_sync_ns = 0;         // time in the root journal's fdatasyncs
  uint64_t journal_zero_bytes = 0;      // zeros written ahead of journal records, every journal (Options::journal_zero_ahead)
  uint64_t data_writes = 0;             // write syscalls to the data file
  uint64_t bytes_written = 0;           // journal + data bytes
  uint64_t durable_lsn = 0;             // highest LSN known to be on disk
  uint64_t last_lsn = 0;                // highest LSN landed

  uint64_t write_lock_acquisitions = 0;
  uint64_t write_lock_wait_ns = 0;      // total time writers waited for the exclusive lock
  uint64_t write_lock_wait_max_ns = 0;
  uint64_t write_lock_hold_ns = 0;      // total time the exclusive lock was held
  uint64_t write_lock_hold_max_ns = 0;
  uint64_t write_lock_holds_over_1ms = 0;
  // Options::probe_lock_holds only (else 0): what the holds cost the holding
  // thread. A hold long in wall time but short in CPU time was preempted.
  uint64_t write_lock_hold_cpu_ns = 0;         // thread CPU time during holds
  uint64_t write_lock_hold_cpu_max_ns = 0;     // the most CPU time one hold used
  uint64_t write_lock_longest_hold_cpu_ns = 0; // CPU time of the hold write_lock_hold_max_ns measured
  uint64_t write_lock_hold_faults = 0;         // page faults taken while holding
  uint64_t write_lock_longest_hold_faults = 0;
  uint64_t write_lock_hold_preemptions = 0;    // involuntary context switches while holding
  uint64_t write_lock_longest_hold_preemptions = 0;

  uint64_t pins = 0;                    // CC-5: long reads pinned
  uint64_t pin_ns = 0;                  // pin_wait_ns + pin_hold_ns
  uint64_t pin_max_ns = 0;
  uint64_t pin_wait_ns = 0;             // waiting for the shared lock to pin
  uint64_t pin_hold_ns = 0;             // holding it while pinning (what writers wait behind)
  uint64_t pin_hold_max_ns = 0;
  uint64_t pinned_rows = 0;             // id-index entries pinned (shared, never copied)
  uint64_t pin_chunks_shared = 0;       // id-index chunks pins shared: ceil(entries / 65 536) a collection
  uint64_t id_chunks_copied = 0;        // chunks a writer copied because a pin held them (copy-on-write)
  uint64_t id_chunks_prefaulted = 0;    // spare chunks zeroed and faulted in outside the lock
  uint64_t id_chunks_fresh_under_lock = 0;  // chunks taken under the lock with no spare ready

  uint64_t buffer_flushes = 0;          // CC-4: write buffers written to the data file
  uint64_t buffer_flushes_under_lock = 0;
  uint64_t handover_pieces = 0;         // CC-4: lock holds that handed over entries
  uint64_t handover_entries = 0;
  uint64_t write_buffers_prefaulted = 0;  // spare write buffers whose pages were touched outside the lock
  uint64_t writes_deferred_for_sync = 0;  // GR-5: writes put off while the periodic fsync ran
  uint64_t periodic_syncs = 0;          // kBuffered: background fsync rounds that synced something

  // JR-1: storages and their journals. A branch is an index's storage.
  uint64_t branches = 0;                // branch storages open (one per @unique / @text field)
  bool journals_shared = false;         // shared journals in effect (false: kSeparate, or the hard-link fallback)
  uint64_t journal_links = 0;           // hard links made into branches' Journals/
  uint64_t branch_journal_writes = 0;   // kSeparate: write syscalls to branch journals
  uint64_t branch_journal_fsyncs = 0;   // kSeparate: fdatasyncs of branch journals
  uint64_t branches_recovered = 0;      // at open: indexes loaded from their own branch storage
  uint64_t branches_rebuilt = 0;        // at open: branches behind the root, rebuilt from the documents

  // JR-2: the transaction merger (Completion::kMerger*).
  uint64_t merger_batches = 0;          // batches of operations executed
  uint64_t merger_ops = 0;              // operations executed
  uint64_t merger_async_completions = 0;  // batches whose commit was completed while the next batch ran

  uint64_t ring_flushes = 0;            // DataFlush::kGlobalRing: write buffers written through the ring

  // @hnsw vector indexes (engine/doc/vectors.md), summed over every one.
  // Counted since open (or ResetStats), but the gauges: what the indexes
  // hold and pending vectors. A reopened index starts at zero: figures
  // here say what this session did (a loaded graph has 0 rounds).
  uint64_t vector_indexes = 0;          // @hnsw fields open
  uint64_t vector_nodes = 0;            // gauge: graph nodes (one per distinct vector ever linked)
  uint64_t vector_owners = 0;           // gauge: documents the graphs hold
  uint64_t vector_tombstones = 0;       // gauge: deleted vectors still linked (never answered)
  uint64_t vector_pending = 0;          // gauge: vectors landed, not yet linked (a NEAR scans them exactly)
  uint64_t vector_queue_waits = 0;      // writers that waited for room in a full queue (HnswOptions::queue_bound)
  uint64_t vector_linked = 0;           // vectors the linkers linked into a graph
  uint64_t vector_link_batches = 0;     // linker rounds (each one InsertBatch, or one Insert in kRow)
  uint64_t vector_prelink_edges_added = 0;   // VS-1: edges between batch-mates before linking
  uint64_t vector_prelink_edges_pruned = 0;  // VS-1: of those, dropped later by the heuristic
  uint64_t vector_rounds = 0;                // VS-1: gathered distance rounds
  uint64_t vector_round_distances = 0;       // distances computed in those rounds
  uint64_t vector_round_distances_max = 0;   // the most in one round (since open: ResetStats keeps it)
  uint64_t vector_insert_distances = 0;      // distances computed to link vectors
  uint64_t vector_searches = 0;              // graph searches (one per NEAR and index)
  uint64_t vector_search_distances = 0;      // distances those searches computed
  uint64_t vector_pending_scanned = 0;       // pending vectors NEARs compared exactly
  uint64_t vector_table_growths = 0;         // GR-3: growths of the held-vector table
  uint64_t vector_table_entries_moved = 0;   // entries those growths moved
  uint64_t vector_table_max_entries_moved = 0;  // the most one growth moved (since open)
  uint64_t vector_reads_after_load = 0;      // GR-4: vectors read to build the table after open (kKept: 0)
  uint64_t vector_cleanups_unlinked = 0;     // tombstones checkpoints unlinked
  uint64_t vector_bytes_full = 0;            // gauge: full vectors in memory
  uint64_t vector_bytes_binary = 0;          // gauge: VS-2's one-bit codes
  uint64_t vector_bytes_graph = 0;           // gauge: neighbour lists
  double vector_distances_per_round() const {
    return vector_rounds ? double(vector_round_distances) / double(vector_rounds) : 0;
  }
  double vector_distances_per_search() const {
    return vector_searches ? double(vector_search_distances) / double(vector_searches) : 0;
  }

  uint64_t checkpoints = 0;
  // Of them, taken by a put whose record would have made replay skip more
  // ids than it allows (ids burned by refused puts; engine/doc/journal.md, Limits).
  uint64_t id_gap_checkpoints = 0;
  uint64_t recovered_records = 0;       // journal records replayed at open
  // Open's recovery (catalog, replay, checkpoint), wall time. Its lock
  // holds are not in the write_lock_* figures, which start after it.
  uint64_t recovery_ns = 0;
  uint64_t recovery_discarded_bytes = 0;  // torn journal tail ignored at open
  // RecoveryMode::kPointInTime: records (intact, past an unreadable durable
  // one) and bytes dropped at open, in every storage.
  uint64_t recovery_dropped_records = 0;
  uint64_t recovery_dropped_bytes = 0;
  bool fail_stopped = false;
};

// A pinned view of the whole database as it stood when taken (CC-5): each
// collection's id index and its stored rows shared (a writer copies a
// shared id-index chunk before changing it). Reads through it
// take no lock. Cheap to hold; holding one keeps written buffers in memory.
class Snapshot {
 public:
  virtual ~Snapshot() = default;
  virtual uint64_t lsn() const = 0;  // last LSN landed when pinned
};

// While one is alive on a thread, that thread's short reads (Get without a
// snapshot, FindCollection, GetSchema, Count) take the database's shared lock only if it is
// free at once, and otherwise return kBusy with nothing read, instead of
// waiting behind a writer that holds or awaits the lock. For a thread that
// serves many clients and must never block (fenec-server's io threads): it
// hands a refused read to a thread that may wait. Scopes nest; each counts
// the reads refused on its thread while it lived.
class NoWaitReads {
 public:
  NoWaitReads();
  ~NoWaitReads();
  NoWaitReads(const NoWaitReads&) = delete;
  NoWaitReads& operator=(const NoWaitReads&) = delete;
  uint64_t busy() const;  // reads this scope's thread was refused since the scope began

 private:
  uint64_t busy_at_start_;
};

struct ReadOptions {
  // Read this pinned view instead of the live database.
  std::shared_ptr<const Snapshot> snapshot;
  // A long read (Scan, ScanEach, Aggregate) still going at this time stops
  // with kTimedOut; the default (the clock's epoch) means none. Checked as
  // the read goes, every few hundred documents.
  std::chrono::steady_clock::time_point deadline{};
  // Another thread sets it to stop a long read at its next check (kTimedOut).
  const std::atomic<bool>* cancel = nullptr;
  // Long reads visit only ids after this one: the next page of a read that
  // stopped at its limit starts after the last id it returned.
  DocId after = kNoDoc;
};

// A nearest-neighbour query (Database::Near).
struct NearOptions {
  static constexpr size_t kMaxK = 1000;
  static constexpr size_t kMaxEf = 10000;
  size_t k = 10;   // answers wanted, 1..kMaxK
  size_t ef = 0;   // the search's beam width, 0: HnswOptions::ef_search; at most kMaxEf (k is used if larger)
  Filter where;    // only documents it matches are answered
};

struct NearHit {
  DocId id = kNoDoc;
  float distance = 0;  // the field's metric (schema.h VectorMetric)
  Document doc;
};

class Database {
 public:
  virtual ~Database() = default;  // closes (see Close) if not closed

  // Opens or creates the database folder and recovers it.
  // Fails: kNotFound (missing and !create_if_missing), kAlreadyExists
  // (error_if_exists), kInvalidArgument (bad options), kCorruption (data
  // file's superblocks or catalog fail their checksums; a journal record
  // that was durable cannot be read, with Options::recovery
  // kTolerateTornTail: the message names the file and byte offset),
  // kIOError/kNoSpace.
  static Result<std::unique_ptr<Database>> Open(const std::string& folder, const Options& options);

  // All or nothing: its index storages (Indexes/c<id>.f<field>.*/), their
  // journals and its @hnsw linker threads are made before the collection is
  // visible or journaled; if one fails, what was made is removed (a folder
  // the removal leaves is removed at the next open) and the database goes
  // on. Fails: kInvalidArgument (Schema::Validate, bad name, 4 096 live
  // already), kAlreadyExists, kFailStopped, kIOError/kNoSpace (making a
  // folder, a file or a thread; nothing changed), or - irrevocable, then
  // fail-stopped - its journal record's write or an unexpected exception.
  virtual Result<CollectionId> CreateCollection(const std::string& name, const Schema& schema) = 0;
  // Journals the drop, then (once that is durable) stops its linkers and
  // removes its index storages; the name is free again at once and the
  // collection no longer counts against the limit. Its handles return
  // kNotFound from then on; reads already running, and snapshots pinned
  // before, go on reading it. A handle is never given again, so a collection
  // created again under the name has a new one. Fails: kNotFound,
  // kFailStopped, kIOError/kNoSpace (its record's write: fail-stopped).
  virtual Status DropCollection(const std::string& name) = 0;
  // Fails: kNotFound.
  virtual Result<CollectionId> FindCollection(const std::string& name) const = 0;
  virtual std::vector<std::string> ListCollections() const = 0;
  // Fails: kNotFound (bad handle).
  virtual Result<Schema> GetSchema(CollectionId collection) const = 0;

  // Lands one document and returns its id once it is as durable as the
  // options say. Ids are reserved before the write lock, so concurrent puts
  // may land out of id order, and a failed put leaves its id unused. Fails: kNotFound (collection), kInvalidArgument
  // (Schema::Check), kConstraint (@unique), kTooLarge (its journal record, or
  // an index's, would exceed Options::max_commit_bytes; nothing landed),
  // kFailStopped, kIOError/kNoSpace (this write failed; the database is now
  // fail-stopped).
  virtual Result<DocId> Put(CollectionId collection, Document doc) = 0;
  // All or nothing, in one commit (one journal record): ids returned in
  // order. A @unique clash with a stored document or within the batch
  // rejects the whole batch. Fails: as Put.
  virtual Result<std::vector<DocId>> PutBatch(CollectionId collection, std::vector<Document> docs) = 0;
  // Fails: kNotFound (collection or id), kFailStopped, kIOError/kNoSpace.
  virtual Status Delete(CollectionId collection, DocId id) = 0;

  // A short read, under the shared lock. Fails: kNotFound.
  virtual Result<Document> Get(CollectionId collection, DocId id, const ReadOptions& ro = {}) const = 0;
  // Documents matching filter in id order, at most `limit` (0: no limit).
  // A long read: pinned unless LongReads::kUnderLock. Fails: kNotFound
  // (collection), kInvalidArgument (unknown field, value of the wrong type,
  // kContains on a non-text field), kTimedOut (ReadOptions::deadline, cancel).
  virtual Result<std::vector<Row>> Scan(CollectionId collection, const Filter& filter, uint64_t limit,
                                        const ReadOptions& ro = {}) const = 0;
  // Calls fn for each document filter matches, in id order, until fn
  // returns false: a Scan that keeps no rows. fn may run under the shared
  // lock (a read an index answers, LongReads::kUnderLock), so it must not
  // call this database. Fails: as Scan, kTimedOut (ReadOptions::deadline,
  // cancel).
  virtual Status ScanEach(CollectionId collection, const Filter& filter, const ReadOptions& ro,
                          const std::function<bool(DocId, const Document&)>& fn) const = 0;
  // count/sum/min/max of `field` (empty: count documents only) over the
  // documents filter matches. A long read. Fails: as Scan, and
  // kInvalidArgument for a vector field.
  virtual Result<AggregateResult> Aggregate(CollectionId collection, const std::string& field,
                                            const Filter& filter = {}, const ReadOptions& ro = {}) const = 0;
  // Documents in the collection (live, not deleted); a short read.
  virtual Result<uint64_t> Count(CollectionId collection) const = 0;

  // The k documents whose @hnsw `field` (a schema index, or a name) is
  // nearest to `query`, nearest first: every document landed before the
  // call is seen, whether or not its vector is linked into the graph yet
  // (the graph's answer is merged with an exact scan of the vectors still
  // queued). A WHERE is applied inside the graph walk (engine/doc/vectors.md
  // says what it costs). An answer is one consistent view: the collection is
  // pinned under the shared lock; the search itself holds no database lock.
  // Fails: kNotFound (collection), kInvalidArgument (the field is not a
  // vector with @hnsw, a query of the wrong dimension or with a NaN or
  // infinite component, a zero query under cosine, k or ef out of range, a
  // bad filter), kClosed.
  virtual Result<std::vector<NearHit>> Near(CollectionId collection, int field, std::span<const float> query,
                                            const NearOptions& options = {}) const = 0;
  Result<std::vector<NearHit>> Near(CollectionId collection, const std::string& field, std::span<const float> query,
                                    const NearOptions& options = {}) const {
    auto schema = GetSchema(collection);
    if (!schema.ok()) return schema.status();
    int f = schema->FieldIndex(field);
    if (f < 0) return Status::InvalidArgument("no field '" + field + "'");
    return Near(collection, f, query, options);
  }
  // Returns once every vector landed before the call is linked into its
  // graph (benchmarks time a load up to here; Checkpoint and Close wait too).
  // Fails: kClosed.
  virtual Status WaitForIndexes() = 0;

  // Pins the database as it stands now (CC-5). Fails: kClosed.
  virtual Result<std::shared_ptr<const Snapshot>> Pin() const = 0;

  // Writes the data file (rows, catalog, id indexes), fdatasyncs it, then
  // deletes the journals no longer needed. Writers go on meanwhile; the
  // write lock is held only to capture the state. Fails: kFailStopped, kIOError/kNoSpace.
  virtual Status Checkpoint() = 0;
  // Makes every landed write durable (kBuffered: an fsync now). Fails: kFailStopped, kIOError.
  virtual Status Sync() = 0;
  // Stops the periodic sync, makes every landed write durable, checkpoints
  // (Options::checkpoint_on_close) and closes files. Later calls return
  // kClosed. Returns the first error met, or the fail-stop cause.
  virtual Status Close() = 0;

  // Whether writes are accepted, from atomics alone (never the database's
  // lock, so a health check never waits behind a writer): OK, kFailStopped
  // carrying the first error, or kClosed.
  virtual Status WriteState() const = 0;
  virtual Stats GetStats() const = 0;
  virtual void ResetStats() = 0;  // zeroes counters and maxima (not LSNs, not fail_stopped)

  // Checks every stored document decodes against its schema and every
  // @unique/@text/@hnsw index agrees with the rows (an @hnsw index, once
  // its queue is drained: holds exactly the live documents' vectors).
  // Fails: kCorruption, describing the first problem.
  virtual Status Check() const = 0;
};

}  // namespace fenec
