// The regression detector on synthetic histories: a step it must flag, noise
// it must not, a stable metric's change of one count it must flag; and the
// files a check writes (charts, HTML, the CI-tool formats) exist and are not
// empty. Randomized cases log their seed and take FENEC_SEED.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "engine/src/base/testing.h"
#include "scenarios/ci/detector.h"
#include "scenarios/ci/outputs.h"
#include "scenarios/ci/runs.h"

namespace fenec::scenarios::ci {
namespace {

namespace fs = std::filesystem;

uint64_t test_seed() { return base::BinarySeed("ci_test"); }

MetricRun noisy(std::vector<double> samples, Better better = Better::kLower, double factor = 1.25,
                const std::string& tag = "record") {
  MetricRun r;
  r.metric = "micro/MM-2/versioned_over_flat_clear";
  r.kind = Kind::kNoisy;
  r.better = better;
  r.bound = factor;
  r.unit = "ratio";
  r.tag = tag;
  r.samples = std::move(samples);
  return r;
}

MetricRun stable(double v, double tolerance = 0, const std::string& tag = "record") {
  MetricRun r;
  r.metric = "commit/fsyncs_per_commit";
  r.kind = Kind::kStable;
  r.better = Better::kLower;
  r.bound = tolerance;
  r.unit = "count";
  r.tag = tag;
  r.samples = {v};
  return r;
}

// n samples of `level` with multiplicative log-normal noise of sd `sigma`.
std::vector<double> draw(std::mt19937_64& rng, double level, double sigma, size_t n = 5) {
  std::normal_distribution<double> z(0, sigma);
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) v.push_back(level * std::exp(z(rng)));
  return v;
}

TEST(MannWhitney, ExactTailOfCompleteSeparation) {
  // 5 vs 5 fully separated: 2 of the C(10,5) = 252 arrangements are as extreme.
  EXPECT_NEAR(mann_whitney_p({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}), 2.0 / 252, 1e-12);
  EXPECT_NEAR(mann_whitney_p({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}), 2.0 / 252, 1e-12);
  EXPECT_DOUBLE_EQ(mann_whitney_p({1, 3, 5, 7, 9}, {2, 4, 6, 8, 10}),
                   mann_whitney_p({2, 4, 6, 8, 10}, {1, 3, 5, 7, 9}));
  EXPECT_GT(mann_whitney_p({1, 3, 5, 7, 9}, {2, 4, 6, 8, 10}), 0.5);
  EXPECT_EQ(mann_whitney_p({}, {1, 2}), 1.0);
  EXPECT_EQ(mann_whitney_p({2, 2, 2}, {2, 2, 2}), 1.0);  // ties everywhere: no evidence
}

TEST(MannWhitney, NormalApproximationAgreesWithSeparationOnLargeSamples) {
  std::vector<double> a, b;
  for (int i = 0; i < 30; ++i) {
    a.push_back(i);
    b.push_back(i + 100);
  }
  EXPECT_LT(mann_whitney_p(a, b), 1e-6);
}

TEST(Detector, FlagsAStepInANoisyHistory) {
  std::mt19937_64 rng(test_seed());
  std::vector<MetricRun> history;
  history.push_back(noisy(draw(rng, 1.0, 0.05), Better::kLower, 1.25, "baseline"));
  for (int i = 0; i < 4; ++i) history.push_back(noisy(draw(rng, 1.0, 0.05)));
  const Judgement j = judge(history, noisy(draw(rng, 1.5, 0.05)));
  EXPECT_EQ(j.change, Change::kRegression) << j.why;
  EXPECT_LT(j.p, 0.01);
  EXPECT_NEAR(j.ratio, 1.5, 0.2);
  // The same step on a higher-is-better metric is an improvement.
  std::vector<MetricRun> up;
  for (auto r : history) {
    r.better = Better::kHigher;
    up.push_back(r);
  }
  EXPECT_EQ(judge(up, noisy(draw(rng, 1.5, 0.05), Better::kHigher)).change, Change::kImprovement);
  // And a step down on it is a regression.
  EXPECT_EQ(judge(up, noisy(draw(rng, 0.6, 0.05), Better::kHigher)).change, Change::kRegression);
}

// A statistical gate cannot promise "never": with 5 samples a side, complete
// separation (p ~ 0.008 < alpha) together with medians 1.25x apart happens by
// chance about once in a thousand noise-only trials at 10% noise (measured:
// 0 or 1 flag per 500 trials across seeds). The test bounds the false-alarm
// rate at 1%, which a real loss of calibration (say alpha or the factor
// ignored) breaks by far, while a lucky draw no longer fails the build.
TEST(Detector, NoiseAloneIsRarelyFlagged) {
  std::mt19937_64 rng(test_seed() + 1);
  constexpr int kTrials = 500;
  int flagged = 0, past_factor = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    std::vector<MetricRun> ref = {noisy(draw(rng, 1.0, 0.10), Better::kLower, 1.25, "baseline")};
    const Judgement j = judge(ref, noisy(draw(rng, 1.0, 0.10)));
    flagged += j.change == Change::kRegression || j.change == Change::kImprovement;
    past_factor += j.change == Change::kUnconfirmed;
  }
  EXPECT_LE(flagged, kTrials / 100) << "(" << past_factor << " past the factor but unconfirmed)";
}

