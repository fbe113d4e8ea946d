#include "engine/src/base/testing.h"
#include "iobench/kit/plot.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fenec::kit {
namespace {

namespace fs = std::filesystem;

bool have_gnuplot() { return std::system("command -v gnuplot >/dev/null 2>&1") == 0; }


std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Chart sample_chart() {
  Chart c;
  c.title = "throughput vs write size (it's \"log\")";
  c.xlabel = "write size (bytes)";
  c.ylabel = "MB/s";
  c.logx = c.logy = true;
  c.series.push_back({"buffered", {{4096, 100}, {16384, 300}, {65536, 900}, {0, 5}}, "linespoints"});
  c.series.push_back({"o_direct", {{4096, 40}, {16384, 160}, {65536, 640}}, "lines"});
  c.marks.push_back({16384, "16k: page cache limit"});
  return c;
}

class PlotTest : public base::ScratchTest {
 protected:
  void SetUp() override {
    base::ScratchTest::SetUp();
    dir_ = dir();
  }
  fs::path dir_;
};

TEST_F(PlotTest, WritesPngSvgAndScript) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot not installed";
  const std::string base = (dir_ / "sub" / "chart").string();
  ASSERT_EQ(write_chart(sample_chart(), base), "");
  for (const char* ext : {".png", ".svg", ".gp"}) {
    ASSERT_TRUE(fs::exists(base + ext)) << ext;
    EXPECT_GT(fs::file_size(base + ext), 100u) << ext;
  }
  EXPECT_EQ(slurp(base + ".png").substr(1, 3), "PNG");
  EXPECT_NE(slurp(base + ".svg").find("<svg"), std::string::npos);
  const std::string gp = slurp(base + ".gp");
  EXPECT_NE(gp.find("set logscale x"), std::string::npos);
  EXPECT_NE(gp.find("set logscale y"), std::string::npos);
  EXPECT_NE(gp.find("$data0 << EOD\n4096 100\n16384 300\n65536 900\nEOD\n"), std::string::npos)
      << "the x=0 point cannot sit on a log axis and is dropped";
  EXPECT_NE(gp.find("set arrow from 16384, graph 0 to 16384, graph 1 nohead"), std::string::npos);
  EXPECT_NE(gp.find("'16k: page cache limit'"), std::string::npos);
  EXPECT_NE(gp.find("it''s"), std::string::npos);
  EXPECT_FALSE(fs::exists(base + ".gnuplot-err"));
}

TEST_F(PlotTest, ErrorBarsCarryEachPointsInterval) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot not installed";
  Chart c;
  c.title = "ratio per writers";
  c.series.push_back({"fenecdb / sqlite", {{1, 1.2}, {16, 6.1}}, "linespoints", {{1.1, 1.3}, {NAN, NAN}}});
  const std::string base = (dir_ / "bars").string();
  ASSERT_EQ(write_chart(c, base), "");
  const std::string gp = slurp(base + ".gp");
  // The second point's interval is unknown (one repetition): drawn as a point, no bar.
  EXPECT_NE(gp.find("$data0 << EOD\n1 1.2 1.1 1.3\n16 6.1 6.1 6.1\nEOD\n"), std::string::npos) << gp;
  EXPECT_NE(gp.find("using 1:2:3:4 with yerrorlines"), std::string::npos) << gp;
}

TEST_F(PlotTest, EmptyChartIsAnError) {
  Chart c;
  c.series.push_back({"none", {}, "lines"});
  EXPECT_NE(write_chart(c, (dir_ / "empty").string()), "");
  Chart neg;
  neg.logy = true;
  neg.series.push_back({"neg", {{1, -1}, {2, 0}}, "lines"});
  EXPECT_NE(write_chart(neg, (dir_ / "neg").string()), "");
}

TEST_F(PlotTest, MissingGnuplotIsAnErrorNotACrash) {
  const char* old = std::getenv("PATH");
  const std::string saved = old ? old : "";
  setenv("PATH", (dir_ / "nothing-here").c_str(), 1);
  const std::string err = write_chart(sample_chart(), (dir_ / "nogp").string());
  setenv("PATH", saved.c_str(), 1);
  EXPECT_NE(err.find("gnuplot not installed"), std::string::npos) << err;
  EXPECT_TRUE(fs::exists(dir_ / "nogp.gp"));  // the script is still there to run later
}

}  // namespace
}  // namespace fenec::kit
