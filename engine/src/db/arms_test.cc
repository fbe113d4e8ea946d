// Each finding's design against its naive arm, on the same code (CC-1, CC-3,
// CC-4, CC-5, GR-5). Counts and equal answers only, never times.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <fstream>
#include <iterator>
#include <thread>

#include "fenec/database.h"
#include "engine/src/io/fault_env.h"
#include "engine/src/base/testing.h"

namespace fenec {
namespace arms_test {

Schema RowSchema() { return Schema{{Field::Text("name"), Field::Int("n"), Field::Float("x"), Field::Vector("v", 4)}}; }

Document MakeRow(int64_t i) {
  return {Value("row-" + std::to_string(i) + std::string(static_cast<size_t>(i % 40), 'z')), Value(i),
          Value(static_cast<double>(i) / 3), Value(std::vector<float>{float(i), 1, 2, 3})};
}

std::unique_ptr<Database> OpenDb(const std::string& dir, const Options& o) {
  auto db = Database::Open(dir, o);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  return db.ok() ? std::move(db).value() : nullptr;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Commits from `threads` writers, `each` puts apiece.
void Hammer(Database* db, CollectionId c, int threads, int each) {
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([=] {
      for (int i = 0; i < each; ++i) ASSERT_TRUE(db->Put(c, MakeRow(t * 100000 + i)).ok());
    });
  for (auto& t : ts) t.join();
}

TEST(Arms, GroupCommitSharesFsyncsAmongSixteenWriters) {  // CC-1
  base::ScratchDir dir;
  auto db = OpenDb(dir.path(), Options{});
  auto c = db->CreateCollection("c", RowSchema());
  db->ResetStats();
  Hammer(db.get(), *c, 16, 30);
  Stats st = db->GetStats();
  EXPECT_EQ(st.commits, 480u);
  EXPECT_LT(st.journal_fsyncs, st.commits);
  EXPECT_EQ(st.journal_fsyncs, st.group_leads);
  EXPECT_EQ(st.group_leads + st.commits_already_durable + st.commits_covered_while_waiting, st.commits);
  EXPECT_EQ(st.durable_lsn, st.last_lsn);
  fmt::print(stderr, "CC-1 group: {} commits, {} journal fsyncs\n", st.commits, st.journal_fsyncs);
}

TEST(Arms, NaiveCommitFsyncsOncePerCommit) {  // CC-1 naive arm
  base::ScratchDir dir;
  Options o;
  o.commit_mode = CommitMode::kNaive;
  auto db = OpenDb(dir.path(), o);
  auto c = db->CreateCollection("c", RowSchema());
  db->ResetStats();
  Hammer(db.get(), *c, 8, 10);
  Stats st = db->GetStats();
  EXPECT_EQ(st.commits, 80u);
  EXPECT_EQ(st.journal_fsyncs, 80u);
  EXPECT_EQ(st.journal_writes, 80u);
}

TEST(Arms, BatchBuiltOutsideTheLockWritesTheSameBytes) {  // CC-3
  base::ScratchDir a, b;
  auto build = [](const std::string& dir, BatchBuild mode) {
    Options o;
    o.batch_build = mode;
    o.storage_id = 0x5eed;
    o.write_buffer_bytes = 16384;  // several buffers, so placement is exercised too
    auto db = OpenDb(dir, o);
    auto c = db->CreateCollection("c", RowSchema());
    for (int batch = 0; batch < 20; ++batch) {
      std::vector<Document> docs;
      for (int i = 0; i < 50; ++i) docs.push_back(MakeRow(batch * 50 + i));
      auto ids = db->PutBatch(*c, docs);
      EXPECT_TRUE(ids.ok());
      EXPECT_EQ(ids->front(), static_cast<DocId>(batch * 50 + 1));
    }
    EXPECT_TRUE(db->Delete(*c, 7).ok());
    EXPECT_TRUE(db->Close().ok());
  };
  build(a.path(), BatchBuild::kOutsideLock);
  build(b.path(), BatchBuild::kUnderLock);
  std::string fa = Slurp(a.path() + "/data.fdb"), fb = Slurp(b.path() + "/data.fdb");
  EXPECT_GT(fa.size(), 50000u);
  EXPECT_TRUE(fa == fb) << "data files differ (" << fa.size() << " vs " << fb.size() << " bytes)";
}

TEST(Arms, FullBufferIsWrittenAfterTheLockUnlessNaive) {  // CC-4
  for (BufferWrite mode : {BufferWrite::kAfterUnlock, BufferWrite::kUnderLock}) {
    base::ScratchDir dir;
    Options o;
    o.buffer_write = mode;
    o.write_buffer_bytes = 4096;
    auto db = OpenDb(dir.path(), o);
    auto c = db->CreateCollection("c", RowSchema());
    Hammer(db.get(), *c, 4, 200);
    Stats st = db->GetStats();
    EXPECT_GT(st.buffer_flushes, 5u);
    EXPECT_EQ(st.buffer_flushes_under_lock, mode == BufferWrite::kUnderLock ? st.buffer_flushes : 0u);
    EXPECT_EQ(*db->Count(*c), 800u);
    EXPECT_TRUE(db->Check().ok());
  }
}

TEST(Arms, PinnedLongReadAnswersAsTheLockedOne) {  // CC-5
  base::ScratchDir dir;
  AggregateResult pinned_agg, locked_agg;
  std::vector<Row> pinned_rows, locked_rows;
  {
    auto db = OpenDb(dir.path(), Options{});
    auto c = db->CreateCollection("c", RowSchema());
    for (int b = 0; b < 10; ++b) {
      std::vector<Document> docs;
      for (int i = 0; i < 500; ++i) docs.push_back(MakeRow(b * 500 + i));
      ASSERT_TRUE(db->PutBatch(*c, docs).ok());
    }
    for (DocId id = 3; id < 5000; id += 97) ASSERT_TRUE(db->Delete(*c, id).ok());
    uint64_t pins = db->GetStats().pins;
    Filter f = Filter().Where("n", CompareOp::kGe, 100).Where("x", CompareOp::kLt, 1500.0);
    pinned_agg = *db->Aggregate(*c, "n", f);
    pinned_rows = *db->Scan(*c, f, 0);
    Stats st = db->GetStats();
    EXPECT_EQ(st.pins, pins + 2);
    EXPECT_GE(st.pinned_rows, 2 * 5000u);  // each pin shared the whole id index
  }
  {
    Options o;
    o.long_reads = LongReads::kUnderLock;
    auto db = OpenDb(dir.path(), o);
    auto c = db->FindCollection("c");
    Filter f = Filter().Where("n", CompareOp::kGe, 100).Where("x", CompareOp::kLt, 1500.0);
    locked_agg = *db->Aggregate(*c, "n", f);
    locked_rows = *db->Scan(*c, f, 0);
    EXPECT_EQ(db->GetStats().pins, 0u);
  }
  EXPECT_GT(locked_agg.count, 4000u);
  EXPECT_EQ(pinned_agg.count, locked_agg.count);
  EXPECT_EQ(pinned_agg.int_sum, locked_agg.int_sum);
  EXPECT_EQ(pinned_agg.min, locked_agg.min);
  EXPECT_EQ(pinned_agg.max, locked_agg.max);
  ASSERT_EQ(pinned_rows.size(), locked_rows.size());
  for (size_t i = 0; i < pinned_rows.size(); ++i) {
    EXPECT_EQ(pinned_rows[i].id, locked_rows[i].id);
    EXPECT_EQ(pinned_rows[i].doc, locked_rows[i].doc);
  }
}

TEST(Arms, PinnedReadBesideWritersSeesOnlyWhatWasThere) {  // CC-5, with writers running
  base::ScratchDir dir;
  auto db = OpenDb(dir.path(), Options{});
  auto c = db->CreateCollection("c", RowSchema());
  std::vector<Document> docs;
  for (int i = 0; i < 2000; ++i) docs.push_back(MakeRow(i));
  ASSERT_TRUE(db->PutBatch(*c, docs).ok());
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int i = 0; !stop; ++i) ASSERT_TRUE(db->Put(*c, MakeRow(10000 + i)).ok());
  });
  for (int round = 0; round < 20; ++round) {
    auto pin = db->Pin();
    ASSERT_TRUE(pin.ok());
    ReadOptions ro{*pin};
    auto first = db->Aggregate(*c, "n", {}, ro);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    auto again = db->Aggregate(*c, "n", {}, ro);
    EXPECT_EQ(first->count, again->count);
    EXPECT_EQ(first->int_sum, again->int_sum);
  }
  stop = true;
  writer.join();
}

