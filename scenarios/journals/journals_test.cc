// journals-bench's own logic, checked by counts (never by time): a cell
// records exactly the puts it made, the verification finds every put of a
// cleanly closed database and flags a put that is not there, and a recovery
// round (clean close, then kill -9) reports no acknowledged put missing.
// The verdicts are checked on synthetic figures: a check that clears, one
// that misses, one that straddles, and the categorical counts. Nothing here
// compares the modes on a real disk: the engine's own tests own that.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "engine/src/base/testing.h"
#include "scenarios/journals/report.h"
#include "scenarios/engines/journals_workload.h"

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

// --- verdicts, on synthetic figures ------------------------------------------

// A cell's repetitions pooled: puts/s one per repetition, counts per put over all.
TEST(Report, FiguresPoolTheRepetitions) {
  std::vector<CellResult> reps(2);
  reps[0].puts = 100;
  reps[0].seconds = 1;
  reps[0].env.syncs = 900;
  reps[0].env.writes = 900;
  reps[0].stats.journals_shared = true;
  reps[1].puts = 300;
  reps[1].seconds = 2;
  reps[1].env.syncs = 2700;
  reps[1].env.writes = 2700;
  reps[1].stats.journals_shared = true;
  const Figures f = figures_of(reps);
  EXPECT_EQ(f.puts_per_s, (std::vector<double>{100, 150}));
  EXPECT_EQ(f.puts, 400u);
  EXPECT_DOUBLE_EQ(f.fsyncs_per_put, 9);
  EXPECT_DOUBLE_EQ(f.writes_per_put, 9);
  EXPECT_TRUE(f.journals_shared);
  reps[1].stats.journals_shared = false;  // one repetition fell back: the cell did not share
  EXPECT_FALSE(figures_of(reps).journals_shared);
}

class Verdicts : public ::testing::Test {
 protected:
  void cell(const std::string& mode, int indexes, int writers, std::vector<double> puts_per_s, double fsyncs) {
    Figures f;
    f.puts_per_s = std::move(puts_per_s);
    f.fsyncs_per_put = fsyncs;
    f.writes_per_put = fsyncs;
    f.puts = 1000;
    f.journals_shared = mode == "shared";
    rep.cells[{mode, indexes, writers}] = f;
  }
  // shared and separate at indexes 0 and 8, writers 1 and 16, the counts the finding states.
  void both(std::vector<double> sep_1w, std::vector<double> sh_1w, std::vector<double> sep_16w,
            std::vector<double> sh_16w) {
    cell("separate", 0, 1, {1000, 1000, 1000}, 1);
    cell("shared", 0, 1, {1000, 1000, 1000}, 1);
    cell("separate", 8, 1, std::move(sep_1w), 9);
    cell("shared", 8, 1, std::move(sh_1w), 1);
    cell("separate", 8, 16, std::move(sep_16w), 0.7);
    cell("shared", 8, 16, std::move(sh_16w), 0.12);
  }
  std::vector<kit::Verdict> verdicts_now() const {
    return verdicts(rep, [](const std::string& name) { return "plots/journals/" + name + ".png"; });
  }
  Report rep;
};

// 8x at 1 writer and 3x at 16: both clear the line (shared above separate).
TEST_F(Verdicts, ThroughputClearedAtBothEnds) {
  both({600, 610, 590}, {4800, 4900, 4700}, {7000, 7100, 6900}, {21000, 21500, 20500});
  const std::vector<kit::Check> checks = throughput_checks(rep);
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].what, "indexes=8;writers=1: shared/separate puts/s");
  EXPECT_EQ(checks[1].what, "indexes=8;writers=16: shared/separate puts/s");
  const std::vector<kit::Verdict> v = verdicts_now();
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].outcome, kit::Outcome::kReproduced) << v[0].reason;
  EXPECT_NE(v[0].ours.find("8.00x ["), std::string::npos) << v[0].ours;
  EXPECT_EQ(v[0].plot, "plots/journals/shared_over_separate.png");
  // The counts: separate 9 = indexes + 1, shared 1.
  EXPECT_EQ(v[1].outcome, kit::Outcome::kReproduced) << v[1].reason;
  EXPECT_EQ(v[2].outcome, kit::Outcome::kNotApplicable);  // no recovery round
}

// Shared faster at 1 writer, clearly slower at 16: partly reproduced.
TEST_F(Verdicts, ThroughputClearedAndMissedIsPartly) {
  both({600, 610, 590}, {4800, 4900, 4700}, {7000, 7100, 6900}, {3500, 3550, 3450});
  EXPECT_EQ(verdicts_now()[0].outcome, kit::Outcome::kPartly);
}

