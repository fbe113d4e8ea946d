#include "iobench/kit/plot.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gnuplot-iostream.h>
#include <set>
#include <sstream>

#include "iobench/kit/plot_style.h"

namespace fenec::kit {
namespace {

namespace fs = std::filesystem;

// gnuplot single-quoted string: only the quote itself needs escaping (doubled).
std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += (c == '\n') ? ' ' : c;
  }
  return out + "'";
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool find_gnuplot() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (!dir.empty() && access((dir + "/gnuplot").c_str(), X_OK) == 0) return true;
  }
  return false;
}

// pngcairo draws antialiased text; plain png (libgd) is the fallback some builds have.
const char* png_terminal() {
  static const char* term = [] {
    const int rc = std::system("gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1");
    return rc == 0 ? "pngcairo" : "png";
  }();
  return term;
}

bool usable(double v, bool log) { return std::isfinite(v) && (!log || v > 0); }

// gnuplot double-quoted string (the one kind that takes "\n"), wrapped at
// spaces to lines of at most `width` characters.
std::string wrapped(const std::string& s, size_t width) {
  std::string out = "\"", line;
  auto flush = [&](bool last) {
    out += line;
    if (!last) out += "\\n";
    line.clear();
  };
  std::stringstream words(s);
  std::string w;
  while (words >> w) {
    if (!line.empty() && line.size() + 1 + w.size() > width) flush(false);
    line += (line.empty() ? "" : " ");
    for (char c : w) line += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  }
  flush(true);
  return out + "\"";
}

size_t count_lines(const std::string& wrapped_text) {
  size_t n = 1;
  for (size_t at = wrapped_text.find("\\n"); at != std::string::npos; at = wrapped_text.find("\\n", at + 2)) ++n;
  return n;
}

// Characters of the chart's font (',10') across a panel of this many pixels.
size_t chars_across(int px) { return static_cast<size_t>(std::max(40, px / 7)); }

