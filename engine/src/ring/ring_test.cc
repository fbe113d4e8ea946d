// Counts, never times: extents merge up to IOV_MAX, the ring's queue loses
// nothing under concurrent producers, shutdown drains, and a bad descriptor
// fails its request, not the ring. (commit-bench's flusher_test.cc runs the
// same page patterns through every flush arm.)
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

#include "engine/src/ring/global_ring.h"
#include "engine/src/ring/mpsc_queue.h"
#include "engine/src/ring/page_pattern.h"

namespace fenec::ring {
namespace {

using namespace pattern;

TEST(MpscQueue, TakesAllInPushOrder) {
  struct Node {
    Node* next = nullptr;
    int v = 0;
  };
  MpscQueue<Node> q;
  Node n[3];
  for (int i = 0; i < 3; ++i) {
    n[i].v = i;
    EXPECT_EQ(q.Push(&n[i]), i == 0);
  }
  Node* list = q.TakeAll();
  EXPECT_TRUE(q.empty());
  for (int i = 0; i < 3; ++i, list = list->next) EXPECT_EQ(list->v, i);
  EXPECT_EQ(list, nullptr);
}

TEST(PlanExtents, MergesConsecutivePagesUpToIovMax) {
  Pattern p64 = make_pattern(run_of(0, 64), 1);
  EXPECT_EQ(PlanExtents(p64.pages, 0).size(), 1u);
  std::vector<uint64_t> two = run_of(0, 10);
  for (uint64_t i : run_of(20, 5)) two.push_back(i);
  EXPECT_EQ(PlanExtents(make_pattern(two, 2).pages, 0).size(), 2u);
  EXPECT_EQ(IovMax(), 1024u);
  const std::vector<Extent> big = PlanExtents(make_pattern(run_of(0, 2000), 3).pages, 0);
  ASSERT_EQ(big.size(), 2u);
  EXPECT_EQ(big[0].iov.size(), 1024u);
  EXPECT_EQ(big[1].offset, 1024u * kPage);
  EXPECT_EQ(PlanExtents(p64.pages, 1).size(), 64u);  // what the pwrite arm issues
}

TEST(Ring, BackgroundPriorityIsBestEffortLevel7) {
  EXPECT_EQ(BackgroundIoprio(), (2u << 13) | 7u);
}

TEST(Ring, QueueLosesNothingUnderFourProducers) {
  constexpr int kThreads = 4, kPerThread = 2000;
  TempFile t;
  std::vector<std::vector<char>> bufs(kThreads * kPerThread);
  for (size_t i = 0; i < bufs.size(); ++i) bufs[i] = page_bytes(i, 9);
  std::atomic<uint64_t> done{0}, bytes{0}, errors{0};
  {
    Ring ring;
    ASSERT_TRUE(ring.status().ok()) << ring.status().ToString();
    std::vector<std::thread> producers;
    for (int th = 0; th < kThreads; ++th) {
      producers.emplace_back([&, th] {
        for (int k = 0; k < kPerThread; ++k) {
          const size_t i = static_cast<size_t>(k * kThreads + th);  // interleaved pages
          ring.Flush(t.fd(), {Page{i * kPage, bufs[i].data(), kPage}},
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
      ring.Flush(t.fd(), p.pages, [&](const FlushResult& r) {
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
  Ring& g = GlobalRing();
  ASSERT_EQ(&g, &GlobalRing());
  const Counters before = g.counters();
  FlushResult r = g.Flush(t.fd(), p.pages).get();
  EXPECT_EQ(r.error, 0);
  EXPECT_EQ(r.bytes, 16u * kPage);
  EXPECT_EQ((g.counters() - before).writes, 1u);
  EXPECT_TRUE(t.read_all() == p.expected);
}

TEST(Ring, ABadDescriptorFailsTheRequestNotTheRing) {
  Pattern p = make_pattern(run_of(0, 4), 3);
  Ring ring;
  EXPECT_EQ(ring.Flush(-1, p.pages).get().error, -EBADF);
  TempFile t;
  EXPECT_EQ(ring.Flush(t.fd(), p.pages).get().error, 0);
}

}  // namespace
}  // namespace fenec::ring
