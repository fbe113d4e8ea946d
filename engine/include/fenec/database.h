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
// recovers every acknowledged write (as Options::durability promises). A
// full disk is not a failure: a write it has no room for is refused with
// kNoSpace before anything of it lands, and writes resume by themselves once
// space returns (engine/doc/journal.md, "A full disk").
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
#include "fenec/stats.h"
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
  // already), kAlreadyExists, kFailStopped, kNoSpace (no room for it;
  // nothing changed), kIOError (making a folder, a file or a thread; nothing
  // changed), or - irrevocable, then fail-stopped - an unexpected exception.
  virtual Result<CollectionId> CreateCollection(const std::string& name, const Schema& schema) = 0;
  // Journals the drop, then (once that is durable) stops its linkers and
  // removes its index storages; the name is free again at once and the
  // collection no longer counts against the limit. Its handles return
  // kNotFound from then on; reads already running, and snapshots pinned
  // before, go on reading it. A handle is never given again, so a collection
  // created again under the name has a new one. Fails: kNotFound,
  // kFailStopped, kNoSpace (no room for its record; nothing changed),
  // kIOError (its record's write: fail-stopped).
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
  // kNoSpace (the disk has no room for it; nothing landed, its id given
  // back), kFailStopped, kIOError (this write failed; the database is now
  // fail-stopped).
  virtual Result<DocId> Put(CollectionId collection, Document doc) = 0;
  // All or nothing, in one commit (one journal record): ids returned in
  // order. A @unique clash with a stored document or within the batch
  // rejects the whole batch. Fails: as Put.
  virtual Result<std::vector<DocId>> PutBatch(CollectionId collection, std::vector<Document> docs) = 0;
  // PutBatch without holding the caller's thread while it waits for the
  // fsync: the rows land on the caller's thread (a refusal before landing
  // calls done there, before this returns); done is then called exactly
  // once, on an engine thread, when the batch is as durable as the options
  // say, or with its error (as PutBatch's). Rounds of the group commit carry
  // every batch waiting then. done must be short and must not call back
  // into the database's writes; Close calls every pending done first.
  using PutDone = std::function<void(Result<std::vector<DocId>>)>;
  virtual void PutBatchAsync(CollectionId collection, std::vector<Document> docs, PutDone done) = 0;
  // PutBatchAsync for a thread that must never wait (fenec-server's io
  // threads): false, with nothing changed, done not called and docs as
  // given, when landing would wait: the write lock not free at once, an
  // @hnsw field's queue full, a checkpoint owed, room to be made in the
  // journal or the data file, or options whose put waits on its own thread
  // (naive, the merger, buffers written under the lock).
  // Else true, and done is called once, when the batch is as durable as
  // the options say, or with its error: on an engine thread if that needed
  // I/O (an fsync, a journal write, an id reservation's fsync), else before
  // this returns.
  virtual bool TryPutBatchAsync(CollectionId collection, std::vector<Document>& docs, PutDone& done) = 0;
  // Fails: kNotFound (collection or id), kNoSpace (nothing changed),
  // kFailStopped, kIOError.
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
  // write lock is held only to capture the state. Fails: kFailStopped,
  // kNoSpace (nothing committed: the journals stay, writes go on), kIOError.
  virtual Status Checkpoint() = 0;
  // Makes every landed write durable (kBuffered: an fsync now). Fails: kFailStopped, kIOError.
  virtual Status Sync() = 0;
  // Stops the periodic sync, makes every landed write durable, checkpoints
  // (Options::checkpoint_on_close) and closes files. Later calls return
  // kClosed. Returns the first error met, or the fail-stop cause.
  virtual Status Close() = 0;

  // Whether writes are accepted, from atomics alone (never the database's
  // lock, so a health check never waits behind a writer): OK, kFailStopped
  // carrying the first error, kClosed, or kNoSpace while the disk has no
  // room for writes (they resume by themselves once it has; reads go on).
  virtual Status WriteState() const = 0;
  // What the database did (fenec/stats.h declares every counter, its kind and its unit).
  virtual Stats GetStats() const = 0;
  // Zeroes the kCounter and kMaximum stats; keeps the kPeak ones (since
  // open) and the gauges (LSNs, what is open or held, what open recovered,
  // fail_stopped).
  virtual void ResetStats() = 0;

  // Checks every stored document decodes against its schema and every
  // @unique/@text/@hnsw index agrees with the rows (an @hnsw index, once
  // its queue is drained: holds exactly the live documents' vectors).
  // Fails: kCorruption, describing the first problem.
  virtual Status Check() const = 0;
};

}  // namespace fenec
