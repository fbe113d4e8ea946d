// VectorIndex: the HNSW index behind a vector field (VS-1, VS-2, GR-3, GR-4).
//
// Include as "engine/src/index/vector/vector_index.h" and link
// fenec_vector_dep (engine/src/index/vector/meson.build). It depends on the
// base and fenec/status.h only. Namespace fenec::index::vec. The same essay,
// with what goes on disk, is engine/doc/vectors.md.
//
// WHAT IS IN MEMORY
//
// Nodes have dense uint32 ids in insertion order. Per node:
//  - its vector, dim floats, in the VectorArena (chunked.h): chunks of 4096
//    vectors that never move, so a pointer to a published node's vector
//    stays valid while the arena grows and readers take no lock to read it;
//  - its level (floor(-ln U * 1/ln M), U uniform from an RNG seeded by
//    Options::seed, capped at 31) and its neighbour lists: level 0 holds up
//    to 2M ids, levels 1..level up to M (graph.h; upper lists are a heap
//    block for the ~1/M nodes that have them);
//  - its owner: the uint64 document id. Several documents holding the very
//    same vector share one node: the first owner lives in the node, the
//    others in a side table (kMultiOwner marks such nodes). An owner -> node
//    map finds an owner's node for Erase and for a document's update;
//  - flags: kPublished (linked: searches may return it), kDeleted (a
//    tombstone: no owner left), kDead (a tombstone Cleanup unlinked);
//  - a 4-byte tag: the top 32 bits of the XXH3-64 of the stored vector,
//    kept beside the graph and serialized with it (GR-4).
// The VectorTable (vector_table.h, GR-3) maps a vector's tag to the node
// holding it, confirmed by comparing the vectors; it grows a 256th at a time
// (TableArm::kSharded) or is rebuilt from every vector when half full
// (kNaive). With Quantization::kBinary, each node also keeps its vector as
// one bit a dimension (quantize.h).
//
// INVARIANTS
//  - No level-0 list holds more than 2M ids, no upper list more than M; no
//    list names its own node, a node twice, a node that does not exist, or
//    a node whose level is below the list's layer.
//  - A list names only nodes whose vector, level and lists were written
//    before it named them (the writer fills a node before linking to it).
//  - Every node with an owner is in the VectorTable; so is every tombstone
//    (a vector written again revives it); a dead node is not.
//  - The entry point is a node of the top level; it is dead only between
//    Cleanup's unlinking and its choice of a new one, under the write lock.
//
// CONCURRENCY
// Search() is const and runs on any number of threads, also while one
// writer inserts, erases or cleans up. Writers (Insert, InsertBatch, Erase,
// Cleanup, Load) take the index's write lock, so they run one at a time;
// Serialize takes it too (a consistent snapshot). Readers take no lock:
//  - a neighbour list is changed under its node's lock (a per-node spinlock
//    that counts versions, graph.h); a search copies a list and retries if a
//    writer changed it meanwhile, so it never sees a torn list;
//  - the entry point and top level are one atomic word, changed under a
//    small mutex;
//  - flags and owners are atomics; the extra-owner side table is read under
//    a shared lock, only for kMultiOwner nodes.
// A node being linked (a batch in flight) can be reached by a search before
// it is published: pre-link edges name batch-mates, and a linked batch-mate
// names them. The search walks through such a node (its lists are always
// whole) but does not return it until kPublished is set, which happens when
// the node's own lists and all its reverse links are written.
//
// INSERTS (VS-1): both arms run the same insert process (insert.h): descend
// greedily from the entry point to the node's level, beam-search each layer
// from there down with ef_construction, select M neighbours with the HNSW
// heuristic (keep a candidate only if it is nearer the new node than every
// neighbour already kept), write the node's lists, add the reverse links
// (a full list is re-selected by the same heuristic over its ids plus the
// new one). InsertArm::kRow runs one process at a time on the caller's
// thread. InsertArm::kBatch (batch.cc) takes up to batch_size inserts,
// pre-linked and run 128 at a time:
//  1. pre-link: the batch is cut into groups of 128 in batch order; the
//     distances between every two group-mates are computed on every core,
//     and each new node's lists start as up to M group-mates of its level,
//     chosen nearest first by the heuristic (so in-flight nodes find each
//     other although none is linked yet, and a clustered group is not cut
//     into one island a cluster); these edges seed the node's beams and are
//     pruned by the heuristic like any other;
//  2. each new node gets a resumable insert process (a state machine: layer,
//     candidate heap, result heap, visited set, the node it expands); a
//     group's 128 processes start together from the entry point as of then
//     and run to the end on the pool, a few to a task: a step gathers the
//     requests of the task's paused processes (each runs until it needs
//     distances: the unvisited neighbours of the node it expands), preloads
//     their vectors, computes the distances, and resumes each process with
//     its own. In memory "preload" is a prefetch of each vector just ahead
//     of its distance; with vectors in a file a step's distinct vectors
//     that are not cached are read in one sorted pass, all in flight on an
//     io_uring past the page cache (cold_read.h), while the distances to the
//     cached ones are computed.
//  3. when the whole group has chosen (no process runs then), the scheduler
//     links it: the processes' lists and the reverse links, under the
//     per-node locks (the lists changed are distinct, so the pool writes
//     them on every core), then publishes the nodes. A reverse link to a
//     batch-mate of a later group waits in that batch-mate's process and
//     joins its list when it is linked.
// A batch gives the same kind of graph as rows; its answer does not depend
// on the thread count (processes only read while a group runs, linking is
// in batch order).
//
// SEARCH: greedy descent through the upper levels, then a beam of width
// max(ef, k) on level 0; tombstones, unpublished nodes and nodes the filter
// rejects are walked through but never enter the answer. Several owners of
// one node are several answers at the same distance. A filter is applied
// inside the walk (not after it): the beam keeps ef nodes that pass, so
// recall stays near the unfiltered one while a fair share of nodes passes,
// at the price of visiting about 1/p times more nodes when a fraction p
// passes. A very selective filter (p below about ef/n) walks most of the
// reachable graph: the answer is then near exact but the search costs O(n).
//
// BINARY QUANTIZATION (VS-2): with kBinary each vector is also stored as one
// bit a dimension, whether it lies above that dimension's threshold (the
// mean of the vectors held when the index first reaches 1024 nodes), plus,
// per dimension, each side's mean and variance (quantize.h), then frozen
// and serialized: a code never changes once written, so searches read codes
// with no lock while inserts add more. Below 1024 nodes searches use the
// full vectors. The graph is built on full distances (a graph built on
// codes bakes the quantization error into every link, and the build reads
// the full vectors anyway); searches walk it on the query's estimated
// distance to each code (full-precision query, one table lookup per 4
// dimensions), keep a beam of max(ef, oversample * k), and rescore the best
// oversample * k on the full vectors (default 16 * k: on clustered data the
// codes tell clusters apart far better than cluster-mates, so the pool must
// cover a fair share of a cluster; engine/doc/vectors.md has the figures).
// With rescore = false the answers carry the estimates, in the metric's
// units.
//
// ERASE AND CLEANUP: Erase(owner) removes the owner; a node left with none
// becomes a tombstone at once (never returned, still walked through, still
// in the VectorTable: writing its vector again revives it). Cleanup()
// unlinks tombstones: every list that names one is re-selected by the
// heuristic over its other ids plus the tombstone's neighbours (degree
// bounds hold), the tombstone's own lists are emptied, it leaves the table
// and becomes dead (its id is not reused; its vector stays in the arena).
//
// ERRORS: every call that takes a vector fails with kInvalidArgument (and
// changes nothing) on a wrong dimension, a NaN or infinite component, or a
// zero vector under kCosine. Load fails with kCorruption on bytes that fail
// the checksum or any format check, and with kInvalidArgument when the bytes
// are sound but were written with another dim, metric or M.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "engine/src/index/vector/vector_types.h"
#include "fenec/status.h"

