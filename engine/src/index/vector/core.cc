// IndexCore: construction, vectors in, owners, erase, counters, memory.
#include "engine/src/index/vector/core.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include <sys/resource.h>

#include "engine/src/index/vector/insert.h"

namespace fenec::index::vec {

IndexCore::IndexCore(const Options& resolved)
    : opts_(resolved),
      kernels_(BestKernels()),
      dist_(resolved.metric == Metric::kL2 ? kernels_.l2 : kernels_.one_minus_dot),
      level_mult_(1.0 / std::log(double(resolved.m))),
      arena_(resolved.dim, resolved.vector_file),
      graph_(resolved.m),
      table_(resolved.table_arm, &arena_),
      rng_(resolved.seed) {
  if (opts_.quantization == Quantization::kBinary)
    codes_ = std::make_unique<BinaryCodes>(opts_.dim, /*l2=*/opts_.metric == Metric::kL2);
  if (opts_.quantization == Quantization::kScalar4)
    sq4_ = std::make_unique<Scalar4Codes>(opts_.dim, /*l2=*/opts_.metric == Metric::kL2);
}

IndexCore::~IndexCore() = default;

Status IndexCore::Prepare(std::span<const float> in, float* out) const {
  if (in.size() != opts_.dim)
    return Status::InvalidArgument("vector has " + std::to_string(in.size()) + " dimensions, the index " +
                                   std::to_string(opts_.dim));
  double sum = 0;
  for (uint32_t i = 0; i < opts_.dim; ++i) {
    float x = in[i];
    if (!std::isfinite(x)) return Status::InvalidArgument("vector component " + std::to_string(i) + " is not finite");
    out[i] = x == 0.0f ? 0.0f : x;  // -0 and +0 are one vector: same bytes, same hash
    sum += double(x) * double(x);
  }
  if (opts_.metric == Metric::kCosine) {
    if (sum == 0) return Status::InvalidArgument("a zero vector has no direction (cosine metric)");
    // Scalar, in index order: the stored bytes are the same on every machine.
    double norm = std::sqrt(sum);
    for (uint32_t i = 0; i < opts_.dim; ++i) out[i] = static_cast<float>(double(out[i]) / norm);
  }
  return Status::OK();
}

uint64_t MajorFaults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<uint64_t>(u.ru_majflt);
}

const OwnerSlot* IndexCore::FindOwner(uint64_t owner) const {
  return owner_map_.FindIf(OwnerSlot::HashOf(owner), [&](const OwnerSlot& s) { return s.owner == owner; });
}

uint32_t IndexCore::NewNode(uint64_t owner, const float* v, uint32_t tag) {
  double u = 1.0 - std::uniform_real_distribution<double>(0.0, 1.0)(rng_);  // (0, 1]
  int level = static_cast<int>(std::min<double>(Graph::kMaxLevel, std::floor(-std::log(u) * level_mult_)));
  const uint32_t id = graph_.size();
  arena_.Grow(size_t{id} + 1);
  // In memory it cannot fail; a file's pwrite failing after TryGrow
  // reserved the room (fallocated) is a disk gone bad: stop, as a failed
  // mapping would have.
  if (!arena_.Write(id, v).ok()) throw std::bad_alloc();
  graph_.Add(level, owner, tag);
  table_.Insert(tag, id);
  owner_map_.Insert(OwnerSlot{owner, id, OwnerSlot::HashOf(owner)});
  if (codes_ && codes_->ready()) codes_->Add(arena_, id);
  if (sq4_ && sq4_->ready()) sq4_->Add(arena_, id);
  counters_.Add(counters_.owners, 1);
  return id;
}

void IndexCore::RemoveOwner(uint32_t node, uint64_t owner) {
  owner_map_.EraseIf(OwnerSlot::HashOf(owner), [&](const OwnerSlot& s) { return s.owner == owner; });
  counters_.owners.fetch_sub(1, std::memory_order_relaxed);
  if (graph_.flags(node) & kMultiOwner) {
    base::WriterMutexLock lock(&extra_mu_);
    std::vector<uint64_t>& extra = extra_owners_[node];
    if (graph_.owner(node) == owner) {
      graph_.set_owner(node, extra.back());
      extra.pop_back();
    } else {
      extra.erase(std::find(extra.begin(), extra.end(), owner));
    }
    if (extra.empty()) {
      extra_owners_.erase(node);
      graph_.ClearFlags(node, kMultiOwner);
    }
    return;
  }
  graph_.SetFlags(node, kDeleted);  // hidden from searches from now on
  counters_.Add(counters_.tombstones, 1);
}

