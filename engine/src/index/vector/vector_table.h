// VectorTable (GR-3): which node holds a given vector, so a vector written
// again (an update that keeps a document's vector, a second document with
// the same vector) finds its node instead of inserting a new one.
//
// Keys. A vector is hashed once, over its stored bytes (after cosine
// normalization), with 64-bit XXH3; the table and the graph keep its top 32
// bits, the tag (0 remapped to 1: 0 marks an empty slot). A slot is (tag,
// node): 8 bytes. A tag match is confirmed by comparing the stored vector
// with the one looked up (memcmp of dim floats), so a tag collision costs
// one extra compare, never a wrong answer; two different vectors that share
// a tag are two slots. Why 32 bits and not the whole 64: the graph keeps
// 4 bytes a node beside it (GR-4), and a table built from those after a
// load must place and find slots exactly as one built at insert time; with
// n vectors a probe meets a false tag match with odds n / 2^32.
//
// Two arms:
//  - TableArm::kSharded (default): ShardedTable's growth (table.h): one table
//    up to 16 384 slots, then 256 that double on their own, a 256th of the
//    entries at a time; a growth moves (tag, node) slots and reads no vector.
//  - TableArm::kNaive (the source's "before"): one table, and when it is half
//    full it is rebuilt from every vector it holds, each read from the arena
//    and hashed again (the table of the source kept no hash).
//
// Not thread-safe: the index calls it under its write lock only (searches
// never use it).
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/src/index/vector/chunked.h"
#include "engine/src/index/vector/table.h"
#include "engine/src/index/vector/vector_types.h"

namespace fenec::index::vec {

// XXH3-64 over the vector's bytes.
uint64_t HashVector(const float* v, uint32_t dim);
// Top 32 bits of the hash, never 0.
inline uint32_t TagOf(uint64_t hash64) {
  uint32_t t = static_cast<uint32_t>(hash64 >> 32);
  return t == 0 ? 1 : t;
}

// The most a sharded growth past the split may move, in a table of
// `entries`: a 256th of them plus the spread of one shard around its mean
// (binomial: 6 sigma, so no seed fails) and 64. Tests and growth-bench
// hold every shard growth to it.
inline uint64_t ShardGrowthBound(uint64_t entries) {
  const double per_shard = std::ceil(static_cast<double>(entries) / 256.0);
  return static_cast<uint64_t>(per_shard + 6.0 * std::sqrt(per_shard) + 64.0);
}

struct TableStats {
  uint64_t entries = 0;
  uint64_t capacity_slots = 0;
  uint64_t growths = 0;
  uint64_t entries_moved_total = 0;
  uint64_t max_entries_moved = 0;      // the most one growth moved
  uint64_t vectors_read = 0;           // vectors read (and hashed) to grow or (re)build
  uint64_t longest_growth_cpu_ns = 0;  // CPU time of the longest growth (the growing thread's)
  uint64_t compares = 0;               // vector compares to confirm a tag match
  uint64_t memory_bytes = 0;
  bool sharded = false;
};

class VectorTable {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  VectorTable(TableArm arm, const VectorArena* arena) : arm_(arm), arena_(arena) {}

  TableArm arm() const { return arm_; }
  size_t size() const;

  // The node whose stored vector has exactly these bytes (and this tag), or kNone.
  uint32_t Find(uint32_t tag, const float* v) const;
  // Adds a node (its vector already in the arena). Pays for any growth.
  void Insert(uint32_t tag, uint32_t node);
  // Removes the slot of this node; false if absent.
  bool Erase(uint32_t tag, uint32_t node);

  // Replaces the contents by these (tag, node) pairs, presized: no growth,
  // no vector read (the kKept open arm, GR-4).
  void BuildFromTags(std::span<const uint32_t> nodes, std::span<const uint32_t> tags);
  // Replaces the contents by reading and hashing each node's vector (the
  // kNaive open arm: what the first write after a load paid).
  void BuildFromVectors(std::span<const uint32_t> nodes);

  TableStats stats() const;
  // Every growth since construction, oldest first (both arms).
  const std::vector<GrowthEvent>& growth_log() const;

 private:
  struct Slot {
    uint32_t tag = 0;
    uint32_t node = 0;
    bool empty() const { return tag == 0; }
    uint32_t hash() const { return tag; }
  };
  bool Same(uint32_t node, const float* v) const;
  void GrowNaive();

  TableArm arm_;
  const VectorArena* arena_;
  ShardedTable<Slot> sharded_;  // kSharded
  RobinTable<Slot> naive_;      // kNaive
  std::vector<GrowthEvent> naive_log_;
  uint64_t vectors_read_ = 0;
  mutable uint64_t compares_ = 0;
};

}  // namespace fenec::index::vec