namespace fenec::index::vec {

class IndexCore;

class VectorIndex {
 public:
  // Fails: kInvalidArgument on an option out of its range (vector_types.h).
  static Result<std::unique_ptr<VectorIndex>> Create(const Options& options);
  ~VectorIndex();
  VectorIndex(const VectorIndex&) = delete;
  VectorIndex& operator=(const VectorIndex&) = delete;

  // The options as resolved (threads = the count used, ef_construction >= m).
  const Options& options() const;

  // Adds `owner` holding `vector`. If that exact vector is held already, the
  // owner joins its node (no new node); if the owner held another vector,
  // it leaves that one first; if it holds this one, nothing changes.
  // Fails: kInvalidArgument (nothing changed).
  Status Insert(uint64_t owner, std::span<const float> vector);
  // The same for many items, in order (a later item of the same owner
  // wins); under kBatch the new nodes are linked batch_size at a time.
  // Fails: kInvalidArgument if any item is bad (nothing changed).
  Status InsertBatch(std::span<const InsertItem> items);
  // Removes the owner; false if it holds no vector.
  bool Erase(uint64_t owner);
  // Unlinks every tombstone (see above). Takes the write lock for its run.
  CleanupReport Cleanup();

  // The k nearest owners to `query`, nearest first, searched with a beam of
  // ef (0: Options::ef_search). `filter`, when set, is asked about owners
  // in the walk; only owners it accepts are returned. It runs on the
  // calling thread with no lock of the index held, so it may search (this
  // index or another) but must not write to this index.
  // Fails: kInvalidArgument on a bad query (wrong dim, non-finite).
  Result<std::vector<Hit>> Search(std::span<const float> query, size_t k, size_t ef = 0,
                                  const Filter& filter = {}) const;
  // Search() with another visited set, to measure MM-2 (vector_types.h,
  // VisitedSet): the same walk and the same answers; only how it remembers
  // the nodes it scored differs. Search() is SearchWith(kBitmap, ...).
  Result<std::vector<Hit>> SearchWith(VisitedSet visited, std::span<const float> query, size_t k, size_t ef = 0,
                                      const Filter& filter = {}) const;

