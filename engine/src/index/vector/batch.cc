// The batch arm's scheduler (VS-1): pre-link, then rounds of resume /
// gather / preload / compute on every core / link. See vector_index.h
// ("INSERTS") and insert.h (the process's states).
#include <immintrin.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "engine/src/index/vector/cold_read.h"
#include "engine/src/index/vector/core.h"
#include "engine/src/index/vector/insert.h"

namespace fenec::index::vec {
namespace {

// Insert processes a task runs together, in turn (a task is the unit the
// cores share out): enough that one process's preloads and list misses
// overlap the others' work, few enough that their visited sets and heaps
// (8-32 KB each) stay in the core's L2 while the task runs.
constexpr size_t kTaskProcesses = 4;
// The group of batch-mates pre-linked together and run together: a batch
// of 512 runs as 4 groups of 128, one after another. Why not all 512 at
// once: the pre-link matrix of 512 costs (512 - 1) / 2 = 256 distances an
// insert, a large share on top of what a row-arm insert computes, and its
// heuristic walks a 1 MB matrix, out of L2. A group of 128 costs 64
// distances an insert and its matrix is 64 KB. Smaller groups build faster
// but lose recall against the row arm (vector-bench's arms part measures
// both).
constexpr size_t kGroup = 128;
// Lists a link task changes: its re-selections' vectors are read ahead
// together (vectors in a file).
constexpr size_t kLinkUnits = 16;

void Prefetch(const float* v, size_t /*bytes*/) { _mm_prefetch(reinterpret_cast<const char*>(v), _MM_HINT_T0); }

}  // namespace

ThreadPool& IndexCore::Pool() {
  if (!pool_) pool_ = std::make_unique<ThreadPool>(opts_.threads);
  return *pool_;
}

// Each new node's lists start as group-mates of its level (the kGroup
// batch-mates around it in batch order, see LinkBatch), chosen by the HNSW
// heuristic from its ef_construction nearest ones, nearest first (pre-link
// edges). The group's distance matrix is computed on every core, so the
// heuristic reads its distances from the matrix and computes none.
// Why the heuristic and not the m nearest: in a group that lands on an
// empty (or young) graph, the m nearest group-mates of a clustered group
// are all in the node's own cluster, the pre-link graph falls apart into
// one island a cluster, and a cluster none of whose group-mates rose above
// level 0 stays unreachable from the entry point for good (whole clusters
// of a first clustered batch on an empty graph). The heuristic keeps
// the edges that bridge to the nearest other clusters (a farther candidate
// survives when no kept one is nearer to it), as a row-by-row build does.
// Each process gets these edges, with their distances, as seeds of its
// beams, so the heuristic later keeps or prunes them like any candidate.
void IndexCore::PreLink(std::vector<InsertProcess>& procs, size_t first, size_t count) {
  const size_t n = count;
  if (n < 2) return;
  InsertProcess* group = procs.data() + first;
  ThreadPool& pool = Pool();
  std::vector<float>& d = batch_->matrix;
  d.assign(n * n, 0.0f);
  pool.ParallelFor(n, 4, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i)
      for (size_t j = i + 1; j < n; ++j) d[i * n + j] = d[j * n + i] = Distance(group[i].vector(), group[j].vector());
  });
  counters_.Add(counters_.insert_distances, n * (n - 1) / 2);
  std::atomic<uint64_t> added{0};
  const size_t ef = opts_.ef_construction;
  pool.ParallelFor(n, 8, [&](size_t b, size_t e) {
    std::vector<Neighbor> order;  // (distance, index in the group)
    std::vector<uint32_t> kept;   // indices in the group
    uint32_t ids[128];
    uint64_t local = 0;
    for (size_t i = b; i < e; ++i) {
      InsertProcess& p = group[i];
      const float* row = &d[i * n];
      for (int layer = 0; layer <= p.level(); ++layer) {
        order.clear();
        for (size_t j = 0; j < n; ++j)
          if (j != i && group[j].level() >= layer) order.push_back(Neighbor{row[j], static_cast<uint32_t>(j)});
        // The heuristic runs over the ef_construction nearest, the candidates
        // a row insert's beam would hand it, not over the whole group: the
        // kept edges are the same kind, at a fraction of the matrix reads.
        if (order.size() > ef) {
          std::nth_element(order.begin(), order.begin() + static_cast<ptrdiff_t>(ef), order.end());
          order.resize(ef);
        }
        std::sort(order.begin(), order.end());
        kept.clear();
        for (const Neighbor& c : order) {
          if (kept.size() == opts_.m) break;
          const float* dc = &d[size_t{c.id} * n];
          // SelectNeighbors' rule: drop c if a kept group-mate is nearer c than i is.
          if (order.size() <= opts_.m || std::none_of(kept.begin(), kept.end(), [&](uint32_t k) { return dc[k] < c.d; }))
            kept.push_back(c.id);
        }
        std::vector<Neighbor>& seeds = p.seeds(layer);
        seeds.clear();
        for (size_t k = 0; k < kept.size(); ++k) {
          ids[k] = group[kept[k]].node();
          seeds.push_back(Neighbor{row[kept[k]], ids[k]});
        }
        graph_.Write(p.node(), layer, ids, static_cast<uint32_t>(kept.size()));
        local += kept.size();
      }
    }
    added.fetch_add(local, std::memory_order_relaxed);
  });
  counters_.Add(counters_.prelink_added, added.load());
}

