// fio's bins and fio's percentile rule, held against fio itself: its own
// per-job percentiles from its own bins (a committed client/server output of
// fio 3.33, and a run of the installed fio), and a merge of two jobs' bins
// against fio's answer for their pooled samples (group_reporting's).
#include "iobench/src/fio_hist.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "engine/src/base/scratch.h"
#include "iobench/src/fio_json.h"

namespace fenec::iobench {
namespace fio_hist_test {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every percentile fio printed for h equals the rule's on h's bins.
void expect_fio_percentiles(const FioHist& h, const std::vector<std::pair<double, uint64_t>>& fio,
                            const std::string& what) {
  ASSERT_FALSE(fio.empty()) << what << ": fio printed no percentiles";
  for (const auto& [p, ns] : fio) EXPECT_EQ(h.percentile(p), ns) << what << " p" << p;
}

TEST(FioHist, BinsMatchFiosLayout) {
  EXPECT_EQ(FioHist::kBins, 1856u);
  for (uint64_t v = 0; v < 128; ++v) {  // a bin each below 2^(bits+1)
    EXPECT_EQ(FioHist::index_of(v), v);
    EXPECT_EQ(FioHist::value_of(static_cast<unsigned>(v)), v);
  }
  EXPECT_EQ(FioHist::value_of(128), 129u);  // [128, 129]: its middle
  EXPECT_EQ(FioHist::index_of(128), 128u);
  EXPECT_EQ(FioHist::index_of(129), 128u);
  EXPECT_EQ(FioHist::index_of(130), 129u);
  for (unsigned i = 0; i < FioHist::kBins; ++i) EXPECT_EQ(FioHist::index_of(FioHist::value_of(i)), i) << i;
  EXPECT_EQ(FioHist::index_of(UINT64_MAX), FioHist::kBins - 1);  // everything above lands in the last bin
  FioHist h;
  EXPECT_FALSE(h.add_key(130, 1)) << "130 is inside bin 129's range, not its midpoint";
  EXPECT_TRUE(h.add_key(5408, 2));
  EXPECT_EQ(h.binned(), 2u);
}

TEST(FioHist, RuleIsTheFirstBinWhoseRunningSumReachesPOfN) {
  FioHist h;
  h.add_index(10, 50);
  h.add_index(20, 49);
  h.add_index(30, 1);
  h.set_samples(100);
  EXPECT_EQ(h.percentile(50), 10u);    // 50 >= 0.5 x 100 at the first bin
  EXPECT_EQ(h.percentile(50.5), 20u);
  EXPECT_EQ(h.percentile(99), 20u);    // 99 >= 99
  EXPECT_EQ(h.percentile(99.5), 30u);
  EXPECT_EQ(h.percentile(100), 30u);
  EXPECT_EQ(FioHist().percentile(50), 0u);
}

TEST(FioHist, MergeAddsBinsAndSamples) {
  FioHist a, b;
  a.add_key(5408, 3), a.set_samples(3);
  b.add_key(5408, 1), b.add_key(6112, 4), b.set_samples(5);
  FioHist m = a;
  m.merge(b);
  EXPECT_EQ(m.samples(), 8u);
  EXPECT_EQ(m.bins(), (std::vector<std::pair<uint64_t, uint64_t>>{{5408, 4}, {6112, 4}}));
  FioHist one;  // a fleet of one host is that host
  one.merge(a);
  EXPECT_EQ(one, a);
}

// A client's json+ from two fio 3.33 servers (iobench fleet, --together, the
// 4 KiB write + fdatasync cell and the O_DIRECT|O_DSYNC one), as fio wrote it.
TEST(FioHist, ReproducesFiosOwnPercentilesFromItsBins) {
  const FioOutput out = parse_fio_output(slurp("iobench/src/testdata/fio-3.33-client.json"));
  ASSERT_TRUE(out.problem.empty()) << out.problem;
  ASSERT_GE(out.jobs.size(), 4u);
  size_t checked = 0;
  for (const FioJob& j : out.jobs) {
    expect_fio_percentiles(j.clat, j.clat_pct, j.hostname + " " + j.jobname + " clat");
    checked += j.clat_pct.size();
    if (!j.sync.empty()) {
      expect_fio_percentiles(j.sync, j.sync_pct, j.hostname + " " + j.jobname + " sync");
      checked += j.sync_pct.size();
    }
  }
  EXPECT_GE(checked, 17u * 4);  // fio's 17 default percentiles, of every job at least once
}

bool have_fio() { return std::system("fio --version >/dev/null 2>&1") == 0; }

// The installed fio, run here: two jobs of one group with group_reporting
// (fio sums their bins and answers for the pooled samples) and a latency log
// per job (every write's completion latency, in ns). Each job's samples
// binned here and the two merged must equal fio's pooled bins and its
// percentiles exactly; and each job alone (the same jobs run without
// group_reporting) follows the rule.
TEST(FioHist, MergeOfTwoJobsEqualsFiosAnswerOnThePooledSamples) {
  if (!have_fio()) GTEST_SKIP() << "fio is not installed (scripts/setup.sh installs it)";
  base::ScratchDir dir("fio-hist");
  const std::string job =
      "[pool]\ndirectory=" + dir.path() +
      "\nrw=write\nbs=4k\nsize=8m\nfdatasync=32\nioengine=psync\nnumjobs=2\n"
      "write_lat_log=" + dir.path() + "/lat\nper_job_logs=1\nunlink=1\n";
  for (bool grouped : {true, false}) {
    const std::string file = dir.path() + (grouped ? "/grouped.fio" : "/apart.fio");
    std::ofstream(file) << job << (grouped ? "group_reporting=1\n" : "");
    const std::string json = file + ".json";
    ASSERT_EQ(std::system(("fio --output-format=json+ --output=" + json + " " + file + " >/dev/null 2>&1").c_str()), 0);
    const FioOutput out = parse_fio_output(slurp(json));
    ASSERT_TRUE(out.problem.empty()) << out.problem;
    if (!grouped) {
      ASSERT_EQ(out.jobs.size(), 2u);
      for (const FioJob& j : out.jobs) expect_fio_percentiles(j.clat, j.clat_pct, "one job");
      continue;
    }
    ASSERT_EQ(out.jobs.size(), 1u);
    const FioJob& pooled = out.jobs[0];
    FioHist merged;
    for (int k = 1; k <= 2; ++k) {
      FioHist one;
      std::ifstream log(dir.path() + "/lat_clat." + std::to_string(k) + ".log");
      uint64_t t = 0, ns = 0;
      char comma;
      std::string rest;
      while (log >> t >> comma >> ns && std::getline(log, rest)) one.add_index(FioHist::index_of(ns), 1);
      ASSERT_EQ(one.binned(), 2048u) << "job " << k << ": 8 MiB in 4 KiB writes";
      merged.merge(one);
    }
    EXPECT_EQ(merged.bins(), pooled.clat.bins());
    EXPECT_EQ(merged.samples(), pooled.clat.samples());
    expect_fio_percentiles(merged, pooled.clat_pct, "two jobs merged");
  }
}

}  // namespace fio_hist_test
}  // namespace fenec::iobench
