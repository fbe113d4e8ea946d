#include "engine/src/base/testing.h"
#include "iobench/kit/plot.h"
#include "iobench/kit/plot_style.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <set>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fenec::kit {
namespace plot_test {

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
  EXPECT_NE(gp.find("'16k: page cache limit'"), std::string::npos);
  EXPECT_NE(gp.find("(it's \\\"log\\\")"), std::string::npos) << "a title is double-quoted, its quotes escaped";
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

// ---- The style rules, read off the generated script.

// The "with" clause of the series titled `title` in the script's first plot.
std::string with_of(const std::string& gp, const std::string& title) {
  const size_t t = gp.find(" title '" + title + "'");
  if (t == std::string::npos) return "";
  const size_t w = gp.rfind(" with ", t);
  return gp.substr(w + 6, t - w - 6);
}
std::string colour_of(const std::string& gp, const std::string& title) {
  const std::string w = with_of(gp, title);
  const size_t at = w.find("lc rgb '");
  return at == std::string::npos ? "" : w.substr(at + 8, 7);
}
std::string option_of(const std::string& gp, const std::string& title, const std::string& opt) {
  std::stringstream ss(with_of(gp, title));
  std::string w;
  while (ss >> w)
    if (w == opt && ss >> w) return w;
  return "";
}
size_t count_of(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}
// The [lo:hi] of "set <axis>range".
std::pair<double, double> range_of(const std::string& gp, const std::string& axis) {
  const std::string key = "set " + axis + "range [";
  const size_t at = gp.find(key);
  if (at == std::string::npos) return {NAN, NAN};
  double lo = NAN, hi = NAN;
  std::sscanf(gp.c_str() + at + key.size(), "%lf:%lf", &lo, &hi);
  return {lo, hi};
}

Series line(const std::string& title, double y = 1) { return {title, {{1, y}, {4, 2 * y}, {16, 3 * y}}}; }

TEST(PlotStyle, AnEngineKeepsItsColourInEveryChartAModeItsDash) {
  Chart a, b;
  a.series = {line("fenecdb-durable"), line("sqlite-full")};
  b.series = {line("sqlite-normal"), line("rocksdb-buffered"), line("postgres, 16 client(s)"),
              line("fenecdb-buffered (pinned)"), line("fenec-server, 1 client(s)"), line("rocksdb-durable")};
  const std::string ga = chart_script(a, "a"), gb = chart_script(b, "b");
  const std::string fenec = colour_of(ga, "fenecdb-durable"), sqlite = colour_of(ga, "sqlite-full");
  ASSERT_EQ(fenec.size(), 7u) << ga;
  EXPECT_NE(fenec, sqlite) << "fenecdb-buffered and sqlite-full once shared a colour";
  EXPECT_EQ(colour_of(gb, "fenecdb-buffered (pinned)"), fenec);
  EXPECT_EQ(colour_of(gb, "sqlite-normal"), sqlite);
  EXPECT_EQ(colour_of(gb, "fenec-server, 1 client(s)"), fenec) << "fenec-server is of the fenecdb family";
  EXPECT_NE(colour_of(gb, "rocksdb-buffered"), colour_of(gb, "postgres, 16 client(s)"));
  EXPECT_EQ(option_of(ga, "fenecdb-durable", "dt"), "1");
  EXPECT_EQ(option_of(ga, "sqlite-full", "dt"), "1");
  EXPECT_EQ(option_of(gb, "sqlite-normal", "dt"), "2");
  EXPECT_EQ(option_of(gb, "fenecdb-buffered (pinned)", "dt"), "2");
  EXPECT_EQ(colour_of(gb, "rocksdb-durable"), colour_of(gb, "rocksdb-buffered")) << "the mode is the dash's";

  Chart one;
  one.series = {line("fenecdb-buffered (pinned)"), line("fenecdb-buffered-naive (locked)")};
  const std::string g1 = chart_script(one, "one");
  EXPECT_EQ(option_of(g1, "fenecdb-buffered (pinned)", "dt"), "1") << "one mode in the chart: solid " << g1;
  EXPECT_EQ(option_of(g1, "fenecdb-buffered-naive (locked)", "dt"), "1");
}

TEST(PlotStyle, DeclaredFamiliesHaveDistinctColoursAndWords) {
  std::set<std::string> colours, words;
  for (const auto& f : plot_style::families()) {
    EXPECT_TRUE(colours.insert(f.colour).second) << f.name;
    for (const char* w : f.words) EXPECT_TRUE(words.insert(w).second) << w;
  }
  for (const char* c : plot_style::other_colours()) EXPECT_FALSE(colours.count(c)) << c;
}

TEST(PlotStyle, ANaiveArmIsItsEnginesHueShadedWithOpenPoints) {
  Chart c;
  c.series = {line("fenecdb-durable"), line("fenecdb-durable-naive"), line("fenecdb-durable-append")};
  const std::string gp = chart_script(c, "c");
  const std::set<std::string> colours = {colour_of(gp, "fenecdb-durable"), colour_of(gp, "fenecdb-durable-naive"),
                                         colour_of(gp, "fenecdb-durable-append")};
  EXPECT_EQ(colours.size(), 3u) << gp;
  EXPECT_EQ(colour_of(gp, "fenecdb-durable-naive"), plot_style::shade(colour_of(gp, "fenecdb-durable"), 2));
  EXPECT_EQ(option_of(gp, "fenecdb-durable", "pt"), "7");
  EXPECT_EQ(option_of(gp, "fenecdb-durable-naive", "pt"), "6");
}

TEST(PlotStyle, SeriesAlikeInAllButTheirTitleAreToldApart) {
  Chart c;
  c.series = {line("separate, 1 writer"), line("separate, 16 writers"), line("shared, 1 writer")};
  const std::string gp = chart_script(c, "c");
  EXPECT_NE(colour_of(gp, "separate, 1 writer"), colour_of(gp, "separate, 16 writers"));
  EXPECT_NE(option_of(gp, "separate, 1 writer", "pt"), option_of(gp, "separate, 16 writers", "pt"));
  EXPECT_NE(colour_of(gp, "separate, 1 writer"), colour_of(gp, "shared, 1 writer"));

  // Families no table names take their colours in name order, not the chart's.
  Chart a, b;
  a.series = {line("alpha"), line("beta")};
  b.series = {line("beta"), line("alpha")};
  const std::string ga = chart_script(a, "a"), gb = chart_script(b, "b");
  EXPECT_EQ(colour_of(ga, "alpha"), colour_of(gb, "alpha"));
  EXPECT_EQ(colour_of(ga, "beta"), colour_of(gb, "beta"));
  EXPECT_NE(colour_of(ga, "alpha"), colour_of(ga, "beta"));
}

TEST(PlotStyle, AStyleTheSeriesSetsItselfIsKept) {
  Chart c;
  c.series = {{"fenecdb", {{1, 1}, {2, 2}}, "points pt 6 ps 2 lc rgb '#123456'"}};
  const std::string w = with_of(chart_script(c, "c"), "fenecdb");
  EXPECT_EQ(count_of(w, " pt "), 1u) << w;
  EXPECT_EQ(count_of(w, " lc "), 1u) << w;
  EXPECT_NE(w.find("#123456"), std::string::npos) << w;
}

TEST(PlotStyle, ManySeriesSplitIntoPanelsByMode) {
  Chart c;
  c.title = "CC-1: writes/s vs writers";
  for (const char* arm : {"fenecdb-durable", "fenecdb-durable-naive", "fenecdb-durable-append", "fenecdb-buffered",
                          "fenecdb-buffered-naive", "sqlite-full", "sqlite-normal", "rocksdb-durable",
                          "rocksdb-buffered", "postgres-durable", "postgres-buffered"})
    c.series.push_back(line(arm));
  const std::string gp = chart_script(c, "c");
  EXPECT_NE(gp.find("set multiplot layout 1,2"), std::string::npos) << gp;
  const size_t durable = gp.find("set title 'durable'"), buffered = gp.find("set title 'buffered'");
  ASSERT_NE(durable, std::string::npos);
  ASSERT_NE(buffered, std::string::npos);
  for (const auto& s : c.series) {
    // Drawn once a picture (PNG, SVG), in its mode's panel.
    EXPECT_EQ(count_of(gp, "title '" + s.title + "'"), 2u) << s.title;
    const size_t at = gp.find("title '" + s.title + "'");
    EXPECT_EQ(at > buffered, s.title.find("buffered") != std::string::npos || s.title == "sqlite-normal") << s.title;
  }
  EXPECT_EQ(count_of(gp, "unset multiplot"), 2u);

  Chart few = c;
  few.series.resize(kMaxSeriesPerPanel);
  EXPECT_EQ(chart_script(few, "few").find("multiplot"), std::string::npos) << "within the limit: one panel";
}

TEST(PlotStyle, ManySeriesOfNoModeSplitInEvenRuns) {
  Chart c;
  for (int i = 0; i < 9; ++i) c.series.push_back(line(fmt::format("arm{} a", i)));
  const std::string gp = chart_script(c, "c");
  EXPECT_NE(gp.find("set multiplot layout 1,2"), std::string::npos) << gp;
  EXPECT_NE(gp.find("set title '1 of 2'"), std::string::npos) << gp;
  EXPECT_EQ(count_of(gp, "\nplot "), 4u) << "two panels, each drawn for the PNG and the SVG";

  Chart chosen;
  chosen.series = {line("a"), line("b")};
  chosen.series[1].panel = "right";
  EXPECT_NE(chart_script(chosen, "chosen").find("set title 'right'"), std::string::npos)
      << "a scenario's own grouping wins, whatever the count";
}

TEST(PlotStyle, AxesFitTheData) {
  Chart c;
  c.logx = c.logy = true;
  c.series = {{"fenecdb-durable", {{1, 0.8}, {2, 5}, {4, 40}, {8, 120}, {16, 250}}}};
  const std::string gp = chart_script(c, "c");
  const auto [xlo, xhi] = range_of(gp, "x");
  EXPECT_GT(xlo, 0.7);
  EXPECT_LT(xlo, 1);
  EXPECT_GT(xhi, 16);
  EXPECT_LT(xhi, 20) << "1..16 writers, not gnuplot's 1..100";
  EXPECT_NE(gp.find("set xtics ('1' 1, '2' 2, '4' 4, '8' 8, '16' 16)"), std::string::npos) << gp;
  const auto [ylo, yhi] = range_of(gp, "y");
  EXPECT_GT(ylo, 0.5);
  EXPECT_LT(ylo, 0.8);
  EXPECT_GT(yhi, 250);
  EXPECT_LT(yhi, 400);
  EXPECT_NE(gp.find("set ytics ('1' 1, '10' 10, '100' 100)"), std::string::npos) << gp;

  Chart lin;
  lin.series = {{"rate", {{0.5, 100}, {3.2, 180}}}};
  const std::string gl = chart_script(lin, "lin");
  const auto [lxlo, lxhi] = range_of(gl, "x");
  EXPECT_NEAR(lxlo, 0.5 - 0.05 * 2.7, 1e-9);
  EXPECT_NEAR(lxhi, 3.2 + 0.05 * 2.7, 1e-9);
  EXPECT_NEAR(range_of(gl, "y").first, 96, 1e-9);
  EXPECT_EQ(gl.find("set xtics"), std::string::npos) << "not integers: gnuplot's ticks";

  Chart zero;
  zero.series = {{"fsyncs", {{0, 0}, {1, 2}, {8, 9}}}};
  const std::string gz = chart_script(zero, "zero");
  EXPECT_LT(range_of(gz, "x").first, 0) << "a point at x = 0 is off the frame";
  EXPECT_EQ(range_of(gz, "y").first, 0) << "a count's axis starts at 0, not below";
  EXPECT_NE(gz.find("set xtics ('0' 0, '1' 1, '8' 8)"), std::string::npos) << gz;
}

TEST(PlotStyle, ReferencesAreDrawnLabelledAndInRange) {
  Chart c;
  c.logy = true;
  c.series = {{"fenecdb / sqlite", {{1, 1.2}, {16, 1.6}}}};
  c.refs = {{2, "2x: the finding's line"}, {3.4, "3.4x: the source", Reference::Kind::kSource}};
  const std::string gp = chart_script(c, "c");
  EXPECT_NE(gp.find("set arrow from graph 0, first 2 to graph 1, first 2 nohead"), std::string::npos) << gp;
  EXPECT_NE(gp.find("set label '2x: the finding''s line' at graph 0.01, first 2"), std::string::npos) << gp;
  EXPECT_NE(gp.find("first 3.4 to graph 1, first 3.4 nohead lw 1.5 dt 3"), std::string::npos) << gp;
  EXPECT_GT(range_of(gp, "y").second, 3.4) << "a reference above the data widens the axis to show it";
}

TEST(PlotStyle, TheLegendSitsBelowThePlot) {
  EXPECT_NE(chart_script(sample_chart(), "s").find("set key below"), std::string::npos);
}

}  // namespace plot_test
}  // namespace fenec::kit
