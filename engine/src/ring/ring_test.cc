// Counts, never times: every arm writes exactly the bytes asked, the merging
// arms issue the counted number of writes, the ring's queue loses nothing
// under concurrent producers, and shutdown drains.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/src/ring/flusher.h"
#include "engine/src/ring/global_ring.h"
#include "engine/src/ring/mpsc_queue.h"

namespace fenec::ring {
namespace {

constexpr uint32_t kPage = 4096;

class TempFile {
 public:
  TempFile() {
    char tmpl[] = "/tmp/fenec-ring-test-XXXXXX";
    fd_ = mkstemp(tmpl);
    path_ = tmpl;
  }
  ~TempFile() {
    close(fd_);
    unlink(path_.c_str());
  }
  int fd() const { return fd_; }
  std::string read_all() const {
    std::string out(static_cast<size_t>(lseek(fd_, 0, SEEK_END)), '\0');
    EXPECT_EQ(pread(fd_, out.data(), out.size(), 0), static_cast<ssize_t>(out.size()));
    return out;
  }

 private:
  int fd_ = -1;
  std::string path_;
};

// Page i of the pattern: its bytes say which page it is, so a misplaced page shows.
std::vector<char> page_bytes(uint64_t index, uint32_t seed) {
  std::vector<char> b(kPage);
  std::mt19937 rng(static_cast<uint32_t>(index * 7919 + seed));
  for (char& c : b) c = static_cast<char>(rng() & 0xff);
  return b;
}

struct Pattern {
  std::vector<std::vector<char>> buffers;
  std::vector<Page> pages;
  std::string expected;  // the file's contents after the flush (holes are zeros)
};

// Pages at the given page indexes, shuffled so the arms must sort before merging.
Pattern make_pattern(const std::vector<uint64_t>& indexes, uint32_t seed) {
  Pattern p;
  uint64_t last = 0;
  for (uint64_t i : indexes) last = std::max(last, i + 1);
  p.expected.assign(last * kPage, '\0');
  for (uint64_t i : indexes) {
    p.buffers.push_back(page_bytes(i, seed));
    std::memcpy(p.expected.data() + i * kPage, p.buffers.back().data(), kPage);
  }
  for (size_t k = 0; k < indexes.size(); ++k) {
    p.pages.push_back(Page{indexes[k] * kPage, p.buffers[k].data(), kPage});
  }
  std::shuffle(p.pages.begin(), p.pages.end(), std::mt19937(seed));
  return p;
}

std::vector<uint64_t> run_of(uint64_t first, uint64_t n) {
  std::vector<uint64_t> v;
  for (uint64_t i = 0; i < n; ++i) v.push_back(first + i);
  return v;
}

TEST(MpscQueue, TakesAllInPushOrder) {
  struct Node {
    Node* next = nullptr;
    int v = 0;
  };
  MpscQueue<Node> q;
  Node n[3];
  for (int i = 0; i < 3; ++i) {
    n[i].v = i;
    EXPECT_EQ(q.push(&n[i]), i == 0);
  }
  Node* list = q.take_all();
  EXPECT_TRUE(q.empty());
  for (int i = 0; i < 3; ++i, list = list->next) EXPECT_EQ(list->v, i);
  EXPECT_EQ(list, nullptr);
}

TEST(PlanExtents, MergesConsecutivePagesUpToIovMax) {
  Pattern p64 = make_pattern(run_of(0, 64), 1);
  EXPECT_EQ(plan_extents(p64.pages, 0).size(), 1u);
  std::vector<uint64_t> two = run_of(0, 10);
  for (uint64_t i : run_of(20, 5)) two.push_back(i);
  EXPECT_EQ(plan_extents(make_pattern(two, 2).pages, 0).size(), 2u);
  EXPECT_EQ(iov_max(), 1024u);
  const std::vector<Extent> big = plan_extents(make_pattern(run_of(0, 2000), 3).pages, 0);
  ASSERT_EQ(big.size(), 2u);
  EXPECT_EQ(big[0].iov.size(), 1024u);
  EXPECT_EQ(big[1].offset, 1024u * kPage);
  EXPECT_EQ(plan_extents(p64.pages, 1).size(), 64u);  // what the pwrite arm issues
}

TEST(Ring, BackgroundPriorityIsBestEffortLevel7) {
  EXPECT_EQ(background_ioprio(), (2u << 13) | 7u);
}

class Arms : public ::testing::TestWithParam<std::string> {};

TEST_P(Arms, WritesExactlyTheBytesAsked) {
  // Runs of random length with random gaps, across two files at once.
  std::mt19937 rng(42);
  std::vector<uint64_t> idx;
  for (uint64_t at = 0; idx.size() < 700;) {
    at += rng() % 4;  // a gap of 0..3 pages
    const uint64_t len = 1 + rng() % 40;
    for (uint64_t i = 0; i < len; ++i) idx.push_back(at++);
  }
  TempFile a, b;
  Pattern pa = make_pattern(idx, 7), pb = make_pattern(run_of(3, 1500), 8);
  std::unique_ptr<Flusher> f = make_flusher(GetParam());
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->error(), "");
  FlushResult ra = f->flush_sync(a.fd(), pa.pages);
  FlushResult rb = f->flush_sync(b.fd(), pb.pages);
  EXPECT_EQ(ra.error, 0);
  EXPECT_EQ(rb.error, 0);
  EXPECT_EQ(ra.bytes, pa.pages.size() * kPage);
  EXPECT_EQ(rb.bytes, pb.pages.size() * kPage);
  EXPECT_TRUE(a.read_all() == pa.expected);
  EXPECT_TRUE(b.read_all() == pb.expected);
  const Counters c = f->counters();
  EXPECT_EQ(c.submissions, 2u);
  EXPECT_EQ(c.pages, pa.pages.size() + pb.pages.size());
  EXPECT_EQ(c.bytes, (pa.pages.size() + pb.pages.size()) * kPage);
  const size_t runs = plan_extents(pa.pages, 0).size() + plan_extents(pb.pages, 0).size();
  EXPECT_EQ(c.writes, GetParam() == "pwrite" ? c.pages : runs);
  EXPECT_EQ(c.merged_pages, c.pages - c.writes);
}

TEST_P(Arms, IssuesTheCountedWritesForAKnownPattern) {
  TempFile t;
  std::unique_ptr<Flusher> f = make_flusher(GetParam());
  const bool merges = GetParam() != "pwrite";
  const bool sync = GetParam() == "pwrite" || GetParam() == "pwritev";
  // 64 consecutive pages: one write when merged, 64 otherwise.
  Pattern p = make_pattern(run_of(0, 64), 1);
  ASSERT_EQ(f->flush_sync(t.fd(), p.pages).error, 0);
  Counters c = f->counters();
  EXPECT_EQ(c.writes, merges ? 1u : 64u);
  if (sync) {
    EXPECT_EQ(c.syscalls, merges ? 1u : 64u);
  }
  // Two runs: two writes.
  std::vector<uint64_t> two = run_of(100, 30);
  for (uint64_t i : run_of(200, 34)) two.push_back(i);
  Pattern q = make_pattern(two, 2);
  ASSERT_EQ(f->flush_sync(t.fd(), q.pages).error, 0);
  const Counters d = f->counters() - c;
  EXPECT_EQ(d.writes, merges ? 2u : 64u);
  EXPECT_EQ(d.merged_pages, merges ? 62u : 0u);
  if (!sync) {
    // Each flush_sync woke an idle ring: it submits and reaps in a few entries
    // (wake, submit+wait, sleep again), far from a page's worth.
    EXPECT_GE(d.syscalls, 1u);
    EXPECT_LE(d.syscalls, 8u);
  }
}

INSTANTIATE_TEST_SUITE_P(Ring, Arms, ::testing::ValuesIn(flusher_arms()),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(Ring, QueueLosesNothingUnderFourProducers) {
  constexpr int kThreads = 4, kPerThread = 2000;
  TempFile t;
  std::vector<std::vector<char>> bufs(kThreads * kPerThread);
  for (size_t i = 0; i < bufs.size(); ++i) bufs[i] = page_bytes(i, 9);
  std::atomic<uint64_t> done{0}, bytes{0}, errors{0};
  {
    Ring ring;
    ASSERT_EQ(ring.error(), "");
    std::vector<std::thread> producers;
    for (int th = 0; th < kThreads; ++th) {
      producers.emplace_back([&, th] {
        for (int k = 0; k < kPerThread; ++k) {
          const size_t i = static_cast<size_t>(k * kThreads + th);  // interleaved pages
          ring.flush(t.fd(), {Page{i * kPage, bufs[i].data(), kPage}},
                     [&](const FlushResult& r) {
                       done.fetch_add(1);
                       bytes.fetch_add(r.bytes);
                       if (r.error != 0) errors.fetch_add(1);
                     });
        }
      });
    }
    for (std::thread& p : producers) p.join();
    // The destructor drains what is still queued.
  }
  EXPECT_EQ(done.load(), static_cast<uint64_t>(kThreads * kPerThread));
  EXPECT_EQ(errors.load(), 0u);
  EXPECT_EQ(bytes.load(), static_cast<uint64_t>(kThreads * kPerThread) * kPage);
  const std::string got = t.read_all();
  ASSERT_EQ(got.size(), bufs.size() * kPage);
  for (size_t i = 0; i < bufs.size(); ++i) {
    ASSERT_EQ(std::memcmp(got.data() + i * kPage, bufs[i].data(), kPage), 0) << "page " << i;
  }
}

TEST(Ring, ShutdownDrains) {
  TempFile t;
  Pattern p = make_pattern(run_of(0, 8), 5);
  std::atomic<int> completed{0}, ok{0};
  {
    // A small ring, so most requests are still queued or planned when it is told to stop.
    RingOptions o;
    o.entries = 8;
    Ring ring(o);
    for (int i = 0; i < 500; ++i) {
      ring.flush(t.fd(), p.pages, [&](const FlushResult& r) {
        completed.fetch_add(1);
        if (r.error == 0 && r.bytes == 8 * kPage) ok.fetch_add(1);
      });
    }
  }
  EXPECT_EQ(completed.load(), 500);
  EXPECT_EQ(ok.load(), 500);
  EXPECT_TRUE(t.read_all() == p.expected);
}

TEST(Ring, FutureAndProcessWideRing) {
  TempFile t;
  Pattern p = make_pattern(run_of(0, 16), 6);
  Ring& g = global_ring();
  ASSERT_EQ(&g, &global_ring());
  const Counters before = g.counters();
  FlushResult r = g.flush(t.fd(), p.pages).get();
  EXPECT_EQ(r.error, 0);
  EXPECT_EQ(r.bytes, 16u * kPage);
  EXPECT_EQ((g.counters() - before).writes, 1u);
  EXPECT_TRUE(t.read_all() == p.expected);
}

TEST(Ring, ABadDescriptorFailsTheRequestNotTheRing) {
  Pattern p = make_pattern(run_of(0, 4), 3);
  Ring ring;
  EXPECT_EQ(ring.flush(-1, p.pages).get().error, -EBADF);
  TempFile t;
  EXPECT_EQ(ring.flush(t.fd(), p.pages).get().error, 0);
}

}  // namespace
}  // namespace fenec::ring
