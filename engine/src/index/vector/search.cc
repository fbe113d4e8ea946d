// Search: greedy descent through the upper levels, then a beam on level 0
// (vector_index.h, "SEARCH"); on full distances, or on the binary codes'
// estimates with rescoring (kBinary).
#include <immintrin.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>

#include "engine/src/index/vector/core.h"
#include "engine/src/index/vector/visited.h"

namespace fenec::index::vec {
namespace {

struct FloatScorer {
  const IndexCore* core;
  const float* query;
  float operator()(uint32_t id) const { return core->Distance(query, core->Vector(id)); }
  void Prefetch(uint32_t id) const { _mm_prefetch(reinterpret_cast<const char*>(core->Vector(id)), _MM_HINT_T0); }
};

// The query's estimated distance to a node's code (quantize.h).
struct CodeScorer {
  const BinaryCodes* codes;
  const float* table;
  float base;
  float operator()(uint32_t id) const { return codes->Estimate(table, base, id); }
  void Prefetch(uint32_t id) const { _mm_prefetch(reinterpret_cast<const char*>(codes->At(id)), _MM_HINT_T0); }
};

// The query's estimated distance to a node's 4-bit code (scalar4.h).
struct Scalar4Scorer {
  const Scalar4Codes* codes;
  const Scalar4Codes::Query* query;
  float operator()(uint32_t id) const { return codes->Estimate(*query, id); }
  void Prefetch(uint32_t id) const { _mm_prefetch(reinterpret_cast<const char*>(codes->At(id)), _MM_HINT_T0); }
};

// One per searching thread: the visited set (MM-2), the heaps and the
// query's code table, kept between searches so a search allocates nothing
// once warm. `hash` is VisitedSet::kHashCleared's set, made on first use
// (only measurements use it).
struct Scratch {
  VisitedBitmap visited;
  std::optional<VisitedHash> hash;
  std::vector<Neighbor> cand, top;
  std::vector<uint32_t> links, fresh;
  std::vector<float> table;
  Scalar4Codes::Query sq4;
};
thread_local Scratch tls_scratch;
thread_local bool tls_scratch_busy = false;

// The thread's scratch, or a fresh one when the thread is already inside a
// walk: a filter may itself search (this index or another), and the inner
// walk must not clear the outer one's visited set or code table.
class ScratchLease {
 public:
  ScratchLease() {
    if (tls_scratch_busy) {
      own_ = std::make_unique<Scratch>();
      s_ = own_.get();
    } else {
      tls_scratch_busy = true;
      s_ = &tls_scratch;
    }
  }
  ~ScratchLease() {
    if (!own_) tls_scratch_busy = false;
  }
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;
  Scratch& get() { return *s_; }