TEST(Detector, NeverOnOneSample) {
  std::vector<MetricRun> ref = {noisy({1.0, 1.02, 0.98, 1.01, 0.99})};
  // One sample twice as slow: past the factor, but one sample proves nothing.
  EXPECT_EQ(judge(ref, noisy({2.0})).change, Change::kUnconfirmed);
  // One outlier among five: the median does not move.
  EXPECT_EQ(judge(ref, noisy({1.0, 1.01, 0.99, 1.0, 5.0})).change, Change::kSame);
}

TEST(Detector, PastTheFactorButNotSignificantIsUnconfirmed) {
  std::vector<MetricRun> ref = {noisy({1.0, 1.5, 0.7, 1.2, 0.9})};
  const Judgement j = judge(ref, noisy({1.3, 0.8, 1.6, 1.4, 1.5}));
  EXPECT_EQ(j.change, Change::kUnconfirmed) << j.why;
  EXPECT_GE(j.p, 0.01);
}

TEST(Detector, AStableMetricChangeOfOneCountIsFlagged) {
  const std::vector<MetricRun> ref = {stable(3, 0, "baseline")};
  EXPECT_EQ(judge(ref, stable(3)).change, Change::kSame);
  const Judgement up = judge(ref, stable(4));
  EXPECT_EQ(up.change, Change::kRegression) << up.why;
  EXPECT_EQ(judge(ref, stable(2)).change, Change::kImprovement);
  // A tight bound (instruction counts): 0.5% is within 1%, 2% is not.
  const std::vector<MetricRun> ir = {stable(1'000'000, 0.01, "baseline")};
  EXPECT_EQ(judge(ir, stable(1'005'000, 0.01)).change, Change::kSame);
  EXPECT_EQ(judge(ir, stable(1'020'000, 0.01)).change, Change::kRegression);
  // The newest reference wins: a recorded run that accepted 4 makes 4 the norm.
  EXPECT_EQ(judge({stable(3, 0, "baseline"), stable(4)}, stable(4)).change, Change::kSame);
  EXPECT_EQ(judge({}, stable(4)).change, Change::kNew);
}

