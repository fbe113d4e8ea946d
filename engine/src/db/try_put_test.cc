// Database::TryPutBatchAsync: PutBatchAsync for a thread that may never wait
// (fenec-server's io threads).
//
// What must hold: where landing would wait (the write lock taken, a
// checkpoint owed, options whose put waits on its own thread) it returns
// false having changed nothing: no callback, no row, no id taken, the
// documents as given. Where it lands, it is PutBatchAsync: each callback
// once, never OK before durable, the full write buffers written by the
// waiter, and every acknowledged row there after a reopen. Counts and
// outcomes only, never times.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "engine/src/base/testing.h"
#include "engine/src/db/crash_log.h"
#include "engine/src/db/db_impl.h"
#include "engine/src/io/slow_env.h"
#include "fenec/database.h"

namespace fenec {
namespace try_put_test {

struct Acks {
  std::mutex mu;
  std::vector<Result<std::vector<DocId>>> got;
  std::atomic<int> calls{0};
  Database::PutDone Sink() {
    return [this](Result<std::vector<DocId>> r) {
      std::lock_guard lock(mu);
      got.push_back(std::move(r));
      calls.fetch_add(1);
    };
  }
  void WaitFor(int n) {
    while (calls.load() < n) std::this_thread::yield();
  }
};

// A try that must be refused: false, done kept and never called, the
// documents as given, nothing landed.
void ExpectRefused(Database& db, CollectionId c, const Document& doc) {
  const uint64_t before = *db.Count(c);
  std::vector<Document> docs{doc};
  Acks acks;
  Database::PutDone done = acks.Sink();
  EXPECT_FALSE(db.TryPutBatchAsync(c, docs, done));
  EXPECT_TRUE(done) << "a refusal must leave the callback with the caller";
  EXPECT_EQ(docs, std::vector<Document>{doc}) << "a refusal changed the documents";
  EXPECT_EQ(acks.calls.load(), 0);
  EXPECT_EQ(*db.Count(c), before);
}

// Several threads put only through TryPutBatchAsync (a refusal retried
// with PutBatchAsync, as fenec-server hands it to a worker), enough rows
// to fill several write buffers, which the waiter thread writes.
TEST(TryPut, LandsLikePutBatchAsyncAndSurvivesAReopen) {
  base::ScratchDir dir;
  SlowSyncEnv env(Env::Default(), 200);
  Options o;
  o.env = &env;
  o.write_buffer_bytes = 16 << 10;
  auto db = Database::Open(dir.path(), o);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto c = (*db)->CreateCollection("log", LogSchema());
  ASSERT_TRUE(c.ok());
  (*db)->ResetStats();
  constexpr int kThreads = 4, kEach = 150;
  Acks acks;
  std::atomic<int> refused{0};
  std::vector<std::thread> ts;
  for (int w = 0; w < kThreads; ++w) {
    ts.emplace_back([&, w] {
      for (int i = 0; i < kEach; ++i) {
        std::vector<Document> docs{Expected(w, i)};
        Database::PutDone done = acks.Sink();
        if ((*db)->TryPutBatchAsync(*c, docs, done)) continue;
        refused.fetch_add(1);
        ASSERT_EQ(docs.size(), 1u);
        EXPECT_EQ(docs[0], Expected(w, i)) << "a refusal changed the documents";
        (*db)->PutBatchAsync(*c, std::move(docs), std::move(done));
      }
    });
  }
  for (auto& t : ts) t.join();
  acks.WaitFor(kThreads * kEach);
  const Stats st = (*db)->GetStats();
  EXPECT_EQ(acks.calls.load(), kThreads * kEach);
  EXPECT_EQ(st.async_puts_no_wait + refused.load(), static_cast<uint64_t>(kThreads * kEach));
  EXPECT_EQ(st.async_puts_would_wait, static_cast<uint64_t>(refused.load()));
  EXPECT_GT(st.async_puts_no_wait, 0u);
  EXPECT_EQ(st.async_acks_before_durable, 0u);
  EXPECT_GT(st.buffer_flushes, 0u) << "no write buffer filled: the test covers less than it says";
  std::set<DocId> ids;
  for (auto& r : acks.got) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(ids.insert((*r)[0]).second) << "id " << (*r)[0] << " given twice";
  }
  // No refusal took an id: they run 1..N with no gap.
  EXPECT_EQ(*ids.begin(), 1u);
  EXPECT_EQ(*ids.rbegin(), static_cast<DocId>(kThreads * kEach));
  ASSERT_TRUE((*db)->Close().ok());
  db->reset();
  auto again = Database::Open(dir.path(), Options{});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  auto c2 = (*again)->FindCollection("log");
  ASSERT_TRUE(c2.ok());
  EXPECT_EQ(*(*again)->Count(*c2), static_cast<uint64_t>(kThreads * kEach));
  for (DocId id : ids) EXPECT_TRUE((*again)->Get(*c2, id).ok()) << "acknowledged id " << id << " lost";
}

// A long read under the shared lock (LongReads::kUnderLock) holds it: the
// try is refused, with nothing changed, until the read ends.
TEST(TryPut, RefusedWhileTheLockIsTakenAndChangesNothing) {
  base::ScratchDir dir;
  Options o;
  o.long_reads = LongReads::kUnderLock;
  auto db = Database::Open(dir.path(), o);
  ASSERT_TRUE(db.ok());
  auto c = (*db)->CreateCollection("log", LogSchema());
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE((*db)->Put(*c, Expected(0, 0)).ok());
  std::mutex mu;
  std::condition_variable cv;
  bool reading = false, release = false;
  std::thread reader([&] {
    Status s = (*db)->ScanEach(*c, Filter(), ReadOptions{}, [&](DocId, const Document&) {
      std::unique_lock lock(mu);
      reading = true;
      cv.notify_all();
      cv.wait(lock, [&] { return release; });
      return false;
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
  });
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return reading; });
  }
  (*db)->ResetStats();
  for (int i = 0; i < 3; ++i) ExpectRefused(**db, *c, Expected(1, i));
  EXPECT_EQ((*db)->GetStats().async_puts_would_wait, 3u);
  {
    std::lock_guard lock(mu);
    release = true;
  }
  cv.notify_all();
  reader.join();
  Acks acks;
  std::vector<Document> docs{Expected(1, 9)};
  Database::PutDone done = acks.Sink();
  ASSERT_TRUE((*db)->TryPutBatchAsync(*c, docs, done));
  acks.WaitFor(1);
  ASSERT_TRUE(acks.got[0].ok()) << acks.got[0].status().ToString();
  EXPECT_EQ((*acks.got[0])[0], 2u) << "a refused try took an id";
  EXPECT_EQ(*(*db)->Count(*c), 2u);
  EXPECT_EQ((*db)->GetStats().commits, 1u);
}

