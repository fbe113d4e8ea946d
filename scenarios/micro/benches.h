// The Google Benchmark registrations of micro-bench, on data built once from
// the run's seed. Names are "MM<n>/<arm>" (Google Benchmark appends
// "/real_time" and "/threads:<n>"); each arm's case string says what it ran on.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "scenarios/micro/kernels.h"
#include "scenarios/micro/matchers.h"

namespace fenec::scenarios::micro {

struct Fixtures {
  Graph graph;
  std::vector<uint32_t> starts;       // walk starts, the same for every MM-2 arm
  std::vector<std::string> lines;     // MM-4 input
  std::unique_ptr<SharedMatcher> shared;
  std::unique_ptr<Re2Matcher> re2;               // MM-4 on RE2: the one every thread shares
  std::unique_ptr<Pcre2Code> pcre2;              // MM-4 on PCRE2: the compiled pattern
  std::unique_ptr<Pcre2SharedMatcher> pcre2_shared;
  StringFile file;                    // MM-5 input
  int fd = -1;
};

struct FixtureSizes {
  size_t graph_nodes = 1000000;
  size_t walks = 256;
  size_t lines = 4096;
  size_t strings = 10000;
};

// Builds every fixture; the MM-5 file goes in `dir`. Returns "" or the error.
std::string build_fixtures(const FixtureSizes& sizes, uint64_t seed, const std::string& dir,
                           Fixtures* f);
void close_fixtures(Fixtures* f);

// MM-4's std::regex pair runs this many times --min-time: at 2 threads the
// CPU a line costs the shared matcher moves with how often the threads
// collide on its slot (1.37k..1.79k ns between 50 ms repetitions here), and a
// longer repetition averages the collisions. The judged RE2 and PCRE2 pairs
// run --min-time each, but four times a pass (kMm4Judged, main.cc).
constexpr double kMm4MinTimeFactor = 2;

// The benchmarks MM-4's verdict judges (RE2 and PCRE2, shared and per
// thread, at 2 threads), as a Google Benchmark filter.
inline constexpr const char* kMm4Judged = "^MM4/(re2|pcre2)_[a-z_]+/.*threads:2$";

// Registers every benchmark; `cases` receives function name -> case string.
// `min_time` is --min-time (seconds each benchmark runs at least).
void register_benchmarks(Fixtures& f, const FixtureSizes& sizes, double min_time,
                         std::map<std::string, std::string>* cases);

}  // namespace fenec::scenarios::micro