// A baseline rewritten for a new machine is the norm from its date on: the
// records it replaced are not pooled with it, later ones are (newest `recent`).
TEST(Detector, RecordsOlderThanTheBaselineAreNotPooled) {
  auto at = [](MetricRun r, const std::string& date) {
    r.date = date;
    return r;
  };
  const std::vector<MetricRun> base = {at(noisy({2, 2, 2, 2, 2}, Better::kLower, 1.3, "baseline"), "2026-12-01T05:00:00Z")};
  std::vector<MetricRun> hist;
  for (int d = 1; d <= 5; ++d) hist.push_back(at(noisy({1, 1, 1, 1, 1}), fmt::format("2026-11-2{}T00:00:00Z", d)));
  hist.push_back(at(noisy({2.1, 2.1, 2.1}, Better::kLower, 1.3, "ci"), "2026-12-01T06:00:00Z"));
  const std::string m = base[0].metric;
  ASSERT_EQ(reference_for(base, hist, m, 4).size(), 1u);
  EXPECT_EQ(judge(reference_for(base, hist, m, 4), noisy({2, 2.1, 1.9, 2, 2})).change, Change::kSame);
  // The old way (every recent record pooled) would have called the run 2x worse.
  std::vector<MetricRun> pooled = base;
  pooled.insert(pooled.end(), hist.begin() + 1, hist.begin() + 5);
  EXPECT_EQ(judge(pooled, noisy({2, 2.1, 1.9, 2, 2})).change, Change::kRegression);
  // Records made after the baseline join it, the newest `recent` of them.
  for (int h = 1; h <= 6; ++h) hist.push_back(at(noisy({3, 3, 3}), fmt::format("2026-12-01T0{}:30:00Z", 5 + h % 2)));
  const auto ref = reference_for(base, hist, m, 4);
  ASSERT_EQ(ref.size(), 5u);
  EXPECT_EQ(ref.front().tag, "baseline");
  EXPECT_EQ(reference_for(base, hist, "other/metric", 4).size(), 0u);
}

class TempDir : public base::ScratchTest {
 protected:
  void SetUp() override {
    base::ScratchTest::SetUp();
    dir_ = dir();
  }
  void write(const std::string& rel, const std::string& text) {
    fs::create_directories(fs::path(dir_ + "/" + rel).parent_path());
    std::ofstream(dir_ + "/" + rel) << text;
  }
  static std::string read_file(const std::string& path) {
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  std::string dir_;
};

using Extraction = TempDir;

TEST_F(Extraction, PairsRepetitionsCountsAndCallgrindDumps) {
  write("res/micro/latest.csv",
        "# commit=abc\n"
        "finding,scenario,arm,case,metric,value,unit\n"
        "MM-2,micro,versioned_bitmap,n=1;threads=1,ns_per_item,10,ns\n"
        "MM-2,micro,versioned_bitmap,n=1;threads=1;rep=0,ns_per_item,10,ns\n"
        "MM-2,micro,versioned_bitmap,n=1;threads=1;rep=1,ns_per_item,12,ns\n"
        "MM-2,micro,flat_clear,n=1;threads=1;rep=0,ns_per_item,20,ns\n"
        "MM-2,micro,flat_clear,n=1;threads=1;rep=1,ns_per_item,30,ns\n"
        "GR-1,micro,\"a,b\",keys>=1,max_keys_moved,512,count\n");
  write("cg/cg.1.1", "desc: Trigger: Client Request: MM2/flat_new\nsummary: 12345\ntotals: 12346\n");
  write("cg/cg.1.2", "desc: Trigger: Program termination\n");  // no summary: ignored
  std::vector<MetricDef> defs;
  ASSERT_EQ(parse_config("ratio r micro ns_per_item versioned_bitmap *;rep=* flat_clear *;rep=* lower 1.25\n"
                         "count c micro max_keys_moved a,b keys>=* lower 0  # comment\n"
                         "count gone commit fsyncs * * lower 0\n"
                         "icount icount 0.01\n"
                         "run commit --arms sync,async --reps 3  # run.sh's flags, no metric\n",
                         &defs),
            "");
  EXPECT_EQ(defs.size(), 4u);
  std::vector<std::string> missing;
  const auto runs = extract(defs, dir_ + "/res", dir_ + "/cg", {"d", "c1", "ci"}, &missing);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].metric, "r");
  ASSERT_EQ(runs[0].samples.size(), 2u);  // rep 0 and rep 1, the unrepeated row left out
  EXPECT_DOUBLE_EQ(runs[0].samples[0], 0.5);
  EXPECT_DOUBLE_EQ(runs[0].samples[1], 0.4);
  EXPECT_EQ(runs[1].metric, "c");
  EXPECT_EQ(runs[1].samples, std::vector<double>{512});
  EXPECT_EQ(runs[2].metric, "icount/MM2/flat_new");
  EXPECT_EQ(runs[2].samples, std::vector<double>{12345});
  EXPECT_EQ(runs[2].kind, Kind::kStable);
  ASSERT_EQ(missing.size(), 2u);  // the commit scenario's file is absent, then its metric
  EXPECT_NE(missing[0].find("commit/latest.csv"), std::string::npos);
  EXPECT_NE(missing[1].find("gone"), std::string::npos);

  // An interrupted run's counts are partial: they are reported, never compared.
  write("res/micro/latest.csv",
        "# incomplete=interrupted\nfinding,scenario,arm,case,metric,value,unit\n"
        "GR-1,micro,\"a,b\",keys>=1,max_keys_moved,500,count\n");
  missing.clear();
  const auto partial = extract(defs, dir_ + "/res", "", {"d", "c1", "ci"}, &missing);
  EXPECT_TRUE(partial.empty());
  EXPECT_NE(missing[0].find("incomplete"), std::string::npos);

  std::vector<MetricDef> bad;
  EXPECT_NE(parse_config("ratio too few words\n", &bad), "");
  EXPECT_NE(parse_config("run\n", &bad), "");
}

