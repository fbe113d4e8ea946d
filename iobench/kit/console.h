// Human-readable output: aligned tables on stdout, and a progress line on
// stderr that is drawn only when stderr is a terminal (quiet in CI and pipes).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace fenec::kit {

// A plain text table: columns padded to their widest cell, numbers right-aligned.
class Table {
 public:
  explicit Table(std::vector<std::string> header);
  void row(std::vector<std::string> cells);
  std::string str() const;
 private:
  std::vector<std::vector<std::string>> rows_;
};

// "Writing 3/24 cells  [size=4k jobs=8]  ETA 1m20s" redrawn in place at most
// 10 times a second. No output at all unless isatty(STDERR_FILENO) (or
// FENEC_PROGRESS=1 forces it); finish() clears the line.
class Progress {
 public:
  Progress(std::string label, uint64_t total);
  ~Progress();
  void update(uint64_t done, const std::string& detail = "");
  void finish();
  bool enabled() const { return enabled_; }
 private:
  std::string label_;
  uint64_t total_;
  bool enabled_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

// Format helpers used by every table: "4k", "16m" / "1.23 ms" / "12.3 k".
std::string format_bytes(uint64_t bytes);     // 4096 -> "4k", 1048576 -> "1m", 1500 -> "1500"
std::string format_us(double us);             // 250.4 -> "250 us", 1520 -> "1.52 ms"
std::string format_count(double n);           // 4123 -> "4.12 k"

}  // namespace fenec::kit