// Ids burned past the replay's gap owe a checkpoint before the next record:
// a wait, so the try is refused, its ids given back; a put then lands it.
TEST(TryPut, RefusedWhenACheckpointIsOwed) {
  base::ScratchDir dir;
  DbImpl::SetMaxReplayIdGapForTesting(8);
  struct Restore {
    ~Restore() { DbImpl::SetMaxReplayIdGapForTesting(0); }  // on any exit: the next test gets the real gap
  } restore;
  auto db = Database::Open(dir.path(), Options{});
  ASSERT_TRUE(db.ok());
  auto c = (*db)->CreateCollection("log", LogSchema());
  ASSERT_TRUE(c.ok());
  auto* impl = static_cast<DbImpl*>(db->get());
  ASSERT_TRUE(impl->BurnIdsForTesting(*c, 20).ok());
  ExpectRefused(**db, *c, Expected(0, 0));
  auto id = (*db)->Put(*c, Expected(0, 0));
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(*id, 21u) << "the refused try kept an id";
  EXPECT_EQ((*db)->GetStats().id_gap_checkpoints, 1u);
}

// Options whose put waits on its own thread are refused before anything:
// naive (the fsync under the lock), the merger (its own thread lands),
// buffers written under the lock.
TEST(TryPut, RefusedWhereAPutWaitsOnItsOwnThread) {
  std::vector<std::pair<std::string, Options>> arms(3);
  arms[0].first = "naive";
  arms[0].second.commit_mode = CommitMode::kNaive;
  arms[1].first = "merger";
  arms[1].second.completion = Completion::kMergerSync;
  arms[2].first = "buffers under the lock";
  arms[2].second.buffer_write = BufferWrite::kUnderLock;
  for (auto& [name, o] : arms) {
    SCOPED_TRACE(name);
    base::ScratchDir dir;
    auto db = Database::Open(dir.path(), o);
    ASSERT_TRUE(db.ok());
    auto c = (*db)->CreateCollection("log", LogSchema());
    ASSERT_TRUE(c.ok());
    ExpectRefused(**db, *c, Expected(0, 0));
  }
}

