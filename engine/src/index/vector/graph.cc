// Graph: see graph.h for the layout and the locking.
#include "engine/src/index/vector/graph.h"

#include <immintrin.h>

#include <cassert>
#include <cstring>

namespace fenec::index::vec {

void NodeLock::Lock() {
  std::atomic_ref<uint32_t> seq(*seq_);
  for (;;) {
    uint32_t s = seq.load(std::memory_order_relaxed);
    if ((s & 1) == 0 && seq.compare_exchange_weak(s, s + 1, std::memory_order_acquire)) break;
    _mm_pause();
  }
  // The odd seq is visible before any of the list's new words.
  std::atomic_thread_fence(std::memory_order_release);
}

void NodeLock::Unlock() {
  std::atomic_ref<uint32_t> seq(*seq_);
  seq.store(seq.load(std::memory_order_relaxed) + 1, std::memory_order_release);
}

Graph::Graph(uint32_t m)
    : m_(m), links0_((2 + 2 * size_t{m}) * sizeof(uint32_t)), meta_(sizeof(NodeMeta)),
      flags_(1) {}

Graph::~Graph() {
  uint32_t n = size_.load(std::memory_order_relaxed);
  for (uint32_t i = 0; i < n; ++i) delete[] Meta(i)->upper;
}

uint32_t Graph::Add(int level, uint64_t owner, uint32_t tag) {
  assert(level >= 0 && level <= kMaxLevel);
  uint32_t n = size_.load(std::memory_order_relaxed);
  links0_.Grow(size_t{n} + 1);
  meta_.Grow(size_t{n} + 1);
  flags_.Grow(size_t{n} + 1);
  NodeMeta* meta = Meta(n);
  meta->owner = owner;
  meta->tag = tag;
  meta->level = static_cast<uint8_t>(level);
  meta->upper = nullptr;
  if (level > 0) {
    size_t words = size_t(level) * (1 + m_);
    meta->upper = new uint32_t[words]();
    upper_words_ += words;
  }
  size_.store(n + 1, std::memory_order_release);
  return n;
}

uint32_t Graph::Read(uint32_t n, int layer, uint32_t* out) const {
  std::atomic_ref<uint32_t> seq(*Seq(n));
  const uint32_t cap = capacity(layer);
  uint32_t* list = List(n, layer);
  for (;;) {
    uint32_t s1 = seq.load(std::memory_order_acquire);
    if (s1 & 1) {
      _mm_pause();
      continue;
    }
    uint32_t count = std::atomic_ref<uint32_t>(list[0]).load(std::memory_order_relaxed);
    if (count > cap) count = cap;  // torn read: the seq check below rejects it
    for (uint32_t i = 0; i < count; ++i) out[i] = std::atomic_ref<uint32_t>(list[1 + i]).load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (seq.load(std::memory_order_relaxed) == s1) return count;
  }
}

void Graph::Write(uint32_t n, int layer, const uint32_t* ids, uint32_t count) {
  assert(count <= capacity(layer));
  uint32_t* list = List(n, layer);
  NodeLock lock(Seq(n));
  lock.Lock();
  for (uint32_t i = 0; i < count; ++i) std::atomic_ref<uint32_t>(list[1 + i]).store(ids[i], std::memory_order_relaxed);
  std::atomic_ref<uint32_t>(list[0]).store(count, std::memory_order_relaxed);
  lock.Unlock();
}

bool Graph::Append(uint32_t n, int layer, uint32_t id) {
  uint32_t* list = List(n, layer);
  NodeLock lock(Seq(n));
  lock.Lock();
  uint32_t count = list[0];
  bool room = count < capacity(layer);
  if (room) {
    std::atomic_ref<uint32_t>(list[1 + count]).store(id, std::memory_order_relaxed);
    std::atomic_ref<uint32_t>(list[0]).store(count + 1, std::memory_order_relaxed);
  }
  lock.Unlock();
  return room;
}

void Graph::OfferEntry(uint32_t node, int level, bool force) {
  base::MutexLock lock(&entry_mu_);
  uint64_t cur = entry_.load(std::memory_order_relaxed);
  if (force || cur == kNoEntry || level > static_cast<int>(cur >> 32))
    entry_.store((uint64_t(level) << 32) | node, std::memory_order_release);
}

void Graph::ClearEntry() {
  base::MutexLock lock(&entry_mu_);
  entry_.store(kNoEntry, std::memory_order_release);
}

size_t Graph::links_bytes() const {
  return size_t{size()} * links0_.stride() + upper_words_ * sizeof(uint32_t);
}
size_t Graph::meta_bytes() const { return size_t{size()} * (meta_.stride() + flags_.stride()); }
size_t Graph::reserved_bytes() const {
  return links0_.reserved_bytes() + meta_.reserved_bytes() + flags_.reserved_bytes() + upper_words_ * sizeof(uint32_t);
}

}  // namespace fenec::index::vec
