// Plots through gnuplot-iostream: every chart is written as PNG and SVG.
//
// A Chart is data only (series of points, axis labels, log scales, vertical
// marks); write_chart() turns it into a gnuplot script and runs gnuplot once
// per format. The script is also saved beside the images (<base>.gp, data
// inline) so a user can restyle a plot without rerunning the benchmark.
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
};

struct Mark {  // a vertical line at x, labelled (a doubling, a reconciliation)
  double x;
  std::string label;
};

struct Chart {
  std::string title;
  std::string xlabel, ylabel;
  bool logx = false, logy = false;
  std::vector<Series> series;
  std::vector<Mark> marks;
  int width = 1000, height = 600;
};

// Writes <base>.png, <base>.svg and <base>.gp (creating the folder). Returns
// "" on success, else why not (gnuplot missing, empty chart, write error).
std::string write_chart(const Chart& chart, const std::string& base);

}  // namespace fenec::kit
