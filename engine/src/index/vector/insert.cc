// The insert process (insert.h), the HNSW heuristic, linking, and the row
// arm. The batch arm's scheduler is batch.cc.
#include "engine/src/index/vector/insert.h"

#include <algorithm>
#include <cassert>
#include <functional>

#include "engine/src/index/vector/cold_read.h"

namespace fenec::index::vec {

// ---- InsertProcess

void InsertProcess::Start(const IndexCore* core, uint32_t node) {
  core_ = core;
  graph_ = &core->graph();
  node_ = node;
  level_ = graph_->level(node);
  vec_ = core->Vector(node);
  m_ = core->options().m;
  ef_ = std::max(core->options().ef_construction, m_);
  layers_.resize(size_t(level_) + 1);
  for (Layer& l : layers_) {
    l.seeds.clear();
    l.chosen.clear();
    l.incoming.clear();
  }
  links_.resize(graph_->capacity(0));
  reader_ = nullptr;
  vectors_only_ = sorted_ = false;
  own_distances_ = 0;
  nodes_visited_ = 0;
}

void InsertProcess::Begin(std::optional<Graph::Entry> entry) {
  entry_ = entry;
  top_layer_ = entry ? entry->level : -1;
  phase_ = Phase::kEntry;
  awaiting_ = false;
  prev_.clear();
}

InsertProcess::State InsertProcess::Advance() {
  for (;;) {
    switch (phase_) {
      case Phase::kEntry:
        if (!entry_) {
          layer_ = level_;
          phase_ = Phase::kBeam;
          StartBeam();
          break;
        }
        if (!awaiting_) {
          request_.assign(1, entry_->node);
          dists_.resize(1);
          awaiting_ = true;
          return State::kNeedDistances;
        }
        awaiting_ = false;
        cur_ = Neighbor{dists_[0], entry_->node};
        layer_ = entry_->level;
        if (DescendOrBegin()) return State::kNeedDistances;
        break;
      case Phase::kDescend: {
        awaiting_ = false;
        Neighbor best = cur_;
        for (size_t i = 0; i < request_.size(); ++i)
          if (dists_[i] < best.d) best = Neighbor{dists_[i], request_[i]};
        if (best.id != cur_.id)
          cur_ = best;  // moved: look around the new node on the same layer
        else
          --layer_;
        if (DescendOrBegin()) return State::kNeedDistances;
        break;
      }
      case Phase::kBeam:
        if (awaiting_) {
          awaiting_ = false;
          if (vectors_only_) {  // the heuristic's vectors are read
            vectors_only_ = false;
            FinishLayer();
            break;
          }
          Absorb();
        }
        if (NextBeamRequest() || PostHeuristic()) return State::kNeedDistances;
        FinishLayer();
        break;
      case Phase::kDone:
        return State::kChosen;
    }
  }
}

void InsertProcess::TakeDistances() {
  if (phase_ != Phase::kBeam || !awaiting_ || vectors_only_) return;
  Absorb();
  awaiting_ = false;
  if (layer_ == 0 && !cand_.empty()) graph_->PrefetchLinks(cand_.front().id);
}

bool InsertProcess::Post(uint32_t node, int layer, bool skip_visited) {
  uint32_t n = graph_->Read(node, layer, links_.data());
  ++nodes_visited_;
  if (skip_visited) {
    visited_.Reserve(n);
    for (uint32_t j = 0; j < n; ++j) visited_.Prefetch(links_[j]);
  }
  request_.clear();
  for (uint32_t j = 0; j < n; ++j) {
    uint32_t id = links_[j];
    if (skip_visited ? visited_.Add(id) : id != node_) request_.push_back(id);
  }
  if (request_.empty()) return false;
  dists_.resize(request_.size());
  awaiting_ = true;
  return true;
}

bool InsertProcess::DescendOrBegin() {
  while (layer_ > level_) {
    if (Post(cur_.id, layer_, /*skip_visited=*/false)) {
      phase_ = Phase::kDescend;
      return true;
    }
    --layer_;
  }
  layer_ = level_;
  phase_ = Phase::kBeam;
  StartBeam();
  return false;
}

void InsertProcess::AddEntry(const Neighbor& e) {
  if (!visited_.Add(e.id)) return;
  cand_.push_back(e);
  std::push_heap(cand_.begin(), cand_.end(), std::greater<>());
  if (!Eligible(e.id)) return;
  top_.push_back(e);
  std::push_heap(top_.begin(), top_.end());
  if (top_.size() > ef_) {
    std::pop_heap(top_.begin(), top_.end());
    top_.pop_back();
  }
}

// Entries of a layer's beam: the layer above's results (they exist on this
// layer too), the descent's node on the first layer the graph has, and the
// layer's pre-link seeds.
void InsertProcess::StartBeam() {
  visited_.Clear();
  visited_.Add(node_);
  cand_.clear();
  top_.clear();
  for (const Neighbor& e : prev_) AddEntry(e);
  if (entry_ && layer_ == std::min(level_, top_layer_)) AddEntry(cur_);
  for (const Neighbor& e : layers_[layer_].seeds) AddEntry(e);
}

void InsertProcess::Absorb() {
  for (size_t i = 0; i < request_.size(); ++i) {
    Neighbor nb{dists_[i], request_[i]};
    if (top_.size() >= ef_ && !(nb.d < top_.front().d)) continue;
    cand_.push_back(nb);
    std::push_heap(cand_.begin(), cand_.end(), std::greater<>());
    if (!Eligible(nb.id)) continue;  // a tombstone: walked through, never linked to
    top_.push_back(nb);
    std::push_heap(top_.begin(), top_.end());
    if (top_.size() > ef_) {
      std::pop_heap(top_.begin(), top_.end());
      top_.pop_back();
    }
  }
}

bool InsertProcess::NextBeamRequest() {
  while (!cand_.empty()) {
    Neighbor c = cand_.front();
    if (top_.size() >= ef_ && c.d > top_.front().d) return false;
    std::pop_heap(cand_.begin(), cand_.end(), std::greater<>());
    cand_.pop_back();
    if (Post(c.id, layer_, /*skip_visited=*/true)) return true;
  }
  return false;
}

// With a reader (the batch arm, vectors in a file), the results the
// heuristic reads first are posted as a request of vectors only, so they
// are read ahead with the step's other requests instead of faulted in one
// by one (the beam read them past the page cache). Fewer than m results
// are all kept: nothing to read.
bool InsertProcess::PostHeuristic() {
  if (reader_ == nullptr || top_.size() < m_) return false;
  std::sort_heap(top_.begin(), top_.end());  // ascending
  sorted_ = true;
  const size_t n = std::min<size_t>(top_.size(), size_t{kHeuristicReads} * m_);
  request_.resize(n);
  for (size_t i = 0; i < n; ++i) request_[i] = top_[i].id;
  dists_.resize(n);
  awaiting_ = vectors_only_ = true;
  return true;
}

void InsertProcess::FinishLayer() {
  if (!sorted_) std::sort_heap(top_.begin(), top_.end());  // ascending
  const bool read_ahead = sorted_;
  sorted_ = false;
  Layer& l = layers_[layer_];
  l.chosen.resize(m_);
  const float* const* vecs = nullptr;
  if (read_ahead) {
    // request_ is still the heuristic's: top_'s first ids, in order.
    vecs_.resize(top_.size());
    for (size_t i = 0; i < top_.size(); ++i)
      vecs_[i] = i < request_.size() ? reader_->at(reader_->IndexOf(top_[i].id)) : core_->Vector(top_[i].id);
    vecs = vecs_.data();
  }
  uint32_t k = core_->SelectNeighbors(top_.data(), top_.size(), m_, l.chosen.data(), &own_distances_, vecs);
  l.chosen.resize(k);
  prev_.swap(top_);
  top_.clear();
  // Every candidate a tombstone: keep walking from the descent's node.
  if (prev_.empty() && entry_ && layer_ <= top_layer_) prev_.push_back(cur_);
  if (layer_ == 0) {
    phase_ = Phase::kDone;
    return;
  }
  --layer_;
  StartBeam();
}

// ---- The heuristic and linking

uint32_t IndexCore::SelectNeighbors(const Neighbor* cands, size_t n, uint32_t max, Neighbor* out,
                                    uint64_t* distances, const float* const* vecs) const {
  if (n < max) {
    std::copy(cands, cands + n, out);
    return static_cast<uint32_t>(n);
  }
  assert(max <= 2 * 128);
  const float* kept_vecs[2 * 128];
  uint32_t kept = 0;
  for (size_t i = 0; i < n && kept < max; ++i) {
    const float* v = vecs != nullptr ? vecs[i] : Vector(cands[i].id);
    bool good = true;
    for (uint32_t j = 0; j < kept; ++j) {
      ++*distances;
      if (Distance(v, kept_vecs[j]) < cands[i].d) {
        good = false;
        break;
      }
    }
    if (good) {
      kept_vecs[kept] = v;
      out[kept++] = cands[i];
    }
  }
  return kept;
}

void IndexCore::AddReverseLink(uint32_t y, int layer, uint32_t x, float d, uint64_t* distances) {
  const uint32_t cap = graph_.capacity(layer);
  uint32_t ids[2 * 128 + 1];
  uint32_t n = graph_.Read(y, layer, ids);
  for (uint32_t j = 0; j < n; ++j)
    if (ids[j] == x) return;
  if (n < cap) {
    graph_.Append(y, layer, x);
    return;
  }
  // Full: re-select over the list and x, by distance to y.
  Neighbor cands[2 * 128 + 1], kept[2 * 128];
  const float* vy = Vector(y);
  for (uint32_t j = 0; j < n; ++j) cands[j] = Neighbor{Distance(vy, Vector(ids[j])), ids[j]};
  *distances += n;
  cands[n] = Neighbor{d, x};
  std::sort(cands, cands + n + 1);
  uint32_t k = SelectNeighbors(cands, n + 1, cap, kept, distances);
  for (uint32_t j = 0; j < k; ++j) ids[j] = kept[j].id;
  graph_.Write(y, layer, ids, k);
}

InsertProcess* InFlight::Pending(uint32_t node) const {
  if (node < first || node - first >= linked.size() || linked[node - first]) return nullptr;
  return &(*procs)[node - first];
}

void IndexCore::Link(InsertProcess& p, InFlight* inflight, uint64_t* distances) {
  const uint32_t x = p.node();
  uint32_t ids[2 * 128];
  uint64_t pruned = 0;
  for (int layer = 0; layer <= p.level(); ++layer) {
    const std::vector<Neighbor>& chosen = p.chosen(layer);
    auto in_chosen = [&](uint32_t id) {
      return std::any_of(chosen.begin(), chosen.end(), [&](const Neighbor& c) { return c.id == id; });
    };
    for (size_t i = 0; i < chosen.size(); ++i) ids[i] = chosen[i].id;
    graph_.Write(x, layer, ids, static_cast<uint32_t>(chosen.size()));
    for (const Neighbor& s : p.seeds(layer))
      if (!in_chosen(s.id)) ++pruned;
    for (const Neighbor& z : p.incoming(layer))
      if (!in_chosen(z.id)) AddReverseLink(x, layer, z.id, z.d, distances);
    for (const Neighbor& y : chosen) {
      if (InsertProcess* q = inflight ? inflight->Pending(y.id) : nullptr)
        q->incoming(layer).push_back(Neighbor{y.d, x});
      else
        AddReverseLink(y.id, layer, x, y.d, distances);
    }
  }
  if (inflight) inflight->linked[x - inflight->first] = 1;
  graph_.SetFlags(x, kPublished);
  graph_.OfferEntry(x, p.level());
  counters_.Add(counters_.prelink_pruned, pruned);
  counters_.Add(counters_.nodes_linked, 1);
}

void IndexCore::LinkRow(uint32_t node) {
  if (!row_process_) row_process_ = std::make_unique<InsertProcess>();
  InsertProcess& p = *row_process_;
  p.Start(this, node, graph_.entry());
  uint64_t distances = 0;
  while (p.Advance() == InsertProcess::State::kNeedDistances) {
    std::span<const uint32_t> req = p.request();
    std::span<float> out = p.distances();
    for (size_t i = 0; i < req.size(); ++i) out[i] = Distance(p.vector(), Vector(req[i]));
    distances += req.size();
  }
  distances += p.own_distances();
  Link(p, nullptr, &distances);
  counters_.Add(counters_.insert_distances, distances);
}

}  // namespace fenec::index::vec
