// Graph: the HNSW graph's nodes, their neighbour lists and the entry point.
// Internal to the vector index (vector_index.h has the design essay).
//
// Per node, in ChunkedStores (records never move, see chunked.h):
//  - links0: [seq][count][2M ids]: the level-0 list, and the node's lock;
//  - meta:   the primary owner (uint64), the upper lists' block, the 32-bit
//            tag of the vector's hash (GR-4), the level;
//  - flags:  one byte (kPublished, kDeleted, kMultiOwner, kDead), apart from
//            meta so a search that checks a candidate's flags touches one
//            byte array (4096 nodes a page) rather than a 24-byte record.
// Upper lists (levels 1..level, [count][M ids] each) are one heap block a
// node, allocated only for the ~1/M nodes that have upper levels.
//
// The node lock is a per-node spinlock that also counts versions (a
// seqlock): `seq` is odd while a writer holds it. Writers (linking) take it
// to change any of the node's lists. Readers (searches, insert processes)
// never write it: they copy a list with atomic loads and retry if `seq`
// moved meanwhile, so searches on hub nodes do not bounce the lock's cache
// line between cores, and a search never sees a half-written list.
//
// Publication: a writer fills a node's vector, meta and lists before any
// other node's list names it; readers reach a node only through a list they
// read (acquire) or the entry point, so they see it complete. kPublished
// (set when the node is linked) decides whether a search may return it.
//
// The entry point and the top level are one atomic 64-bit word (level << 32
// | node), read by searches without a lock and changed under entry_mu_.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

#include "engine/src/base/mutex.h"
#include "engine/src/base/thread_annotations.h"
#include "engine/src/index/vector/chunked.h"

namespace fenec::index::vec {

enum NodeFlag : uint8_t {
  kPublished = 1,   // linked: a search may return it
  kDeleted = 2,     // tombstone: no owner; walked through, never returned
  kMultiOwner = 4,  // more owners than the one in meta (the index's side table)
  kDead = 8,        // unlinked by Cleanup: no list names it, its own lists are empty
};

// A node's write lock, as the thread-safety analysis sees it: a capability
// over the node's seq word.
class FENEC_CAPABILITY("mutex") NodeLock {
 public:
  explicit NodeLock(uint32_t* seq) : seq_(seq) {}
  void Lock() FENEC_ACQUIRE();
  void Unlock() FENEC_RELEASE();

 private:
  uint32_t* seq_;
};

class Graph {
 public:
  static constexpr int kMaxLevel = 31;
  static constexpr uint32_t kNone = UINT32_MAX;

  explicit Graph(uint32_t m);
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  uint32_t m() const { return m_; }
  uint32_t capacity(int layer) const { return layer == 0 ? 2 * m_ : m_; }
  // Nodes added so far.
  uint32_t size() const { return size_.load(std::memory_order_acquire); }

  // Writer only: appends a node with empty lists and no flags; returns its id.
  uint32_t Add(int level, uint64_t owner, uint32_t tag);

  int level(uint32_t n) const { return Meta(n)->level; }
  uint32_t tag(uint32_t n) const { return Meta(n)->tag; }
  uint64_t owner(uint32_t n) const {
    return std::atomic_ref<uint64_t>(Meta(n)->owner).load(std::memory_order_acquire);
  }
  void set_owner(uint32_t n, uint64_t owner) {
    std::atomic_ref<uint64_t>(Meta(n)->owner).store(owner, std::memory_order_release);
  }
  uint8_t flags(uint32_t n) const {
    return std::atomic_ref<uint8_t>(*flags_.At(n)).load(std::memory_order_acquire);
  }
  void SetFlags(uint32_t n, uint8_t bits) {
    std::atomic_ref<uint8_t>(*flags_.At(n)).fetch_or(bits, std::memory_order_acq_rel);
  }
  void ClearFlags(uint32_t n, uint8_t bits) {
    std::atomic_ref<uint8_t>(*flags_.At(n)).fetch_and(static_cast<uint8_t>(~bits), std::memory_order_acq_rel);
  }

  // Copies node n's list at `layer` into out (room for capacity(layer) ids)
  // and returns its length. Lock-free (seqlock read); any thread.
  uint32_t Read(uint32_t n, int layer, uint32_t* out) const;
  // Hints the cache to fetch node n's level-0 record (its lock word, count
  // and first ids): what a search does for the candidate it will expand next.
  void PrefetchLinks(uint32_t n) const {
    const char* p = reinterpret_cast<const char*>(links0_.At(n));
    __builtin_prefetch(p, 0, 3);
    __builtin_prefetch(p + 64, 0, 3);
  }
  // Replaces node n's list at `layer` (count <= capacity(layer)), under its lock.
  void Write(uint32_t n, int layer, const uint32_t* ids, uint32_t count);
  // Appends id to node n's list at `layer` if it has room; false if full.
  bool Append(uint32_t n, int layer, uint32_t id);

  // The entry point: nullopt while the graph is empty.
  struct Entry {
    uint32_t node;
    int level;
  };
  std::optional<Entry> entry() const {
    uint64_t e = entry_.load(std::memory_order_acquire);
    if (e == kNoEntry) return std::nullopt;
    return Entry{static_cast<uint32_t>(e), static_cast<int>(e >> 32)};
  }
  // Makes node the entry point if its level is above the current top (or
  // the graph has none); `force` replaces it whatever the levels (Cleanup).
  void OfferEntry(uint32_t node, int level, bool force = false) FENEC_EXCLUDES(entry_mu_);
  void ClearEntry() FENEC_EXCLUDES(entry_mu_);

  // Bytes of data the structures hold (records in use) and what they reserve.
  size_t links_bytes() const;
  size_t meta_bytes() const;
  size_t reserved_bytes() const;

 private:
  struct NodeMeta {
    uint64_t owner;
    uint32_t* upper;  // levels 1..level, (1 + m) words each; nullptr at level 0
    uint32_t tag;
    uint8_t level;
    uint8_t pad[3];
  };
  static_assert(sizeof(NodeMeta) == 24);
  static constexpr uint64_t kNoEntry = UINT64_MAX;

  NodeMeta* Meta(uint32_t n) const { return reinterpret_cast<NodeMeta*>(meta_.At(n)); }
  uint32_t* Seq(uint32_t n) const { return reinterpret_cast<uint32_t*>(links0_.At(n)); }
  // [count][ids] of node n at layer.
  uint32_t* List(uint32_t n, int layer) const {
    return layer == 0 ? Seq(n) + 1 : Meta(n)->upper + size_t(layer - 1) * (1 + m_);
  }

  const uint32_t m_;
  ChunkedStore links0_;  // (2 + 2m) words a node
  ChunkedStore meta_;
  ChunkedStore flags_;
  std::atomic<uint32_t> size_{0};
  size_t upper_words_ = 0;  // words of upper lists allocated (writer only)
  base::Mutex entry_mu_;
  std::atomic<uint64_t> entry_{kNoEntry};  // written under entry_mu_ only
};

}  // namespace fenec::index::vec