// Shared slower at both: not reproduced.
TEST_F(Verdicts, ThroughputMissedAtBothEnds) {
  both({600, 610, 590}, {300, 305, 295}, {7000, 7100, 6900}, {3500, 3550, 3450});
  EXPECT_EQ(verdicts_now()[0].outcome, kit::Outcome::kNotReproduced);
}

// Repetitions either side of a tie (0.8x, 1.0x, 1.25x) at 16 writers, and
// nothing missed: inconclusive, saying which check straddles.
TEST_F(Verdicts, ThroughputStraddlingIsInconclusive) {
  both({600, 610, 590}, {4800, 4900, 4700}, {1000, 1000, 1000}, {800, 1000, 1250});
  const kit::Verdict v = verdicts_now()[0];
  EXPECT_EQ(v.outcome, kit::Outcome::kInconclusive) << v.reason;
  EXPECT_NE(v.reason.find("writers=16: shared/separate puts/s 1.00x"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("straddles"), std::string::npos) << v.reason;
}

// A shared arm that fell back to separate journals cannot show the effect.
TEST_F(Verdicts, SharedArmThatDidNotShareIsNotApplicable) {
  both({600, 610, 590}, {4800, 4900, 4700}, {7000, 7100, 6900}, {21000, 21500, 20500});
  rep.cells[{"shared", 8, 16}].journals_shared = false;
  EXPECT_EQ(verdicts_now()[0].outcome, kit::Outcome::kNotApplicable);
}

// The counts are categorical: within 1% of n + 1 and 1, or not.
TEST_F(Verdicts, FsyncCountsWithinOnePercentOrNot) {
  both({600, 610, 590}, {4800, 4900, 4700}, {7000, 7100, 6900}, {21000, 21500, 20500});
  rep.cells[{"shared", 8, 1}].fsyncs_per_put = 1.005;  // a checkpoint's data sync in the timed part
  EXPECT_EQ(verdicts_now()[1].outcome, kit::Outcome::kReproduced);
  rep.cells[{"shared", 8, 1}].fsyncs_per_put = 9;  // shared journals not shared
  EXPECT_EQ(verdicts_now()[1].outcome, kit::Outcome::kPartly);
  rep.cells[{"separate", 8, 1}].fsyncs_per_put = 1;
  EXPECT_EQ(verdicts_now()[1].outcome, kit::Outcome::kNotReproduced);
}

// Recovery: a count that must be zero in every round.
TEST_F(Verdicts, RecoveryLosesNothingInAnyRound) {
  RecoveryResult ok;
  ok.v.acked = 100;
  ok.v.check_ok = true;
  rep.recovery["shared"] = {ok, ok, ok};
  rep.recovery["separate"] = {ok, ok, ok};
  EXPECT_EQ(verdicts_now()[2].outcome, kit::Outcome::kReproduced);
  EXPECT_NE(verdicts_now()[2].ours.find("3 rounds: 300 acked, 0 missing"), std::string::npos) << verdicts_now()[2].ours;
  RecoveryResult lost = ok;
  lost.v.missing_puts = 1;
  rep.recovery["shared"][1] = lost;
  EXPECT_EQ(verdicts_now()[2].outcome, kit::Outcome::kNotReproduced);
  EXPECT_TRUE(rep.recovery_failed());
}

// The ratio rows: shared_over_separate_puts_per_s with its interval at every cell measured in both modes.
TEST_F(Verdicts, RatioRowsWithIntervals) {
  both({600, 610, 590}, {4800, 4900, 4700}, {7000, 7100, 6900}, {21000, 21500, 20500});
  kit::Results r("journals", kit::Metadata{});
  add_ratios(r, rep);
  std::set<std::string> seen;
  for (const kit::Row& row : r.rows()) seen.insert(row.case_ + " " + row.metric);
  for (const char* want : {"indexes=0;writers=1 shared_over_separate_puts_per_s",
                           "indexes=8;writers=1 shared_over_separate_puts_per_s_ci95_lo",
                           "indexes=8;writers=16 shared_over_separate_puts_per_s_ci95_hi",
                           "indexes=8;writers=16 shared_over_separate_puts_per_s_reps"})
    EXPECT_EQ(seen.count(want), 1u) << want;
}

}  // namespace
}  // namespace fenec::scenarios::journals