struct Span {
  double lo = INFINITY, hi = -INFINITY;
  void add(double v, bool log) {
    if (!usable(v, log)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool known() const { return lo <= hi; }
};

// The data's span with a little padding: a twentieth of it on a linear axis
// (a y axis not below 0 when the data are not: rates and counts start at
// 0; an x axis is, so a point at 0 is off the frame), a factor on a log
// one; gnuplot's own autoscale rounds a log axis out to whole decades
// (1..16 drawn to 100).
Span fitted(Span s, bool log, bool floor_at_zero = true) {
  if (log) {
    const double a = std::log10(s.lo), b = std::log10(s.hi);
    const double pad = b > a ? std::max(0.04, 0.05 * (b - a)) : 0.3;
    return {std::pow(10, a - pad), std::pow(10, b + pad)};
  }
  double span = s.hi - s.lo;
  if (span <= 0) span = s.hi != 0 ? std::abs(s.hi) * 0.4 : 1;
  const double pad = 0.05 * span;
  Span out{s.lo - pad, s.hi + pad};
  if (floor_at_zero && s.lo >= 0 && out.lo < 0) out.lo = 0;
  return out;
}

// A tick's label: 3 significant digits, thousands and up with k/M/G.
std::string tic_label(double v) {
  const double a = std::abs(v);
  if (a >= 1e9) return fmt::format("{:.3g}G", v / 1e9);
  if (a >= 1e6) return fmt::format("{:.3g}M", v / 1e6);
  if (a >= 1e4) return fmt::format("{:.3g}k", v / 1e3);
  return fmt::format("{:.4g}", v);
}

std::string tic_list(const std::vector<std::pair<double, std::string>>& at) {
  std::string s = "(";
  for (size_t i = 0; i < at.size(); ++i) s += fmt::format("{}{} {}", i ? ", " : "", quote(at[i].second), at[i].first);
  return s + ")";
}
// exact: integers below a million as they are (16384 KiB, not 16.4k).
std::string tic_list(const std::vector<double>& at, bool exact = false) {
  std::vector<std::pair<double, std::string>> named;
  for (double v : at) named.emplace_back(v, exact && std::abs(v) < 1e6 ? fmt::format("{:.0f}", v) : tic_label(v));
  return tic_list(named);
}

// A log axis's ticks: its decades, or with 2 and 5 (then 1.5 .. 8) between
// them when fewer than three decades fall in the range; none (gnuplot's
// default) when even those give fewer than three.
std::vector<double> log_tics(Span r) {
  const std::vector<std::vector<double>> steps = {{1}, {1, 2, 5}, {1, 1.5, 2, 3, 4, 5, 6, 8}};
  for (const auto& mantissas : steps) {
    std::vector<double> at;
    for (int e = static_cast<int>(std::floor(std::log10(r.lo))); e <= static_cast<int>(std::ceil(std::log10(r.hi)));
         ++e) {
      for (double m : mantissas) {
        const double v = m * std::pow(10, e);
        if (v >= r.lo && v <= r.hi) at.push_back(v);
      }
    }
    if (at.size() >= 3) return at;
  }
  return {};
}

// A linear axis of large numbers: ticks a round step apart (1, 2 or 5 times
// a power of ten, some five to eight of them), labelled 200k rather than
// gnuplot's 200000 or 1e+06.
std::vector<double> linear_tics(Span r) {
  if (std::max(std::abs(r.lo), std::abs(r.hi)) < 1e4 || r.hi <= r.lo) return {};
  const double raw = (r.hi - r.lo) / 6, mag = std::pow(10, std::floor(std::log10(raw)));
  const double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
  std::vector<double> at;
  for (double v = std::ceil(r.lo / step) * step; v <= r.hi + step * 1e-9; v += step) at.push_back(v == 0 ? 0 : v);
  return at;
}

// Ticks on the data's x values when they are a few integers (writers,
// threads, files: 1 2 4 8 16), else as for any axis.
std::vector<double> integer_x_tics(const Chart& c) {
  std::set<double> xs;
  for (const auto& ser : c.series) {
    if (ser.title.empty()) continue;  // spacers
    for (const auto& [x, y] : ser.points) {
      if (!usable(x, c.logx) || !usable(y, c.logy)) continue;
      if (x != std::floor(x) || std::abs(x) > 1e9) return {};
      xs.insert(x);
    }
  }
  if (xs.empty() || xs.size() > 12) return {};
  return {xs.begin(), xs.end()};
}

std::string axis_lines(const char* axis, bool log, Span data, const std::vector<double>& own_tics) {
  if (!data.known()) return "";
  const Span r = fitted(data, log, axis[0] == 'y');
  std::string s = fmt::format("set {}range [{:.6g}:{:.6g}]\n", axis, r.lo, r.hi);
  if (!own_tics.empty()) return s + fmt::format("set {}tics {}\n", axis, tic_list(own_tics, true));
  if (const std::vector<double> at = log ? log_tics(r) : linear_tics(r); !at.empty())
    s += fmt::format("set {}tics {}\n", axis, tic_list(at));
  return s;
}

// More panels than this and a grouping is not used: runs of the limit are.
constexpr size_t kMaxPanels = 4;

struct Panel {
  std::string name;
  std::vector<size_t> series;  // indexes into the chart's series
};

// The chart's panels by the rule in plot_style.h.
std::vector<Panel> panels_of(const Chart& c, const std::vector<plot_style::Style>& styles) {
  std::vector<size_t> titled;
  bool chosen = false;
  for (size_t i = 0; i < c.series.size(); ++i) {
    if (!c.series[i].title.empty()) titled.push_back(i);
    chosen = chosen || !c.series[i].panel.empty();
  }
  const size_t limit = std::max<size_t>(1, c.max_series_per_panel);
  if (titled.size() <= limit && !chosen) return {{"", titled}};
  auto group = [&](auto key) {
    std::vector<Panel> out;
    for (size_t i : titled) {
      const std::string k = key(i);
      auto it = std::find_if(out.begin(), out.end(), [&](const Panel& p) { return p.name == k; });
      if (it == out.end()) it = out.insert(out.end(), Panel{k, {}});
      it->series.push_back(i);
    }
    return out;
  };
  auto fits = [&](const std::vector<Panel>& ps) {
    return ps.size() > 1 && ps.size() <= kMaxPanels &&
           std::all_of(ps.begin(), ps.end(), [&](const Panel& p) { return p.series.size() <= limit; });
  };
  std::vector<Panel> best;
  if (chosen) {
    best = group([&](size_t i) { return c.series[i].panel; });
  } else {
    // A series naming no mode (the source's figures, a guide) is drawn in every mode's panel.
    std::vector<Panel> by_mode;
    for (plot_style::ModeClass m : {plot_style::ModeClass::kDurable, plot_style::ModeClass::kBuffered}) {
      Panel p{plot_style::mode_class_name(m), {}};
      bool any = false;
      for (size_t i : titled) {
        any = any || styles[i].mode == m;
        if (styles[i].mode == m || styles[i].mode == plot_style::ModeClass::kNone) p.series.push_back(i);
      }
      if (any) by_mode.push_back(std::move(p));
    }
    const std::vector<Panel> by_family = group([&](size_t i) { return styles[i].family; });
    const std::vector<Panel> all = {{"", titled}};
    best = fits(by_mode) ? by_mode : fits(by_family) ? by_family : by_mode.size() > 1 ? by_mode : all;
  }
  std::vector<Panel> out;  // a group over the limit in even runs within it
  for (const Panel& p : best) {
    const size_t n = p.series.size(), runs = (n + limit - 1) / limit;
    for (size_t r = 0; r < runs; ++r) {
      Panel q{runs > 1 ? fmt::format("{}{}{} of {}", p.name, p.name.empty() ? "" : ", ", r + 1, runs) : p.name, {}};
      for (size_t k = r * n / runs; k < (r + 1) * n / runs; ++k) q.series.push_back(p.series[k]);
      out.push_back(std::move(q));
    }
  }
  return out;
}

bool has_option(const std::string& style, std::initializer_list<const char*> names) {
  std::stringstream ss(style);
  std::string w;
  ss >> w;  // the style itself
  while (ss >> w)
    for (const char* n : names)
      if (w == n) return true;
  return false;
}

// The "with" clause of a series: its own, error bars folded in, the kit's
// colour, dash and point type added where the series does not set its own.
std::string with_clause(const Series& ser, bool bars, const plot_style::Style& st) {
  std::string style = ser.style.empty() ? "linespoints" : ser.style;
  const size_t sp = style.find(' ');
  std::string kind = style.substr(0, sp), rest = sp == std::string::npos ? "" : style.substr(sp);
  if (bars) kind = kind == "points" ? "yerrorbars" : "yerrorlines";
  std::string out = kind + rest;
  if (!has_option(style, {"lc", "linecolor"})) out += fmt::format(" lc rgb '{}'", st.colour);
  if (!has_option(style, {"dt", "dashtype"})) out += fmt::format(" dt {}", st.dash);
  if (kind != "dots" && !has_option(style, {"pt", "pointtype"})) out += fmt::format(" pt {}", st.point);
  if ((kind.find("lines") != std::string::npos) && !has_option(style, {"lw", "linewidth"})) out += " lw 1.5";
  // Points with no line to follow are looked for one by one: larger.
  if ((kind == "points" || kind == "yerrorbars") && !has_option(style, {"ps", "pointsize"})) out += " ps 1.4";
  return out;
}

struct RefStyle {
  const char* colour;
  int dash;
};
RefStyle ref_style(Reference::Kind k) {
  switch (k) {
    case Reference::Kind::kFinding: return {"#B2182B", 2};
    case Reference::Kind::kSource: return {"#000000", 3};
    case Reference::Kind::kGuide: break;
  }
  return {"#777777", 4};
}

}  // namespace

std::string chart_script(const Chart& c, const std::string& name, const char* png_term) {
  std::string s = fmt::format("# fenec chart; regenerate with: gnuplot {}.gp (in this folder)\n", name);
  s += "# style: iobench/kit/plot_style.h (colour by family, dash by mode)\n";
  s += "set encoding utf8\n";
  Span xs, ys;
  std::vector<bool> bars(c.series.size());
  for (size_t i = 0; i < c.series.size(); ++i) {
    const auto& ser = c.series[i];
    bars[i] = !ser.errors.empty() && ser.errors.size() == ser.points.size();
    s += fmt::format("$data{} << EOD\n", i);
    for (size_t k = 0; k < ser.points.size(); ++k) {
      const auto& [x, y] = ser.points[k];
      if (!usable(x, c.logx) || !usable(y, c.logy)) continue;
      xs.add(x, c.logx);
      ys.add(y, c.logy);
      if (bars[i]) {
        // An unknown interval (one repetition) is drawn as a point without a bar.
        const auto [lo, hi] = ser.errors[k];
        const bool ok = usable(lo, c.logy) && usable(hi, c.logy);
        ys.add(ok ? lo : y, c.logy);
        ys.add(ok ? hi : y, c.logy);
        s += fmt::format("{} {} {} {}\n", x, y, ok ? lo : y, ok ? hi : y);
      } else {
        s += fmt::format("{} {}\n", x, y);
      }
    }
    s += "EOD\n";
  }
  for (const auto& m : c.marks) xs.add(m.x, c.logx);
  for (const auto& r : c.refs) ys.add(r.y, c.logy);

  std::vector<std::string> titles;
  for (const auto& ser : c.series) titles.push_back(ser.title);
  const std::vector<plot_style::Style> styles = plot_style::styles_of(titles);
  const std::vector<Panel> panels = panels_of(c, styles);
  const size_t cols = panels.size() == 1 ? 1 : 2, rows = (panels.size() + cols - 1) / cols;
  const int pw = cols == 1 ? c.width : c.width * 3 / 4, ph = rows == 1 ? c.height : c.height * 9 / 10;

  s += fmt::format("set xlabel {} noenhanced\nset ylabel {} noenhanced\n", wrapped(c.xlabel, chars_across(pw)),
                   wrapped(c.ylabel, chars_across(ph)));
  // A reference's label on a white box, readable where a series crosses it.
  s += "set style textbox opaque noborder\n";
  s += "set grid lt 1 lc rgb '#e3e3e3'\nset key below horizontal Left reverse noenhanced\nset pointsize 0.8\nset bars small\n";
  if (c.logx) s += "set logscale x\n";
  if (c.logy) s += "set logscale y\n";
  if (c.xtics.empty()) {
    s += axis_lines("x", c.logx, xs, integer_x_tics(c));
  } else {
    // An axis of categories: half a category's room beyond the outer ones.
    std::vector<double> at;
    for (const auto& [x, label] : c.xtics) at.push_back(x);
    std::sort(at.begin(), at.end());
    double step = 1;
    for (size_t i = 1; i < at.size(); ++i)
      if (at[i] > at[i - 1]) step = std::min(step, at[i] - at[i - 1]);
    for (double x : at) xs.add(x, c.logx);
    if (!c.logx) {
      xs.add(at.front() - step / 2, false);
      xs.add(at.back() + step / 2, false);
    }
    s += axis_lines("x", c.logx, xs, {});
    s += fmt::format("set xtics {}\n", tic_list(c.xtics));
  }
  s += axis_lines("y", c.logy, ys, {});
  for (const auto& m : c.marks) {
    if (!usable(m.x, c.logx)) continue;
    s += fmt::format("set arrow from {0}, graph 0 to {0}, graph 1 nohead dt 2 lc rgb 'gray40'\n", m.x);
    if (!m.label.empty()) {
      s += fmt::format(
          "set label {} at {}, graph 0.98 rotate by 90 right offset 1,0 noenhanced tc rgb "
          "'gray30' font ',8'\n",
          quote(m.label), m.x);
    }
  }
  for (const auto& r : c.refs) {
    if (!usable(r.y, c.logy)) continue;
    const RefStyle rs = ref_style(r.kind);
    s += fmt::format("set arrow from graph 0, first {0} to graph 1, first {0} nohead lw 1.5 dt {1} lc rgb '{2}' front\n",
                     r.y, rs.dash, rs.colour);
    if (!r.label.empty()) {
      // Above the line, or below it when the line runs along the top of the frame.
      const Span yr = fitted(ys, c.logy);
      auto at = [&](double v) { return c.logy ? std::log10(v) : v; };
      const bool top = ys.known() && (at(r.y) - at(yr.lo)) > 0.92 * (at(yr.hi) - at(yr.lo));
      s += fmt::format("set label {} at graph 0.01, first {} left offset 0,{} noenhanced tc rgb '{}' font ',9' boxed front\n",
                       quote(r.label), r.y, top ? "-0.7" : "0.6", rs.colour);
    }
  }

  std::string body;
  if (panels.size() > 1) {
    body += fmt::format("set multiplot layout {},{} title {} noenhanced\n", rows, cols,
                        wrapped(c.title, chars_across(static_cast<int>(cols) * pw)));
  } else {
    body += fmt::format("set title {} noenhanced\n", wrapped(c.title, chars_across(pw)));
  }
  // gnuplot sets a key below over the x label unless the margin is given:
  // columns counted on the wide side (9 px a character, a sample 9 wide) and
  // held there with maxcols, so the key's rows are the ones counted; every
  // panel gets the deepest margin, so their plots line up.
  size_t widest = 0, key_rows = 0;
  for (const Panel& p : panels)
    for (size_t i : p.series) widest = std::max(widest, c.series[i].title.size());
  const size_t across = std::clamp<size_t>(static_cast<size_t>(pw / 9) / (widest + 9), 1, 4);
  for (const Panel& p : panels) key_rows = std::max(key_rows, (p.series.size() + across - 1) / across);
  body += fmt::format("set key maxcols {}\nset bmargin {}\n", across,
                      3 + count_lines(wrapped(c.xlabel, chars_across(pw))) + key_rows);
  for (const Panel& p : panels) {
    if (panels.size() > 1) body += fmt::format("set title {} noenhanced\n", quote(p.name));
    std::vector<size_t> drawn = p.series;
    for (size_t i = 0; i < c.series.size(); ++i)
      if (c.series[i].title.empty()) drawn.push_back(i);  // spacers in every panel
    std::string plot;
    for (size_t i : drawn) {
      const auto& ser = c.series[i];
      plot += fmt::format("{}$data{} using {} with {} {}", plot.empty() ? "" : ", \\\n     ", i,
                          bars[i] ? "1:2:3:4" : "1:2", with_clause(ser, bars[i], styles[i]),
                          ser.title.empty() ? "notitle" : "title " + quote(ser.title));
    }
    body += "plot " + plot + "\n";
  }
  if (panels.size() > 1) body += "unset multiplot\n";

  const int w = static_cast<int>(cols) * pw, h = static_cast<int>(rows) * ph;
  s += fmt::format("set terminal {} size {},{} noenhanced font ',10'\n", png_term, w, h);
  s += fmt::format("set output {}\n", quote(name + ".png"));
  s += body;
  s += fmt::format("set terminal svg size {},{} noenhanced font ',10' background rgb 'white'\n", w, h);
  s += fmt::format("set output {}\n", quote(name + ".svg"));
  s += body;
  s += "set output\n";
  return s;
}

namespace {

bool nonempty(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec) && fs::file_size(p, ec) > 0 && !ec;
}

}  // namespace

