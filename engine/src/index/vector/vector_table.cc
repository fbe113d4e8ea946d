// VectorTable: see vector_table.h.
#include "engine/src/index/vector/vector_table.h"

#include <xxhash.h>

#include <algorithm>
#include <cstring>

namespace fenec::index::vec {

uint64_t HashVector(const float* v, uint32_t dim) { return XXH3_64bits(v, size_t{dim} * sizeof(float)); }

bool VectorTable::Same(uint32_t node, const float* v) const {
  ++compares_;
  return std::memcmp(arena_->At(node), v, size_t{arena_->dim()} * sizeof(float)) == 0;
}

size_t VectorTable::size() const { return arm_ == TableArm::kSharded ? sharded_.size() : naive_.size(); }

uint32_t VectorTable::Find(uint32_t tag, const float* v) const {
  auto same = [&](const Slot& s) { return Same(s.node, v); };
  const Slot* s = arm_ == TableArm::kSharded ? sharded_.FindIf(tag, same) : naive_.FindIf(tag, same);
  return s ? s->node : kNone;
}

void VectorTable::Insert(uint32_t tag, uint32_t node) {
  Slot slot{tag, node};
  if (arm_ == TableArm::kSharded) {
    sharded_.Insert(slot);
    return;
  }
  // Rebuilt from every vector once half full.
  if (2 * (naive_.size() + 1) > naive_.capacity()) GrowNaive();
  naive_.Insert(slot);
}

void VectorTable::GrowNaive() {
  uint64_t t0 = ThreadCpuNs(), w0 = MonotonicNs();
  size_t cap = std::max<size_t>(16, naive_.capacity() * 2);
  RobinTable<Slot> next(cap);
  uint64_t read = 0;
  naive_.ForEach([&](const Slot& s) {
    // The "before": the slot's tag is not trusted to place it; the vector is read and hashed.
    next.Insert(Slot{TagOf(HashVector(arena_->At(s.node), arena_->dim())), s.node});
    ++read;
  });
  GrowthEvent e;
  e.entries_before = naive_.size();
  e.moved = read;
  e.vectors_read = read;
  naive_ = std::move(next);
  e.cpu_ns = ThreadCpuNs() - t0;
  e.wall_ns = MonotonicNs() - w0;
  naive_log_.push_back(e);
  vectors_read_ += read;
}

bool VectorTable::Erase(uint32_t tag, uint32_t node) {
  auto is = [&](const Slot& s) { return s.node == node; };
  return arm_ == TableArm::kSharded ? sharded_.EraseIf(tag, is) : naive_.EraseIf(tag, is);
}

void VectorTable::BuildFromTags(std::span<const uint32_t> nodes, std::span<const uint32_t> tags) {
  std::vector<Slot> slots(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) slots[i] = Slot{tags[i], nodes[i]};
  if (arm_ == TableArm::kSharded) {
    sharded_.Build(slots);
    return;
  }
  size_t cap = 16;
  while (cap < 2 * slots.size()) cap *= 2;
  naive_ = RobinTable<Slot>(cap);
  for (const Slot& s : slots) naive_.Insert(s);
}

void VectorTable::BuildFromVectors(std::span<const uint32_t> nodes) {
  std::vector<uint32_t> tags(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) tags[i] = TagOf(HashVector(arena_->At(nodes[i]), arena_->dim()));
  vectors_read_ += nodes.size();
  BuildFromTags(nodes, tags);
}

const std::vector<GrowthEvent>& VectorTable::growth_log() const {
  return arm_ == TableArm::kSharded ? sharded_.growth_log() : naive_log_;
}

TableStats VectorTable::stats() const {
  TableStats st;
  st.sharded = arm_ == TableArm::kSharded && sharded_.sharded();
  st.entries = size();
  st.capacity_slots = arm_ == TableArm::kSharded ? sharded_.capacity() : naive_.capacity();
  st.memory_bytes = arm_ == TableArm::kSharded ? sharded_.memory_bytes() : naive_.memory_bytes();
  for (const GrowthEvent& e : growth_log()) {
    ++st.growths;
    st.entries_moved_total += e.moved;
    st.max_entries_moved = std::max(st.max_entries_moved, e.moved);
    st.longest_growth_cpu_ns = std::max(st.longest_growth_cpu_ns, e.cpu_ns);
  }
  st.vectors_read = vectors_read_;
  st.compares = compares_;
  return st;
}

}  // namespace fenec::index::vec