void IndexCore::AttachOwner(uint32_t node, uint64_t owner) {
  owner_map_.Insert(OwnerSlot{owner, node, OwnerSlot::HashOf(owner)});
  counters_.Add(counters_.owners, 1);
  if (graph_.flags(node) & kDeleted) {  // a tombstone's vector written again: revived
    graph_.set_owner(node, owner);
    graph_.ClearFlags(node, kDeleted);
    counters_.tombstones.fetch_sub(1, std::memory_order_relaxed);
    return;
  }
  base::WriterMutexLock lock(&extra_mu_);
  extra_owners_[node].push_back(owner);
  graph_.SetFlags(node, kMultiOwner);
}

// The node's owners, the one in the node first. Under extra_mu_, which
// RemoveOwner holds while it moves an extra owner into the node, so the
// list is never missing one or holding one twice.
std::vector<uint64_t> IndexCore::OwnersOf(uint32_t node) const {
  base::ReaderMutexLock lock(&extra_mu_);
  std::vector<uint64_t> owners{graph_.owner(node)};
  if (graph_.flags(node) & kMultiOwner) {
    auto it = extra_owners_.find(node);
    if (it != extra_owners_.end()) owners.insert(owners.end(), it->second.begin(), it->second.end());
  }
  return owners;
}

// kNaive open arm: the table a load left unbuilt, built by the first write
// from every vector (each read and hashed).
void IndexCore::EnsureTable() {
  if (!table_pending_) return;
  std::vector<uint32_t> nodes;
  const uint32_t n = graph_.size();
  for (uint32_t i = 0; i < n; ++i)
    if ((graph_.flags(i) & kDead) == 0) nodes.push_back(i);
  table_.BuildFromVectors(nodes);
  counters_.Add(counters_.vectors_read_after_load, nodes.size());
  table_pending_ = false;
}

Status IndexCore::Insert(std::span<const InsertItem> items) {
  // Validated, normalized and hashed before the lock: nothing changes on a bad item.
  const size_t dim = opts_.dim;
  std::vector<float> prepared(items.size() * dim);
  std::vector<uint32_t> tags(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    if (Status st = Prepare(items[i].vector, &prepared[i * dim]); !st.ok())
      return Status::InvalidArgument("item " + std::to_string(i) + ": " + st.message());
    tags[i] = TagOf(HashVector(&prepared[i * dim], opts_.dim));
  }
  base::MutexLock lock(&mu_);
  // Room for every item first: a file that cannot grow fails the call before anything changes.
  if (Status st = arena_.TryGrow(size_t{graph_.size()} + items.size()); !st.ok()) return st;
  EnsureTable();
  std::vector<uint32_t> fresh;
  uint64_t hits = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    const float* v = &prepared[i * dim];
    const uint64_t owner = items[i].owner;
    const uint32_t found = table_.Find(tags[i], v);
    const OwnerSlot* held = FindOwner(owner);
    const uint32_t held_node = held ? held->node : VectorTable::kNone;
    if (found != VectorTable::kNone && found == held_node) {
      ++hits;  // rewritten as it was
      continue;
    }
    if (held_node != VectorTable::kNone) RemoveOwner(held_node, owner);
    if (found != VectorTable::kNone) {
      AttachOwner(found, owner);
      ++hits;
      continue;
    }
    fresh.push_back(NewNode(owner, v, tags[i]));
  }
  counters_.Add(counters_.inserts, items.size());
  counters_.Add(counters_.owner_hits, hits);
  if (codes_ && !codes_->ready() && graph_.size() >= BinaryCodes::kCenterSample)
    codes_->Activate(arena_, graph_.size());
  if (sq4_ && !sq4_->ready() && graph_.size() >= Scalar4Codes::kSample) sq4_->Activate(arena_, graph_.size());
  if (!fresh.empty()) arena_.Flush(fresh.front(), fresh.back() - fresh.front() + 1);
  // Major faults of the whole process while linking: in a file they are
  // the vectors the walk met cold (what a memory limit costs).
  const bool faults = arena_.file_backed();
  const uint64_t faults0 = faults ? MajorFaults() : 0;
  if (opts_.insert_arm == InsertArm::kRow) {
    for (uint32_t node : fresh) LinkRow(node);
  } else {
    for (size_t b = 0; b < fresh.size(); b += opts_.batch_size)
      LinkBatch(std::span<const uint32_t>(fresh).subspan(b, std::min<size_t>(opts_.batch_size, fresh.size() - b)));
  }
  if (faults) counters_.Add(counters_.link_major_faults, MajorFaults() - faults0);
  return Status::OK();
}

