// fs-bench's matrix with a fake runner: every file system that opens has a
// row or a skip with its reason for every cell, one that does not open has
// its reason, every site is torn down exactly once (also when a cell fails
// or throws); and the judgements: per-fs verdicts from paired ratios, and a
// difference between file systems explained by the counter that differs.
// The real runner's loop devices are iobench/kit/loopfs_test.cc's.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "scenarios/fs/checks.h"
#include "scenarios/fs/judge.h"
#include "scenarios/fs/matrix.h"
#include "scenarios/fs/runner.h"

namespace fenec::scenarios::fs {
namespace {

struct FakeSite : Site {
  std::string name;
  int* teardowns;
  std::string dir() const override { return "/nowhere/" + name; }
  std::string device() const override { return "fake0"; }
  std::map<std::string, std::string> describe() const override { return {{"mkfs", "fake " + name}}; }
  std::string teardown() override {
    ++*teardowns;
    return "";
  }
};

struct FakeRunner : Runner {
  std::set<std::string> unbuildable;     // fs names open() refuses
  std::string failing_cell;              // cell key that fails on every fs
  std::string throwing_fs;               // fs whose first cell throws
  std::map<std::string, int> teardowns;  // by fs
  int runs = 0;
  std::unique_ptr<Site> open(const FsSpec& fs, std::string* why_not) override {
    if (unbuildable.count(fs.name)) {
      *why_not = "mkfs." + fs.fs_type + " not installed (fake)";
      return nullptr;
    }
    auto s = std::make_unique<FakeSite>();
    s->name = fs.name;
    s->teardowns = &teardowns[fs.name];
    return s;
  }
  std::string run(const Cell& c, const FsSpec& fs, Site&, int rep, CellOut* out) override {
    ++runs;
    if (fs.name == throwing_fs) throw std::runtime_error("boom");
    if (c.key() == failing_cell) return "failed: fake";
    out->set("value", 10 + rep, "count");
    return "";
  }
};

std::vector<Cell> cells() {
  return {{"probe", "probe", ""}, {"sweep", "fdatasync", "size=4k;write=append"}, {"engines", "a", "writers=1"}};
}

kit::Results results() { return kit::Results("fs", kit::Metadata{}); }

TEST(Matrix, EveryCellHasRowsOrAReasonOnEveryFileSystem) {
  FakeRunner r;
  r.unbuildable = {"xfs"};
  r.failing_cell = "engines|a|writers=1";
  MatrixOptions o;
  o.fs = {"disk", "ext4", "xfs", "btrfs"};
  o.cells = cells();
  o.reps = 3;
  kit::Results res = results();
  std::vector<std::string> errs;
  const Measured m = run_matrix(o, r, res, &errs);
  EXPECT_TRUE(errs.empty());
  EXPECT_EQ(m.fs, (std::vector<std::string>{"disk", "ext4", "btrfs"}));
  EXPECT_EQ(m.fs_skipped.at("xfs"), "mkfs.xfs not installed (fake)");
  // probe once, sweep 3 times, the failing cell once (then it is skipped), per fs.
  EXPECT_EQ(r.runs, 3 * (1 + 3 + 1));
  size_t rows = 0;
  for (const kit::Row& row : res.rows()) {
    ++rows;
    EXPECT_EQ(row.case_.rfind("fs=", 0), 0u) << row.case_;
    EXPECT_NE(row.case_.find(";rep="), std::string::npos) << row.case_;
  }
  EXPECT_EQ(rows, 3u * (1 + 3));
  std::map<std::string, std::string> skips;
  for (const kit::Skip& s : res.skips()) skips[s.arm + " " + s.case_] = s.reason;
  EXPECT_EQ(skips.at("all fs=xfs"), "mkfs.xfs not installed (fake)");
  for (const char* f : {"disk", "ext4", "btrfs"})
    EXPECT_EQ(skips.at(std::string("a fs=") + f + ";writers=1"), "failed: fake");
  EXPECT_EQ(skips.size(), 4u);
  for (const char* f : {"disk", "ext4", "btrfs"}) EXPECT_EQ(r.teardowns[f], 1) << f;
  EXPECT_EQ(r.teardowns.count("xfs"), 0u);
  EXPECT_EQ(m.site_meta.at("ext4").at("mkfs"), "fake ext4");
}

TEST(Matrix, SitesTornDownWhenACellThrows) {
  FakeRunner r;
  r.throwing_fs = "xfs";
  MatrixOptions o;
  o.fs = {"ext4", "xfs", "btrfs"};
  o.cells = cells();
  kit::Results res = results();
  std::vector<std::string> errs;
  EXPECT_THROW(run_matrix(o, r, res, &errs), std::runtime_error);
  for (const char* f : {"ext4", "xfs", "btrfs"}) EXPECT_EQ(r.teardowns[f], 1) << f;
}

TEST(Matrix, RepetitionsPairAcrossCells) {
  Measured m;
  m.fs = {"ext4"};
  for (int rep = 0; rep < 3; ++rep) {
    m.runs["ext4"]["a"][rep].set("x", 2.0 * (rep + 1), "");
    if (rep != 1) m.runs["ext4"]["b"][rep].set("x", rep + 1.0, "");
  }
  std::vector<double> a, b;
  m.paired("ext4", "a", "x", "ext4", "b", "x", &a, &b);
  EXPECT_EQ(a, (std::vector<double>{2, 6}));
  EXPECT_EQ(b, (std::vector<double>{1, 3}));
}

// The real runner's plan: the durable-write table's every cell, the engines
// at 1 and 16 writers, JR-1's two modes, each named as the judge looks it up.
TEST(Plan, CellsTheJudgementsNeed) {
  RunConfig c;
  c.parts = {"probe", "sweep", "create", "engines", "jr1"};
  c.sizes = {4096, 8192, 16384, 1u << 20};
  c.engines = engine_arm_names();
  c.writers = {1, 16};
  RealRunner r(c);
  const std::vector<Cell> plan = r.plan();
  std::set<std::string> keys;
  for (const Cell& x : plan) keys.insert(x.key());
  EXPECT_EQ(keys.size(), plan.size());
  EXPECT_EQ(plan.size(), 1u + (16 + 5) + 1 + 2 * engine_arms().size() + 4);
  for (const RatioDef& d : ratio_defs()) {
    EXPECT_TRUE(keys.count(d.num_key)) << d.name << ": " << d.num_key;
    if (!d.den_key.empty()) {
      EXPECT_TRUE(keys.count(d.den_key)) << d.name << ": " << d.den_key;
    }
  }
}

// Fills the cells of one def on one fs, 5 repetitions, with num/den values and counters.
void fill(Measured* m, const std::string& f, const RatioDef& d, double num, double den, double flushes_num) {
  for (int rep = 0; rep < 5; ++rep) {
    const double wobble = 1 + 0.01 * rep;
    CellOut& a = m->runs[f][d.num_key][rep];
    a.set(d.num_metric, num * wobble, "");
    a.set("dev_flushes_per_op", flushes_num, "");
    a.set("dev_writes_per_op", 1, "");
    CellOut& b = m->runs[f][d.den_key][rep];
    b.set(d.den_metric, den * wobble, "");
    b.set("dev_flushes_per_op", 1, "");
    b.set("dev_writes_per_op", 1, "");
  }
}

TEST(Judge, VerdictsPerFileSystemAndDifferencesExplained) {
  Measured m;
  m.fs = {"ext4", "xfs"};
  const RatioDef* za = nullptr;
  for (const RatioDef& d : ratio_defs())
    if (d.name == "zero_ahead_gain_16w") za = &d;
  ASSERT_TRUE(za);
  fill(&m, "ext4", *za, 300, 100, 1);  // 3x: the appending journal costs flushes
  fill(&m, "xfs", *za, 110, 100, 2);   // 1.1x
  const std::vector<kit::Verdict> vs = fs_verdicts(m, false, "");
  int jz = 0;
  for (const kit::Verdict& v : vs) {
    if (v.finding != "JR-zero") continue;
    ++jz;
    // Only the 16-writer check has figures here: the 1-writer one has no
    // interval, which makes the verdict inconclusive, never reproduced.
    EXPECT_EQ(v.outcome, kit::Outcome::kInconclusive) << v.ours << " " << v.reason;
    EXPECT_EQ(v.ours.rfind("fs=", 0), 0u);
  }
  EXPECT_EQ(jz, 2);
  const std::vector<Difference> diffs = differences(m);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].def, za);
  EXPECT_NEAR(diffs[0].ratio.value, 3.0 / 1.1, 1e-6);
  EXPECT_NE(diffs[0].explanation.find("dev_flushes_per_op"), std::string::npos) << diffs[0].explanation;
  const std::string table = findings_table(m, vs);
  EXPECT_NE(table.find("| JR-zero | verdict | inconclusive | inconclusive |"), std::string::npos) << table;
}