using Files = TempDir;

TEST_F(Files, RunsRoundTripThroughCsv) {
  std::vector<MetricRun> runs = {noisy({0.5, 0.25, 1.0 / 3}), stable(7)};
  for (auto& r : runs) r.date = "2025-01-01T00:00:00Z", r.commit = "abc";
  ASSERT_EQ(append_runs(dir_ + "/h.csv", runs), "");
  ASSERT_EQ(append_runs(dir_ + "/h.csv", runs), "");
  std::vector<MetricRun> back;
  ASSERT_EQ(read_runs(dir_ + "/h.csv", &back), "");
  ASSERT_EQ(back.size(), 4u);
  EXPECT_EQ(back[2].metric, runs[0].metric);
  EXPECT_EQ(back[2].kind, Kind::kNoisy);
  ASSERT_EQ(back[2].samples.size(), 3u);
  EXPECT_NEAR(back[2].samples[2], 1.0 / 3, 1e-7);
  EXPECT_EQ(back[3].samples, std::vector<double>{7});
  std::ifstream in(dir_ + "/h.csv");
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first.rfind("date,commit,tag,metric", 0), 0u);  // one header, at the top
}

TEST_F(Files, ChartsHtmlAndToolFormatsAreWrittenAndNotEmpty) {
  std::mt19937_64 rng(test_seed() + 2);
  std::vector<MetricRun> history;
  for (int i = 0; i < 6; ++i) {
    history.push_back(noisy(draw(rng, 1.0, 0.05), Better::kLower, 1.25, i % 2 ? "ci" : "record"));
    history.push_back(stable(3));
  }
  const std::vector<MetricRun> base = {history[0], history[1]};
  const std::vector<MetricRun> current = {noisy(draw(rng, 1.6, 0.05)), stable(4)};
  std::vector<Judgement> js;
  for (const auto& c : current) {
    std::vector<MetricRun> ref;
    for (const auto& b : base) {
      if (b.metric == c.metric) ref.push_back(b);
    }
    js.push_back(judge(ref, c));
  }
  std::vector<std::string> errors;
  const auto charts = write_charts(history, base, current, dir_, &errors);
  ASSERT_TRUE(errors.empty()) << errors[0];
  ASSERT_EQ(charts.size(), 2u);
  for (const auto& c : charts) {
    for (const auto& f : {c.png, c.svg}) {
      ASSERT_TRUE(fs::exists(dir_ + "/" + f)) << f;
      EXPECT_GT(fs::file_size(dir_ + "/" + f), 1000u) << f;
    }
  }
  const RunInfo info{"2025-01-01T00:00:00Z", "abc", "ci"};
  const std::string html = index_html(js, charts, {"x: not run"}, info);
  ASSERT_EQ(write_text(dir_ + "/index.html", html), "");
  EXPECT_GT(fs::file_size(dir_ + "/index.html"), 500u);
  for (const auto& c : charts) EXPECT_NE(html.find(c.svg), std::string::npos);
  EXPECT_NE(html.find("REGRESSION"), std::string::npos);
  const std::string report = report_text(js, {"x: not run"}, info);
  EXPECT_NE(report.find("REGRESSION:"), std::string::npos);
  EXPECT_NE(report.find("commit/fsyncs_per_commit"), std::string::npos);
  EXPECT_NE(report.find("not measured"), std::string::npos);
  const std::string smaller = gab_json(current, Better::kLower);
  EXPECT_NE(smaller.find("\"name\":\"commit/fsyncs_per_commit\""), std::string::npos);
  EXPECT_EQ(gab_json(current, Better::kHigher), "[\n]\n");
  const std::string bmf = bencher_json(current);
  EXPECT_NE(bmf.find("\"ratio\": {\"value\""), std::string::npos);
  EXPECT_NE(bmf.find("\"count\": {\"value\": 4"), std::string::npos);
}

