// The micro-benchmarks' kernels do what they claim, checked by counts: every
// visited set sees the same walk, the versioned bitmap survives its wrap,
// both counters count every item, both matchers agree, all sorts agree.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <random>
#include <set>
#include <thread>

#include "engine/src/base/testing.h"
#include "scenarios/micro/kernels.h"
#include "scenarios/micro/visited.h"

namespace fenec::scenarios::micro {
namespace {

uint64_t test_seed() { return base::BinarySeed("micro_test"); }

class SetVisited {  // the obviously right reference
 public:
  bool add(uint32_t n) { return s_.insert(n).second; }
  void clear() { s_.clear(); }

 private:
  std::set<uint32_t> s_;
};

TEST(Visited, EveryVariantCountsTheSameWalks) {
  const Graph g = make_graph(5000, test_seed(), 100, 300);
  HashVisited hash;
  FlatVisited flat;
  BitmapVisited bitmap(g.nodes());
  VersionedBitmap vers(g.nodes());
  SetVisited ref;
  for (uint32_t s = 0; s < 500; ++s) {
    hash.clear();
    flat.clear();
    bitmap.clear();
    vers.clear();
    ref.clear();
    const uint64_t want = walk_two_hops(g, s, ref);
    EXPECT_EQ(walk_two_hops(g, s, hash), want) << "start " << s;
    EXPECT_EQ(walk_two_hops(g, s, flat), want) << "start " << s;
    EXPECT_EQ(flat.size(), want);
    FlatVisited flat_fresh;
    EXPECT_EQ(walk_two_hops(g, s, flat_fresh), want) << "start " << s;
    EXPECT_EQ(walk_two_hops(g, s, bitmap), want) << "start " << s;
    EXPECT_EQ(walk_two_hops(g, s, vers), want) << "start " << s;
    HashVisited fresh;
    EXPECT_EQ(walk_two_hops(g, s, fresh), want) << "start " << s;
  }
}

TEST(VersionedBitmap, RealClearExactlyEvery65536Clears) {
  VersionedBitmap v(1000);
  std::mt19937_64 rng(test_seed());
  for (uint64_t c = 1; c <= 3 * 65536 + 10; ++c) {
    // Each generation marks a random node; a stale word must never show
    // through, including right after the version wraps.
    const uint32_t n = static_cast<uint32_t>(rng() % 1000);
    ASSERT_FALSE(v.contains(n)) << "clear " << c;
    ASSERT_TRUE(v.add(n));
    ASSERT_FALSE(v.add(n));
    v.clear();
    ASSERT_EQ(v.real_clears(), c / 65536) << "clear " << c;
  }
}

TEST(Counting, BothWaysCountEveryItemFromTwoThreads) {
  std::vector<uint64_t> items(256, 7);
  for (auto reg : {register_per_item, register_per_batch}) {
    std::atomic<int64_t> count{0};
    auto work = [&] {
      std::vector<uint64_t> q;
      for (int i = 0; i < 1000; ++i) {
        q.clear();
        reg(items, q, count);
      }
    };
    std::thread a(work), b(work);
    a.join();
    b.join();
    EXPECT_EQ(count.load(), 2 * 1000 * 256);
  }
}

TEST(Matchers, SharedAndLocalAgreeAndSharedReusesItsScratch) {
  const auto lines = make_lines(2000, test_seed());
  SharedMatcher shared(kUserIdPattern);
  LocalMatcher local(kUserIdPattern);
  size_t hits = 0;
  for (const auto& l : lines) {
    const bool want = l.find("  User Id ") != std::string::npos;
    EXPECT_EQ(shared.match(l), want) << l;
    EXPECT_EQ(local.match(l), want) << l;
    hits += want;
  }
  EXPECT_GT(hits, 0u);
  // One thread never finds the scratch checked out: one allocation, ever.
  EXPECT_EQ(shared.fresh_scratch(), 1u);
}

TEST(Matchers, ConcurrentCallersStillMatchCorrectly) {
  const auto lines = make_lines(1000, test_seed() + 1);
  SharedMatcher shared(kUserIdPattern);
  std::atomic<size_t> wrong{0};
  auto work = [&] {
    for (int rep = 0; rep < 3; ++rep) {
      for (const auto& l : lines) {
        if (shared.match(l) != (l.find("  User Id ") != std::string::npos)) ++wrong;
      }
    }
  };
  std::thread a(work), b(work);
  a.join();
  b.join();
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_GE(shared.fresh_scratch(), 1u);
  EXPECT_LE(shared.fresh_scratch(), 6000u);
}

TEST(StringSort, AllThreeArmsAgreeAndPreadCountsItsCalls) {
  base::ScratchDir dir("micro-test");
  ASSERT_TRUE(dir.ok()) << dir.error();
  const std::string path = dir.path("strings.dat");
  StringFile f;
  ASSERT_EQ(make_string_file(path, 3000, test_seed(), &f), "");
  const int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  auto a = f.offsets, b = f.offsets, c = f.offsets;
  uint64_t preads = 0;
  ASSERT_EQ(sort_by_pread(fd, a, &preads), "");
  ASSERT_EQ(sort_by_read(fd, f.bytes, b), "");
  ASSERT_EQ(sort_by_mmap(fd, f.bytes, c), "");
  EXPECT_EQ(a, b);
  EXPECT_EQ(b, c);
  EXPECT_NE(a, f.offsets);  // it really was out of order
  // Two preads per comparison, at least n-1 comparisons, about n log n.
  EXPECT_GE(preads, 2u * 2999);
  EXPECT_EQ(preads % 2, 0u);
  ::close(fd);
}

}  // namespace
}  // namespace fenec::scenarios::micro
