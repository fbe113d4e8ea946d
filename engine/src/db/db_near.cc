// NEAR: nearest-neighbour reads over an @hnsw field (engine/doc/vectors.md).
//
// One consistent view: the collection is pinned (CC-5: its id index and
// buffers shared under the shared lock, no copy), and the answer is what
// that pin holds. Then, with no database lock:
//  1. the field's queue is copied (block pointers) and every queued vector
//     compared exactly: vectors landed but not linked yet are seen;
//  2. the graph is searched, its filter asking the pin about each owner in
//     the walk (present, and matching the WHERE);
//  3. the two are merged by distance (an id in both - linked between the
//     two steps - once), the queued ones filtered as the graph's were, and
//     the k nearest read from the pin.
// A document deleted before the pin is absent from it: never answered, even
// while the graph still holds its vector. One landed after the pin is not
// in it either, though the graph may hold it by then.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "engine/src/db/db_impl.h"

namespace fenec {

Result<std::vector<NearHit>> DbImpl::Near(CollectionId collection, int field, std::span<const float> query,
                                          const NearOptions& o) const {
  if (closed_.load(std::memory_order_acquire)) return Status::Closed();
  // Held for the whole search: a drop meanwhile frees neither graph nor rows.
  std::shared_ptr<const CollectionState> c = Acquire(collection);
  if (c == nullptr) return Status::NotFound(fmt::format("no collection with handle {}", collection.value));
  const Schema& schema = *c->schema;
  if (field < 0 || static_cast<size_t>(field) >= schema.fields.size())
    return Status::InvalidArgument(fmt::format("collection '{}' has no field {}", c->name, field));
  const Field& f = schema.fields[field];
  if (f.type != FieldType::kVector) return Status::InvalidArgument(fmt::format("NEAR: field '{}' is not a vector", f.name));
  VectorField* vf = VectorOf(c.get(), field);
  if (vf == nullptr)
    return Status::InvalidArgument(fmt::format("NEAR: vector field '{}' has no @hnsw index", f.name));
  if (o.k < 1 || o.k > NearOptions::kMaxK)
    return Status::InvalidArgument(fmt::format("NEAR: k must be 1..{}, got {}", NearOptions::kMaxK, o.k));
  if (o.ef > NearOptions::kMaxEf)
    return Status::InvalidArgument(fmt::format("NEAR: ef must be at most {}, got {}", NearOptions::kMaxEf, o.ef));
  if (query.size() != f.dim)
    return Status::InvalidArgument(
        fmt::format("NEAR: field '{}' is vector({}), the query has {} numbers", f.name, f.dim, query.size()));
  bool nonzero = false;
  for (size_t i = 0; i < query.size(); ++i) {
    if (!std::isfinite(query[i]))
      return Status::InvalidArgument(fmt::format("NEAR: query component {} is not a finite number", i));
    nonzero = nonzero || query[i] != 0;
  }
  if (!nonzero && f.metric == VectorMetric::kCosine)
    return Status::InvalidArgument("NEAR: a zero query has no direction under cosine");
  CompiledFilter where;
  if (Status s = CompiledFilter::Compile(schema, o.where, &where); !s.ok()) return s;

  auto pinned = PinCollections(c.get());
  if (pinned == nullptr) return Status::NotFound(fmt::format("no collection with handle {}", collection.value));
  const PinnedView::Pinned& p = pinned->collections[c->id % kMaxCollections];
  const CollectionView view{p.schema.get(), &p.index, p.index.size(), &pinned->buffers, pinned->map};
  std::vector<FieldRef> refs;
  Status bad;
  auto answers = [&](uint64_t id) {
    if (id >= view.size || !(*view.entries)[id].present()) return false;
    if (where.empty()) return true;
    if (!DecodeFields(schema, RowStore::Resolve((*view.entries)[id], *view.buffers, view.map), &refs)) {
      bad = Status::Corruption(fmt::format("document {} does not decode", id));
      return false;
    }
    return where.Matches(refs);
  };

  std::vector<index::vec::Hit> graph;
  std::vector<PendingHit> pending;
  if (Status s = vf->Search(query, o.k, o.ef, answers, &graph, &pending); !s.ok()) return s;
  if (!bad.ok()) return bad;
  // Graph hits passed the filter in the walk; queued ones are asked now,
  // nearest first, until k have passed.
  std::sort(pending.begin(), pending.end(), [](const PendingHit& a, const PendingHit& b) {
    return a.distance < b.distance || (a.distance == b.distance && a.id < b.id);
  });
  std::vector<PendingHit> merged;
  merged.reserve(graph.size() + o.k);
  for (const auto& h : graph) merged.push_back({h.owner, h.distance});
  size_t passed = 0;
  for (const auto& h : pending) {
    if (passed >= o.k) break;
    if (!answers(h.id)) continue;
    merged.push_back(h);
    ++passed;
  }
  if (!bad.ok()) return bad;
  std::sort(merged.begin(), merged.end(), [](const PendingHit& a, const PendingHit& b) {
    return a.distance < b.distance || (a.distance == b.distance && a.id < b.id);
  });
  std::vector<NearHit> out;
  std::unordered_set<uint64_t> seen;
  for (const auto& h : merged) {
    if (out.size() >= o.k) break;
    if (!seen.insert(h.id).second) continue;
    NearHit hit{h.id, h.distance, {}};
    if (Status s = DecodeRow(schema, RowStore::Resolve((*view.entries)[h.id], *view.buffers, view.map), &hit.doc);
        !s.ok())
      return s;
    out.push_back(std::move(hit));
  }
  return out;
}

Status DbImpl::WaitForIndexes() {
  if (closed_.load(std::memory_order_acquire)) return Status::Closed();
  for (const auto& c : LiveCollections())
    for (auto& vf : c->vectors) vf->WaitLinked();
  return Status::OK();
}

Status DbImpl::CheckVectors(const CollectionState* c,
                            const std::vector<std::pair<uint64_t, std::vector<FieldRef>>>& rows) const {
  for (const auto& vf : c->vectors) {
    const Field& f = c->schema->fields[vf->field()];
    uint64_t held = 0;
    for (const auto& [id, refs] : rows) {
      if (!refs[vf->field()].present) continue;
      ++held;
      if (!vf->Holds(id))
        return Status::Corruption(fmt::format("@hnsw '{}': document {}'s vector is not in the graph", f.name, id));
    }
    if (held != vf->owners())
      return Status::Corruption(
          fmt::format("@hnsw '{}': the graph holds {} documents, {} rows have a vector", f.name, vf->owners(), held));
  }
  return Status::OK();
}

}  // namespace fenec
