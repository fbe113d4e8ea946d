// Counts, never times: every flush arm writes exactly the bytes asked, and the
// merging arms issue the counted number of writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/src/ring/page_pattern.h"
#include "scenarios/commit/flusher.h"

namespace fenec::scenarios::commit {
namespace {

using namespace ring::pattern;
using ring::PlanExtents;

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
  const size_t runs = PlanExtents(pa.pages, 0).size() + PlanExtents(pb.pages, 0).size();
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

INSTANTIATE_TEST_SUITE_P(Flush, Arms, ::testing::ValuesIn(flusher_arms()),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

}  // namespace
}  // namespace fenec::scenarios::commit
