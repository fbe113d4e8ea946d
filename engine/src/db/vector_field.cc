#include "engine/src/db/vector_field.h"

#include <system_error>

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstring>

namespace fenec {

namespace vec = index::vec;

std::string VectorFileIn(const std::string& folder) { return folder + "/vectors.fvec"; }

index::vec::Options IndexOptionsFor(const Field& field, const HnswOptions& o, const std::string& folder) {
  vec::Options v;
  v.dim = field.dim;
  switch (field.metric) {
    case VectorMetric::kL2: v.metric = vec::Metric::kL2; break;
    case VectorMetric::kCosine: v.metric = vec::Metric::kCosine; break;
    case VectorMetric::kInnerProduct: v.metric = vec::Metric::kInnerProduct; break;
  }
  v.m = o.m;
  v.ef_construction = o.ef_construction;
  v.ef_search = o.ef_search;
  v.insert_arm = o.insert == VectorInsert::kBatch ? vec::InsertArm::kBatch : vec::InsertArm::kRow;
  v.batch_size = VectorField::kLinkBatch;
  v.threads = o.threads;
  v.table_arm = o.table == VectorTable::kSharded ? vec::TableArm::kSharded : vec::TableArm::kNaive;
  v.open_arm = o.open == VectorOpen::kKept ? vec::OpenArm::kKept : vec::OpenArm::kNaive;
  v.quantization = o.quantization == VectorQuantization::kBinary    ? vec::Quantization::kBinary
                   : o.quantization == VectorQuantization::kScalar4 ? vec::Quantization::kScalar4
                                                                    : vec::Quantization::kNone;
  v.oversample = o.oversample;
  v.rescore = o.rescore;
  if (o.storage == VectorStorage::kFile && !folder.empty()) v.vector_file = VectorFileIn(folder);
  return v;
}

Status LoadFromBranch(const BranchState& st, VectorField* vf) {
  const size_t bytes = size_t{vf->dim()} * 4;
  if (!st.graph.empty()) {
    Status s = vf->Load(st.graph, [&](uint32_t, uint64_t owner, std::span<float> out) -> Status {
      if (owner >= st.present.size() || !st.present[owner] || st.values[owner].size() != bytes)
        return Status::Corruption(fmt::format("the graph names document {}, whose vector the branch lacks", owner));
      std::memcpy(out.data(), st.values[owner].data(), bytes);
      return Status::OK();
    });
    if (!s.ok()) return s;
  }
  std::vector<VectorBlock> blocks;
  for (const BranchOp& op : st.tail) {
    if (op.put && op.value.size() != bytes)
      return Status::Corruption(fmt::format("document {}'s vector has {} bytes, not {}", op.id, op.value.size(), bytes));
    if (blocks.empty() || blocks.back().erase == op.put) blocks.emplace_back().erase = !op.put;
    blocks.back().ids.push_back(op.id);
    if (op.put) {
      std::vector<float>& v = blocks.back().vectors;
      v.resize(v.size() + vf->dim());
      std::memcpy(v.data() + v.size() - vf->dim(), op.value.data(), bytes);
    }
  }
  if (Status s = vf->ApplyNow(blocks); !s.ok()) return Status::Corruption(s.message());
  return Status::OK();
}

Status ValidateHnswOptions(const HnswOptions& o) {
  if (o.m < 2 || o.m > 128) return Status::InvalidArgument("hnsw.m must be 2..128");
  if (o.ef_construction < 1) return Status::InvalidArgument("hnsw.ef_construction must be >= 1");
  if (o.ef_search < 1) return Status::InvalidArgument("hnsw.ef_search must be >= 1");
  if (o.oversample < 1 || o.oversample > 32) return Status::InvalidArgument("hnsw.oversample must be 1..32");
  if (o.threads > 256) return Status::InvalidArgument("hnsw.threads must be 0..256");
  if (o.queue_bound < 1) return Status::InvalidArgument("hnsw.queue_bound must be >= 1");
  return Status::OK();
}

Result<std::unique_ptr<VectorField>> VectorField::Create(const Field& field, int index, const HnswOptions& options,
                                                         const std::string& folder) {
  auto vi = vec::VectorIndex::Create(IndexOptionsFor(field, options, folder));
  if (!vi.ok()) return vi.status();
  std::unique_ptr<VectorField> f(new VectorField(field, index, std::move(vi).value()));
  f->bound_ = options.queue_bound;
  return f;
}

VectorField::VectorField(const Field& field, int index, std::unique_ptr<vec::VectorIndex> vi)
    : field_(index),
      dim_(field.dim),
      metric_(field.metric),
      index_(std::move(vi)),
      batch_(index_->options().insert_arm == vec::InsertArm::kBatch ? kLinkBatch : 1) {}

VectorField::~VectorField() { StopLinker(); }

void VectorField::Reserve(size_t puts) {
  if (puts == 0) return;
  base::MutexLock lock(&mu_);
  bool waited = false;
  while (!Fits(puts)) {
    waited = true;
    cv_.Wait(&mu_);
  }
  if (waited) queue_waits_.fetch_add(1, std::memory_order_relaxed);
  reserved_ += puts;
}

bool VectorField::TryReserve(size_t puts) {
  if (puts == 0) return true;
  base::MutexLock lock(&mu_);
  if (!Fits(puts)) return false;
  reserved_ += puts;
  return true;
}

// An empty queue takes any size, so a batch over the bound is not refused forever.
bool VectorField::Fits(size_t puts) const {
  return stop_ || !running_ || pending_puts_ + reserved_ == 0 || pending_puts_ + reserved_ + puts <= bound_;
}

void VectorField::Release(size_t puts) {
  if (puts == 0) return;
  base::MutexLock lock(&mu_);
  reserved_ -= std::min<uint64_t>(reserved_, puts);
  cv_.SignalAll();
}

void VectorField::Enqueue(std::shared_ptr<const VectorBlock> block, size_t reserved) {
  base::MutexLock lock(&mu_);
  reserved_ -= std::min<uint64_t>(reserved_, reserved);
  if (block && !block->ids.empty()) {
    enqueued_ += block->ids.size();
    if (!block->erase) pending_puts_ += block->ids.size();
    queue_.push_back(std::move(block));
  }
  cv_.SignalAll();
}

namespace {
std::atomic<uint64_t> fail_linker_start{0};  // FailNthLinkerStartForTest's countdown
}  // namespace

void VectorField::FailNthLinkerStartForTest(uint64_t n) { fail_linker_start.store(n); }

Status VectorField::StartLinker() {
  base::MutexLock lock(&mu_);
  if (running_) return Status::OK();
  try {
    uint64_t n = fail_linker_start.load();
    while (n > 0 && !fail_linker_start.compare_exchange_weak(n, n - 1)) {
    }
    if (n == 1) throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
    linker_ = std::thread([this] { LinkerLoop(); });
  } catch (const std::system_error& e) {
    return Status::IOError("start @hnsw linker thread", "", e.code().value());
  }
  running_ = true;
  stop_ = false;
  return Status::OK();
}

void VectorField::StopLinker() {
  {
    base::MutexLock lock(&mu_);
    if (!running_) return;
    stop_ = true;
    cv_.SignalAll();
  }
  linker_.join();
  base::MutexLock lock(&mu_);
  running_ = false;
  cv_.SignalAll();
}

void VectorField::WaitLinked() const {
  base::MutexLock lock(&mu_);
  const uint64_t target = enqueued_;
  while (running_ && !stop_ && applied_ < target) cv_.Wait(&mu_);
}

bool VectorField::Idle() const {
  base::MutexLock lock(&mu_);
  return applied_ == enqueued_;
}

void VectorField::HoldAtNow() {
  base::MutexLock lock(&mu_);
  hold_ = enqueued_;
}

void VectorField::Unhold() {
  base::MutexLock lock(&mu_);
  hold_ = UINT64_MAX;
  cv_.SignalAll();
}

void VectorField::CheckpointHeld(std::vector<uint8_t>* graph) {
  {
    base::MutexLock lock(&mu_);
    while (running_ && !stop_ && applied_ < hold_) cv_.Wait(&mu_);
  }
  // The linker is parked at the mark: the graph is exactly the root's state
  // as of the checkpoint, less the tombstones Cleanup now unlinks.
  vec::CleanupReport r = index_->Cleanup();
  unlinked_.fetch_add(r.unlinked, std::memory_order_relaxed);
  graph->clear();
  index_->Serialize(graph);
  Unhold();
}

bool VectorField::Runnable() const { return taken_ < enqueued_ && taken_ < hold_; }

void VectorField::Take(Work* w) {
  *w = Work{};
  // Entries before taken_ are applied (the linker takes one run at a time).
  size_t skip = front_done_;
  for (const auto& b : queue_) {
    if (taken_ + w->entries >= hold_) break;
    if (b->erase) {
      if (w->entries > 0) break;  // a run of puts ends at an erase
      w->erase = true;
      w->blocks.push_back(b);
      w->erases = b->ids;
      w->entries = b->ids.size();
      break;
    }
    bool used = false;
    for (size_t i = skip; i < b->ids.size() && w->items.size() < batch_; ++i) {
      w->items.push_back({b->ids[i], std::span<const float>(b->vectors).subspan(i * dim_, dim_)});
      ++w->entries;
      used = true;
    }
    if (used) w->blocks.push_back(b);
    skip = 0;
    if (w->items.size() >= batch_) break;
  }
  taken_ += w->entries;
}

void VectorField::Finish(const Work& w) {
  size_t n = w.entries;
  while (n > 0) {
    const size_t left = queue_.front()->ids.size() - front_done_;
    if (n >= left) {
      n -= left;
      queue_.pop_front();
      front_done_ = 0;
    } else {
      front_done_ += n;
      n = 0;
    }
  }
  applied_ += w.entries;
  if (!w.erase) pending_puts_ -= w.items.size();
  cv_.SignalAll();
}

void VectorField::Apply(const Work& w) {
  if (w.erase) {
    for (uint64_t id : w.erases) index_->Erase(id);
    return;
  }
  Status s = batch_ == 1 ? index_->Insert(w.items[0].owner, w.items[0].vector) : index_->InsertBatch(w.items);
  if (!s.ok()) {
    // Schema::Check refuses what the index would, so this is a bug, not bad input.
    if (link_errors_.fetch_add(w.items.size(), std::memory_order_relaxed) == 0)
      std::fprintf(stderr, "fenecdb: vector index of field %d refused %zu vectors: %s\n", field_, w.items.size(),
                   s.ToString().c_str());
    return;
  }
  linked_.fetch_add(w.items.size(), std::memory_order_relaxed);
  link_batches_.fetch_add(1, std::memory_order_relaxed);
}

void VectorField::LinkerLoop() {
  base::MutexLock lock(&mu_);
  for (;;) {
    while (!stop_ && !Runnable()) cv_.Wait(&mu_);
    if (stop_) return;
    Work w;
    Take(&w);
    lock.Unlock();
    Apply(w);
    lock.Lock();
    Finish(w);
  }
}

Status VectorField::Load(std::span<const uint8_t> graph, const vec::VectorIndex::VectorSource& source) {
  return index_->Load(graph, source);
}

Status VectorField::ApplyNow(std::span<const VectorBlock> blocks) {
  std::vector<vec::InsertItem> items;
  auto flush = [&]() -> Status {
    for (size_t at = 0; at < items.size(); at += batch_) {
      const size_t n = std::min(batch_, items.size() - at);
      Status s = n == 1 ? index_->Insert(items[at].owner, items[at].vector)
                        : index_->InsertBatch(std::span(items).subspan(at, n));
      if (!s.ok()) return s;
      linked_.fetch_add(n, std::memory_order_relaxed);
    }
    items.clear();
    return Status::OK();
  };
  for (const VectorBlock& b : blocks) {
    if (b.erase) {
      if (Status s = flush(); !s.ok()) return s;
      for (uint64_t id : b.ids) index_->Erase(id);
      continue;
    }
    for (size_t i = 0; i < b.ids.size(); ++i)
      items.push_back({b.ids[i], std::span<const float>(b.vectors).subspan(i * dim_, dim_)});
  }
  return flush();
}

float VectorField::Distance(const float* q, float query_norm, const float* v) const {
  // Scalar, in index order: a few thousand queued vectors at most, and the
  // answer is merged with the graph's by distance.
  double acc = 0, dot = 0, vv = 0;
  switch (metric_) {
    case VectorMetric::kL2:
      for (uint32_t i = 0; i < dim_; ++i) {
        float d = q[i] - v[i];
        acc += double(d) * d;
      }
      return static_cast<float>(acc);
    case VectorMetric::kInnerProduct:
      for (uint32_t i = 0; i < dim_; ++i) dot += double(q[i]) * v[i];
      return static_cast<float>(1.0 - dot);
    case VectorMetric::kCosine:
      for (uint32_t i = 0; i < dim_; ++i) {
        dot += double(q[i]) * v[i];
        vv += double(v[i]) * v[i];
      }
      if (vv == 0 || query_norm == 0) return 2.0f;
      return static_cast<float>(1.0 - dot / (std::sqrt(vv) * query_norm));
  }
  return 0;
}

Status VectorField::Search(std::span<const float> query, size_t k, size_t ef, const vec::Filter& filter,
                           std::vector<vec::Hit>* graph, std::vector<PendingHit>* pending) const {
  // The queue first, the graph second: a vector leaves the queue only once
  // it is linked, so one gone from the copy is in the graph by now.
  std::vector<std::shared_ptr<const VectorBlock>> blocks;
  {
    base::MutexLock lock(&mu_);
    blocks.assign(queue_.begin(), queue_.end());
  }
  pending->clear();
  double qn = 0;
  for (float x : query) qn += double(x) * x;
  const float query_norm = static_cast<float>(std::sqrt(qn));
  uint64_t scanned = 0;
  for (const auto& b : blocks) {
    if (b->erase) continue;
    for (size_t i = 0; i < b->ids.size(); ++i)
      pending->push_back({b->ids[i], Distance(query.data(), query_norm, b->vectors.data() + i * dim_)});
    scanned += b->ids.size();
  }
  pending_scanned_.fetch_add(scanned, std::memory_order_relaxed);
  auto hits = index_->Search(query, k, ef, filter);
  if (!hits.ok()) return hits.status();
  *graph = std::move(hits).value();
  return Status::OK();
}

namespace {

// Counters since the baseline; gauges (what the index holds) as they are.
vec::Stats Since(const vec::Stats& now, const vec::Stats& base) {
  vec::Stats s = now;
  auto sub = [](uint64_t a, uint64_t b) { return a >= b ? a - b : 0; };
  s.searches = sub(now.searches, base.searches);
  s.search_distances = sub(now.search_distances, base.search_distances);
  s.search_rescored = sub(now.search_rescored, base.search_rescored);
  s.nodes_visited = sub(now.nodes_visited, base.nodes_visited);
  s.inserts = sub(now.inserts, base.inserts);
  s.nodes_linked = sub(now.nodes_linked, base.nodes_linked);
  s.owner_hits = sub(now.owner_hits, base.owner_hits);
  s.erases = sub(now.erases, base.erases);
  s.insert_distances = sub(now.insert_distances, base.insert_distances);
  s.distances_total = sub(now.distances_total, base.distances_total);
  s.batches = sub(now.batches, base.batches);
  s.processes_run = sub(now.processes_run, base.processes_run);
  s.prelink_edges_added = sub(now.prelink_edges_added, base.prelink_edges_added);
  s.prelink_edges_pruned = sub(now.prelink_edges_pruned, base.prelink_edges_pruned);
  s.rounds = sub(now.rounds, base.rounds);
  s.round_distances_total = sub(now.round_distances_total, base.round_distances_total);
  s.vectors_preloaded = sub(now.vectors_preloaded, base.vectors_preloaded);
  s.pages_preloaded = sub(now.pages_preloaded, base.pages_preloaded);
  s.link_major_faults = sub(now.link_major_faults, base.link_major_faults);
  s.table_growths = sub(now.table_growths, base.table_growths);
  s.table_entries_moved_total = sub(now.table_entries_moved_total, base.table_entries_moved_total);
  s.table_vectors_read = sub(now.table_vectors_read, base.table_vectors_read);
  s.table_compares = sub(now.table_compares, base.table_compares);
  s.vectors_read_after_load = sub(now.vectors_read_after_load, base.vectors_read_after_load);
  // Maxima are since open: the library keeps no history to take them from.
  return s;
}

}  // namespace

VectorFieldStats VectorField::stats() const {
  VectorFieldStats st;
  vec::Stats now = index_->stats();
  {
    base::MutexLock lock(&mu_);
    st.index = Since(now, base_);
    st.pending = pending_puts_;
  }
  st.memory = index_->MemoryBytes();
  st.queue_waits = queue_waits_.load(std::memory_order_relaxed);
  st.linked = linked_.load(std::memory_order_relaxed);
  st.link_batches = link_batches_.load(std::memory_order_relaxed);
  st.pending_scanned = pending_scanned_.load(std::memory_order_relaxed);
  st.cleanups_unlinked = unlinked_.load(std::memory_order_relaxed);
  st.link_errors = link_errors_.load(std::memory_order_relaxed);
  return st;
}

void VectorField::ResetStats() {
  vec::Stats now = index_->stats();
  {
    base::MutexLock lock(&mu_);
    base_ = now;
  }
  for (auto* a : {&queue_waits_, &linked_, &link_batches_, &pending_scanned_, &unlinked_, &link_errors_})
    a->store(0, std::memory_order_relaxed);
}

}  // namespace fenec
