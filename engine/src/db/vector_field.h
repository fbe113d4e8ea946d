// VectorField: one @hnsw field's index inside the database - the library's
// VectorIndex (engine/src/index/vector/vector_index.h), the queue of changes
// landed but not yet applied to it, and the linker thread that applies them.
//
// Why a queue: linking a vector into the graph costs thousands of distances;
// done under the database's write lock it would stall every writer and
// reader behind it. So a put lands its row under the write lock (visible by
// id at once, journaled with its branch record) and hands its vector here;
// the linker applies the queue outside every database lock, in order:
// consecutive puts in runs of up to kLinkBatch (VectorInsert::kBatch, one
// InsertBatch on every core) or one at a time (kRow), erases one by one.
//
// The queue holds immutable blocks, one per commit (a put's or batch's
// vectors, or a delete's id), shared by pointer: a search copies the list of
// blocks under mu_ (reference counts, no vectors) and scans them with no
// lock, so a NEAR never holds up the writers queueing behind it. A block
// leaves the queue only after the linker has applied it, so a vector is
// always in the queue or in the graph (published), never in neither.
//
// Bound (HnswOptions::queue_bound): a writer reserves room for its vectors
// before it takes the write lock and waits while the queue is full
// (queue_waits counts it); a batch larger than the bound goes in once the
// queue is empty. Reserving before the lock keeps waiting writers from
// holding the write lock, and the linker never needs that lock.
//
// Checkpoints (db_branches.cc): under the write lock HoldAtNow() stops the
// linker at the queue's end as of that root LSN; WaitHeld() waits until it
// has applied everything before the mark; the graph is cleaned up and
// serialized at exactly that point, then Unhold() lets the linker go on.
//
// Locking: mu_ guards the queue, the counters and the flags; it is taken
// under the database's write lock (Enqueue, HoldAtNow) but never the other
// way round, and it is never held across index work.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "engine/src/base/mutex.h"
#include "engine/src/base/thread_annotations.h"
#include "engine/src/db/branch.h"
#include "engine/src/index/vector/vector_index.h"
#include "fenec/options.h"
#include "fenec/schema.h"
#include "fenec/status.h"

namespace fenec {

// One commit's changes to one @hnsw field: puts (ids and their vectors, dim
// floats each, in order) or erases (ids, no vectors).
struct VectorBlock {
  bool erase = false;
  std::vector<uint64_t> ids;
  std::vector<float> vectors;
};

// What a field's index and queue did (VectorField::stats): the library's
// counters since open or ResetStats, the gauges as they stand.
struct VectorFieldStats {
  index::vec::Stats index;
  index::vec::MemoryBreakdown memory;
  uint64_t pending = 0;           // puts queued, not linked
  uint64_t queue_waits = 0;       // Reserve calls that waited for room
  uint64_t linked = 0;            // puts the linker applied
  uint64_t link_batches = 0;      // linker rounds that applied puts
  uint64_t pending_scanned = 0;   // queued vectors searches compared exactly
  uint64_t cleanups_unlinked = 0; // tombstones Cleanup unlinked
  uint64_t link_errors = 0;       // puts the index refused (never expected: Schema::Check screens them)
};

// A queued vector a search compared exactly.
struct PendingHit {
  uint64_t id = 0;
  float distance = 0;
};

class VectorField {
 public:
  static constexpr size_t kLinkBatch = 512;

  // field: the schema's field (a vector with @hnsw), index: its position,
  // folder: its branch folder (under VectorStorage::kFile the vectors file
  // lives there; it is made at the first insert or load).
  // Fails: kInvalidArgument (an option out of range).
  static Result<std::unique_ptr<VectorField>> Create(const Field& field, int index, const HnswOptions& options,
                                                     const std::string& folder = {});
  ~VectorField();  // stops the linker; what is still queued is dropped (it is in the journals)

  int field() const { return field_; }
  uint32_t dim() const { return dim_; }
  VectorMetric metric() const { return metric_; }
  const index::vec::Options& index_options() const { return index_->options(); }

  // --- the write path
  // Before the write lock: waits until `puts` more vectors fit in the queue
  // and reserves them. Returns at once once the linker is stopped.
  void Reserve(size_t puts) FENEC_EXCLUDES(mu_);
  // Reserve that never waits: false, nothing reserved, when it would.
  bool TryReserve(size_t puts) FENEC_EXCLUDES(mu_);
  // A reservation the write did not use (it failed before landing).
  void Release(size_t puts) FENEC_EXCLUDES(mu_);
  // Under the database's write lock: queues one commit's changes (null: none)
  // and gives back its reservation.
  void Enqueue(std::shared_ptr<const VectorBlock> block, size_t reserved) FENEC_EXCLUDES(mu_);

  // --- the linker
  // Fails: kIOError (std::thread could not start one: EAGAIN), nothing started.
  Status StartLinker() FENEC_EXCLUDES(mu_);
  // Tests: the n-th (1-based) next StartLinker in the process fails as a
  // thread that cannot be made does (0: none).
  static void FailNthLinkerStartForTest(uint64_t n);
  void StopLinker() FENEC_EXCLUDES(mu_);
  // Returns once every change queued before the call is applied (at once if
  // the linker is not running).
  void WaitLinked() const FENEC_EXCLUDES(mu_);
  // Nothing queued (every change applied).
  bool Idle() const FENEC_EXCLUDES(mu_);

