// journals-bench's own logic, checked by counts (never by time): a cell
// records exactly the puts it made, the verification finds every put of a
// cleanly closed database and flags a put that is not there, and a recovery
// round (clean close, then kill -9) reports no acknowledged put missing.
// Nothing here compares the modes: the engine's own tests own that.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "engine/src/base/testing.h"
#include "scenarios/journals/workload.h"

namespace fenec::scenarios::journals {
namespace {

uint64_t test_seed() { return base::BinarySeed("journals_test"); }

using Scratch = base::ScratchTest;

TEST(Workload, DocumentsFitTheSchemaAndIndexedValuesNeverRepeat) {
  for (int n : {0, 1, 4, 8, 16}) {
    const Schema s = make_schema(n);
    ASSERT_TRUE(s.Validate().ok()) << n;
    ASSERT_EQ(s.fields.size(), static_cast<size_t>(n) + 2);
    std::set<std::string> seen;
    for (int64_t w = 0; w < 3; ++w) {
      for (int64_t seq = 0; seq < 50; ++seq) {
        const Document d = make_doc(n, w, seq);
        ASSERT_TRUE(s.Check(d).ok()) << "indexes=" << n;
        for (int k = 0; k < n; ++k) ASSERT_TRUE(seen.insert(d[2 + k].ToString()).second) << d[2 + k].ToString();
      }
    }
    EXPECT_EQ(seen.size(), static_cast<size_t>(n) * 150);
  }
}

TEST(Workload, ModeNamesParse) {
  Journals j = Journals::kShared;
  ASSERT_TRUE(parse_mode("separate", &j));
  EXPECT_EQ(j, Journals::kSeparate);
  ASSERT_TRUE(parse_mode("shared", &j));
  EXPECT_EQ(j, Journals::kShared);
  EXPECT_FALSE(parse_mode("both", &j));
}

// K puts at one writer: K recorded, K latencies, and since no other writer can
// share its fsync, at least K writes and K fsyncs counted by the cell's Env.
// Reopened, the verification finds all K in the root and in every index.
TEST_F(Scratch, CellRecordsItsPutsAndVerificationFindsThemAll) {
  constexpr uint64_t kPuts = 40;
  constexpr int kIndexes = 4;  // f0..f2 @unique, f3 @text
  for (const std::string& mode : mode_names()) {
    CellConfig cfg;
    ASSERT_TRUE(parse_mode(mode, &cfg.journals));
    cfg.indexes = kIndexes;
    cfg.writers = 1;
    cfg.max_puts = kPuts;
    cfg.seconds = 600;  // the count bounds this cell, not the clock
    const std::string dir = path("cell-" + mode);
    const CellResult r = run_cell(cfg, dir);
    ASSERT_EQ(r.error, "") << mode;
    EXPECT_EQ(r.puts, kPuts) << mode;
    EXPECT_EQ(r.put_ns.count(), kPuts) << mode;
    EXPECT_GE(r.env.writes, kPuts) << mode;
    EXPECT_GE(r.env.syncs, kPuts) << mode;
    EXPECT_EQ(r.stats.commits, kPuts) << mode;

    Options same;  // reopened as written: whether a database may switch modes is the engine's business
    same.journals = cfg.journals;
    auto db = Database::Open(dir, same);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    auto c = (*db)->FindCollection("docs");
    ASSERT_TRUE(c.ok());
    auto count = (*db)->Count(*c);
    ASSERT_TRUE(count.ok());
    EXPECT_EQ(*count, kPuts);
    std::vector<Ack> acks;  // one writer: ids 1..K in seq order
    for (uint64_t i = 0; i < kPuts; ++i) acks.push_back({static_cast<int64_t>(i + 1), 0, static_cast<int64_t>(i)});
    const Verification v = verify(**db, *c, kIndexes, acks);
    EXPECT_EQ(v.acked, kPuts);
    EXPECT_EQ(v.missing_puts, 0u) << v.first_problem;
    EXPECT_EQ(v.root_misses, 0u);
    EXPECT_EQ(v.index_misses, 0u);
    EXPECT_TRUE(v.check_ok);

    // A put that was never made, and one whose values are not the stored ones:
    // each is missing from the root and from every index.
    const std::vector<Ack> bogus{{static_cast<int64_t>(kPuts + 5), 0, 0}, {1, 7, 3}};
    const Verification b = verify(**db, *c, kIndexes, bogus);
    EXPECT_EQ(b.missing_puts, 2u);
    EXPECT_EQ(b.root_misses, 2u);
    EXPECT_EQ(b.index_misses, 2u * kIndexes);
    EXPECT_NE(b.first_problem, "");
    ASSERT_TRUE((*db)->Close().ok());
  }
}

TEST_F(Scratch, CellWithNoIndexesStillCounts) {
  CellConfig cfg;
  cfg.indexes = 0;
  cfg.writers = 3;
  cfg.max_puts = 30;
  cfg.seconds = 600;
  const CellResult r = run_cell(cfg, path("cell"));
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.puts, 30u);
  EXPECT_EQ(r.put_ns.count(), 30u);
  EXPECT_GE(r.env.syncs, 1u);  // writers may share fsyncs (group commit): only "some"
}

// The child closes cleanly after N acknowledged puts: the parent reads every
// report to EOF, and the reopened database holds each one.
TEST_F(Scratch, RecoveryAfterCleanCloseMissesNothing) {
  for (const std::string& mode : mode_names()) {
    RecoveryConfig cfg;
    ASSERT_TRUE(parse_mode(mode, &cfg.journals));
    cfg.indexes = 4;
    cfg.writers = 2;
    cfg.max_acks = 40;
    cfg.seconds = 60;
    cfg.checkpoint_ms = 0;
    cfg.kill = false;
    cfg.seed = test_seed();
    const RecoveryResult r = run_recovery(cfg, path("clean-" + mode));
    ASSERT_EQ(r.error, "") << mode;
    EXPECT_FALSE(r.killed);
    EXPECT_GE(r.v.acked, cfg.max_acks);  // writers already past their check may add one each
    EXPECT_LE(r.v.acked, cfg.max_acks + cfg.writers);
    EXPECT_EQ(r.v.missing_puts, 0u) << r.v.first_problem;
    EXPECT_TRUE(r.v.check_ok);
  }
}

// kill -9 at a seeded ack count: every acknowledged put survives.
TEST_F(Scratch, RecoveryAfterKillNineMissesNothing) {
  for (const std::string& mode : mode_names()) {
    RecoveryConfig cfg;
    ASSERT_TRUE(parse_mode(mode, &cfg.journals));
    cfg.indexes = 4;
    cfg.writers = 3;
    cfg.max_acks = 60;
    cfg.seconds = 60;  // the ack count bounds the round
    cfg.checkpoint_ms = 20;
    cfg.seed = test_seed();
    const RecoveryResult r = run_recovery(cfg, path("kill-" + mode));
    ASSERT_EQ(r.error, "") << mode << " (seed " << cfg.seed << ")";
    EXPECT_TRUE(r.killed);
    EXPECT_GE(r.kill_after, cfg.max_acks / 2);
    EXPECT_LE(r.kill_after, cfg.max_acks);
    EXPECT_GE(r.v.acked, r.kill_after);
    EXPECT_EQ(r.v.missing_puts, 0u) << r.v.first_problem << " (seed " << cfg.seed << ")";
    EXPECT_TRUE(r.v.check_ok);
  }
}

}  // namespace
}  // namespace fenec::scenarios::journals
