// Plans kept by statement text, so a statement sent again with new
// parameters is neither parsed nor planned again (RQ-1: the server's own
// work for a get by id is a lookup here, a bind, and the engine's read).
//
// Readers share the lock; a miss plans with no lock held and then inserts.
// Bounded: past kMaxEntries (or kMaxBytes of text) the cache is emptied and
// refilled, which a workload of a few hundred distinct texts never reaches
// and a client sending literals in every text cannot turn into a leak.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "engine/src/base/mutex.h"
#include "engine/src/base/thread_annotations.h"
#include "engine/src/query/name_table.h"
#include "engine/src/query/plan.h"

namespace fenec::query {

class PlanCache {
 public:
  static constexpr size_t kMaxEntries = 4096;
  static constexpr size_t kMaxBytes = 8u << 20;

  std::shared_ptr<const Plan> Find(std::string_view text) const {
    base::ReaderMutexLock lock(&mu_);
    auto it = map_.find(text);
    if (it == map_.end()) {
      misses_.fetch_add(1, std::memory_order_relaxed);
      return nullptr;
    }
    hits_.fetch_add(1, std::memory_order_relaxed);
    return it->second;
  }

  // Find without counting, for a caller that may decline the plan and let
  // Find count the request once (Service::QueryPointRead); CountHit counts it
  // when it does not decline.
  std::shared_ptr<const Plan> Peek(std::string_view text) const {
    base::ReaderMutexLock lock(&mu_);
    auto it = map_.find(text);
    return it == map_.end() ? nullptr : it->second;
  }
  void CountHit() const { hits_.fetch_add(1, std::memory_order_relaxed); }

  void Insert(std::string_view text, std::shared_ptr<const Plan> plan) {
    base::WriterMutexLock lock(&mu_);
    if (map_.size() >= kMaxEntries || bytes_ + text.size() > kMaxBytes) {
      map_.clear();
      bytes_ = 0;
      clears_.fetch_add(1, std::memory_order_relaxed);
    }
    if (map_.emplace(std::string(text), std::move(plan)).second) bytes_ += text.size();
  }

  // After a DROP COLLECTION: plans hold the dropped collection's handle and
  // schema, and a collection made again under the name has new ones.
  void Clear() {
    base::WriterMutexLock lock(&mu_);
    map_.clear();
    bytes_ = 0;
  }

  size_t size() const {
    base::ReaderMutexLock lock(&mu_);
    return map_.size();
  }
  uint64_t hits() const { return hits_.load(std::memory_order_relaxed); }
  uint64_t misses() const { return misses_.load(std::memory_order_relaxed); }
  uint64_t clears() const { return clears_.load(std::memory_order_relaxed); }

 private:
  // Texts are the clients': hashed with the per-process secret (name_table.h),
  // so no set of texts can be chosen to share one bucket.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return static_cast<size_t>(HashName(s)); }
  };
  mutable base::SharedMutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const Plan>, Hash, std::equal_to<>> map_ FENEC_GUARDED_BY(mu_);
  size_t bytes_ FENEC_GUARDED_BY(mu_) = 0;
  mutable std::atomic<uint64_t> hits_{0}, misses_{0}, clears_{0};
};

}  // namespace fenec::query