  // --- checkpoints
  // Under the database's write lock: the linker applies nothing queued from
  // now on until Unhold.
  void HoldAtNow() FENEC_EXCLUDES(mu_);
  // Waits for the linker to reach the mark, unlinks tombstones, serializes
  // the graph as of the mark, and lets the linker go on.
  void CheckpointHeld(std::vector<uint8_t>* graph) FENEC_EXCLUDES(mu_);
  void Unhold() FENEC_EXCLUDES(mu_);

  // --- open (before the linker starts)
  Status Load(std::span<const uint8_t> graph, const index::vec::VectorIndex::VectorSource& source);
  // Applies blocks at once, in order (recovery's tail, a rebuild).
  Status ApplyNow(std::span<const VectorBlock> blocks);

  // --- reads
  // The graph's k nearest owners the filter accepts (graph), and every
  // queued vector with its exact distance (pending; unfiltered, unsorted).
  Status Search(std::span<const float> query, size_t k, size_t ef, const index::vec::Filter& filter,
                std::vector<index::vec::Hit>* graph, std::vector<PendingHit>* pending) const FENEC_EXCLUDES(mu_);
  // The exact distance the index's metric gives (the scan of queued vectors).
  float Distance(const float* query, float query_norm, const float* v) const;
  // Check: whether the graph holds id (the queue drained first), and how many owners it holds.
  bool Holds(uint64_t id) const { return index_->NodeOf(id).has_value(); }
  uint64_t owners() const { return index_->stats().owners; }

  VectorFieldStats stats() const FENEC_EXCLUDES(mu_);
  void ResetStats() FENEC_EXCLUDES(mu_);

 private:
  VectorField(const Field& field, int index, std::unique_ptr<index::vec::VectorIndex> vi);

  // What the linker took from the queue's front.
  struct Work {
    bool erase = false;
    std::vector<std::shared_ptr<const VectorBlock>> blocks;
    std::vector<index::vec::InsertItem> items;  // puts: into blocks' vectors
    std::vector<uint64_t> erases;
    size_t entries = 0;
  };
  bool Runnable() const FENEC_REQUIRES(mu_);
  bool Fits(size_t puts) const FENEC_REQUIRES(mu_);  // Reserve may take `puts` more now
  void Take(Work* w) FENEC_REQUIRES(mu_);
  void Finish(const Work& w) FENEC_REQUIRES(mu_);
  void Apply(const Work& w);  // no lock
  void LinkerLoop() FENEC_EXCLUDES(mu_);

  const int field_;
  const uint32_t dim_;
  const VectorMetric metric_;
  const std::unique_ptr<index::vec::VectorIndex> index_;
  const size_t batch_;  // kLinkBatch, or 1 under VectorInsert::kRow
  size_t bound_ = 0;    // set by Create

  mutable base::Mutex mu_;
  mutable base::CondVar cv_;  // the queue or the flags changed
  std::deque<std::shared_ptr<const VectorBlock>> queue_ FENEC_GUARDED_BY(mu_);
  size_t front_done_ FENEC_GUARDED_BY(mu_) = 0;     // entries of queue_.front() applied
  uint64_t enqueued_ FENEC_GUARDED_BY(mu_) = 0;     // entries ever queued
  uint64_t applied_ FENEC_GUARDED_BY(mu_) = 0;      // entries ever applied
  uint64_t taken_ FENEC_GUARDED_BY(mu_) = 0;        // entries taken by the linker (applied + in flight)
  uint64_t hold_ FENEC_GUARDED_BY(mu_) = UINT64_MAX;  // the linker takes no entry at or past it
  uint64_t pending_puts_ FENEC_GUARDED_BY(mu_) = 0;
  uint64_t reserved_ FENEC_GUARDED_BY(mu_) = 0;
  bool running_ FENEC_GUARDED_BY(mu_) = false;
  bool stop_ FENEC_GUARDED_BY(mu_) = false;
  std::thread linker_;

  index::vec::Stats base_ FENEC_GUARDED_BY(mu_);  // the index's counters at ResetStats
  std::atomic<uint64_t> queue_waits_{0}, linked_{0}, link_batches_{0}, unlinked_{0}, link_errors_{0};
  mutable std::atomic<uint64_t> pending_scanned_{0};  // counted by const searches
};

// An @hnsw branch as its folder holds it (branch.h): the checkpoint's graph
// loaded, its nodes' vectors taken from the branch's own values (no
// document is read), then the journal's tail applied in order (puts linked
// in batches, erases tombstoned). vf must be empty. Fails:
// kInvalidArgument (the graph was written with another dim, metric or M),
// kCorruption.
Status LoadFromBranch(const BranchState& st, VectorField* vf);

// The vectors file of an @hnsw branch folder under VectorStorage::kFile.
std::string VectorFileIn(const std::string& folder);
// The library's options for a field, from the database's (folder: as Create's).
index::vec::Options IndexOptionsFor(const Field& field, const HnswOptions& o, const std::string& folder = {});
// Database::Open's check of HnswOptions. Fails: kInvalidArgument.
Status ValidateHnswOptions(const HnswOptions& o);

}  // namespace fenec