// Links a group whose processes have all chosen their neighbours, at once:
// every list that changes (a finishing node's own, or one a finishing node
// links back to) is one unit of work, and the units run on every core -
// distinct nodes, so distinct locks. A finishing node's list is its chosen
// neighbours plus the reverse links batch-mates left it while it was in
// flight; any other list gets the new reverse links appended, and one that
// would exceed its bound is re-selected by the heuristic over its ids and
// all the new ones. Within a unit the new ids come in batch order, so the
// graph does not depend on the thread count. Then, on this thread, the
// finishing nodes are published and offered as the entry point.
void IndexCore::LinkRound(BatchScratch& batch, std::span<const uint32_t> finishing, InFlight& inflight) {
  using Req = BatchScratch::LinkReq;
  std::vector<InsertProcess>& procs = batch.procs;
  constexpr uint32_t kSelf = Graph::kNone;
  const float kUnknown = std::numeric_limits<float>::quiet_NaN();
  for (uint32_t i : finishing) inflight.linked[i] = 2;  // linked this round
  std::vector<Req>& reqs = batch.reqs;
  reqs.clear();
  for (uint32_t i : finishing) {
    InsertProcess& p = procs[i];
    const uint32_t x = p.node();
    for (int layer = 0; layer <= p.level(); ++layer) {
      const uint32_t l = static_cast<uint32_t>(layer);
      reqs.push_back(Req{x, l, kSelf, 0});
      for (const Neighbor& z : p.incoming(layer)) reqs.push_back(Req{x, l, z.id, z.d});
      for (const Neighbor& y : p.chosen(layer)) {
        if (InsertProcess* q = inflight.Pending(y.id))
          q->incoming(layer).push_back(Neighbor{y.d, x});  // it links back when it finishes
        else
          reqs.push_back(Req{y.id, l, x, y.d});
      }
    }
  }
  std::stable_sort(reqs.begin(), reqs.end(), [](const Req& a, const Req& b) {
    return a.target != b.target ? a.target < b.target : a.layer < b.layer;
  });
  std::vector<uint32_t>& starts = batch.groups;
  starts.clear();
  for (uint32_t r = 0; r < reqs.size(); ++r)
    if (r == 0 || reqs[r].target != reqs[r - 1].target || reqs[r].layer != reqs[r - 1].layer) starts.push_back(r);
  starts.push_back(static_cast<uint32_t>(reqs.size()));

  std::atomic<uint64_t> distances{0}, pruned{0}, pages{0};
  const bool file = arena_.file_backed() && preload_;
  Pool().ParallelFor(starts.size() - 1, kLinkUnits, [&](size_t b, size_t e) {
    assert(e - b <= kLinkUnits);
    std::vector<Neighbor> kept(2 * size_t{opts_.m});
    std::vector<uint32_t> ids(2 * size_t{opts_.m}), wanted;
    std::vector<const float*> vecs;
    thread_local std::vector<Neighbor> unit_cands[kLinkUnits];
    uint64_t local_distances = 0, local_pruned = 0;
    // First every unit's candidates; then, in a file, the vectors of the
    // lists to re-select read ahead together; then the re-selections.
    for (size_t g = b; g < e; ++g) {
      std::vector<Neighbor>& cands = unit_cands[g - b];
      const Req* first = &reqs[starts[g]];
      const Req* last = &reqs[starts[g + 1]];
      const uint32_t y = first->target;
      const int layer = static_cast<int>(first->layer);
      cands.clear();
      const bool self = y >= inflight.first && y - inflight.first < inflight.linked.size() &&
                        inflight.linked[y - inflight.first] == 2;
      if (self) {
        const InsertProcess& p = procs[y - inflight.first];
        cands = p.chosen(layer);
        for (const Neighbor& s : p.seeds(layer))
          if (std::none_of(cands.begin(), cands.end(), [&](const Neighbor& c) { return c.id == s.id; }))
            ++local_pruned;
      } else {
        uint32_t n = graph_.Read(y, layer, ids.data());
        for (uint32_t j = 0; j < n; ++j) cands.push_back(Neighbor{kUnknown, ids[j]});  // computed if needed
      }
      for (const Req* r = first; r != last; ++r) {
        if (r->from == kSelf || r->from == y) continue;
        if (std::any_of(cands.begin(), cands.end(), [&](const Neighbor& c) { return c.id == r->from; })) continue;
        cands.push_back(Neighbor{r->d, r->from});
      }
    }
    ColdReader* reader = file ? &ColdReader::ForThread() : nullptr;
    if (reader != nullptr) {
      wanted.clear();
      for (size_t g = b; g < e; ++g) {
        const std::vector<Neighbor>& cands = unit_cands[g - b];
        if (cands.size() <= graph_.capacity(static_cast<int>(reqs[starts[g]].layer))) continue;
        wanted.push_back(reqs[starts[g]].target);
        for (const Neighbor& c : cands) wanted.push_back(c.id);
      }
      std::sort(wanted.begin(), wanted.end());
      wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
      pages.fetch_add(reader->Start(arena_, wanted), std::memory_order_relaxed);
      reader->Wait();
    }
    auto vector_of = [&](uint32_t id) { return reader != nullptr ? reader->at(reader->IndexOf(id)) : Vector(id); };
    for (size_t g = b; g < e; ++g) {
      std::vector<Neighbor>& cands = unit_cands[g - b];
      const uint32_t y = reqs[starts[g]].target;
      const int layer = static_cast<int>(reqs[starts[g]].layer);
      const uint32_t cap = graph_.capacity(layer);
      uint32_t count = static_cast<uint32_t>(cands.size());
      if (count > cap) {
        const float* vy = vector_of(y);
        for (Neighbor& c : cands) {
          if (!std::isnan(c.d)) continue;
          c.d = Distance(vy, vector_of(c.id));
          ++local_distances;
        }
        std::sort(cands.begin(), cands.end());
        vecs.resize(cands.size());
        for (size_t i = 0; i < cands.size(); ++i) vecs[i] = vector_of(cands[i].id);
        count = SelectNeighbors(cands.data(), cands.size(), cap, kept.data(), &local_distances, vecs.data());
        cands.assign(kept.begin(), kept.begin() + count);
      }
      for (uint32_t j = 0; j < count; ++j) ids[j] = cands[j].id;
      graph_.Write(y, layer, ids.data(), count);
    }
    distances.fetch_add(local_distances, std::memory_order_relaxed);
    pruned.fetch_add(local_pruned, std::memory_order_relaxed);
  });
  counters_.Add(counters_.pages_preloaded, pages.load());

  for (uint32_t i : finishing) {
    inflight.linked[i] = 1;
    graph_.SetFlags(procs[i].node(), kPublished);
    graph_.OfferEntry(procs[i].node(), procs[i].level());
  }
  counters_.Add(counters_.insert_distances, distances.load());
  counters_.Add(counters_.prelink_pruned, pruned.load());
  counters_.Add(counters_.nodes_linked, finishing.size());
}

