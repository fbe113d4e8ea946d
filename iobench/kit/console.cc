#include "iobench/kit/console.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace fenec::kit {
namespace {

// Display width in code points, so a "µs" cell does not throw the columns off.
size_t display_width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

bool looks_numeric(const std::string& s) {
  if (s.empty()) return false;
  size_t i = 0;
  if (s[0] == '-' || s[0] == '+') i = 1;
  if (i < s.size() && s[i] == '.') ++i;
  return i < s.size() && s[i] >= '0' && s[i] <= '9';
}

// Three significant digits, never an exponent (a 4-digit value prints whole).
std::string sig3(double x) {
  if (std::fabs(x) >= 999.5) return fmt::format("{:.0f}", x);
  return fmt::format("{:.3g}", x);
}

std::string format_duration(double seconds) {
  const auto s = static_cast<long>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s / 60) % 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

}  // namespace

Table::Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }

void Table::row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }

std::string Table::str() const {
  size_t ncols = 0;
  for (const auto& r : rows_) ncols = std::max(ncols, r.size());
  std::vector<size_t> width(ncols, 0);
  // A column is right-aligned (header included) when every body cell in it is a number.
  std::vector<bool> numeric(ncols, true);
  std::vector<bool> any(ncols, false);
  for (size_t r = 0; r < rows_.size(); ++r) {
    for (size_t c = 0; c < rows_[r].size(); ++c) {
      width[c] = std::max(width[c], display_width(rows_[r][c]));
      if (r == 0 || rows_[r][c].empty()) continue;
      any[c] = true;
      numeric[c] = numeric[c] && looks_numeric(rows_[r][c]);
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < ncols; ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      const std::string pad(width[c] - display_width(cell), ' ');
      if (c) out += "  ";
      out += (numeric[c] && any[c]) ? pad + cell : cell + pad;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(rows_[0]);
  std::vector<std::string> rule;
  for (size_t c = 0; c < ncols; ++c) rule.emplace_back(width[c], '-');
  out += line(rule);
  for (size_t r = 1; r < rows_.size(); ++r) out += line(rows_[r]);
  return out;
}

Progress::Progress(std::string label, uint64_t total)
    : label_(std::move(label)), total_(total), start_(std::chrono::steady_clock::now()) {
  const char* force = std::getenv("FENEC_PROGRESS");
  if (force && *force) {
    enabled_ = std::strcmp(force, "0") != 0;
  } else {
    enabled_ = isatty(STDERR_FILENO) == 1;
  }
}

Progress::~Progress() { finish(); }

void Progress::update(uint64_t done, const std::string& detail) {
  if (!enabled_ || finished_) return;
  const auto now = std::chrono::steady_clock::now();
  // Redraw at most 10 times a second, but always show the last step.
  if (done < total_ && last_draw_.time_since_epoch().count() != 0 &&
      now - last_draw_ < std::chrono::milliseconds(100))
    return;
  last_draw_ = now;
  std::string line = fmt::format("{} {}/{}", label_, done, total_);
  if (!detail.empty()) line += fmt::format("  [{}]", detail);
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (done > 0 && done < total_) {
    line += "  ETA " + format_duration(elapsed / static_cast<double>(done) *
                                       static_cast<double>(total_ - done));
  }
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
}

void Progress::finish() {
  if (finished_) return;
  finished_ = true;
  if (!enabled_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
}

std::string format_bytes(uint64_t bytes) {
  static constexpr const char* kSuffix[] = {"k", "m", "g", "t", "p"};
  if (bytes == 0 || bytes % 1024 != 0) return std::to_string(bytes);
  int i = -1;
  while (bytes % 1024 == 0 && i < 4) {
    bytes /= 1024;
    ++i;
  }
  return fmt::format("{}{}", bytes, kSuffix[i]);
}

std::string format_us(double us) {
  if (std::fabs(us) < 999.5) return sig3(us) + " us";
  if (std::fabs(us) < 999.5e3) return sig3(us / 1e3) + " ms";
  return sig3(us / 1e6) + " s";
}

std::string format_count(double n) {
  const double a = std::fabs(n);
  if (a < 999.5) return sig3(n);
  if (a < 999.5e3) return sig3(n / 1e3) + " k";
  if (a < 999.5e6) return sig3(n / 1e6) + " M";
  return sig3(n / 1e9) + " G";
}

}  // namespace fenec::kit
