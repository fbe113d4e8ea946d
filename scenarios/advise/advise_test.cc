// Every configuration advise emits is one its engine accepts: each
// recommendation (defaults, changes and trade-offs alike) applied through
// the arm's settings, the store opened and a durable commit made; for
// PostgreSQL, on a scratch cluster, each value then read back with SHOW.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "engine/src/base/testing.h"
#include "scenarios/advise/verify.h"
#include "scenarios/engines/workload.h"
#include "scenarios/pg/cluster_test_fixture.h"
#include "scenarios/pg/pq.h"

namespace fenec::scenarios::advise {
namespace {

// Figures under which every recommendation that can change a default does.
ia::DiskFigures figures() {
  ia::DiskFigures d;
  d.append_us = 300;
  d.overwrite_us = 200;
  d.direct_us = 120;
  d.wal8k_fdatasync_us = 220;
  d.wal8k_dsync_us = 150;
  d.big_us = 5000;
  d.cores = 2;
  d.o_direct = true;
  d.prio_known = d.prio_honoured = true;
  d.lies = iobench::Durability::kPlausible;
  return d;
}

ia::Settings emitted(ia::Engine e) {
  const ia::Advice a = ia::advise(figures(), {{e, 10, "given"}}, {1, 16});
  ia::Settings s;
  for (const ia::Recommendation& r : a.recs)
    if (r.engine == e && r.name != "o_direct") s[r.name] = r.value;  // o_direct: a note, fenecdb has no such option
  return s;
}

void commit_once(engines::Store& store) {
  std::string err;
  auto session = store.session(&err);
  ASSERT_TRUE(session) << err;
  EXPECT_EQ(session->put({"advise", 1}), "");
  engines::Doc d;
  bool found = false;
  EXPECT_EQ(session->get(1, &d, &found), "");
  EXPECT_TRUE(found);
}

class AdviseArms : public base::ScratchTest {};

TEST_F(AdviseArms, SqliteTakesThePragmas) {
  const ia::Settings s = emitted(ia::Engine::kSqlite);
  ASSERT_EQ(s.at("journal_mode"), "WAL");
  std::string err;
  auto store = engines::open_sqlite(arm_of(ia::Engine::kSqlite, s, true), path("sqlite"), &err);
  ASSERT_TRUE(store) << err;
  commit_once(*store);
  // SQLite's own default, as the verify's default config runs it.
  auto deflt = engines::open_sqlite(arm_of(ia::Engine::kSqlite, ia::default_settings(ia::Engine::kSqlite), true),
                                    path("sqlite-delete"), &err);
  ASSERT_TRUE(deflt) << err;
  commit_once(*deflt);
  // The file's journal mode as SQLite now reports it (SQLite ignores a pragma it does not know, so read back).
  for (const auto& [file, want] : {std::pair{"sqlite/bench.sqlite", "wal"}, std::pair{"sqlite-delete/bench.sqlite", "delete"}}) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path(file).c_str(), &db), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, nullptr), SQLITE_OK);
    ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
    EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), want);
    sqlite3_finalize(st);
    sqlite3_close(db);
  }
}

TEST_F(AdviseArms, RocksdbOpensWithTheOptions) {
  // Every line emitted, the trade-offs too: RocksDB holds each after open.
  const ia::Settings s = emitted(ia::Engine::kRocksdb);
  ASSERT_EQ(s.at("recycle_log_file_num"), "4");
  ASSERT_EQ(s.at("wal_recovery_mode"), "kSkipAnyCorruptedRecords");
  ASSERT_EQ(s.at("use_direct_io_for_flush_and_compaction"), "true");
  std::string err;
  auto store = engines::open_rocksdb(arm_of(ia::Engine::kRocksdb, s, true), path("rocks"), &err);
  ASSERT_TRUE(store) << err;
  commit_once(*store);
  EXPECT_EQ(store->close(), "");
  // Recycling alone RocksDB drops at open without a word: the arm refuses
  // to run under a name it does not hold, and says why.
  EXPECT_FALSE(engines::open_rocksdb(arm_of(ia::Engine::kRocksdb, {{"recycle_log_file_num", "4"}}, true),
                                     path("recycle-alone"), &err));
  EXPECT_NE(err.find("recycle_log_file_num=4 was asked for"), std::string::npos) << err;
  EXPECT_NE(err.find("kSkipAnyCorruptedRecords"), std::string::npos) << err;
  EXPECT_FALSE(engines::open_rocksdb(arm_of(ia::Engine::kRocksdb, {{"no_such_option", "1"}}, true), path("bad"), &err));
  EXPECT_NE(err.find("no_such_option"), std::string::npos);
}

