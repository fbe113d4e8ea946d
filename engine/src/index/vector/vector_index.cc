// VectorIndex: options checked and resolved, then every call forwarded to
// IndexCore (core.h).
#include "engine/src/index/vector/vector_index.h"

#include <algorithm>
#include <string>
#include <thread>

#include "engine/src/index/vector/core.h"

namespace fenec::index::vec {

std::string_view MetricName(Metric m) {
  switch (m) {
    case Metric::kL2: return "l2";
    case Metric::kCosine: return "cosine";
    case Metric::kInnerProduct: return "ip";
  }
  return "unknown";
}
std::string_view InsertArmName(InsertArm a) { return a == InsertArm::kRow ? "row" : "batch"; }
std::string_view TableArmName(TableArm a) { return a == TableArm::kSharded ? "sharded" : "naive"; }
std::string_view OpenArmName(OpenArm a) { return a == OpenArm::kKept ? "kept" : "naive"; }
std::string_view VisitedSetName(VisitedSet v) {
  switch (v) {
    case VisitedSet::kBitmap: return "bitmap";
    case VisitedSet::kHashCleared: return "hash-cleared";
    case VisitedSet::kHashNew: return "hash-new";
  }
  return "?";
}

std::optional<Metric> ParseMetric(std::string_view name) {
  for (Metric m : {Metric::kL2, Metric::kCosine, Metric::kInnerProduct})
    if (MetricName(m) == name) return m;
  return std::nullopt;
}
std::optional<InsertArm> ParseInsertArm(std::string_view name) {
  for (InsertArm a : {InsertArm::kRow, InsertArm::kBatch})
    if (InsertArmName(a) == name) return a;
  return std::nullopt;
}

namespace {

Status OutOfRange(const char* what, uint64_t value, const char* range) {
  return Status::InvalidArgument(std::string("vector index option ") + what + " = " + std::to_string(value) +
                                 " is out of range " + range);
}

}  // namespace

Result<std::unique_ptr<VectorIndex>> VectorIndex::Create(const Options& options) {
  Options o = options;
  if (o.dim < 1 || o.dim > 65536) return OutOfRange("dim", o.dim, "1..65536");
  if (o.m < 2 || o.m > 128) return OutOfRange("m", o.m, "2..128");
  if (o.ef_construction < 1) return OutOfRange("ef_construction", o.ef_construction, ">= 1");
  if (o.ef_search < 1) return OutOfRange("ef_search", o.ef_search, ">= 1");
  if (o.batch_size < 1 || o.batch_size > 4096) return OutOfRange("batch_size", o.batch_size, "1..4096");
  if (o.threads > 256) return OutOfRange("threads", o.threads, "0..256");
  if (o.oversample < 1 || o.oversample > 32) return OutOfRange("oversample", o.oversample, "1..32");
  if (static_cast<unsigned>(o.metric) > 2) return OutOfRange("metric", static_cast<unsigned>(o.metric), "l2|cosine|ip");
  o.ef_construction = std::max(o.ef_construction, o.m);
  if (o.threads == 0) o.threads = std::max(1u, std::thread::hardware_concurrency());
  return std::unique_ptr<VectorIndex>(new VectorIndex(std::make_unique<IndexCore>(o)));
}

VectorIndex::VectorIndex(std::unique_ptr<IndexCore> core) : core_(std::move(core)) {}
VectorIndex::~VectorIndex() = default;

const Options& VectorIndex::options() const { return core_->options(); }

Status VectorIndex::Insert(uint64_t owner, std::span<const float> vector) {
  InsertItem item{owner, vector};
  return core_->Insert(std::span<const InsertItem>(&item, 1));
}
Status VectorIndex::InsertBatch(std::span<const InsertItem> items) { return core_->Insert(items); }
bool VectorIndex::Erase(uint64_t owner) { return core_->Erase(owner); }
CleanupReport VectorIndex::Cleanup() { return core_->Cleanup(); }

Result<std::vector<Hit>> VectorIndex::Search(std::span<const float> query, size_t k, size_t ef,
                                             const Filter& filter) const {
  return core_->Search(query, k, ef, filter, VisitedSet::kBitmap);
}
Result<std::vector<Hit>> VectorIndex::SearchWith(VisitedSet visited, std::span<const float> query, size_t k,
                                                 size_t ef, const Filter& filter) const {
  return core_->Search(query, k, ef, filter, visited);
}

void VectorIndex::Serialize(std::vector<uint8_t>* out) const { core_->Serialize(out); }
Status VectorIndex::Load(std::span<const uint8_t> bytes, const VectorSource& source) {
  return core_->Load(bytes, source);
}

Stats VectorIndex::stats() const { return core_->GetStats(); }
MemoryBreakdown VectorIndex::MemoryBytes() const { return core_->Memory(); }

uint32_t VectorIndex::node_count() const { return core_->graph().size(); }
int VectorIndex::NodeLevel(uint32_t node) const {
  return node < core_->graph().size() ? core_->graph().level(node) : -1;
}
std::vector<uint32_t> VectorIndex::Links(uint32_t node, int layer) const {
  if (layer < 0 || layer > NodeLevel(node)) return {};  // no such node or list
  std::vector<uint32_t> out(core_->graph().capacity(layer));
  out.resize(core_->graph().Read(node, layer, out.data()));
  return out;
}
std::optional<uint32_t> VectorIndex::NodeOf(uint64_t owner) const { return core_->NodeOf(owner); }
std::vector<GrowthEvent> VectorIndex::TableGrowthLog() const { return core_->TableGrowthLog(); }

}  // namespace fenec::index::vec