// The tool end to end: exit 1 on a regression, 0 without one, 0 with --no-gate,
// 0 on a trend's (load-sensitive ratio's) regression.
using Tool = TempDir;

TEST_F(Tool, ExitCodeGatesOnRegressionOnly) {
  const char* bin = std::getenv("FENEC_CI_BIN");
  if (bin == nullptr) GTEST_SKIP() << "FENEC_CI_BIN not set (meson sets it)";
  write("metrics.conf", "count fsyncs commit fsyncs_per_commit * * lower 0\n");
  write("base.csv", runs_csv({[] {
          MetricRun r = stable(3, 0, "baseline");
          r.metric = "fsyncs";
          r.date = "d0";
          return r;
        }()}));
  auto run = [&](int fsyncs, const std::string& extra) {
    write("res/commit/latest.csv",
          "finding,scenario,arm,case,metric,value,unit\n"
          "CC-1,commit,group,n=8,fsyncs_per_commit," + std::to_string(fsyncs) + ",count\n");
    const std::string cmd = std::string(bin) + " --config " + dir_ + "/metrics.conf --results " +
                            dir_ + "/res --baseline " + dir_ + "/base.csv --history " + dir_ +
                            "/history.csv --out " + dir_ + "/out --date d1 --append " + extra +
                            " > /dev/null 2>&1";
    const int st = std::system(cmd.c_str());
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  };
  EXPECT_EQ(run(3, ""), 0);
  EXPECT_EQ(run(4, ""), 1);
  EXPECT_EQ(run(4, "--no-gate"), 0);
  EXPECT_EQ(run(3, "--bogus-flag"), 2);
  std::vector<MetricRun> hist;
  ASSERT_EQ(read_runs(dir_ + "/history.csv", &hist), "");
  EXPECT_EQ(hist.size(), 3u);  // the three runs that parsed were appended

  // A trend's confirmed regression is reported but does not fail the build;
  // the same change of a ratio, or a stable metric's change beside it, does.
  const std::string ratio_def = "r micro ns_per_item a *;rep=* b *;rep=* lower 1.3\n";
  std::string rows = "finding,scenario,arm,case,metric,value,unit\n";
  for (int rep = 0; rep < 5; ++rep) {
    rows += fmt::format("M,micro,a,n=1;rep={0},ns_per_item,{1},ns\nM,micro,b,n=1;rep={0},ns_per_item,10,ns\n",
                        rep, 30 + rep);
  }
  write("res/micro/latest.csv", rows);
  write("base.csv", runs_csv({[] {
          MetricRun r = stable(3, 0, "baseline");
          r.metric = "fsyncs";
          r.date = "d0";
          return r;
        }(), [] {
          MetricRun r = noisy({1.0, 1.01, 0.99, 1.02, 0.98}, Better::kLower, 1.3, "baseline");
          r.metric = "r";
          r.date = "d0";
          return r;
        }()}));
  write("metrics.conf", "count fsyncs commit fsyncs_per_commit * * lower 0\ntrend " + ratio_def);
  EXPECT_EQ(run(3, ""), 0);
  EXPECT_NE(read_file(dir_ + "/out/report.txt").find("never gates"), std::string::npos);
  EXPECT_EQ(run(4, ""), 1);
  write("metrics.conf", "count fsyncs commit fsyncs_per_commit * * lower 0\nratio " + ratio_def);
  EXPECT_EQ(run(3, ""), 1);
  EXPECT_GT(fs::file_size(dir_ + "/out/index.html"), 0u);
  EXPECT_GT(fs::file_size(dir_ + "/out/report.txt"), 0u);
  EXPECT_GT(fs::file_size(dir_ + "/out/bencher.json"), 0u);
}

}  // namespace
}  // namespace fenec::scenarios::ci
