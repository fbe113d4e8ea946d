// The peer arms (issue 14), checked by counts: RocksDB and PostgreSQL
// round-trip rows by id like every arm, and their fsync counters see what
// their durability says: RocksDB's WAL synced once per write from one
// writer at sync=true and never at sync=false; PostgreSQL's WAL synced at
// least once per commit at synchronous_commit=on, and far less often at off.
// The PostgreSQL tests start a scratch cluster of their own (skipped, with
// the reason, where PostgreSQL 15 is not installed).
#include <gtest/gtest.h>

#include <random>

#include "engine/src/base/testing.h"
#include "scenarios/concurrency/store.h"
#include "scenarios/concurrency/store_test_util.h"
#include "scenarios/concurrency/workload.h"
#include "scenarios/pg/cluster_test_fixture.h"
#include "scenarios/pg/pg_cluster.h"

namespace fenec::scenarios::concurrency {
namespace {

using ScratchDir = base::ScratchTest;

uint64_t test_seed() { return base::BinarySeed("peers_test"); }

// `n` single-row commits from one session (closed before the counters are
// read, as the workload does), and what the store's counters saw.
Counters PutAlone(Store& store, int n) {
  std::string err;
  store.reset_counters();
  {
    auto s = store.session(&err);
    EXPECT_TRUE(s) << err;
    if (!s) return {};
    std::mt19937_64 rng(test_seed());
    for (int i = 0; i < n; ++i) EXPECT_EQ(s->put(make_doc(rng, i, i)), "");
  }
  return store.counters();
}

ArmSpec Rocks(bool durable) {
  return {durable ? "rocksdb-durable" : "rocksdb-buffered", ArmSpec::Engine::kRocksdb, durable, false};
}
ArmSpec Postgres(bool durable) {
  return {durable ? "postgres-durable" : "postgres-buffered", ArmSpec::Engine::kPostgres, durable, false};
}

TEST_F(ScratchDir, RocksdbRoundTripsRowsById) {
  std::string err;
  auto store = open_rocksdb(Rocks(true), path("db"), &err);
  ASSERT_TRUE(store) << err;
  RoundTrip(*store, test_seed());
  EXPECT_EQ(store->close(), "");
}

TEST_F(ScratchDir, RocksdbSyncsItsWalOncePerWriteOnlyWhenDurable) {
  std::string err;
  auto durable = open_rocksdb(Rocks(true), path("durable"), &err);
  ASSERT_TRUE(durable) << err;
  const Counters d = PutAlone(*durable, 40);
  EXPECT_EQ(d.commits, 40u);
  EXPECT_EQ(d.fsyncs, 40u);  // one writer: every write is its own group
  auto buffered = open_rocksdb(Rocks(false), path("buffered"), &err);
  ASSERT_TRUE(buffered) << err;
  const Counters b = PutAlone(*buffered, 40);
  EXPECT_EQ(b.commits, 40u);
  EXPECT_EQ(b.fsyncs, 0u);
}

// A scratch cluster per test (scenarios/pg/cluster_test_fixture.h).
using PostgresTest = pg::ClusterTest;

TEST_F(PostgresTest, RoundTripsRowsByIdInAFreshTable) {
  std::string err;
  auto store = open_postgres(Postgres(true), cluster_.conninfo(), &err);
  ASSERT_TRUE(store) << err;
  RoundTrip(*store, test_seed());
  // A second store is a fresh table: ids start at 1 again, nothing is there.
  auto second = open_postgres(Postgres(true), cluster_.conninfo(), &err);
  ASSERT_TRUE(second) << err;
  auto s = second->session(&err);
  ASSERT_TRUE(s) << err;
  Aggregate a;
  ASSERT_EQ(s->aggregate(&a), "");
  EXPECT_EQ(a.count, 0u);
  EXPECT_EQ(store->close(), "");
  EXPECT_EQ(second->close(), "");
}

TEST_F(PostgresTest, SyncsItsWalPerCommitOnlyWhenSynchronousCommitIsOn) {
  std::string err;
  auto durable = open_postgres(Postgres(true), cluster_.conninfo(), &err);
  ASSERT_TRUE(durable) << err;
  const Counters d = PutAlone(*durable, 40);
  EXPECT_EQ(d.commits, 40u);
  EXPECT_GE(d.fsyncs, 40u);  // each commit flushes its WAL (the WAL writer may add a few)
  auto buffered = open_postgres(Postgres(false), cluster_.conninfo(), &err);
  ASSERT_TRUE(buffered) << err;
  const Counters b = PutAlone(*buffered, 40);
  EXPECT_EQ(b.commits, 40u);
  EXPECT_LT(b.fsyncs, 20u);  // only the WAL writer's, every wal_writer_delay
}

TEST(PgCluster, SaysWhyWhenTheScriptIsMissing) {
  setenv("FENEC_PG_SCRIPT", "/nonexistent/postgres.sh", 1);
  pg::PgCluster c;
  base::ScratchDir dir("pg_missing");
  const std::string err = c.Start(dir.path("pg"));
  unsetenv("FENEC_PG_SCRIPT");
  EXPECT_NE(err, "");
  EXPECT_FALSE(c.up());
}

}  // namespace
}  // namespace fenec::scenarios::concurrency
