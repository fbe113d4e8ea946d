// Database::PutBatchAsync: a put that holds no thread while its fsync runs.
//
// What must hold: each callback is called exactly once; never with OK before
// the commit is durable (async_acks_before_durable stays 0, and the durable
// LSN already covers it when it comes); a refusal before landing is called
// back on the caller's thread; a failed fsync fails the waiting puts; Close
// answers every pending one; and every put called back OK survives a reopen.
// Counts and outcomes only, never times.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "engine/src/base/testing.h"
#include "engine/src/db/crash_log.h"
#include "engine/src/io/fault_env.h"
#include "engine/src/io/slow_env.h"
#include "fenec/database.h"

namespace fenec {
namespace async_put_test {

// The outcomes of async puts, gathered from whichever thread calls back.
struct Outcomes {
  std::mutex mu;
  std::vector<std::pair<int, Result<std::vector<DocId>>>> got;  // (tag, result) in callback order
  std::atomic<int> calls{0};
  Database::PutDone Sink(int tag) {
    return [this, tag](Result<std::vector<DocId>> r) {
      std::lock_guard lock(mu);
      got.emplace_back(tag, std::move(r));
      calls.fetch_add(1);
    };
  }
};

class AsyncPut : public ::testing::TestWithParam<Completion> {};

TEST_P(AsyncPut, ManySubmittersEachCalledBackOnceAfterDurable) {
  base::ScratchDir dir;
  SlowSyncEnv env(Env::Default(), 300);
  Options o;
  o.env = &env;
  o.completion = GetParam();
  auto db = Database::Open(dir.path(), o);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto c = (*db)->CreateCollection("log", LogSchema());  // LSN 1
  ASSERT_TRUE(c.ok());
  (*db)->ResetStats();
  constexpr int kSubmitters = 8, kEach = 40;
  std::atomic<uint64_t> acked{0}, early{0}, calls{0};
  std::mutex mu;
  std::set<DocId> ids;
  std::vector<std::thread> ts;
  for (int w = 0; w < kSubmitters; ++w) {
    ts.emplace_back([&, w] {
      for (int64_t seq = 0; seq < kEach; ++seq) {
        std::vector<Document> docs;
        docs.push_back(Expected(w, seq));
        (*db)->PutBatchAsync(*c, std::move(docs), [&](Result<std::vector<DocId>> r) {
          calls.fetch_add(1);
          if (!r.ok()) return;
          // n puts called back OK hold n distinct LSNs above the collection's 1.
          const uint64_t n = acked.fetch_add(1) + 1;
          if ((*db)->GetStats().durable_lsn < n + 1) early.fetch_add(1);
          std::lock_guard lock(mu);
          for (DocId id : *r) ids.insert(id);
        });
      }
    });
  }
  for (auto& t : ts) t.join();
  const uint64_t puts = kSubmitters * kEach;
  while (calls.load() < puts) std::this_thread::yield();
  ASSERT_TRUE((*db)->Close().ok());
  EXPECT_EQ(calls.load(), puts);
  EXPECT_EQ(acked.load(), puts);
  EXPECT_EQ(early.load(), 0u);
  EXPECT_EQ(ids.size(), puts);
  Stats st = (*db)->GetStats();
  EXPECT_EQ(st.commits, puts);
  EXPECT_EQ(st.async_acks_before_durable, 0u);
  if (GetParam() == Completion::kDirect) {
    EXPECT_EQ(st.async_puts, puts);
    EXPECT_EQ(st.async_acks, puts);
    EXPECT_LE(st.async_rounds, puts);
  }
  fmt::print(stderr, "{} puts: {} waiter rounds, {} journal fsyncs\n", puts, st.async_rounds, st.journal_fsyncs);
  db->reset();
  auto again = Database::Open(dir.path(), o);
  ASSERT_TRUE(again.ok());
  auto c2 = (*again)->FindCollection("log");
  ASSERT_TRUE(c2.ok());
  for (DocId id : ids) ASSERT_TRUE((*again)->Get(*c2, id).ok()) << "acknowledged id " << id << " lost";
  EXPECT_EQ(*(*again)->Count(*c2), puts);
}

// One submitter that never waits: its puts are called back in the order it
// submitted them, with ids in that order.
TEST_P(AsyncPut, OneSubmitterIsCalledBackInOrder) {
  base::ScratchDir dir;
  SlowSyncEnv env(Env::Default(), 200);
  Options o;
  o.env = &env;
  o.completion = GetParam();
  auto db = Database::Open(dir.path(), o);
  ASSERT_TRUE(db.ok());
  auto c = (*db)->CreateCollection("log", LogSchema());
  ASSERT_TRUE(c.ok());
  Outcomes out;
  constexpr int kPuts = 60;
  for (int i = 0; i < kPuts; ++i) {
    std::vector<Document> docs;
    for (int k = 0; k <= i % 3; ++k) docs.push_back(Expected(0, i * 3 + k));
    (*db)->PutBatchAsync(*c, std::move(docs), out.Sink(i));
  }
  while (out.calls.load() < kPuts) std::this_thread::yield();
  DocId last = 0;
  for (int i = 0; i < kPuts; ++i) {
    auto& [tag, r] = out.got[static_cast<size_t>(i)];
    EXPECT_EQ(tag, i);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->size(), static_cast<size_t>(i % 3 + 1));
    for (DocId id : *r) {
      EXPECT_GT(id, last);
      last = id;
    }
  }
}

// Close with puts still waiting: each is called back before Close returns,
// OK (then it survives the reopen) or refused (kClosed: the merger had not
// landed it yet), never lost and never twice.
TEST_P(AsyncPut, CloseAnswersEveryPendingPut) {
  base::ScratchDir dir;
  SlowSyncEnv env(Env::Default(), 300);
  Options o;
  o.env = &env;
  o.completion = GetParam();
  auto db = Database::Open(dir.path(), o);
  ASSERT_TRUE(db.ok());
  auto c = (*db)->CreateCollection("log", LogSchema());
  ASSERT_TRUE(c.ok());
  Outcomes out;
  constexpr int kPuts = 50;
  for (int i = 0; i < kPuts; ++i) (*db)->PutBatchAsync(*c, {Expected(0, i)}, out.Sink(i));
  ASSERT_TRUE((*db)->Close().ok());
  ASSERT_EQ(out.calls.load(), kPuts);
  std::vector<DocId> kept;
  for (auto& [tag, r] : out.got) {
    if (r.ok()) kept.push_back((*r)[0]);
    else EXPECT_EQ(r.status().code(), StatusCode::kClosed) << r.status().ToString();
  }
  if (GetParam() == Completion::kDirect) {
    EXPECT_EQ(kept.size(), static_cast<size_t>(kPuts));  // all had landed
  }
  db->reset();
  auto again = Database::Open(dir.path(), o);
  ASSERT_TRUE(again.ok());
  auto c2 = (*again)->FindCollection("log");
  ASSERT_TRUE(c2.ok());
  for (DocId id : kept) EXPECT_TRUE((*again)->Get(*c2, id).ok()) << "acknowledged id " << id << " lost";
}

// Refused before landing: the callback comes on the caller's thread, before
// PutBatchAsync returns, with PutBatch's status; nothing is counted as waited for.
TEST_P(AsyncPut, RefusalsAreCalledBackAtOnce) {
  base::ScratchDir dir;
  Options o;
  o.completion = GetParam();
  o.max_commit_bytes = 4096;
  auto db = Database::Open(dir.path(), o);
  ASSERT_TRUE(db.ok());
  auto c = (*db)->CreateCollection("log", LogSchema());
  ASSERT_TRUE(c.ok());
  (*db)->ResetStats();
  auto expect_now = [&](CollectionId coll, std::vector<Document> docs, StatusCode code) {
    Outcomes out;
    const std::thread::id caller = std::this_thread::get_id();
    std::thread::id called_on;
    (*db)->PutBatchAsync(coll, std::move(docs), [&](Result<std::vector<DocId>> r) {
      called_on = std::this_thread::get_id();
      out.Sink(0)(std::move(r));
    });
    if (GetParam() == Completion::kDirect) {
      ASSERT_EQ(out.calls.load(), 1);  // before it returned
      EXPECT_EQ(called_on, caller);
    } else {
      while (out.calls.load() == 0) std::this_thread::yield();  // the merger lands it, and answers
    }
    ASSERT_FALSE(out.got[0].second.ok());
    EXPECT_EQ(out.got[0].second.status().code(), code) << out.got[0].second.status().ToString();
  };
  expect_now(CollectionId{777}, {Expected(0, 0)}, StatusCode::kNotFound);
  expect_now(*c, {Document{Value("not an int"), Value(int64_t{1}), Value("x")}}, StatusCode::kInvalidArgument);
  std::vector<Document> big;
  for (int i = 0; i < 64; ++i) big.push_back(Expected(1, i));
  expect_now(*c, std::move(big), StatusCode::kTooLarge);
  Stats st = (*db)->GetStats();
  EXPECT_EQ(st.commits, 0u);
  EXPECT_EQ(st.async_puts, 0u);
  EXPECT_EQ(*(*db)->Count(*c), 0u);
}

// A failed fsync: the puts waiting on it are called back with the error,
// once each, none with OK; what was called back OK before it survives.
TEST_P(AsyncPut, FailedSyncFailsTheWaitingPuts) {
  base::ScratchDir dir;
  FaultEnv env;
  env.SetSyncDelay(200);
  Options o;
  o.env = &env;
  o.completion = GetParam();
  auto db = Database::Open(dir.path(), o);
  ASSERT_TRUE(db.ok());
  auto c = (*db)->CreateCollection("log", LogSchema());
  ASSERT_TRUE(c.ok());
  Outcomes before;
  for (int i = 0; i < 10; ++i) (*db)->PutBatchAsync(*c, {Expected(0, i)}, before.Sink(i));
  while (before.calls.load() < 10) std::this_thread::yield();
  env.FailNth(FaultOp::kSync, 1, EIO, "Journals", /*sticky=*/true);
  Outcomes after;
  constexpr int kAfter = 30;
  for (int i = 0; i < kAfter; ++i) (*db)->PutBatchAsync(*c, {Expected(1, i)}, after.Sink(i));
  while (after.calls.load() < kAfter) std::this_thread::yield();
  EXPECT_FALSE((*db)->Close().ok());
  for (auto& [tag, r] : after.got) EXPECT_FALSE(r.ok()) << "put " << tag << " acknowledged after a failed fsync";
  EXPECT_EQ((*db)->GetStats().async_acks_before_durable, 0u);
  db->reset();
  env.ClearFaults();
  auto again = Database::Open(dir.path(), o);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  auto c2 = (*again)->FindCollection("log");
  ASSERT_TRUE(c2.ok());
  for (auto& [tag, r] : before.got) {
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE((*again)->Get(*c2, (*r)[0]).ok()) << "acknowledged put " << tag << " lost";
  }
}

INSTANTIATE_TEST_SUITE_P(Completions, AsyncPut,
                         ::testing::Values(Completion::kDirect, Completion::kMergerSync, Completion::kMergerAsync),
                         [](const auto& info) {
                           switch (info.param) {
                             case Completion::kDirect: return std::string("direct");
                             case Completion::kMergerSync: return std::string("merger_sync");
                             case Completion::kMergerAsync: return std::string("merger_async");
                           }
                           return std::string("unknown");
                         });

// Buffered: nothing to wait for off the caller's thread; the put is called back at once.
TEST(AsyncPutBuffered, CalledBackOnTheCallersThread) {
  base::ScratchDir dir;
  Options o;
  o.durability = Durability::kBuffered;
  auto db = Database::Open(dir.path(), o);
  ASSERT_TRUE(db.ok());
  auto c = (*db)->CreateCollection("log", LogSchema());
  ASSERT_TRUE(c.ok());
  Outcomes out;
  (*db)->PutBatchAsync(*c, {Expected(0, 0)}, out.Sink(0));
  ASSERT_EQ(out.calls.load(), 1);
  EXPECT_TRUE(out.got[0].second.ok());
}

}  // namespace async_put_test
}  // namespace fenec