std::string write_chart(const Chart& chart, const std::string& base) {
  size_t points = 0;
  for (const auto& s : chart.series) {
    for (const auto& [x, y] : s.points) points += usable(x, chart.logx) && usable(y, chart.logy);
  }
  if (points == 0) return "empty chart: no plottable points";

  const fs::path bp(base);
  const fs::path dir = bp.has_parent_path() ? bp.parent_path() : fs::path(".");
  const std::string name = bp.filename().string();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return fmt::format("create {}: {}", dir.string(), ec.message());

  // Without gnuplot the script is still saved (with the usual terminal) for later.
  const bool have_gnuplot = find_gnuplot();
  const std::string script = chart_script(chart, name, have_gnuplot ? png_terminal() : "pngcairo");
  {
    std::ofstream gp_file(base + ".gp");
    gp_file << script;
    if (!gp_file.flush()) return fmt::format("write {}.gp: failed", base);
  }
  if (!have_gnuplot) return "gnuplot not installed (apt-get install gnuplot-nox)";

  const fs::path png = base + ".png", svg = base + ".svg";
  fs::remove(png, ec);
  fs::remove(svg, ec);
  const std::string err_path = base + ".gnuplot-err";
  try {
    // gnuplot's stderr goes to a file (quoted in our error) and the shell always
    // exits 0, so the outcome is judged by the files gnuplot wrote.
    Gnuplot gp(fmt::format("cd {} && gnuplot 2>{}; true", shell_quote(dir.string()),
                           shell_quote(name + ".gnuplot-err")));
    gp << script << std::flush;
  } catch (const std::exception& e) {
    return fmt::format("gnuplot: {}", e.what());
  }
  std::string err;
  {
    std::ifstream in(err_path);
    std::getline(in, err);
  }
  fs::remove(err_path, ec);
  if (!nonempty(png) || !nonempty(svg)) {
    return fmt::format("gnuplot wrote no {}: {}", nonempty(png) ? "svg" : "png",
                       err.empty() ? "no message" : err);
  }
  return "";
}

}  // namespace fenec::kit