// Runs a group's insert processes to the end on every core, each task's
// processes in turn: a step gathers the requests of the task's paused
// processes, preloads their vectors and computes their distances, then
// each process takes its distances and advances to its next request.
// Returns the distances computed.
uint64_t IndexCore::RunGroup(std::span<InsertProcess> group) {
  const size_t bytes = size_t{opts_.dim} * sizeof(float);
  const auto entry = graph_.entry();
  for (InsertProcess& p : group) p.Begin(entry);
  std::atomic<uint64_t> computed{0}, pages{0};
  const bool file = arena_.file_backed() && preload_;
  const uint64_t faults0 = arena_.file_backed() ? MajorFaults() : 0;
  Pool().ParallelFor(group.size(), kTaskProcesses, [&](size_t b, size_t e) {
    assert(e - b <= kTaskProcesses);  // ranges are at most the grain
    InsertProcess* procs[kTaskProcesses];
    size_t live = 0;
    ColdReader* reader = file ? &ColdReader::ForThread() : nullptr;
    for (size_t i = b; i < e; ++i) {
      group[i].set_reader(reader);
      if (group[i].Advance() == InsertProcess::State::kNeedDistances) procs[live++] = &group[i];
    }
    uint64_t local = 0, local_pages = 0;
    std::vector<uint32_t> wanted, slot;
    while (live > 0) {
      if (reader != nullptr) {
        // In a file, the step's vectors are gathered and read ahead first,
        // the cold ones all in flight together in file order, while the
        // distances to the resident ones are computed (the row arm meets
        // each vector as it comes).
        wanted.clear();
        for (size_t a = 0; a < live; ++a) wanted.insert(wanted.end(), procs[a]->request().begin(), procs[a]->request().end());
        std::sort(wanted.begin(), wanted.end());
        wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
        local_pages += reader->Start(arena_, wanted);
        slot.clear();
        for (size_t a = 0; a < live; ++a) {
          InsertProcess& p = *procs[a];
          if (p.vectors_only()) continue;  // the heuristic's: read, no distances
          std::span<const uint32_t> req = p.request();
          std::span<float> out = p.distances();
          for (size_t j = 0; j < req.size(); ++j) {
            const size_t i = reader->IndexOf(req[j]);
            if (reader->ready(i))
              out[j] = Distance(p.vector(), reader->at(i));
            else
              slot.push_back(static_cast<uint32_t>(a << 16 | j));  // a < kTaskProcesses, j < 2^16
          }
          local += req.size();
        }
        reader->Wait();
        for (uint32_t s : slot) {
          InsertProcess& p = *procs[s >> 16];
          const uint32_t j = s & 0xffff;
          p.distances()[j] = Distance(p.vector(), reader->at(reader->IndexOf(p.request()[j])));
        }
      } else {
        for (size_t a = 0; a < live; ++a) {
          InsertProcess& p = *procs[a];
          std::span<const uint32_t> req = p.request();
          std::span<float> out = p.distances();
          for (size_t j = 0; j < std::min(kPrefetchAhead, req.size()); ++j) Prefetch(Vector(req[j]), bytes);
          for (size_t j = 0; j < req.size(); ++j) {
            if (j + kPrefetchAhead < req.size()) Prefetch(Vector(req[j + kPrefetchAhead]), bytes);
            out[j] = Distance(p.vector(), Vector(req[j]));
          }
          local += req.size();
        }
      }
      // All take their distances in (and prefetch the list each reads
      // next) before any advances, so their list misses overlap.
      for (size_t a = 0; a < live; ++a) procs[a]->TakeDistances();
      size_t still = 0;
      for (size_t a = 0; a < live; ++a)
        if (procs[a]->Advance() == InsertProcess::State::kNeedDistances) procs[still++] = procs[a];
      live = still;
    }
    computed.fetch_add(local, std::memory_order_relaxed);
    pages.fetch_add(local_pages, std::memory_order_relaxed);
  });
  counters_.Add(counters_.pages_preloaded, pages.load());
  if (arena_.file_backed()) preload_ = pages.load() > 0 || MajorFaults() > faults0;
  return computed.load(std::memory_order_relaxed);
}