TEST_F(AdviseArms, FenecdbOpensWithTheOptions) {
  const ia::Settings s = emitted(ia::Engine::kFenecdb);
  ASSERT_EQ(s.at("data_flush"), "kGlobalRing");
  ASSERT_EQ(s.at("commit_window_us"), "adaptive");  // the engine's default, emitted as advised
  std::string err;
  auto store = engines::open_fenecdb(arm_of(ia::Engine::kFenecdb, s, true), "writers", path("fenec"), &err);
  ASSERT_TRUE(store) << err;
  commit_once(*store);
  EXPECT_EQ(store->close(), "");
  EXPECT_FALSE(engines::open_fenecdb(arm_of(ia::Engine::kFenecdb, {{"no_such", "1"}}, true), "writers", path("bad"),
                                     &err));
}

class AdvisePg : public pg::ClusterTest {};

TEST_F(AdvisePg, PostgresRunsWithTheSettings) {
  const ia::Settings s = emitted(ia::Engine::kPostgres);
  ASSERT_EQ(s.at("wal_sync_method"), "open_datasync");
  std::string err;
  auto store = engines::open_postgres(arm_of(ia::Engine::kPostgres, s, true), cluster_.conninfo(), &err);
  ASSERT_TRUE(store) << err;
  commit_once(*store);
  // Each value as the server now holds it: sighup ones from ALTER SYSTEM, the rest per session.
  auto session = store->session(&err);
  ASSERT_TRUE(session) << err;
  PGconn* c = pg::Connect(cluster_.conninfo(), &err);
  ASSERT_NE(c, nullptr) << err;
  PGresult* r = nullptr;
  ASSERT_EQ(pg::Exec(c, "SHOW wal_sync_method", PGRES_TUPLES_OK, &r), "");
  EXPECT_STREQ(PQgetvalue(r, 0, 0), "open_datasync");
  PQclear(r);
  EXPECT_EQ(store->close(), "");
  // Closed, the cluster is back at its defaults.
  ASSERT_EQ(pg::Exec(c, "SELECT pg_reload_conf()", PGRES_TUPLES_OK, &r), "");
  PQclear(r);
  PQfinish(c);
  EXPECT_FALSE(engines::open_postgres(arm_of(ia::Engine::kPostgres, {{"shared_buffers", "1GB"}}, true),
                                      cluster_.conninfo(), &err));
  EXPECT_NE(err.find("restart"), std::string::npos) << err;
}

// The cells' checks as a sequential run asks for them: the band's two
// lines and the recommendation's gain, each over the repetitions in the
// window (a cell's own repetition numbers, holes and all).
TEST(AdviseChecks, EachCellsBandAndGainOverTheWindowsRepetitions) {
  ia::Advice a;
  a.predictions.push_back({ia::Engine::kFenecdb, "default", 4, 0, 1, 1000, false});
  a.predictions.push_back({ia::Engine::kFenecdb, "recommended", 4, 0, 1, 1500, false});
  Cell d, r;
  d.engine = r.engine = ia::Engine::kFenecdb;
  d.writers = r.writers = 4;
  d.config = "default";
  r.config = "recommended";
  // Repetitions 0..5; the recommended cell missed repetition 2.
  for (int rep = 0; rep < 6; ++rep) {
    d.rates.push_back(1000 * (1 + 0.01 * (rep % 3)));
    d.reps.push_back(rep);
    if (rep == 2) continue;
    r.rates.push_back(rep < 3 ? 400 : 1500 * (1 + 0.01 * (rep % 2)));  // far below the model, then on it
    r.reps.push_back(rep);
  }
  const std::vector<Cell> cells = {d, r};
  const std::vector<kit::Check> all = cell_checks(a, cells, kit::Window{});
  ASSERT_EQ(all.size(), 5u);  // default: two band lines; recommended: two, and its gain
  EXPECT_EQ(all[0].what, "fenecdb-default 4w measured/predicted");
  EXPECT_EQ(all[4].what, "fenecdb-recommended 4w recommended/default");
  // The main experiment's window, repetitions 3..5 at 99%: the recommended
  // cell meets its band there and wins.
  const std::vector<kit::Check> main = cell_checks(a, cells, kit::Window{3, 6, 0.99});
  ASSERT_EQ(main.size(), 5u);
  EXPECT_EQ(main[2].ratio.reps, 3u);
  EXPECT_EQ(main[2].ratio.level, 0.99);
  EXPECT_EQ(kit::check_result(main[2]), kit::CheckResult::kCleared) << kit::describe(main[2]);
  EXPECT_EQ(kit::check_result(main[3]), kit::CheckResult::kCleared) << kit::describe(main[3]);
  EXPECT_EQ(kit::check_result(main[4]), kit::CheckResult::kCleared) << kit::describe(main[4]);
  EXPECT_EQ(main[4].ratio.reps, 3u);
  // The pilot's, 0..2: repetition 2 of the recommended cell is a hole.
  const std::vector<kit::Check> pilot = cell_checks(a, cells, kit::Window{0, 3, 0.96});
  EXPECT_EQ(pilot[2].ratio.reps, 2u);
  EXPECT_EQ(kit::check_result(pilot[2]), kit::CheckResult::kMissed) << kit::describe(pilot[2]);
}

}  // namespace
}  // namespace fenec::scenarios::advise
