// Cleanup: unlink the tombstones (vector_index.h, "ERASE AND CLEANUP").
#include <algorithm>

#include "engine/src/index/vector/core.h"

namespace fenec::index::vec {

CleanupReport IndexCore::Cleanup() {
  base::MutexLock lock(&mu_);
  EnsureTable();
  CleanupReport report;
  const uint32_t n = graph_.size();
  std::vector<uint8_t> tomb(n, 0);
  for (uint32_t i = 0; i < n; ++i) {
    uint8_t f = graph_.flags(i);
    if ((f & kDeleted) && !(f & kDead)) {
      tomb[i] = 1;
      ++report.tombstones;
    }
  }
  if (report.tombstones == 0) return report;

  // 1. Every list that names a tombstone is re-selected by the heuristic
  // over its other ids and the tombstones' neighbours on that layer, so no
  // list names a tombstone and none exceeds its bound.
  uint64_t distances = 0;
  std::vector<uint32_t> ids(graph_.capacity(0)), tids(graph_.capacity(0)), pool;
  std::vector<Neighbor> cands, kept(graph_.capacity(0));
  for (uint32_t i = 0; i < n; ++i) {
    if (tomb[i] || (graph_.flags(i) & kDead)) continue;
    for (int layer = 0; layer <= graph_.level(i); ++layer) {
      uint32_t c = graph_.Read(i, layer, ids.data());
      if (std::none_of(ids.begin(), ids.begin() + c, [&](uint32_t id) { return tomb[id] != 0; })) continue;
      pool.clear();
      for (uint32_t j = 0; j < c; ++j) {
        if (!tomb[ids[j]]) {
          pool.push_back(ids[j]);
          continue;
        }
        uint32_t tc = graph_.Read(ids[j], layer, tids.data());
        for (uint32_t k = 0; k < tc; ++k)
          if (!tomb[tids[k]] && tids[k] != i) pool.push_back(tids[k]);
      }
      std::sort(pool.begin(), pool.end());
      pool.erase(std::unique(pool.begin(), pool.end()), pool.end());
      cands.clear();
      for (uint32_t id : pool) cands.push_back(Neighbor{Distance(Vector(i), Vector(id)), id});
      distances += pool.size();
      std::sort(cands.begin(), cands.end());
      uint32_t k = SelectNeighbors(cands.data(), cands.size(), graph_.capacity(layer), kept.data(), &distances);
      for (uint32_t j = 0; j < k; ++j) ids[j] = kept[j].id;
      graph_.Write(i, layer, ids.data(), k);
      ++report.lists_repaired;
    }
  }

  // 2. A new entry point if the old one goes: a live node of the top level left.
  std::optional<Graph::Entry> entry = graph_.entry();
  if (entry && tomb[entry->node]) {
    uint32_t best = Graph::kNone;
    int best_level = -1;
    for (uint32_t i = 0; i < n; ++i) {
      if (tomb[i] || (graph_.flags(i) & kDead)) continue;
      if (graph_.level(i) > best_level) {
        best = i;
        best_level = graph_.level(i);
      }
    }
    if (best == Graph::kNone)
      graph_.ClearEntry();
    else
      graph_.OfferEntry(best, best_level, /*force=*/true);
  }

  // 3. The tombstones' own lists are emptied; they leave the table (a
  // vector written again gets a new node) and are dead.
  for (uint32_t t = 0; t < n; ++t) {
    if (!tomb[t]) continue;
    for (int layer = 0; layer <= graph_.level(t); ++layer) graph_.Write(t, layer, nullptr, 0);
    graph_.SetFlags(t, kDead);
    table_.Erase(graph_.tag(t), t);
    ++report.unlinked;
  }
  counters_.tombstones.fetch_sub(report.unlinked, std::memory_order_relaxed);
  counters_.Add(counters_.dead, report.unlinked);
  counters_.Add(counters_.other_distances, distances);
  return report;
}

}  // namespace fenec::index::vec