  // The graph without the vectors (the database stores those), see
  // engine/doc/vectors.md: levels, lists, owners, flags, tags, the entry
  // point, the binary center, and the vectors of tombstones (no document
  // holds them any more). Versioned, checksummed (XXH3-64).
  void Serialize(std::vector<uint8_t>* out) const;
  // Supplies node `node`'s vector (as it was inserted) for one of its owners.
  using VectorSource = std::function<Status(uint32_t node, uint64_t owner, std::span<float> out)>;
  // Replaces an empty index's contents by a serialized graph. Calls `source`
  // once for every node that has an owner (to fill the arena); under
  // OpenArm::kKept the VectorTable is built from the kept tags and no
  // vector is read for it. Fails: kCorruption (bad bytes: checksum, version,
  // any count, id or level out of bounds), kInvalidArgument (dim, metric or
  // m differ from the options; the index is not empty), or what `source`
  // returns. On failure the index is left empty.
  Status Load(std::span<const uint8_t> bytes, const VectorSource& source);

  Stats stats() const;
  MemoryBreakdown MemoryBytes() const;

  // For tests and checks. Nodes ever added; a node's level (-1: no such
  // node) and list at a layer (a copy; empty if there is no such list); an
  // owner's node (or nullopt); the held-vector table's growths, oldest first.
  uint32_t node_count() const;
  int NodeLevel(uint32_t node) const;
  std::vector<uint32_t> Links(uint32_t node, int layer) const;
  std::optional<uint32_t> NodeOf(uint64_t owner) const;
  std::vector<GrowthEvent> TableGrowthLog() const;

 private:
  explicit VectorIndex(std::unique_ptr<IndexCore> core);
  std::unique_ptr<IndexCore> core_;
};

}  // namespace fenec::index::vec