TEST(Arms, BufferedWritesNeverWaitForThePeriodicFsync) {  // GR-5
  base::ScratchDir dir;
  FaultEnv env;
  env.SetSyncDelay(20000);  // a 20 ms fsync, as a slow disk's
  Options o;
  o.env = &env;
  o.durability = Durability::kBuffered;
  o.sync_ms = 2;
  o.write_buffer_bytes = 4096;
  int written = 0;
  {
    auto db = OpenDb(dir.path(), o);
    auto c = db->CreateCollection("c", RowSchema());
    // Writes until a few periodic fsyncs have run (bounded by count, not time).
    int n = 0;
    for (; n < 400000 && db->GetStats().periodic_syncs < 3; ++n) ASSERT_TRUE(db->Put(*c, MakeRow(n)).ok());
    written = n;
    Stats st = db->GetStats();
    EXPECT_GE(st.periodic_syncs, 3u);
    EXPECT_GT(st.writes_deferred_for_sync, 0u) << "no buffer met a periodic fsync";
    EXPECT_EQ(st.journal_fsyncs, st.periodic_syncs);  // commits made no fsync themselves
    fmt::print(stderr, "GR-5: {} puts, {} periodic fsyncs, {} writes deferred past them, {} buffer flushes\n", n,
               st.periodic_syncs, st.writes_deferred_for_sync, st.buffer_flushes);
    ASSERT_TRUE(db->Close().ok());
  }
  env.SetSyncDelay(0);
  auto db = OpenDb(dir.path(), o);
  auto c = db->FindCollection("c");
  EXPECT_EQ(*db->Count(*c), static_cast<uint64_t>(written));
  EXPECT_EQ(*db->Get(*c, written), MakeRow(written - 1));
  EXPECT_TRUE(db->Check().ok());
}

}  // namespace arms_test
}  // namespace fenec

