#include "scenarios/commit/flusher.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <map>
#include <mutex>

namespace fenec::scenarios::commit {

using ring::Counters;
using ring::Done;
using ring::Extent;
using ring::FlushResult;
using ring::Page;
using ring::Ring;
using ring::RingOptions;
using ring::PlanExtents;

FlushResult Flusher::flush_sync(int fd, std::vector<Page> pages) {
  std::mutex mu;
  std::condition_variable cv;
  bool ready = false;
  FlushResult out;
  flush(fd, std::move(pages), [&](const FlushResult& r) {
    std::lock_guard lock(mu);
    out = r;
    ready = true;
    cv.notify_one();
  });
  std::unique_lock lock(mu);
  cv.wait(lock, [&] { return ready; });
  return out;
}

namespace {

// Counters of the synchronous arms, updated by whichever thread flushes.
struct AtomicCounters {
  std::atomic<uint64_t> submissions{0}, writes{0}, pages{0}, merged{0}, syscalls{0}, bytes{0};
  Counters load() const {
    Counters c;
    c.submissions = submissions.load();
    c.writes = writes.load();
    c.pages = pages.load();
    c.merged_pages = merged.load();
    c.syscalls = syscalls.load();
    c.bytes = bytes.load();
    return c;
  }
};

// Writes one extent with pwritev until done (short writes resume); returns 0 or -errno.
int write_extent(int fd, Extent e, AtomicCounters& c) {
  size_t first = 0;
  uint64_t offset = e.offset;
  while (first < e.iov.size()) {
    const ssize_t n = e.iov.size() - first == 1
                          ? pwrite(fd, e.iov[first].iov_base, e.iov[first].iov_len,
                                   static_cast<off_t>(offset))
                          : pwritev(fd, e.iov.data() + first, static_cast<int>(e.iov.size() - first),
                                    static_cast<off_t>(offset));
    c.syscalls.fetch_add(1, std::memory_order_relaxed);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? -errno : -EIO;
    c.bytes.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
    uint64_t left = static_cast<uint64_t>(n);
    offset += left;
    while (first < e.iov.size() && left >= e.iov[first].iov_len) {
      left -= e.iov[first].iov_len;
      ++first;
    }
    if (first < e.iov.size()) {
      e.iov[first].iov_base = static_cast<char*>(e.iov[first].iov_base) + left;
      e.iov[first].iov_len -= left;
    }
  }
  return 0;
}

class SyncFlusher : public Flusher {
 public:
  explicit SyncFlusher(bool merge) : merge_(merge) {}
  std::string name() const override { return merge_ ? "pwritev" : "pwrite"; }
  void flush(int fd, std::vector<Page> pages, Done done) override {
    c_.submissions.fetch_add(1, std::memory_order_relaxed);
    c_.pages.fetch_add(pages.size(), std::memory_order_relaxed);
    // The pwrite arm plans with one iovec per write, so it never merges.
    std::vector<Extent> extents = PlanExtents(std::move(pages), merge_ ? 0 : 1);
    size_t npages = 0;
    for (const Extent& e : extents) npages += e.iov.size();
    c_.writes.fetch_add(extents.size(), std::memory_order_relaxed);
    c_.merged.fetch_add(npages - extents.size(), std::memory_order_relaxed);
    FlushResult r;
    for (Extent& e : extents) {
      const uint64_t want = e.bytes();
      r.error = write_extent(fd, std::move(e), c_);
      if (r.error != 0) break;
      r.bytes += want;
    }
    if (done) done(r);
  }
  Counters counters() const override { return c_.load(); }

 private:
  bool merge_;
  AtomicCounters c_;
};

// Requests in flight, so drain() can wait for them on the ring arms.
class InFlight {
 public:
  Done wrap(Done done) {
    {
      std::lock_guard lock(mu_);
      ++n_;
    }
    return [this, done = std::move(done)](const FlushResult& r) {
      if (done) done(r);
      std::lock_guard lock(mu_);
      if (--n_ == 0) cv_.notify_all();
    };
  }
  void wait() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return n_ == 0; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t n_ = 0;
};

class GlobalRingFlusher : public Flusher {
 public:
  explicit GlobalRingFlusher(const RingOptions& o) : ring_(o) {}
  ~GlobalRingFlusher() override { drain(); }
  std::string name() const override { return "global-ring"; }
  void flush(int fd, std::vector<Page> pages, Done done) override {
    ring_.Flush(fd, std::move(pages), inflight_.wrap(std::move(done)));
  }
  Counters counters() const override { return ring_.counters(); }
  std::vector<int> ring_tids() const override { return {ring_.owner_tid()}; }
  std::string error() const override { return ring_.status().ok() ? "" : ring_.status().ToString(); }
  void drain() override { inflight_.wait(); }

 private:
  InFlight inflight_;  // declared first: outlives the ring's last callback
  Ring ring_;
};

class RingPerFileFlusher : public Flusher {
 public:
  explicit RingPerFileFlusher(const RingOptions& o) : options_(o) {}
  ~RingPerFileFlusher() override {
    drain();
    std::lock_guard lock(mu_);
    rings_.clear();
  }
  std::string name() const override { return "ring-per-file"; }
  void flush(int fd, std::vector<Page> pages, Done done) override {
    ring_of(fd).Flush(fd, std::move(pages), inflight_.wrap(std::move(done)));
  }
  Counters counters() const override {
    std::lock_guard lock(mu_);
    Counters c;
    for (const auto& [fd, r] : rings_) c += r->counters();
    return c;
  }
  std::vector<int> ring_tids() const override {
    std::lock_guard lock(mu_);
    std::vector<int> tids;
    for (const auto& [fd, r] : rings_) tids.push_back(r->owner_tid());
    return tids;
  }
  std::string error() const override {
    // Probe once: if a ring cannot start, none can.
    Ring probe(options_);
    return probe.status().ok() ? "" : probe.status().ToString();
  }
  void drain() override { inflight_.wait(); }

 private:
  Ring& ring_of(int fd) {
    std::lock_guard lock(mu_);
    std::unique_ptr<Ring>& r = rings_[fd];
    if (!r) r = std::make_unique<Ring>(options_);
    return *r;
  }

  RingOptions options_;
  InFlight inflight_;
  mutable std::mutex mu_;
  std::map<int, std::unique_ptr<Ring>> rings_;
};

}  // namespace

const std::vector<std::string>& flusher_arms() {
  static const std::vector<std::string> arms{"pwrite", "pwritev", "ring-per-file", "global-ring"};
  return arms;
}

std::unique_ptr<Flusher> make_flusher(std::string_view arm, const RingOptions& options) {
  if (arm == "pwrite") return std::make_unique<SyncFlusher>(false);
  if (arm == "pwritev") return std::make_unique<SyncFlusher>(true);
  if (arm == "ring-per-file") return std::make_unique<RingPerFileFlusher>(options);
  if (arm == "global-ring") return std::make_unique<GlobalRingFlusher>(options);
  return nullptr;
}

}  // namespace fenec::scenarios::commit
