#include "iobench/kit/plot.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gnuplot-iostream.h>
#include <sstream>

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

std::string build_script(const Chart& c, const std::string& name, const char* png_term) {
  std::string s = fmt::format("# fenec chart; regenerate with: gnuplot {}.gp (in this folder)\n", name);
  s += "set encoding utf8\n";
  s += fmt::format("set title {} noenhanced\n", quote(c.title));
  s += fmt::format("set xlabel {} noenhanced\nset ylabel {} noenhanced\n", quote(c.xlabel),
                   quote(c.ylabel));
  s += "set grid\nset key outside right top noenhanced\n";
  if (c.logx) s += "set logscale x\n";
  if (c.logy) s += "set logscale y\n";
  for (const auto& m : c.marks) {
    if (!usable(m.x, c.logx)) continue;
    s += fmt::format("set arrow from {0}, graph 0 to {0}, graph 1 nohead dt 2 lc rgb 'gray40'\n",
                     m.x);
    if (!m.label.empty()) {
      s += fmt::format(
          "set label {} at {}, graph 0.98 rotate by 90 right offset 1,0 noenhanced tc rgb "
          "'gray30' font ',8'\n",
          quote(m.label), m.x);
    }
  }
  std::string plot;
  for (size_t i = 0; i < c.series.size(); ++i) {
    const auto& ser = c.series[i];
    const bool bars = !ser.errors.empty() && ser.errors.size() == ser.points.size();
    s += fmt::format("$data{} << EOD\n", i);
    for (size_t k = 0; k < ser.points.size(); ++k) {
      const auto& [x, y] = ser.points[k];
      if (!usable(x, c.logx) || !usable(y, c.logy)) continue;
      if (bars) {
        // An unknown interval (one repetition) is drawn as a point without a bar.
        const auto [lo, hi] = ser.errors[k];
        const bool ok = usable(lo, c.logy) && usable(hi, c.logy);
        s += fmt::format("{} {} {} {}\n", x, y, ok ? lo : y, ok ? hi : y);
      } else {
        s += fmt::format("{} {}\n", x, y);
      }
    }
    s += "EOD\n";
    std::string style = ser.style.empty() ? "linespoints" : ser.style;
    if (bars) style = style == "points" ? "yerrorbars" : "yerrorlines";
    plot += fmt::format("{}$data{} using {} with {} title {}", i ? ", \\\n     " : "", i, bars ? "1:2:3:4" : "1:2",
                        style, quote(ser.title));
  }
  s += fmt::format("set terminal {} size {},{} noenhanced font ',10'\n", png_term, c.width,
                   c.height);
  s += fmt::format("set output {}\n", quote(name + ".png"));
  s += "plot " + plot + "\n";
  s += fmt::format("set terminal svg size {},{} noenhanced font ',10' background rgb 'white'\n",
                   c.width, c.height);
  s += fmt::format("set output {}\nreplot\nset output\n", quote(name + ".svg"));
  return s;
}

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
  const std::string script = build_script(chart, name, have_gnuplot ? png_terminal() : "pngcairo");
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