namespace fenec {
namespace arms_test {

// IO-6: data-file buffers handed to the global ring land the same bytes as pwrite.
TEST(Arms, GlobalRingFlushWritesTheSameBytes) {
  base::ScratchDir a, b;
  uint64_t ring_flushes = 0;
  auto build = [&](const std::string& dir, DataFlush mode) {
    Options o;
    o.data_flush = mode;
    o.storage_id = 0x5eed;
    o.write_buffer_bytes = 16384;
    auto db = OpenDb(dir, o);
    auto c = db->CreateCollection("c", RowSchema());
    for (int batch = 0; batch < 20; ++batch) {
      std::vector<Document> docs;
      for (int i = 0; i < 50; ++i) docs.push_back(MakeRow(batch * 50 + i));
      EXPECT_TRUE(db->PutBatch(*c, docs).ok());
    }
    EXPECT_TRUE(db->Check().ok());
    EXPECT_TRUE(db->Close().ok());  // drains the ring
    Stats st = db->GetStats();
    if (mode == DataFlush::kGlobalRing) {
      ring_flushes = st.ring_flushes;
      EXPECT_EQ(st.ring_flushes, st.buffer_flushes);
    }
    db = OpenDb(dir, o);  // and it reopens whole
    EXPECT_EQ(*db->Count(*db->FindCollection("c")), 1000u);
  };
  build(a.path(), DataFlush::kPwrite);
  build(b.path(), DataFlush::kGlobalRing);
  std::string fa = Slurp(a.path() + "/data.fdb"), fb = Slurp(b.path() + "/data.fdb");
  EXPECT_GT(fa.size(), 50000u);
  EXPECT_TRUE(fa == fb) << "data files differ (" << fa.size() << " vs " << fb.size() << " bytes)";
  EXPECT_GE(ring_flushes, 3u) << "full buffers went through the ring";
}

}  // namespace arms_test
}  // namespace fenec
