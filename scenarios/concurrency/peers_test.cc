// The peer arms, checked by counts: RocksDB and PostgreSQL
// round-trip rows by id like every arm, and their fsync counters see what
// their durability says: RocksDB's WAL synced once per write from one
// writer at sync=true and never at sync=false; PostgreSQL's WAL synced at
// least once per commit at synchronous_commit=on, and far less often at off.
// The PostgreSQL tests start a scratch cluster of their own (skipped, with
// the reason, where PostgreSQL 15 is not installed).
#include <gtest/gtest.h>

#include <random>

#include "engine/src/base/testing.h"
#include "scenarios/concurrency/parts.h"
#include "scenarios/concurrency/peer_check.h"
#include "scenarios/engines/sqlite_client.h"
#include "scenarios/engines/store.h"
#include "scenarios/engines/store_test_util.h"
#include "scenarios/engines/workload.h"
#include "scenarios/pg/cluster_test_fixture.h"
#include "scenarios/pg/pg_cluster.h"

namespace fenec::scenarios::concurrency {
using namespace engines;
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
  // Our sessions time their WAL syncs (track_wal_io_timing), so the mean
  // sync a commit waited for can be set beside pgbench's: the counter is
  // there for both arms (its value is a time, left to the bench).
  EXPECT_EQ(d.extra.count("wal_sync_ms"), 1u);
  EXPECT_EQ(b.extra.count("wal_sync_ms"), 1u);
}

// The tools' own figures, as RocksDB 7.8's db_bench and PostgreSQL 15's
// pgbench print them.
TEST(PeerCheck, ParsesTheToolsRatesCountsAndSyncs) {
  const std::string db =
      "fillrandom   :      27.133 micros/op 36854 ops/sec 5.000 seconds 184275 operations;    5.6 MB/s\n"
      "rocksdb.wal.synced COUNT : 23111\n";
  EXPECT_DOUBLE_EQ(parse_db_bench(db), 36854);
  EXPECT_DOUBLE_EQ(parse_db_bench_ops(db), 184275);
  EXPECT_DOUBLE_EQ(parse_db_bench_wal_synced(db), 23111);
  EXPECT_DOUBLE_EQ(parse_db_bench_wal_synced("fillrandom : 1 micros/op 2 ops/sec"), -1);
  const std::string pb =
      "number of clients: 16\nnumber of transactions actually processed: 50425\n"
      "tps = 10085.166532 (without initial connection time)\n";
  EXPECT_DOUBLE_EQ(parse_pgbench(pb), 10085.166532);
  EXPECT_DOUBLE_EQ(parse_pgbench_transactions(pb), 50425);
}

// A gap is put down to the disk only when the commits a sync round match and
// the longer round is the WAL sync's own time; to the driving when it is the
// rest of the round; unknown counters explain nothing.
TEST(PeerCheck, ExplainsAGapFromTheCounters) {
  WriterFig ours;
  ours.writes_per_s = 3000;
  ours.commits = 6000;
  ours.fsyncs = 6000;
  ours.sync_us = 280;
  ours.cpu_us_per_commit = 60;
  ToolRun tool;
  tool.ops_per_s = 3750;
  tool.commits = 18750;
  tool.fsyncs = 18750;
  tool.sync_us = 210;
  tool.cpu_us_per_commit = 60;
  EXPECT_NE(explain_gap(ours, 1, tool).find("the disk"), std::string::npos) << explain_gap(ours, 1, tool);
  tool.sync_us = 280;  // the same syncs: the extra time is the rest of the round
  EXPECT_NE(explain_gap(ours, 1, tool).find("outside the sync"), std::string::npos) << explain_gap(ours, 1, tool);
  tool.fsyncs = -1;
  EXPECT_EQ(explain_gap(ours, 1, tool), "");
}

// The plain SQLite client the SQLite arm is checked against: at
// synchronous=FULL every INSERT it counts synced the WAL, and the warm-up
// left its WAL reset by a checkpoint (no longer than the commits made it).
TEST(SqliteClient, EveryInsertSyncsTheWalAtFull) {
  base::ScratchDir dir("sqlite_client");
  const SqliteClientRun r = run_sqlite_client(dir.path("c.sqlite"), 2, 0.2, 0.1, true);
  ASSERT_EQ(r.error, "");
  EXPECT_GT(r.commits, 0u);
  EXPECT_GE(r.syncs.wal, r.commits);
  EXPECT_GT(r.wal_bytes, 0u);
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
