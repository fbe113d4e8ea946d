// Serialize and Load: the graph without the vectors (engine/doc/vectors.md
// has the format). Every count read is bounded by the bytes left, every id
// by the node count, so bad bytes are kCorruption, never a crash, a hang or
// an allocation out of proportion to the input.
#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "engine/src/base/coding.h"
#include "engine/src/index/vector/core.h"

namespace fenec::index::vec {
namespace {

constexpr uint32_t kMagic = 0x31585646;  // "FVX1"
constexpr uint64_t kVersion = 1;
// The fewest bytes a node takes: level, flags, tag (4), owner count.
constexpr size_t kMinNodeBytes = 7;
constexpr uint8_t kStoredFlags = kDeleted | kMultiOwner | kDead;

void PutFloat(base::Bytes* out, float f) { base::PutFixed32(out, std::bit_cast<uint32_t>(f)); }

Status Bad(const std::string& what) { return Status::Corruption("vector index: " + what); }

}  // namespace

void IndexCore::Serialize(std::vector<uint8_t>* out) const {
  base::MutexLock lock(&mu_);
  out->clear();
  const uint32_t n = graph_.size();
  base::PutFixed32(out, kMagic);
  base::PutVarint(out, kVersion);
  base::PutVarint(out, opts_.dim);
  base::PutVarint(out, static_cast<uint64_t>(opts_.metric));
  base::PutVarint(out, opts_.m);
  base::PutVarint(out, n);
  std::optional<Graph::Entry> entry = graph_.entry();
  base::PutVarint(out, entry ? uint64_t{entry->node} + 1 : 0);
  // 2: the thresholds and each side's levels (1, thresholds only, is
  // still read: the levels are then taken again from the loaded vectors).
  const bool center = codes_ && codes_->ready();
  out->push_back(center ? 2 : 0);
  if (center) {
    for (float c : codes_->center()) PutFloat(out, c);
    for (float l : codes_->levels()) PutFloat(out, l);
  }
  std::vector<uint32_t> ids(graph_.capacity(0));
  for (uint32_t i = 0; i < n; ++i) {
    const uint8_t flags = graph_.flags(i);
    const int level = graph_.level(i);
    out->push_back(static_cast<uint8_t>(level));
    out->push_back(flags & kStoredFlags);
    base::PutFixed32(out, graph_.tag(i));
    if (flags & kDeleted) {
      base::PutVarint(out, 0);
    } else {
      std::vector<uint64_t> owners{graph_.owner(i)};
      if (flags & kMultiOwner) {
        base::ReaderMutexLock extra(&extra_mu_);
        auto it = extra_owners_.find(i);
        if (it != extra_owners_.end()) owners.insert(owners.end(), it->second.begin(), it->second.end());
      }
      base::PutVarint(out, owners.size());
      for (uint64_t o : owners) base::PutVarint(out, o);
    }
    if (flags & kDead) continue;
    if (flags & kDeleted)  // no document holds a tombstone's vector any more
      for (uint32_t d = 0; d < opts_.dim; ++d) PutFloat(out, Vector(i)[d]);
    for (int layer = 0; layer <= level; ++layer) {
      uint32_t c = graph_.Read(i, layer, ids.data());
      base::PutVarint(out, c);
      for (uint32_t j = 0; j < c; ++j) base::PutVarint(out, ids[j]);
    }
  }
  base::PutFixed64(out, XXH3_64bits(out->data(), out->size()));
}

Status IndexCore::Load(std::span<const uint8_t> bytes,
                       const std::function<Status(uint32_t, uint64_t, std::span<float>)>& source) {
  base::MutexLock lock(&mu_);
  if (graph_.size() != 0) return Status::InvalidArgument("vector index: Load needs an empty index");
  if (bytes.size() < 4 + 8) return Bad("too short");
  const size_t body = bytes.size() - 8;
  if (base::LoadFixed64(bytes.data() + body) != XXH3_64bits(bytes.data(), body)) return Bad("checksum mismatch");
  base::ByteReader r(bytes.first(body));
  if (r.Fixed32() != kMagic) return Bad("not a vector index");
  if (uint64_t v = r.Varint(); v != kVersion) return Bad("unknown version " + std::to_string(v));
  const uint64_t dim = r.Varint(), metric = r.Varint(), m = r.Varint();
  if (!r.ok()) return Bad("truncated header");
  if (dim != opts_.dim || metric != static_cast<uint64_t>(opts_.metric) || m != opts_.m)
    return Status::InvalidArgument("vector index: the bytes are of dim " + std::to_string(dim) + ", metric " +
                                   std::to_string(metric) + ", m " + std::to_string(m) + "; the index differs");
  const uint64_t n = r.Varint();
  const uint64_t entry_plus1 = r.Varint();
  if (!r.ok() || n > r.remaining() / kMinNodeBytes || n >= Graph::kNone) return Bad("node count out of bounds");
  if (entry_plus1 > n) return Bad("entry point out of bounds");
  std::vector<float> center, levels;
  const uint8_t has_center = r.Byte();
  if (has_center > 2) return Bad("bad center flag");
  if (has_center) {
    const uint64_t floats = has_center == 2 ? 5 * dim : dim;
    if (r.remaining() / 4 < floats) return Bad("truncated center");
    center.resize(dim);
    for (float& c : center) c = std::bit_cast<float>(r.Fixed32());
    levels.resize(floats - dim);
    for (float& l : levels) l = std::bit_cast<float>(r.Fixed32());
  }

  // Parse every node before touching the index.
  struct Node {
    uint8_t level, flags;
    uint32_t tag;
    uint32_t owners_begin, owners_end;  // into owners
    uint64_t tomb = UINT64_MAX;         // offset into tomb_vectors
    uint64_t lists = 0;                 // offset into lists: per layer, a count then ids
  };
  std::vector<Node> nodes(n);
  std::vector<uint64_t> owners;
  std::vector<float> tomb_vectors;
  std::vector<uint32_t> lists;
  std::vector<uint32_t> sorted;
  for (uint64_t i = 0; i < n; ++i) {
    Node& nd = nodes[i];
    nd.level = r.Byte();
    nd.flags = r.Byte();
    nd.tag = r.Fixed32();
    const uint64_t count = r.Varint();
    if (!r.ok()) return Bad("truncated node " + std::to_string(i));
    if (nd.level > Graph::kMaxLevel) return Bad("level out of bounds at node " + std::to_string(i));
    if (nd.flags & ~kStoredFlags) return Bad("unknown flags at node " + std::to_string(i));
    if (count > r.remaining()) return Bad("owner count out of bounds at node " + std::to_string(i));
    const bool deleted = nd.flags & kDeleted, dead = nd.flags & kDead, multi = nd.flags & kMultiOwner;
    if ((count == 0) != deleted || (count > 1) != multi || (dead && !deleted) || nd.tag == 0)
      return Bad("flags disagree with owners at node " + std::to_string(i));
    nd.owners_begin = static_cast<uint32_t>(owners.size());
    for (uint64_t o = 0; o < count; ++o) owners.push_back(r.Varint());
    nd.owners_end = static_cast<uint32_t>(owners.size());
    if (dead) continue;
    if (deleted) {
      if (r.remaining() / 4 < dim) return Bad("truncated tombstone vector at node " + std::to_string(i));
      nd.tomb = tomb_vectors.size();
      for (uint64_t d = 0; d < dim; ++d) {
        float f = std::bit_cast<float>(r.Fixed32());
        if (!std::isfinite(f)) return Bad("tombstone vector not finite at node " + std::to_string(i));
        tomb_vectors.push_back(f);
      }
    }
    nd.lists = lists.size();
    for (int layer = 0; layer <= nd.level; ++layer) {
      const uint64_t c = r.Varint();
      if (!r.ok() || c > graph_.capacity(layer)) return Bad("list length out of bounds at node " + std::to_string(i));
      lists.push_back(static_cast<uint32_t>(c));
      sorted.clear();
      for (uint64_t j = 0; j < c; ++j) {
        const uint64_t id = r.Varint();
        if (!r.ok() || id >= n || id == i) return Bad("bad link at node " + std::to_string(i));
        lists.push_back(static_cast<uint32_t>(id));
        sorted.push_back(static_cast<uint32_t>(id));
      }
      std::sort(sorted.begin(), sorted.end());
      if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
        return Bad("duplicate link at node " + std::to_string(i));
    }
  }
  if (!r.ok()) return Bad("truncated");
  if (!r.done()) return Bad("bytes after the last node");

  // Cross-node checks: links name live nodes of a high enough level, owners
  // are unique, the entry point is a live node of the top level.
  int top = -1;
  for (uint64_t i = 0; i < n; ++i) {
    const Node& nd = nodes[i];
    if (nd.flags & kDead) continue;
    top = std::max<int>(top, nd.level);
    uint64_t at = nd.lists;
    for (int layer = 0; layer <= nd.level; ++layer) {
      const uint32_t c = lists[at++];
      for (uint32_t j = 0; j < c; ++j) {
        const Node& to = nodes[lists[at++]];
        if ((to.flags & kDead) || to.level < layer) return Bad("link to a dead or lower node at " + std::to_string(i));
      }
    }
  }
  if ((top < 0) != (entry_plus1 == 0)) return Bad("entry point missing or superfluous");
  if (entry_plus1 != 0) {
    const Node& e = nodes[entry_plus1 - 1];
    if ((e.flags & kDead) || e.level != top) return Bad("entry point is not a live node of the top level");
  }
  {
    std::vector<uint64_t> all(owners);
    std::sort(all.begin(), all.end());
    if (std::adjacent_find(all.begin(), all.end()) != all.end()) return Bad("an owner holds two nodes");
  }

  // The vectors: from the database for nodes with owners, from the bytes
  // for tombstones. The graph is untouched until all are in.
  if (Status st = arena_.TryGrow(n); !st.ok()) return st;
  std::vector<float> raw(dim);
  for (uint64_t i = 0; i < n; ++i) {
    const Node& nd = nodes[i];
    float* slot = arena_.At(static_cast<uint32_t>(i));
    if (nd.flags & kDead) {
      std::memset(slot, 0, dim * sizeof(float));
    } else if (nd.flags & kDeleted) {
      std::memcpy(slot, &tomb_vectors[nd.tomb], dim * sizeof(float));
    } else {
      if (Status st = source(static_cast<uint32_t>(i), owners[nd.owners_begin], raw); !st.ok()) return st;
      if (Status st = Prepare(raw, slot); !st.ok())
        return Bad("vector of node " + std::to_string(i) + ": " + st.message());
    }
  }

  // Build.
  std::vector<OwnerSlot> owner_slots;
  owner_slots.reserve(owners.size());
  std::vector<uint32_t> table_nodes, table_tags;
  uint64_t tombstones = 0, dead = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const Node& nd = nodes[i];
    const uint32_t id = static_cast<uint32_t>(i);
    const bool has_owner = nd.owners_end > nd.owners_begin;
    graph_.Add(nd.level, has_owner ? owners[nd.owners_begin] : 0, nd.tag);
    graph_.SetFlags(id, static_cast<uint8_t>(nd.flags | kPublished));
    for (uint32_t o = nd.owners_begin; o < nd.owners_end; ++o)
      owner_slots.push_back(OwnerSlot{owners[o], id, OwnerSlot::HashOf(owners[o])});
    if (nd.flags & kMultiOwner) {
      base::WriterMutexLock extra(&extra_mu_);
      extra_owners_[id].assign(owners.begin() + nd.owners_begin + 1, owners.begin() + nd.owners_end);
    }
    if (nd.flags & kDead) {
      ++dead;
      continue;
    }
    if (nd.flags & kDeleted) ++tombstones;
    table_nodes.push_back(id);
    table_tags.push_back(nd.tag);
  }
  for (uint64_t i = 0; i < n; ++i) {
    const Node& nd = nodes[i];
    if (nd.flags & kDead) continue;
    uint64_t at = nd.lists;
    for (int layer = 0; layer <= nd.level; ++layer) {
      const uint32_t c = lists[at++];
      graph_.Write(static_cast<uint32_t>(i), layer, &lists[at], c);
      at += c;
    }
  }
  if (entry_plus1 != 0) graph_.OfferEntry(static_cast<uint32_t>(entry_plus1 - 1), top, /*force=*/true);
  owner_map_.Build(owner_slots);
  if (opts_.open_arm == OpenArm::kKept)
    table_.BuildFromTags(table_nodes, table_tags);  // GR-4: from the kept tags, no vector read
  else
    table_pending_ = true;  // the "before": the first write reads and hashes every vector
  arena_.Flush(0, static_cast<uint32_t>(n));
  // Recomputed from nodes [0, 1024), as first taken (scalar4.h).
  if (sq4_ && n >= Scalar4Codes::kSample) sq4_->Activate(arena_, static_cast<uint32_t>(n));
  if (codes_ && (has_center || n >= BinaryCodes::kCenterSample))
    codes_->Activate(arena_, static_cast<uint32_t>(n), center, levels);
  counters_.owners.store(owners.size());
  counters_.tombstones.store(tombstones);
  counters_.dead.store(dead);
  return Status::OK();
}

}  // namespace fenec::index::vec
