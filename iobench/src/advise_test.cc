// advise: the model's arithmetic on fixed inputs, the recommendations it
// derives from them, and the whole measure -> advise -> output path over the
// null submission path (no disk).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "engine/src/base/commit_window.h"
#include "iobench/kit/results.h"
#include "iobench/src/advise.h"

namespace fenec::iobench::advise {
namespace advise_test {

bool never() { return false; }

DiskFigures fixed() {
  DiskFigures d;
  d.append_us = 300;
  d.overwrite_us = 200;
  d.direct_us = 180;
  d.wal8k_fdatasync_us = 220;
  d.wal8k_dsync_us = 150;
  d.big_us = 5000;
  d.cores = 2;
  d.o_direct = true;
  d.lies = Durability::kPlausible;
  return d;
}

const Prediction& find(const Advice& a, Engine e, const std::string& config, unsigned n) {
  for (const Prediction& p : a.predictions)
    if (p.engine == e && p.config == config && p.writers == n) return p;
  ADD_FAILURE() << "no prediction";
  return a.predictions.front();
}

const Recommendation& rec(const Advice& a, Engine e, const std::string& name) {
  for (const Recommendation& r : a.recs)
    if (r.engine == e && r.name == name) return r;
  ADD_FAILURE() << "no recommendation " << name;
  return a.recs.front();
}

TEST(AdviseModel, Arithmetic) {
  // One writer: its CPU then its sync, in series.
  EXPECT_DOUBLE_EQ(commits_per_s(50, 200, 1, 1, 2, 0), 1e6 / 250);
  // 16 writers, 8 a round of 200 us, 10 us CPU: 16 / (10 + 2 * 200) us.
  EXPECT_DOUBLE_EQ(commits_per_s(10, 200, 8, 16, 2, 0), 16e6 / 410);
  // The CPU bound: 2 cores at 100 us a commit cap it at 20 000/s.
  bool cpu = false;
  EXPECT_DOUBLE_EQ(commits_per_s(100, 10, 16, 16, 2, 0, &cpu), 20000);
  EXPECT_TRUE(cpu);
  // CPU unknown: the sync bound alone.
  EXPECT_DOUBLE_EQ(commits_per_s(0, 200, 8, 16, 2, 0, &cpu), 16e6 / 400);
  EXPECT_FALSE(cpu);
  EXPECT_EQ(commits_per_round(1, true, false), 1);
  EXPECT_EQ(commits_per_round(16, true, false), 8);
  EXPECT_EQ(commits_per_round(16, true, true), 16);
  EXPECT_EQ(commits_per_round(16, false, true), 1);
  // The cap's CPU is the larger of x and the busy CPU a commit: 2 cores at 50 us cap it at 40 000/s.
  EXPECT_DOUBLE_EQ(commits_per_s(10, 10, 16, 16, 2, 50, &cpu), 40000);
  EXPECT_TRUE(cpu);
  // The window's wait: all 16 writers released, each 10 us of CPU, over 2 cores = 80 us, under the 100 us window.
  EXPECT_DOUBLE_EQ(window_wait_us(100, 10, 16, 2), 80);
  EXPECT_DOUBLE_EQ(window_wait_us(20, 10, 16, 2), 20);
  // T at N writers: the scale measured at the largest job count not above N.
  const std::vector<std::pair<unsigned, double>> scale = {{1, 1}, {4, 0.25}, {16, 0.5}};
  EXPECT_DOUBLE_EQ(scale_at(scale, 1), 1);
  EXPECT_DOUBLE_EQ(scale_at(scale, 8), 0.25);
  EXPECT_DOUBLE_EQ(scale_at(scale, 32), 0.5);
  EXPECT_DOUBLE_EQ(scale_at({}, 16), 1);
}

TEST(AdviseModel, ARoundIsOneSyncWhateverTheWriters) {
  DiskFigures d = fixed();
  // Jobs syncing at once measure the device's overlap; one log still syncs one at a time.
  d.overwrite_scale = {{1, 1}, {4, 0.25}, {16, 3}};
  const Advice a = advise(d, {{Engine::kFenecdb, 10, "given"}}, {1, 4, 16});
  // (Beyond one writer the default window adds its wait: its part of the sync, or the writers' CPU.)
  for (unsigned n : {1u, 4u, 16u})
    EXPECT_DOUBLE_EQ(find(a, Engine::kFenecdb, "default", n).round_us,
                     200 + (n > 1 ? window_wait_us(200.0 / kAdaptiveWindowSyncDivisor, 10, n, 2) : 0))
        << n;
}

TEST(AdviseModel, RecommendationsOnFixedFigures) {
  const DiskFigures d = fixed();
  const std::vector<EngineCalibration> cpu = {{Engine::kFenecdb, 10, "given"},
                                      {Engine::kPostgres, 100, "given"},
                                      {Engine::kRocksdb, 10, "given"},
                                      {Engine::kSqlite, 20, "given"}};
  const Advice a = advise(d, cpu, {1, 4, 16});
  EXPECT_TRUE(a.warnings.empty());
  // fenecdb: the default window is adaptive, half the round's sync (it ends when the writers are in):
  // left as it is, at 16 writers all 16 in a round of 200 + 80 us (16 writers' 10 us over 2 cores, under the 100).
  const Recommendation& w = rec(a, Engine::kFenecdb, "commit_window_us");
  EXPECT_EQ(w.value, "adaptive");
  EXPECT_FALSE(w.changes_default);
  EXPECT_NE(w.reason.find("about 100 us"), std::string::npos) << w.reason;
  const Prediction& f0 = find(a, Engine::kFenecdb, "default", 16);
  EXPECT_DOUBLE_EQ(f0.commits_per_round, 16);
  EXPECT_DOUBLE_EQ(f0.round_us, 280);
  EXPECT_DOUBLE_EQ(f0.commits_per_s, 16e6 / (10 + 280));
  // One writer: the window never waits.
  EXPECT_DOUBLE_EQ(find(a, Engine::kFenecdb, "recommended", 1).commits_per_s, 1e6 / 210);
  // PostgreSQL: open_datasync is the clear win (150 < 0.9 * 220); the delay is half of it.
  EXPECT_EQ(rec(a, Engine::kPostgres, "wal_sync_method").value, "open_datasync");
  // At 100 us CPU a commit on 2 cores it is CPU-bound at 16 writers: a delay buys nothing, so none is set.
  EXPECT_EQ(rec(a, Engine::kPostgres, "commit_delay").value, "0");
  EXPECT_NE(rec(a, Engine::kPostgres, "commit_delay").reason.find("stays off"), std::string::npos);
  // With 10 us a commit the sync bounds it, and the delay is half the open_datasync flush.
  const Advice light = advise(d, {{Engine::kPostgres, 10, "given"}}, {1, 16});
  EXPECT_EQ(rec(light, Engine::kPostgres, "commit_delay").value, "75");
  EXPECT_EQ(rec(light, Engine::kPostgres, "commit_siblings").value, "2");
  EXPECT_TRUE(rec(a, Engine::kPostgres, "synchronous_commit").tradeoff);
  EXPECT_EQ(a.recommended.at(Engine::kPostgres).count("synchronous_commit"), 0u);
  // Its CPU (2 cores, 100 us) caps it at 20 000/s; at 16 writers it is CPU-bound either way.
  EXPECT_TRUE(find(a, Engine::kPostgres, "recommended", 16).cpu_bound);
  EXPECT_DOUBLE_EQ(find(a, Engine::kPostgres, "recommended", 16).commits_per_s, 20000);
  EXPECT_DOUBLE_EQ(find(light, Engine::kPostgres, "recommended", 16).commits_per_s, 16e6 / (10 + 150 + 75));
  // One writer: never a delay (no siblings), the faster sync alone.
  EXPECT_DOUBLE_EQ(find(a, Engine::kPostgres, "recommended", 1).commits_per_s, 1e6 / 250);
  // RocksDB: appends cost 1.5x overwrites, so recycled logs would pay; but
  // RocksDB recycles only with kSkipAnyCorruptedRecords, so both are a
  // stated trade-off, never applied, and the recommended WAL still appends.
  EXPECT_EQ(rec(a, Engine::kRocksdb, "recycle_log_file_num").value, "4");
  EXPECT_TRUE(rec(a, Engine::kRocksdb, "recycle_log_file_num").tradeoff);
  EXPECT_EQ(rec(a, Engine::kRocksdb, "wal_recovery_mode").value, "kSkipAnyCorruptedRecords");
  EXPECT_TRUE(rec(a, Engine::kRocksdb, "wal_recovery_mode").tradeoff);
  EXPECT_EQ(a.recommended.count(Engine::kRocksdb) ? a.recommended.at(Engine::kRocksdb).count("recycle_log_file_num")
                                                  : 0u,
            0u);
  EXPECT_DOUBLE_EQ(find(a, Engine::kRocksdb, "default", 1).commits_per_s, 1e6 / 310);
  EXPECT_DOUBLE_EQ(find(a, Engine::kRocksdb, "recommended", 1).commits_per_s, 1e6 / 310);
  // The model follows RocksDB: recycling alone is no recycling; with the recovery mode, an overwrite.
  const auto rocks_at_1 = [&](const Settings& s) {
    return predict_with(d, {Engine::kRocksdb, 10, "given"}, "x", s, 1).commits_per_s;
  };
  EXPECT_DOUBLE_EQ(rocks_at_1({{"recycle_log_file_num", "4"}}), 1e6 / 310);
  EXPECT_DOUBLE_EQ(rocks_at_1({{"recycle_log_file_num", "4"}, {"wal_recovery_mode", "kSkipAnyCorruptedRecords"}}),
                   1e6 / 210);
  // SQLite: DELETE (its default) pays two appending syncs and an overwrite; WAL one overwrite, one commit a sync.
  EXPECT_DOUBLE_EQ(find(a, Engine::kSqlite, "default", 1).commits_per_s, 1e6 / (20 + 800));
  EXPECT_DOUBLE_EQ(find(a, Engine::kSqlite, "recommended", 4).commits_per_s, 4e6 / (20 + 4 * 200));
  EXPECT_EQ(a.recommended.at(Engine::kSqlite).at("journal_mode"), "WAL");
  EXPECT_EQ(default_settings(Engine::kSqlite).at("journal_mode"), "DELETE");
}

// A calibration scales the disk's sync by the engine's own (k) and adds the
// serial time each commit costs a round (s); without one, k = 1 and s = 0.
TEST(AdviseModel, CalibrationGivesKAndS) {
  const DiskFigures d = fixed();  // 4 KiB overwrite sync 200 us
  EngineCalibration c{Engine::kFenecdb, 10, "calibrated"};
  EXPECT_FALSE(fit_of(c, d).calibrated);
  EXPECT_DOUBLE_EQ(fit_of(c, d).k, 1);
  // One writer: 410 us a commit, 10 of them CPU: the engine's sync is 400 us, 2x the disk's.
  c.commit_us = 410;
  // 8 writers: 4 commits a sync at 8 000/s is a 500 us round: 400 + 3 * s, s = 33.3 us.
  c.at_writers = 8;
  c.rate_per_s = 8000;
  c.per_round = 4;
  c.busy_cpu_us = 25;
  const EngineFit f = fit_of(c, d);
  EXPECT_TRUE(f.calibrated);
  EXPECT_DOUBLE_EQ(f.k, 2);
  EXPECT_NEAR(f.s_us, 100.0 / 3, 1e-9);
  EXPECT_DOUBLE_EQ(f.busy_cpu_us, 25);
  const Advice a = advise(d, {c}, {1, 16});
  // One writer: the calibration's own commit back.
  EXPECT_DOUBLE_EQ(find(a, Engine::kFenecdb, "default", 1).commits_per_s, 1e6 / 410);
  // 16 writers, the default (adaptive) window: all 16 a round, 15 s, and a 200 us wait (half the
  // engine's 400 us sync, and the wait for 16 writers' 25 us over 2 cores).
  const Prediction& p = find(a, Engine::kFenecdb, "default", 16);
  EXPECT_DOUBLE_EQ(p.commits_per_round, 16);
  EXPECT_NEAR(p.round_us, 400 + 15 * 100.0 / 3 + 200, 1e-9);
  // SQLite takes no group: s is what each writer adds to a commit under the lock.
  EngineCalibration q{Engine::kSqlite, 20, "calibrated", 1000, 8, 500, 1, 30};  // DELETE: 2 ms at 8 writers
  const EngineFit fq = fit_of(q, d);
  EXPECT_NEAR(fq.k, 980.0 / 800, 1e-9);
  EXPECT_NEAR(fq.s_us, 1000.0 / 7, 1e-9);
  const Advice aq = advise(d, {q}, {1, 16});
  // One commit a round, each writer's CPU outside the lock: 16 / (x + 16 rounds).
  EXPECT_NEAR(find(aq, Engine::kSqlite, "default", 16).commits_per_s, 16e6 / (20 + 16 * (980 + 15 * 1000.0 / 7)),
              1e-6);
}

// SQLite's journal mode changes what a commit does, not only the disk
// figure it meets: WAL is calibrated apart, and its k is taken against the
// WAL model's sync (one overwrite), not DELETE's (two appends and one).
TEST(AdviseModel, AJournalModeIsCalibratedApart) {
  const DiskFigures d = fixed();  // append 300 us, overwrite 200 us
  EXPECT_TRUE(calibrates_apart(Engine::kSqlite, {{"journal_mode", "WAL"}}));
  EXPECT_FALSE(calibrates_apart(Engine::kSqlite, default_settings(Engine::kSqlite)));
  EXPECT_FALSE(calibrates_apart(Engine::kRocksdb, {{"recycle_log_file_num", "4"}}));
  EXPECT_FALSE(calibrates_apart(Engine::kFenecdb, {{"commit_window_us", "200"}}));
  EngineCalibration wal{Engine::kSqlite, 20, "given"};
  wal.commit_us = 20 + 1.5 * 200;
  wal.settings = {{"journal_mode", "WAL"}};
  EXPECT_DOUBLE_EQ(fit_of(wal, d).k, 1.5);
  EXPECT_DOUBLE_EQ(predict_with(d, wal, "recommended", wal.settings, 1).commits_per_s, 1e6 / 320);
  // The same commit time taken at the defaults is a k against DELETE's 800 us.
  EngineCalibration del = wal;
  del.settings.clear();
  EXPECT_DOUBLE_EQ(fit_of(del, d).k, 300.0 / 800);
}

TEST(AdviseModel, FiguresThatChangeTheAdvice) {
  DiskFigures d = fixed();
  d.append_us = d.overwrite_us = 2;  // tmpfs: syncs cost nothing, appending no more
  d.memory_backed = true;
  d.o_direct = false;
  d.direct_us = 0;
  d.lies = Durability::kNotDurable;
  const Advice a = advise(d, {{Engine::kFenecdb, 10, "given"}, {Engine::kRocksdb, 10, "given"}}, {1, 16});
  ASSERT_FALSE(a.warnings.empty());
  EXPECT_NE(a.warnings.front().find("memory-backed"), std::string::npos);
  // Appending no dearer, yet not 10% cheaper: no reason to leave the default.
  EXPECT_EQ(rec(a, Engine::kFenecdb, "journal_zero_ahead").value, "1048576");
  EXPECT_NE(rec(a, Engine::kFenecdb, "journal_zero_ahead").reason.find("within 10%"), std::string::npos);
  EXPECT_EQ(rec(a, Engine::kRocksdb, "recycle_log_file_num").value, "0");
  {
    DiskFigures cheap = fixed();
    cheap.append_us = 0.85 * cheap.overwrite_us;  // appending clearly cheaper: zeroing ahead costs
    const Advice c = advise(cheap, {{Engine::kFenecdb, 10, "given"}, {Engine::kPostgres, 10, "given"}}, {1, 16});
    EXPECT_EQ(rec(c, Engine::kFenecdb, "journal_zero_ahead").value, "0");
    EXPECT_EQ(rec(c, Engine::kPostgres, "wal_init_zero").value, "off");
    cheap.append_us = 0.95 * cheap.overwrite_us;
    const Advice n = advise(cheap, {{Engine::kFenecdb, 10, "given"}, {Engine::kPostgres, 10, "given"}}, {1, 16});
    EXPECT_EQ(rec(n, Engine::kFenecdb, "journal_zero_ahead").value, "1048576");
    EXPECT_EQ(rec(n, Engine::kPostgres, "wal_init_zero").value, "on");
  }
  EXPECT_EQ(rec(a, Engine::kRocksdb, "use_direct_io_for_flush_and_compaction").value, "false");
  // A 2 us sync is not worth waiting for: the adaptive window does not wait,
  // and the advice says so, also with no CPU figure (iobench alone).
  EXPECT_EQ(rec(a, Engine::kFenecdb, "commit_window_us").value, "adaptive");
  EXPECT_NE(rec(a, Engine::kFenecdb, "commit_window_us").reason.find("does not wait"), std::string::npos);
  const Advice bare = advise(d, {{Engine::kFenecdb, 0, "not measured"}}, {1, 16});
  EXPECT_EQ(rec(bare, Engine::kFenecdb, "commit_window_us").value, "adaptive");
  EXPECT_NE(rec(bare, Engine::kFenecdb, "commit_window_us").reason.find("does not wait"), std::string::npos);

  DiskFigures lying = fixed();
  lying.lies = Durability::kSuspicious;
  lying.lies_reasons = {"a durable write returns in 8 us"};
  const Advice b = advise(lying, {{Engine::kFenecdb, 0, "unknown"}}, {1});
  ASSERT_EQ(b.warnings.size(), 1u);
  EXPECT_NE(b.warnings[0].find("lies"), std::string::npos);
  EXPECT_EQ(advice_text(lying, {{Engine::kFenecdb, 0, "unknown"}}, b).rfind("WARNING: ", 0), 0u);
}

TEST(AdviseModel, PriorityControlDecidesTheFlushPath) {
  DiskFigures d = fixed();
  d.prio_known = true;
  d.prio_honoured = true;
  d.scheduler = "bfq";
  EXPECT_EQ(rec(advise(d, {{Engine::kFenecdb, 1, "given"}}, {1}), Engine::kFenecdb, "data_flush").value,
            "kGlobalRing");
  d.prio_honoured = false;
  EXPECT_EQ(rec(advise(d, {{Engine::kFenecdb, 1, "given"}}, {1}), Engine::kFenecdb, "data_flush").value, "kPwrite");
}

TEST(AdviseNull, WholeCommandWithoutADisk) {
  MeasureOptions o;
  o.dir = testing::TempDir();
  o.submit = SubmitKind::kNull;
  o.cell_s = 0.02;
  o.jobs = {1, 4};
  o.stop = never;
  const Measurement m = measure(o);
  ASSERT_EQ(m.sizes.size(), 3u);
  for (const SyncCosts& s : m.sizes) {
    EXPECT_TRUE(s.append.ran()) << s.append.skipped;
    EXPECT_GT(s.overwrite.ops, 0u);
    EXPECT_EQ(s.overwrite.sync_calls, s.overwrite.ops);
  }
  ASSERT_EQ(m.overlap.size(), 2u);
  ASSERT_EQ(m.overlap_append.size(), 2u);
  EXPECT_EQ(m.overlap[1].spec.jobs, 4u);
  EXPECT_FALSE(m.prio.skipped.empty());
  const DiskFigures d = figures_of(m);
  EXPECT_EQ(d.overlap.size(), 2u);
  const std::vector<EngineCalibration> cpu = {{Engine::kFenecdb, 5, "given"}, {Engine::kSqlite, 0, "unknown"}};
  const Advice a = advise(d, cpu, {1, 4});
  EXPECT_EQ(a.predictions.size(), 2u * 2 * 2);
  const std::string text = advice_text(d, cpu, a);
  EXPECT_NE(text.find("options.commit_window_us"), std::string::npos);
  EXPECT_NE(text.find("PRAGMA journal_mode = WAL;"), std::string::npos);
  const std::string json = advice_json(&m, d, cpu, a);
  EXPECT_EQ(json.front(), '{');
  EXPECT_EQ(json.back(), '}');
  EXPECT_NE(json.find("\"predictions\":["), std::string::npos);
  kit::Results r("io", kit::Metadata{});
  add_advice_rows(r, &m, d, a);
  EXPECT_FALSE(r.rows().empty());
  const std::string dir = testing::TempDir() + "/advise-report";
  EXPECT_EQ(write_report(dir, m, d, cpu, a, {{Engine::kFenecdb, "default", 1, 100, 90, 110}}, "verified"), "");
  EXPECT_TRUE(std::filesystem::exists(dir + "/advise.md"));
  std::filesystem::remove_all(dir);
}

TEST(AdviseEngines, ParseList) {
  std::vector<Engine> e;
  std::string err;
  EXPECT_TRUE(parse_engine_list("sqlite,fenecdb,sqlite", &e, &err));
  EXPECT_EQ(e.size(), 2u);
  EXPECT_FALSE(parse_engine_list("sqlite,mysql", &e, &err));
  EXPECT_NE(err.find("mysql"), std::string::npos);
}

}  // namespace advise_test
}  // namespace fenec::iobench::advise
