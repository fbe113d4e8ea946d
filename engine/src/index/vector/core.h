// IndexCore: VectorIndex's state and the functions every part of it shares.
// Internal; the design is in vector_index.h. Its member functions live in
// core.cc (construction, owners, erase, counters), search.cc, insert.cc
// (the insert process and linking), batch.cc (the batch arm), cleanup.cc
// and serialize.cc.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <unordered_map>
#include <vector>

#include "engine/src/base/mutex.h"
#include "engine/src/base/thread_annotations.h"
#include "engine/src/index/vector/chunked.h"
#include "engine/src/index/vector/distance.h"
#include "engine/src/index/vector/graph.h"
#include "engine/src/index/vector/quantize.h"
#include "engine/src/index/vector/scalar4.h"
#include "engine/src/index/vector/table.h"
#include "engine/src/index/vector/thread_pool.h"
#include "engine/src/index/vector/vector_table.h"
#include "engine/src/index/vector/vector_types.h"
#include "fenec/status.h"

namespace fenec::index::vec {

// Vectors prefetched ahead of the one being scored, by the search's walk and
// the batch inserter alike: their first cache line each (the hardware
// prefetcher follows the rest; prefetching every line of several vectors
// fills the line-fill buffers and stalls).
inline constexpr size_t kPrefetchAhead = 4;

// A node and its distance to whatever is being compared (a query, a new node).
struct Neighbor {
  float d;
  uint32_t id;
};
inline bool operator<(const Neighbor& a, const Neighbor& b) { return a.d < b.d || (a.d == b.d && a.id < b.id); }
inline bool operator>(const Neighbor& a, const Neighbor& b) { return b < a; }

// Relaxed atomics: searches add theirs once per search, writers once per call.
struct Counters {
  std::atomic<uint64_t> searches{0}, search_distances{0}, search_rescored{0}, nodes_visited{0}, visited_zeroings{0};
  std::atomic<uint64_t> inserts{0}, nodes_linked{0}, owner_hits{0}, erases{0}, insert_distances{0};
  std::atomic<uint64_t> other_distances{0};  // Cleanup's
  std::atomic<uint64_t> batches{0}, processes_run{0}, prelink_added{0}, prelink_pruned{0};
  std::atomic<uint64_t> rounds{0}, round_distances_total{0}, round_distances_max{0}, vectors_preloaded{0};
  std::atomic<uint64_t> pages_preloaded{0}, link_major_faults{0};
  std::atomic<uint64_t> vectors_read_after_load{0};
  std::atomic<uint64_t> owners{0}, tombstones{0}, dead{0};
  void Add(std::atomic<uint64_t>& c, uint64_t v) { c.fetch_add(v, std::memory_order_relaxed); }
};

// An owner map slot: owner -> node (hash kept in the slot; 0: empty).
struct OwnerSlot {
  uint64_t owner = 0;
  uint32_t node = 0;
  uint32_t h = 0;
  bool empty() const { return h == 0; }
  uint32_t hash() const { return h; }
  static uint32_t HashOf(uint64_t owner) {
    uint64_t x = owner * 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    uint32_t h = static_cast<uint32_t>(x >> 32);
    return h == 0 ? 1 : h;
  }
};

class InsertProcess;
struct BatchScratch;

// The process's major faults so far (getrusage: every thread's).
uint64_t MajorFaults();

// The batch being linked: which nodes are still in flight (their reverse
// links wait in their process, see IndexCore::Link).
struct InFlight {
  uint32_t first = 0;
  std::vector<InsertProcess>* procs = nullptr;
  std::vector<uint8_t> linked;  // by node - first
  InsertProcess* Pending(uint32_t node) const;
};

class IndexCore {
 public:
  explicit IndexCore(const Options& resolved);
  ~IndexCore();

  const Options& options() const { return opts_; }
  uint32_t dim() const { return opts_.dim; }
  const Graph& graph() const { return graph_; }
  Graph& graph() { return graph_; }
  const VectorArena& arena() const { return arena_; }
  Counters& counters() const { return counters_; }
  const float* Vector(uint32_t node) const { return arena_.At(node); }
  float Distance(const float* a, const float* b) const { return dist_(a, b, opts_.dim); }

  // The public calls (vector_index.h).
  Status Insert(std::span<const InsertItem> items) FENEC_EXCLUDES(mu_);
  bool Erase(uint64_t owner) FENEC_EXCLUDES(mu_);
  CleanupReport Cleanup() FENEC_EXCLUDES(mu_);
  Result<std::vector<Hit>> Search(std::span<const float> query, size_t k, size_t ef, const Filter& filter,
                                  VisitedSet visited) const;
  void Serialize(std::vector<uint8_t>* out) const FENEC_EXCLUDES(mu_);
  Status Load(std::span<const uint8_t> bytes, const std::function<Status(uint32_t, uint64_t, std::span<float>)>& source)
      FENEC_EXCLUDES(mu_);
  Stats GetStats() const FENEC_EXCLUDES(mu_);
  MemoryBreakdown Memory() const FENEC_EXCLUDES(mu_);
  std::optional<uint32_t> NodeOf(uint64_t owner) const FENEC_EXCLUDES(mu_);
  std::vector<GrowthEvent> TableGrowthLog() const FENEC_EXCLUDES(mu_);

