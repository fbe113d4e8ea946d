// IdIndex: a collection's id index, 12 bytes a row, in chunks of 65 536.
//
// A flat vector doubling under the write lock would copy the whole index
// at each doubling: 12 MB at a million rows, every writer
// waiting (the growth stall GR-1 describes, here in the id index). Chunks
// never move: growth adds one 768 KiB chunk.
//
// A pin (CC-5) shares the chunks instead of copying them: copying 1 M rows
// is 12 MB written to fresh pages under the shared lock (its time is
// nearly all page faults), and writers queue behind it. Sharing is one
// reference count per chunk. A shared chunk is immutable: a writer about to
// change an entry in a chunk some pin still holds copies that chunk first
// (copy-on-write, Mut). Writers touch the newest chunks (new ids, handover
// of recent rows), so a pin typically costs one 768 KiB copy, made into a
// spare chunk whose pages were faulted in outside the lock (ChunkPool).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "engine/src/base/mutex.h"
#include "engine/src/base/thread_annotations.h"
#include "engine/src/db/row_store.h"

namespace fenec {

// Spare chunks for the write lock's use: zeroed, pages already touched, so
// that taking one (growth, copy-on-write) faults no page under the lock.
// Refill runs with no lock held, after the write that took a spare. Chunks
// no one references any more (a dropped pin's) come back here as dirty
// spares: a pin's reader frees nothing under the lock, and memory is reused.
class ChunkPool {
 public:
  static constexpr size_t kSpares = 2;
  static constexpr size_t kBytes = (size_t{1} << 16) * sizeof(IdEntry);

  ~ChunkPool() {
    for (IdEntry* p : clean_) std::free(p);
    for (IdEntry* p : dirty_) std::free(p);
  }

  // Under the write lock. zeroed: the chunk must read as absent entries.
  IdEntry* Take(bool zeroed) {
    IdEntry* p = nullptr;
    bool dirty = false;
    {
      base::MutexLock lock(&mu_);
      if (!clean_.empty()) {
        p = clean_.back();
        clean_.pop_back();
      } else if (!dirty_.empty()) {
        p = dirty_.back();
        dirty_.pop_back();
        dirty = true;
      }
      low_.store(clean_.size() < kSpares, std::memory_order_relaxed);
    }
    if (p == nullptr) {
      // No spare: a fresh chunk whose pages fault under the lock as used.
      taken_fresh_.fetch_add(1, std::memory_order_relaxed);
      return Alloc();
    }
    taken_spare_.fetch_add(1, std::memory_order_relaxed);
    if (dirty && zeroed) std::memset(static_cast<void*>(p), 0, kBytes);  // warm pages: no faults
    return p;
  }

  // A chunk whose last reference went (any thread, any lock).
  void Give(IdEntry* p) {
    {
      base::MutexLock lock(&mu_);
      if (clean_.size() + dirty_.size() < kSpares) {
        dirty_.push_back(p);
        return;
      }
    }
    std::free(p);
  }

  // No lock held: zeroes dirty spares and allocates + faults in new ones
  // until kSpares are clean. Cheap to call when nothing is missing.
  void Refill() {
    if (!low_.load(std::memory_order_relaxed) || refilling_.exchange(true, std::memory_order_acquire)) return;
    for (;;) {
      IdEntry* p = nullptr;
      {
        base::MutexLock lock(&mu_);
        if (clean_.size() >= kSpares) break;
        if (!dirty_.empty()) {
          p = dirty_.back();
          dirty_.pop_back();
        }
      }
      if (p == nullptr) p = Alloc();
      std::memset(static_cast<void*>(p), 0, kBytes);  // touches every page: the faults happen here
      prefaulted_.fetch_add(1, std::memory_order_relaxed);
      base::MutexLock lock(&mu_);
      clean_.push_back(p);
    }
    {
      base::MutexLock lock(&mu_);
      low_.store(clean_.size() < kSpares, std::memory_order_relaxed);
    }
    refilling_.store(false, std::memory_order_release);
  }

  void CountCopy() { copied_.fetch_add(1, std::memory_order_relaxed); }

