// CC-5 pins share id-index chunks (copy-on-write), and the lock figures
// Stats reports. Counts only, never times.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "fenec/database.h"
#include "fenec/env.h"
#include "engine/src/base/testing.h"

namespace fenec {
namespace pin_test {

constexpr uint64_t kChunk = 65536;  // IdIndex::kChunk

Schema RowSchema() { return Schema{{Field::Text("name"), Field::Int("n")}}; }

std::unique_ptr<Database> OpenDb(const std::string& dir, const Options& o) {
  auto db = Database::Open(dir, o);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  return db.ok() ? std::move(db).value() : nullptr;
}

// Rows 1..n, in batches; returns the sum of n over them.
int64_t Load(Database* db, CollectionId c, int64_t n) {
  int64_t sum = 0;
  for (int64_t at = 1; at <= n;) {
    std::vector<Document> docs;
    for (; at <= n && docs.size() < 10000; ++at) {
      docs.push_back({Value("row-" + std::to_string(at)), Value(at)});
      sum += at;
    }
    EXPECT_TRUE(db->PutBatch(c, std::move(docs)).ok());
  }
  return sum;
}

// A write buffer big enough that nothing is sealed, so no handover touches
// older chunks: the only entries a write changes are its own.
Options NoHandover() {
  Options o;
  o.durability = Durability::kBuffered;
  o.write_buffer_bytes = 64u << 20;
  return o;
}

TEST(Pin, SharesEveryChunkAndCopiesNone) {
  base::ScratchDir dir;
  auto db = OpenDb(dir.path(), NoHandover());
  auto c = db->CreateCollection("c", RowSchema());
  const int64_t n = 150000;  // ids 1..n: n + 1 entries
  Load(db.get(), *c, n);
  db->ResetStats();
  auto pin = db->Pin();
  ASSERT_TRUE(pin.ok());
  Stats st = db->GetStats();
  EXPECT_EQ(st.pins, 1u);
  EXPECT_EQ(st.pinned_rows, uint64_t(n + 1));
  EXPECT_EQ(st.pin_chunks_shared, (uint64_t(n + 1) + kChunk - 1) / kChunk);  // 3
  EXPECT_EQ(st.id_chunks_copied, 0u);  // a pin copies no entry
  EXPECT_EQ(st.pin_ns, st.pin_wait_ns + st.pin_hold_ns);
  EXPECT_LE(st.pin_hold_max_ns, st.pin_max_ns);
}

TEST(Pin, AWriteAfterAPinCopiesExactlyOneChunk) {
  base::ScratchDir dir;
  auto db = OpenDb(dir.path(), NoHandover());
  auto c = db->CreateCollection("c", RowSchema());
  const int64_t n = 150000;
  int64_t sum = Load(db.get(), *c, n);
  db->ResetStats();
  {
    auto pin = db->Pin();
    ASSERT_TRUE(pin.ok());
    ASSERT_TRUE(db->Put(*c, {Value("new"), Value(int64_t{1})}).ok());  // lands in the last chunk
    EXPECT_EQ(db->GetStats().id_chunks_copied, 1u);
    ASSERT_TRUE(db->Put(*c, {Value("new2"), Value(int64_t{2})}).ok());  // same chunk, now unshared
    EXPECT_EQ(db->GetStats().id_chunks_copied, 1u);
    ASSERT_TRUE(db->Delete(*c, 7).ok());  // chunk 0: a second copy
    Stats st = db->GetStats();
    EXPECT_EQ(st.id_chunks_copied, 2u);
    // The copies went into spares faulted in outside the lock (by the load's growth).
    EXPECT_EQ(st.id_chunks_fresh_under_lock, 0u);
    EXPECT_GE(st.id_chunks_prefaulted, 2u);

    // The pin still reads the database as it stood.
    ReadOptions ro;
    ro.snapshot = *pin;
    auto agg = db->Aggregate(*c, "n", {}, ro);
    ASSERT_TRUE(agg.ok());
    EXPECT_EQ(agg->count, uint64_t(n));
    EXPECT_EQ(agg->int_sum, sum);
    EXPECT_TRUE(db->Get(*c, 7, ro).ok());
    EXPECT_TRUE(db->Get(*c, 7).status().IsNotFound());
    auto live = db->Aggregate(*c, "n");
    ASSERT_TRUE(live.ok());
    EXPECT_EQ(live->count, uint64_t(n + 1));
    EXPECT_EQ(live->int_sum, sum + 1 + 2 - 7);
  }
  // The pin is gone: no chunk is shared, a write copies nothing.
  ASSERT_TRUE(db->Delete(*c, 8).ok());
  ASSERT_TRUE(db->Put(*c, {Value("new3"), Value(int64_t{3})}).ok());
  EXPECT_EQ(db->GetStats().id_chunks_copied, 2u);
}

TEST(Pin, SharedChunksStayRightThroughHandovers) {
  // Small buffers: every few writes seal one, and the handover rewrites
  // entries all over the recent chunks while the pin holds them.
  base::ScratchDir dir;
  Options o;
  o.durability = Durability::kBuffered;
  o.write_buffer_bytes = 4096;
  o.handover_piece = 100;
  auto db = OpenDb(dir.path(), o);
  auto c = db->CreateCollection("c", RowSchema());
  int64_t sum = Load(db.get(), *c, 70000);  // two chunks
  auto pin = db->Pin();
  ASSERT_TRUE(pin.ok());
  for (int64_t i = 0; i < 3000; ++i) ASSERT_TRUE(db->Put(*c, {Value("more"), Value(i)}).ok());
  for (DocId id = 1; id < 70000; id += 501) ASSERT_TRUE(db->Delete(*c, id).ok());
  EXPECT_GT(db->GetStats().handover_entries, 0u);
  EXPECT_GE(db->GetStats().id_chunks_copied, 2u);
  ReadOptions ro;
  ro.snapshot = *pin;
  auto agg = db->Aggregate(*c, "n", {}, ro);
  ASSERT_TRUE(agg.ok());
  EXPECT_EQ(agg->count, 70000u);
  EXPECT_EQ(agg->int_sum, sum);
  EXPECT_TRUE(db->Check().ok());
}

TEST(LockStats, RecoveryIsNotAWriteLockHold) {
  base::ScratchDir dir;
  Options o;
  o.checkpoint_on_close = false;  // the reopen replays the journal under the write lock
  {
    auto db = OpenDb(dir.path(), o);
    auto c = db->CreateCollection("c", RowSchema());
    Load(db.get(), *c, 20000);
    ASSERT_TRUE(db->Close().ok());
  }
  auto db = OpenDb(dir.path(), o);
  Stats st = db->GetStats();
  EXPECT_GT(st.recovered_records, 0u);
  EXPECT_GT(st.recovery_ns, 0u);
  EXPECT_EQ(st.write_lock_acquisitions, 0u);
  EXPECT_EQ(st.write_lock_hold_max_ns, 0u);
  EXPECT_EQ(st.write_lock_wait_max_ns, 0u);
}

TEST(LockStats, ProbeReadsCpuOnlyWhenAsked) {
  for (bool probe : {false, true}) {
    base::ScratchDir dir;
    Options o;
    o.durability = Durability::kBuffered;
    o.probe_lock_holds = probe;
    auto db = OpenDb(dir.path(), o);
    auto c = db->CreateCollection("c", RowSchema());
    for (int64_t i = 0; i < 20000; ++i) ASSERT_TRUE(db->Put(*c, {Value("r" + std::to_string(i)), Value(i)}).ok());
    Stats st = db->GetStats();
    EXPECT_EQ(st.write_lock_acquisitions, 20001u);
    if (probe) {
      EXPECT_GT(st.write_lock_hold_cpu_ns, 0u);
      EXPECT_GE(st.write_lock_hold_cpu_ns, st.write_lock_hold_cpu_max_ns);
    } else {
      EXPECT_EQ(st.write_lock_hold_cpu_ns + st.write_lock_hold_faults + st.write_lock_hold_preemptions, 0u);
    }
  }
}

// CC-2's counts: the lock passing to another thread (handovers), and
// acquisitions that found it held (contended). One thread putting hands it
// to nobody; two taking turns, each waiting for the other's put to end,
// hand it over at every put and never find it held.
TEST(LockStats, HandoversCountTheLockPassingBetweenThreads) {
  base::ScratchDir dir;
  Options o;
  o.durability = Durability::kBuffered;
  auto db = OpenDb(dir.path(), o);
  auto c = db->CreateCollection("c", RowSchema());
  int64_t n = 0;
  for (; n < 100; ++n) ASSERT_TRUE(db->Put(*c, {Value("r" + std::to_string(n)), Value(n)}).ok());
  db->ResetStats();
  for (int i = 0; i < 100; ++i, ++n) ASSERT_TRUE(db->Put(*c, {Value("r" + std::to_string(n)), Value(n)}).ok());
  Stats st = db->GetStats();
  EXPECT_EQ(st.write_lock_acquisitions, 100u);
  EXPECT_EQ(st.write_lock_handovers, 0u);  // the creator's thread held it last, and again
  EXPECT_EQ(st.write_lock_contended, 0u);
  db->ResetStats();
  std::atomic<int> turn{0};  // even: the other thread's put; odd: this one's
  std::thread other([&] {
    for (int i = 0; i < 50; ++i) {
      while (turn.load() != 2 * i) std::this_thread::yield();
      EXPECT_TRUE(db->Put(*c, {Value("t" + std::to_string(i)), Value(int64_t{i})}).ok());
      turn.store(2 * i + 1);
    }
  });
  for (int i = 0; i < 50; ++i) {
    while (turn.load() != 2 * i + 1) std::this_thread::yield();
    ASSERT_TRUE(db->Put(*c, {Value("m" + std::to_string(i)), Value(int64_t{i})}).ok());
    turn.store(2 * i + 2);
  }
  other.join();
  st = db->GetStats();
  EXPECT_EQ(st.write_lock_acquisitions, 100u);
  EXPECT_EQ(st.write_lock_handovers, 100u);
  EXPECT_EQ(st.write_lock_contended, 0u);
}

TEST(LockStats, WriteBuffersAreFaultedInOutsideTheLock) {
  base::ScratchDir dir;
  Options o;
  o.write_buffer_bytes = 4096;
  auto db = OpenDb(dir.path(), o);
  auto c = db->CreateCollection("c", RowSchema());
  for (int64_t i = 0; i < 2000; ++i) ASSERT_TRUE(db->Put(*c, {Value("r" + std::to_string(i)), Value(i)}).ok());
  Stats st = db->GetStats();
  EXPECT_GT(st.buffer_flushes, 5u);
  // Every buffer begun took a spare made ready after the write before (the first took none).
  EXPECT_GE(st.write_buffers_prefaulted, st.buffer_flushes);
}

// Holds the database's write lock on demand: once armed, the next creation
// of the Indexes/ folder (a @unique collection's first branch, made under
// the write lock) waits until Release(), bounded so a broken test fails.
class HoldingEnv : public EnvWrapper {
 public:
  HoldingEnv() : EnvWrapper(Env::Default()) {}
  void Arm() {
    std::lock_guard<std::mutex> l(mu_);
    armed_ = true;
  }
  bool WaitEntered() {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, std::chrono::seconds(20), [&] { return entered_; });
  }
  void Release() {
    std::lock_guard<std::mutex> l(mu_);
    released_ = true;
    cv_.notify_all();
  }
  Status CreateDir(const std::string& path) override {
    {
      std::unique_lock<std::mutex> l(mu_);
      if (armed_ && path.ends_with("/Indexes")) {
        armed_ = false;
        entered_ = true;
        cv_.notify_all();
        cv_.wait_for(l, std::chrono::seconds(20), [&] { return released_; });
      }
    }
    return EnvWrapper::CreateDir(path);
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool armed_ = false, entered_ = false, released_ = false;
};

// A NoWaitReads scope's Get and FindCollection are refused (kBusy, counted)
// while a writer holds the lock, and read again once it is let go; the same
// reads outside a scope wait for the writer; WriteState answers throughout.
TEST(LockStats, NoWaitReadsAreRefusedWhileAWriterHoldsTheLock) {
  base::ScratchDir dir;
  HoldingEnv env;
  Options o;
  o.env = &env;
  auto db = OpenDb(dir.path(), o);
  auto c = db->CreateCollection("c", RowSchema());
  ASSERT_TRUE(db->Put(*c, {Value("a"), Value(int64_t{1})}).ok());
  env.Arm();
  std::thread writer([&] {
    EXPECT_TRUE(db->CreateCollection("u", Schema{{Field::Text("k").Unique()}}).ok());
  });
  ASSERT_TRUE(env.WaitEntered());
  std::atomic<bool> released{false}, waited_read{false};
  std::thread waiting([&] {
    EXPECT_TRUE(db->Get(*c, 1).ok());  // outside a scope: waits out the hold
    waited_read = released.load();
  });
  {
    NoWaitReads scope;
    EXPECT_TRUE(db->Get(*c, 1).status().IsBusy());
    EXPECT_TRUE(db->FindCollection("c").status().IsBusy());
    {
      NoWaitReads inner;
      EXPECT_TRUE(db->Get(*c, 1).status().IsBusy());
      EXPECT_EQ(inner.busy(), 1u);
    }
    EXPECT_EQ(scope.busy(), 3u);
    EXPECT_TRUE(db->WriteState().ok());
    released = true;
    env.Release();
    writer.join();
    waiting.join();
    EXPECT_TRUE(waited_read.load());
    EXPECT_TRUE(db->Get(*c, 1).ok());
    EXPECT_TRUE(db->FindCollection("u").ok());
    EXPECT_EQ(scope.busy(), 3u);
  }
  ASSERT_TRUE(db->Close().ok());
  EXPECT_EQ(db->WriteState().code(), StatusCode::kClosed);
}

}  // namespace pin_test
}  // namespace fenec