  // The HNSW heuristic: from `cands` (ascending by distance to the base),
  // keeps a candidate only if it is nearer the base than every one kept
  // before it, up to `max`; fewer than `max` candidates are all kept.
  // Writes the kept ones (ascending) to out; returns how many. Adds the
  // distances it computed to *distances. vecs (optional): cands[i]'s vector
  // is vecs[i] (read ahead by the caller), else the arena's.
  uint32_t SelectNeighbors(const Neighbor* cands, size_t n, uint32_t max, Neighbor* out, uint64_t* distances,
                           const float* const* vecs = nullptr) const;
  // Adds x (at distance d) to y's list at `layer`; a full list is
  // re-selected by the heuristic over its ids and x. Writer only.
  void AddReverseLink(uint32_t y, int layer, uint32_t x, float d, uint64_t* distances);

  // Whether a search may return node: published, not a tombstone, and (with
  // a filter) one of its owners passes.
  bool Returnable(uint32_t node, const Filter& filter) const;

  // Stored form of a vector: validated, normalized under kCosine.
  Status Prepare(std::span<const float> in, float* out) const;

 private:
  uint32_t NewNode(uint64_t owner, const float* v, uint32_t tag) FENEC_REQUIRES(mu_);
  void RemoveOwner(uint32_t node, uint64_t owner) FENEC_REQUIRES(mu_);
  void AttachOwner(uint32_t node, uint64_t owner) FENEC_REQUIRES(mu_);
  const OwnerSlot* FindOwner(uint64_t owner) const FENEC_REQUIRES(mu_);
  void EnsureTable() FENEC_REQUIRES(mu_);
  std::vector<uint64_t> OwnersOf(uint32_t node) const;

  // Linking (insert.cc, batch.cc).
  void LinkRow(uint32_t node) FENEC_REQUIRES(mu_);
  void LinkBatch(std::span<const uint32_t> nodes) FENEC_REQUIRES(mu_);
  void PreLink(std::vector<InsertProcess>& procs, size_t first, size_t count) FENEC_REQUIRES(mu_);
  void Link(InsertProcess& p, InFlight* inflight, uint64_t* distances) FENEC_REQUIRES(mu_);
  void LinkRound(BatchScratch& batch, std::span<const uint32_t> finishing, InFlight& inflight) FENEC_REQUIRES(mu_);
  uint64_t RunGroup(std::span<InsertProcess> group) FENEC_REQUIRES(mu_);
  ThreadPool& Pool() FENEC_REQUIRES(mu_);

  const Options opts_;
  const Kernels& kernels_;
  FloatKernel dist_;
  double level_mult_;
  VectorArena arena_;
  Graph graph_;
  std::unique_ptr<BinaryCodes> codes_;  // kBinary only
  std::unique_ptr<Scalar4Codes> sq4_;   // kScalar4 only
  mutable Counters counters_;

  mutable base::Mutex mu_;  // the write lock
  VectorTable table_ FENEC_GUARDED_BY(mu_);
  bool table_pending_ FENEC_GUARDED_BY(mu_) = false;  // kNaive open arm: built at the first write
  ShardedTable<OwnerSlot> owner_map_ FENEC_GUARDED_BY(mu_);
  std::mt19937_64 rng_ FENEC_GUARDED_BY(mu_);
  std::unique_ptr<ThreadPool> pool_ FENEC_GUARDED_BY(mu_);
  std::unique_ptr<InsertProcess> row_process_ FENEC_GUARDED_BY(mu_);
  // The batch arm's processes and link requests, kept between batches so
  // their heaps and visited sets are allocated once. The pool's workers
  // reach the pointee only during a call that holds mu_.
  std::unique_ptr<BatchScratch> batch_ FENEC_GUARDED_BY(mu_);
  // Vectors in a file: whether the next group reads ahead. On while the
  // last group faulted or read ahead any page; off while every vector it
  // met was cached (a file that fits pays no mincore a step). A
  // group run without it that faults turns it back on.
  bool preload_ FENEC_GUARDED_BY(mu_) = true;

  // Owners beyond the first, of kMultiOwner nodes.
  mutable base::SharedMutex extra_mu_;
  std::unordered_map<uint32_t, std::vector<uint64_t>> extra_owners_ FENEC_GUARDED_BY(extra_mu_);
};

}  // namespace fenec::index::vec