  struct Counters {
    uint64_t copied = 0, taken_spare = 0, taken_fresh = 0, prefaulted = 0;
  };
  Counters counters() const {
    return {copied_.load(std::memory_order_relaxed), taken_spare_.load(std::memory_order_relaxed),
            taken_fresh_.load(std::memory_order_relaxed), prefaulted_.load(std::memory_order_relaxed)};
  }
  void ResetCounters() {
    for (auto* a : {&copied_, &taken_spare_, &taken_fresh_, &prefaulted_}) a->store(0, std::memory_order_relaxed);
  }

  static IdEntry* Alloc() {
    auto* p = static_cast<IdEntry*>(std::calloc(kBytes / sizeof(IdEntry), sizeof(IdEntry)));
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }

 private:
  base::Mutex mu_;
  std::vector<IdEntry*> clean_ FENEC_GUARDED_BY(mu_), dirty_ FENEC_GUARDED_BY(mu_);
  std::atomic<bool> low_{false}, refilling_{false};
  std::atomic<uint64_t> copied_{0}, taken_spare_{0}, taken_fresh_{0}, prefaulted_{0};
};

class IdIndex {
 public:
  static constexpr size_t kChunkBits = 16;
  static constexpr size_t kChunk = size_t{1} << kChunkBits;
  static_assert(kChunk * sizeof(IdEntry) == ChunkPool::kBytes);

  // pool: where chunks come from and go back to; null: plain calloc/free.
  explicit IdIndex(std::shared_ptr<ChunkPool> pool = nullptr) : pool_(std::move(pool)) {}
  IdIndex(IdIndex&&) noexcept = default;
  IdIndex& operator=(IdIndex&&) noexcept = default;

  size_t size() const { return size_; }
  size_t chunks() const { return chunks_.size(); }
  const IdEntry& operator[](uint64_t id) const { return chunks_[id >> kChunkBits].get()[id & (kChunk - 1)]; }

  // An entry to change (caller holds the write lock): its chunk is copied
  // first if a pin shares it. use_count is exact here: pins add references
  // only under the shared lock, which the caller excludes; a pin dropping
  // its reference meanwhile only makes the copy unneeded. The acquire fence
  // orders this write after a dropped pin's last reads of the chunk.
  IdEntry& Mut(uint64_t id) {
    Chunk& c = chunks_[id >> kChunkBits];
    if (c.use_count() != 1) {
      Copy(&c);
    } else {
      std::atomic_thread_fence(std::memory_order_acquire);
    }
    return c.get()[id & (kChunk - 1)];
  }

  // Grows to n entries (never shrinks); new entries are absent. A
  // collection's first chunk is a lazy calloc (a small collection keeps
  // untouched pages); later ones are pre-faulted spares.
  void resize(size_t n) {
    while (chunks_.size() * kChunk < n) chunks_.push_back(Wrap(chunks_.empty() || !pool_ ? ChunkPool::Alloc()
                                                                                      : pool_->Take(true)));
    size_ = std::max(size_, n);
  }

  // What a pin takes under the shared lock: every chunk shared, none copied.
  IdIndex Share() const {
    IdIndex out;
    out.size_ = size_;
    out.chunks_ = chunks_;
    return out;
  }

 private:
  using Chunk = std::shared_ptr<IdEntry>;

  Chunk Wrap(IdEntry* p) const {
    if (!pool_) return Chunk(p, [](IdEntry* q) { std::free(q); });
    return Chunk(p, [pool = pool_](IdEntry* q) { pool->Give(q); });
  }

  void Copy(Chunk* c) {
    IdEntry* p = pool_ ? pool_->Take(false) : ChunkPool::Alloc();
    std::memcpy(static_cast<void*>(p), c->get(), ChunkPool::kBytes);
    if (pool_) pool_->CountCopy();
    *c = Wrap(p);  // the pin keeps the old one
  }

  std::vector<Chunk> chunks_;
  size_t size_ = 0;
  std::shared_ptr<ChunkPool> pool_;
};

}  // namespace fenec