// A batch runs group by group (kGroup batch-mates in batch order): the
// group is pre-linked, its processes run to the end on every core against
// the graph as it was when the group began (lists are written only between
// groups, so the graph does not depend on the thread count), then the
// whole group is linked at once. A group's processes see the groups before
// it linked, and each other through the pre-link edges. Why not rounds of
// one request each, with a new process admitted as soon as one finishes
// (this arm's first form): every round ended in a barrier after one step
// of each process, and a process's state left the core's cache between its
// steps; more steps a round built faster, and a group run to the end
// fastest, at the same recall@10 (vector-bench's arms part measures the
// build rate against hnswlib's).
void IndexCore::LinkBatch(std::span<const uint32_t> nodes) {
  const size_t n = nodes.size();
  for (size_t i = 1; i < n; ++i) assert(nodes[i] == nodes[0] + i);
  if (!batch_) batch_ = std::make_unique<BatchScratch>();
  BatchScratch& batch = *batch_;
  std::vector<InsertProcess>& procs = batch.procs;
  procs.resize(n);
  for (size_t i = 0; i < n; ++i) procs[i].Start(this, nodes[i]);

  InFlight inflight;
  inflight.first = nodes[0];
  inflight.procs = &procs;
  inflight.linked.assign(n, 0);
  std::vector<uint32_t> members;
  uint64_t rounds = 0, round_total = 0, round_max = 0;
  for (size_t g = 0; g < n; g += kGroup) {
    const size_t count = std::min(kGroup, n - g);
    PreLink(procs, g, count);
    const uint64_t round = RunGroup(std::span(procs).subspan(g, count));
    ++rounds;
    round_total += round;
    round_max = std::max(round_max, round);
    members.resize(count);
    for (size_t i = 0; i < count; ++i) members[i] = static_cast<uint32_t>(g + i);
    LinkRound(batch, members, inflight);
  }

  uint64_t own = 0;
  for (const InsertProcess& p : procs) own += p.own_distances();
  counters_.Add(counters_.insert_distances, own + round_total);
  counters_.Add(counters_.batches, 1);
  counters_.Add(counters_.processes_run, n);
  counters_.Add(counters_.rounds, rounds);
  counters_.Add(counters_.round_distances_total, round_total);
  counters_.Add(counters_.vectors_preloaded, round_total);
  if (round_max > counters_.round_distances_max.load(std::memory_order_relaxed))
    counters_.round_distances_max.store(round_max, std::memory_order_relaxed);
}

}  // namespace fenec::index::vec