bool IndexCore::Erase(uint64_t owner) {
  base::MutexLock lock(&mu_);
  const OwnerSlot* held = FindOwner(owner);
  if (held == nullptr) return false;
  RemoveOwner(held->node, owner);
  counters_.Add(counters_.erases, 1);
  return true;
}

std::optional<uint32_t> IndexCore::NodeOf(uint64_t owner) const {
  base::MutexLock lock(&mu_);
  const OwnerSlot* held = FindOwner(owner);
  if (held == nullptr) return std::nullopt;
  return held->node;
}

std::vector<GrowthEvent> IndexCore::TableGrowthLog() const {
  base::MutexLock lock(&mu_);
  return table_.growth_log();
}

Stats IndexCore::GetStats() const {
  Stats st;
  auto get = [](const std::atomic<uint64_t>& c) { return c.load(std::memory_order_relaxed); };
  const Counters& c = counters_;
  st.nodes = graph_.size();
  st.owners = get(c.owners);
  st.tombstones = get(c.tombstones);
  st.dead = get(c.dead);
  std::optional<Graph::Entry> e = graph_.entry();
  st.max_level = e ? e->level : -1;
  st.searches = get(c.searches);
  st.search_distances = get(c.search_distances);
  st.search_rescored = get(c.search_rescored);
  st.nodes_visited = get(c.nodes_visited);
  st.visited_zeroings = get(c.visited_zeroings);
  st.inserts = get(c.inserts);
  st.nodes_linked = get(c.nodes_linked);
  st.owner_hits = get(c.owner_hits);
  st.erases = get(c.erases);
  st.insert_distances = get(c.insert_distances);
  st.distances_total = st.search_distances + st.insert_distances + get(c.other_distances);
  st.batches = get(c.batches);
  st.processes_run = get(c.processes_run);
  st.prelink_edges_added = get(c.prelink_added);
  st.prelink_edges_pruned = get(c.prelink_pruned);
  st.rounds = get(c.rounds);
  st.round_distances_total = get(c.round_distances_total);
  st.round_distances_max = get(c.round_distances_max);
  st.vectors_preloaded = get(c.vectors_preloaded);
  st.pages_preloaded = get(c.pages_preloaded);
  st.link_major_faults = get(c.link_major_faults);
  st.vectors_read_after_load = get(c.vectors_read_after_load);
  base::MutexLock lock(&mu_);
  TableStats t = table_.stats();
  st.table_growths = t.growths;
  st.table_max_entries_moved = t.max_entries_moved;
  st.table_entries_moved_total = t.entries_moved_total;
  st.table_vectors_read = t.vectors_read;
  st.table_longest_growth_cpu_ns = t.longest_growth_cpu_ns;
  st.table_compares = t.compares;
  return st;
}

MemoryBreakdown IndexCore::Memory() const {
  // Under the write lock: the sizes of the upper lists and the chunk counts
  // are the writer's plain fields.
  base::MutexLock lock(&mu_);
  MemoryBreakdown m;
  const uint32_t n = graph_.size();
  m.vectors_full = uint64_t{n} * arena_.stride();
  if (codes_ && codes_->ready()) m.vectors_binary = codes_->bytes(n);
  if (sq4_ && sq4_->ready()) m.vectors_scalar4 = sq4_->bytes(n);
  m.graph_links = graph_.links_bytes();
  m.node_meta = graph_.meta_bytes();
  m.table = table_.stats().memory_bytes;
  m.owners = owner_map_.memory_bytes();
  {
    base::ReaderMutexLock extra(&extra_mu_);
    for (const auto& [node, owners] : extra_owners_) m.owners += 48 + owners.capacity() * sizeof(uint64_t);
  }
  m.reserved = arena_.reserved_bytes() + graph_.reserved_bytes() + (codes_ ? codes_->reserved_bytes() : 0) +
               (sq4_ ? sq4_->reserved_bytes() : 0) +
               m.table + m.owners;
  return m;
}

}  // namespace fenec::index::vec