// The sequential run's checks (checks.h): every verdict check of every
// file system is among its part's checks, under the key fs_verdicts looks
// for, so each verdict takes the check the run judged (its note with it).
TEST(Checks, EveryVerdictCheckIsAPartsCheckUnderItsKey) {
  Measured m;
  m.fs = {"ext4", "xfs"};
  for (const RatioDef& d : ratio_defs())
    for (const std::string& f : m.fs) fill(&m, f, d, 300, 100, 1);
  JudgedChecks judged;
  size_t pairs = 0;
  for (const char* part : {"sweep", "create", "engines", "jr1"})
    for (kit::Check& c : part_checks(m, part, false, kit::Window{})) {
      c.note = "judged by the part";
      pairs += c.what.rfind("pair ", 0) == 0;
      judged[c.what] = c;
    }
  EXPECT_EQ(pairs, 2 * ratio_defs().size());  // one pair of file systems, two checks a def
  for (const kit::Verdict& v : fs_verdicts(m, false, "", &judged)) {
    // Each check's description carries its note: none was computed apart.
    size_t checks = 0, noted = 0;
    for (size_t at = 0; (at = v.reason.find(": cleared", at)) != std::string::npos; ++at) ++checks;
    for (size_t at = 0; (at = v.reason.find("judged by the part", at)) != std::string::npos; ++at) ++noted;
    EXPECT_GT(noted, 0u) << v.finding << ": " << v.reason;
    EXPECT_GE(noted, checks) << v.finding << ": " << v.reason;
  }
}