 private:
  std::unique_ptr<Scratch> own_;
  Scratch* s_;
};

struct WalkCounts {
  uint64_t distances = 0, hops = 0, zeroings = 0;
};

// Readies a visited set for a walk over `nodes` nodes; true if that zeroed
// memory (counted: Stats::visited_zeroings).
bool Ready(VisitedBitmap& v, size_t nodes) {
  v.Reserve(nodes);
  return v.Clear();
}
bool Ready(VisitedHash& v, size_t) { return v.Clear(); }

// The nodes the walk may return, at most ef, ascending. `Visited` is a
// template parameter, not a virtual call: Add runs for every neighbour.
template <class Scorer, class Visited>
void Walk(const IndexCore& core, const Scorer& score, size_t ef, const Filter& filter, Scratch& s,
          Visited& visited, std::vector<Neighbor>* out, WalkCounts* counts) {
  out->clear();
  const Graph& graph = core.graph();
  std::optional<Graph::Entry> entry = graph.entry();
  if (!entry) return;
  if (Ready(visited, graph.size())) ++counts->zeroings;
  s.links.resize(graph.capacity(0));
  s.fresh.resize(graph.capacity(0));
  uint64_t distances = 1, hops = 0;

  Neighbor cur{score(entry->node), entry->node};
  for (int layer = entry->level; layer > 0; --layer) {
    for (bool moved = true; moved;) {
      moved = false;
      uint32_t n = graph.Read(cur.id, layer, s.links.data());
      ++hops;
      distances += n;
      for (uint32_t j = 0; j < n; ++j) {
        float d = score(s.links[j]);
        if (d < cur.d) {
          cur = Neighbor{d, s.links[j]};
          moved = true;
        }
      }
    }
  }

  std::vector<Neighbor>& cand = s.cand;  // min-heap
  std::vector<Neighbor>& top = s.top;    // max-heap of returnable nodes, at most ef
  cand.clear();
  top.clear();
  visited.Add(cur.id);
  cand.push_back(cur);
  if (core.Returnable(cur.id, filter)) top.push_back(cur);
  while (!cand.empty()) {
    Neighbor c = cand.front();
    if (top.size() >= ef && c.d > top.front().d) break;
    std::pop_heap(cand.begin(), cand.end(), std::greater<>());
    cand.pop_back();
    uint32_t n = graph.Read(c.id, 0, s.links.data());
    ++hops;
    uint32_t m = 0;
    for (uint32_t j = 0; j < n; ++j)
      if (visited.Add(s.links[j])) s.fresh[m++] = s.links[j];
    for (uint32_t j = 0; j < std::min<uint32_t>(m, kPrefetchAhead); ++j) score.Prefetch(s.fresh[j]);
    distances += m;
    for (uint32_t j = 0; j < m; ++j) {
      if (j + kPrefetchAhead < m) score.Prefetch(s.fresh[j + kPrefetchAhead]);
      const uint32_t id = s.fresh[j];
      const float d = score(id);
      if (top.size() >= ef && !(d < top.front().d)) continue;
      cand.push_back(Neighbor{d, id});
      std::push_heap(cand.begin(), cand.end(), std::greater<>());
      if (cand.front().id == id) graph.PrefetchLinks(id);  // likely the next one expanded
      if (!core.Returnable(id, filter)) continue;
      top.push_back(Neighbor{d, id});
      std::push_heap(top.begin(), top.end());
      if (top.size() > ef) {
        std::pop_heap(top.begin(), top.end());
        top.pop_back();
      }
    }
  }
  std::sort_heap(top.begin(), top.end());
  out->assign(top.begin(), top.end());
  counts->distances += distances;
  counts->hops += hops;
}

// Walk with the chosen visited set: one switch a search.
template <class Scorer>
void WalkWith(VisitedSet kind, const IndexCore& core, const Scorer& score, size_t ef, const Filter& filter,
              Scratch& s, std::vector<Neighbor>* out, WalkCounts* counts) {
  switch (kind) {
    case VisitedSet::kBitmap:
      Walk(core, score, ef, filter, s, s.visited, out, counts);
      return;
    case VisitedSet::kHashCleared:
      if (!s.hash) s.hash.emplace(16);
      Walk(core, score, ef, filter, s, *s.hash, out, counts);
      return;
    case VisitedSet::kHashNew: {
      VisitedHash fresh(16);
      Walk(core, score, ef, filter, s, fresh, out, counts);
      return;
    }
  }
}

}  // namespace

bool IndexCore::Returnable(uint32_t node, const Filter& filter) const {
  uint8_t f = graph_.flags(node);
  if ((f & (kPublished | kDeleted)) != kPublished) return false;
  if (!filter) return true;
  if (filter(graph_.owner(node))) return true;
  if ((f & kMultiOwner) == 0) return false;
  // Copied out: the filter runs with no lock of the index held (it may
  // search again).
  const std::vector<uint64_t> owners = OwnersOf(node);
  return std::any_of(owners.begin(), owners.end(), [&](uint64_t o) { return filter(o); });
}

Result<std::vector<Hit>> IndexCore::Search(std::span<const float> query, size_t k, size_t ef,
                                           const Filter& filter, VisitedSet visited) const {
  std::vector<float> q(opts_.dim);
  if (Status st = Prepare(query, q.data()); !st.ok()) return st;
  std::vector<Hit> hits;
  if (k == 0) return hits;
  if (ef == 0) ef = opts_.ef_search;
  WalkCounts counts;
  uint64_t rescored = 0;
  std::vector<Neighbor> found;
  ScratchLease lease;
  Scratch& s = lease.get();
  const bool binary = codes_ && codes_->ready(), sq4 = sq4_ && sq4_->ready();
  if (binary || sq4) {
    const size_t want = size_t{opts_.oversample} * k;
    if (binary) {
      s.table.resize(codes_->table_floats());
      CodeScorer score{codes_.get(), s.table.data(), codes_->FillTable(q.data(), s.table.data())};
      WalkWith(visited, *this, score, std::max(ef, want), filter, s, &found, &counts);
    } else {
      sq4_->Prepare(q.data(), &s.sq4);
      Scalar4Scorer score{sq4_.get(), &s.sq4};
      WalkWith(visited, *this, score, std::max(ef, want), filter, s, &found, &counts);
    }
    if (found.size() > want) found.resize(want);
    if (opts_.rescore) {
      // The pool's vectors are scattered over the arena and rarely cached
      // (the walk read only codes): prefetched kPrefetchAhead ahead, as the walk's.
      FloatScorer exact{this, q.data()};
      for (size_t j = 0; j < std::min<size_t>(found.size(), kPrefetchAhead); ++j) exact.Prefetch(found[j].id);
      for (size_t j = 0; j < found.size(); ++j) {
        if (j + kPrefetchAhead < found.size()) exact.Prefetch(found[j + kPrefetchAhead].id);
        found[j].d = exact(found[j].id);
      }
      rescored = found.size();
      std::sort(found.begin(), found.end());
    }
  } else {
    FloatScorer score{this, q.data()};
    WalkWith(visited, *this, score, std::max(ef, k), filter, s, &found, &counts);
  }
  // Nodes to owners: each owner of a node is an answer at its distance.
  for (const Neighbor& f : found) {
    const uint8_t flags = graph_.flags(f.id);
    if (flags & kDeleted) continue;  // erased since the walk saw it
    if (flags & kMultiOwner) {
      for (uint64_t o : OwnersOf(f.id))
        if (hits.size() < k && (!filter || filter(o))) hits.push_back(Hit{o, f.d});
    } else {
      const uint64_t owner = graph_.owner(f.id);
      if (!filter || filter(owner)) hits.push_back(Hit{owner, f.d});
    }
    if (hits.size() >= k) break;
  }
  if (hits.size() > k) hits.resize(k);
  counters_.Add(counters_.searches, 1);
  counters_.Add(counters_.search_distances, counts.distances + rescored);
  counters_.Add(counters_.search_rescored, rescored);
  counters_.Add(counters_.nodes_visited, counts.hops);
  if (counts.zeroings != 0) counters_.Add(counters_.visited_zeroings, counts.zeroings);
  return hits;
}

}  // namespace fenec::index::vec