// Buffered: a try is answered before it returns, unless a write buffer
// filled or the journal's write fell due on it; that I/O then goes to the
// waiter thread, which answers. Each once; every row there after a reopen.
TEST(TryPut, BufferedAnswersAtOnceUnlessItsWriteFellDue) {
  base::ScratchDir dir;
  Options o;
  o.durability = Durability::kBuffered;
  o.write_buffer_bytes = 64 << 10;
  auto db = Database::Open(dir.path(), o);
  ASSERT_TRUE(db.ok());
  auto c = (*db)->CreateCollection("log", LogSchema());
  ASSERT_TRUE(c.ok());
  (*db)->ResetStats();
  constexpr int kPuts = 8000;  // ~1.5 MB of records: past the journal's 1 MiB write at least once
  Acks acks;
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> here{0};
  for (int i = 0; i < kPuts; ++i) {
    std::vector<Document> docs{Expected(0, i)};
    Database::PutDone sink = acks.Sink();
    Database::PutDone done = [&, sink](Result<std::vector<DocId>> r) {
      if (std::this_thread::get_id() == caller) here.fetch_add(1);
      sink(std::move(r));
    };
    ASSERT_TRUE((*db)->TryPutBatchAsync(*c, docs, done)) << "nothing else holds the lock";
  }
  acks.WaitFor(kPuts);
  EXPECT_EQ(acks.calls.load(), kPuts);
  EXPECT_GT(here.load(), 0);
  EXPECT_LT(here.load(), kPuts) << "no buffer or journal write fell due: the test covers less than it says";
  for (auto& r : acks.got) ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*db)->GetStats().async_puts_no_wait, static_cast<uint64_t>(kPuts));
  ASSERT_TRUE((*db)->Close().ok());
  db->reset();
  auto again = Database::Open(dir.path(), o);
  ASSERT_TRUE(again.ok());
  auto c2 = (*again)->FindCollection("log");
  ASSERT_TRUE(c2.ok());
  EXPECT_EQ(*(*again)->Count(*c2), static_cast<uint64_t>(kPuts));
  auto last = (*again)->Get(*c2, kPuts);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(*last, Expected(0, kPuts - 1));
}

// Refusals the put itself earns (no collection, a bad document) are
// answered through done, before the call returns, as PutBatchAsync's.
TEST(TryPut, ItsOwnRefusalsAreCalledBackAtOnce) {
  base::ScratchDir dir;
  auto db = Database::Open(dir.path(), Options{});
  ASSERT_TRUE(db.ok());
  auto c = (*db)->CreateCollection("log", LogSchema());
  ASSERT_TRUE(c.ok());
  auto expect_now = [&](CollectionId coll, Document doc, StatusCode code) {
    std::vector<Document> docs{std::move(doc)};
    Acks acks;
    Database::PutDone done = acks.Sink();
    ASSERT_TRUE((*db)->TryPutBatchAsync(coll, docs, done));
    ASSERT_EQ(acks.calls.load(), 1);
    ASSERT_FALSE(acks.got[0].ok());
    EXPECT_EQ(acks.got[0].status().code(), code) << acks.got[0].status().ToString();
  };
  expect_now(CollectionId{777}, Expected(0, 0), StatusCode::kNotFound);
  expect_now(*c, Document{Value("not an int"), Value(int64_t{1}), Value("x")}, StatusCode::kInvalidArgument);
  EXPECT_EQ(*(*db)->Count(*c), 0u);
}

// A vector put landed this way is queued for its linker and answered by NEAR after a reopen.
TEST(TryPut, VectorsLandAndAreFoundAfterAReopen) {
  base::ScratchDir dir;
  auto db = Database::Open(dir.path(), Options{});
  ASSERT_TRUE(db.ok());
  auto c = (*db)->CreateCollection("log", VectorLogSchema());
  ASSERT_TRUE(c.ok());
  Acks acks;
  constexpr int kPuts = 50;
  for (int i = 0; i < kPuts; ++i) {
    std::vector<Document> docs{ExpectedWithVector(0, i)};
    Database::PutDone done = acks.Sink();
    if (!(*db)->TryPutBatchAsync(*c, docs, done)) (*db)->PutBatchAsync(*c, std::move(docs), std::move(done));
  }
  acks.WaitFor(kPuts);
  for (auto& r : acks.got) ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE((*db)->Close().ok());
  db->reset();
  auto again = Database::Open(dir.path(), Options{});
  ASSERT_TRUE(again.ok());
  auto c2 = (*again)->FindCollection("log");
  ASSERT_TRUE(c2.ok());
  auto hits = (*again)->Near(*c2, "emb", ExpectedWithVector(0, 7).back().vector());
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_FALSE(hits->empty());
  EXPECT_EQ((*hits)[0].id, 8u);
  EXPECT_EQ((*hits)[0].distance, 0.0f);
}

}  // namespace try_put_test
}  // namespace fenec