// A pair of file systems: differs by over 15% when either check clears,
// within 15% when both miss, else undecided; and counted so.
TEST(Checks, PairsDecideAsDifferWithinOrUndecided) {
  Measured m;
  m.fs = {"ext4", "xfs", "btrfs"};
  const RatioDef& d = *def_named("zero_ahead_gain_16w");
  fill(&m, "ext4", d, 300, 100, 1);  // 3x
  fill(&m, "xfs", d, 100, 100, 1);   // 1x: ext4/xfs differs
  fill(&m, "btrfs", d, 102, 100, 1);  // 1.02x: xfs/btrfs within 15%
  const std::vector<kit::Check> differ = pair_checks(m, d, "ext4", "xfs", 1.15, kit::Window{});
  EXPECT_EQ(pair_result(differ[0], differ[1]), PairResult::kDiffers);
  const std::vector<kit::Check> within = pair_checks(m, d, "xfs", "btrfs", 1.15, kit::Window{});
  EXPECT_EQ(pair_result(within[0], within[1]), PairResult::kWithin);
  PairCount count;
  differences(m, 1.15, nullptr, nullptr, &count);
  EXPECT_EQ(count.pairs, 3);
  EXPECT_EQ(count.differ, 2);  // ext4 against either
  EXPECT_EQ(count.within, 1);
  EXPECT_EQ(count.undecided(), 0);
  // A window of no repetitions: both checks named, no ratio, undecided.
  const std::vector<kit::Check> none = pair_checks(m, d, "ext4", "xfs", 1.15, kit::Window{7, 9, 0.99});
  ASSERT_EQ(none.size(), 2u);
  EXPECT_EQ(pair_result(none[0], none[1]), PairResult::kUndecided);
}

}  // namespace
}  // namespace fenec::scenarios::fs
