// Plots through gnuplot-iostream: every chart is written as PNG and SVG.
//
// A Chart is data only (series of points, axis labels, log scales, vertical
// marks, horizontal references); write_chart() turns it into a gnuplot script
// and runs gnuplot once. The script is also saved beside the images (<base>.gp,
// data inline) so a user can restyle a plot without rerunning the benchmark.
//
// The style is the kit's, not the chart's: colours, dash and point types
// follow the series' titles by the rule in plot_style.h; axis ranges fit the
// data (a little padding; a log axis not widened to whole decades); x ticks
// sit on the data's values when they are a few integers (writers 1 2 4 8 16);
// the legend goes below the plot; and a chart of more than
// max_series_per_panel series is drawn as panels on shared axes.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace fenec::kit {

struct Series {
  Series() = default;
  Series(std::string t, std::vector<std::pair<double, double>> p, std::string s = "linespoints",
         std::vector<std::pair<double, double>> e = {})
      : title(std::move(t)), points(std::move(p)), style(std::move(s)), errors(std::move(e)) {}

  std::string title;
  std::vector<std::pair<double, double>> points;
  std::string style = "linespoints";  // gnuplot "with" clause: lines, points, linespoints, ...
  // Error bars: (low, high) of each point, e.g. its 95% interval; empty for
  // none. Drawn with yerrorlines (or yerrorbars where style is "points").
  std::vector<std::pair<double, double>> errors;
  // The panel it is drawn in when the chart is split; empty: the kit's rule.
  std::string panel;
};

struct Mark {  // a vertical line at x, labelled (a doubling, a reconciliation)
  double x;
  std::string label;
};

// A horizontal line at y, labelled at its left end: the line a finding's
// verdict is judged against, or a figure the source quotes, on the chart's
// own scale (a ratio chart's 2x, a latency chart's 17 ms).
struct Reference {
  enum class Kind { kFinding, kSource, kGuide };  // dark red dashed, black dotted, grey
  double y;
  std::string label;
  Kind kind = Kind::kFinding;
};

inline constexpr size_t kMaxSeriesPerPanel = 6;

struct Chart {
  std::string title;
  std::string xlabel, ylabel;
  bool logx = false, logy = false;
  std::vector<Series> series;
  std::vector<Mark> marks;
  int width = 1000, height = 600;  // of one panel
  std::vector<Reference> refs;
  size_t max_series_per_panel = kMaxSeriesPerPanel;
  // Named x ticks, for an axis of categories (arms, cases, percentiles);
  // empty: ticks from the data.
  std::vector<std::pair<double, std::string>> xtics;
};

// The gnuplot script write_chart saves as <name>.gp (drawing <name>.png and
// <name>.svg in its folder); png_terminal is "pngcairo" or "png".
std::string chart_script(const Chart& chart, const std::string& name, const char* png_terminal = "pngcairo");

// Writes <base>.png, <base>.svg and <base>.gp (creating the folder). Returns
// "" on success, else why not (gnuplot missing, empty chart, write error).
std::string write_chart(const Chart& chart, const std::string& base);

}  // namespace fenec::kit
