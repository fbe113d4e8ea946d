// concurrency-bench's parts (writers, readers/batches, long-read), each in
// its own file, and what they share: the run's configuration, the arms each
// part runs, and the Runner that gives every cell fresh stores and turns a
// failure into a skip with its reason. main.cc holds only the command line.
#pragma once

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "iobench/kit/interrupt.h"
#include "iobench/kit/console.h"
#include "iobench/kit/harness.h"
#include "scenarios/concurrency/report.h"
#include "scenarios/engines/store.h"

namespace fenec::scenarios::concurrency {
// The engine arms this bench drives live in scenarios/engines, shared with
// the other scenarios that run engines.
using namespace engines;

struct Config {
  std::vector<int> writers;
  std::vector<std::string> parts{"writers", "readers", "batches", "long-read"};
  std::vector<std::string> arms;
  double seconds = 0;
  int rounds = 10;  // rounds a buffered writers cell is split into, over its repetition
  uint64_t max_ops = 2'000'000;
  int readers = 2, reader_writers = 2;
  int batch = 1000, batch_readers = 2;
  uint64_t preload_rows = 0;
  uint64_t long_rows = 0;
  int long_reads = 0, long_writers = 1;
  double long_gap = -1;
  int peer_check_seconds = -1;  // each peer tool's run (0: no check)
  uint32_t commit_window_us = 0;  // fenecdb-durable-window's Options::commit_window_us
  std::set<std::string> unavailable;  // arms that cannot run here (recorded as skipped once)
};

// Every arm the bench knows, in the order it prints them.
const std::vector<ArmSpec>& all_arms();
// The arms `part` runs (the naive arms only where the part has a switch),
// narrowed to --arms.
std::vector<ArmSpec> arms_of(const Config& c, const std::string& part);
// The finding a part's arm speaks to: writers CC-1 (durable) / CC-2, readers
// CC-4, batches CC-3, long-read CC-5.
std::string finding_of(const std::string& part, const ArmSpec& a);

// Runs `body` on a fresh store for one (part, arm, case) cell, or on fresh
// stores of several arms at once (cells); a store that cannot open or a
// workload error is a skip with its reason (for every arm of the cell),
// never a number. Each returns true if the body ran without error.
class Runner {
 public:
  // pg_conninfo: the run's PostgreSQL cluster ("" if none: its arms skip).
  Runner(kit::Harness& h, size_t cells, std::string pg_conninfo = "")
      : h_(h), progress_("concurrency", cells), pg_conninfo_(std::move(pg_conninfo)) {}
  ~Runner() { progress_.finish(); }

  template <typename Body>
  bool cell(const std::string& part, const ArmSpec& arm, const std::string& case_, Body body) {
    return cells(part, {arm}, case_, [&](const std::vector<Store*>& s) { return body(*s[0]); });
  }

  template <typename Body>
  bool cells(const std::string& part, const std::vector<ArmSpec>& arms, const std::string& case_, Body body) {
    std::string names;
    for (const auto& a : arms) names += (names.empty() ? "" : "+") + a.name;
    progress_.update(done_++, fmt::format("{} {} {}", part, names, case_));
    if (kit::stop_requested()) return false;
    std::vector<std::string> dirs;
    std::vector<std::unique_ptr<Store>> stores;
    std::vector<Store*> ptrs;
    std::string err;
    for (const auto& a : arms) {
      dirs.push_back(fmt::format("{}/{}/{}-{}", h_.data_dir(), part, a.name, cell_no_++));
      stores.push_back(open_store(a, part, dirs.back(), pg_conninfo_, &err));
      if (!stores.back()) break;
      ptrs.push_back(stores.back().get());
    }
    if (err.empty()) err = body(ptrs);
    for (auto& st : stores) {
      if (!st) continue;
      const std::string close_err = st->close();
      if (err.empty()) err = close_err;
    }
    stores.clear();
    for (const auto& d : dirs) {
      std::error_code ec;
      std::filesystem::remove_all(d, ec);
    }
    if (err.empty()) return true;
    for (const auto& a : arms) h_.results().skip(a.name, case_, err);
    return false;
  }

 private:
  kit::Harness& h_;
  kit::Progress progress_;
  size_t done_ = 0, cell_no_ = 0;
  std::string pg_conninfo_;
};

// A cell's counters as rows: commits, fsyncs, fsyncs a commit, seconds and
// the store's extras.
void add_counters(kit::Harness& h, const std::string& f, const std::string& arm, const std::string& c,
                  const Counters& k, double seconds);
// A store's extra counter, or -1 if it has none of that name.
double extra(const Counters& k, const std::string& name);
inline std::string rep_case(const std::string& cs, int r) { return fmt::format("{};rep={}", cs, r); }

void run_writers_part(kit::Harness& h, const Config& c, Runner& run, Report& rep);             // writers_part.cc
void run_mixed_part(kit::Harness& h, const Config& c, Runner& run, Report& rep, const std::string& part);  // mixed_part.cc
std::vector<std::vector<ArmSpec>> long_read_units(const Config& c);                            // long_read_part.cc
void run_long_read_part(kit::Harness& h, const Config& c, Runner& run, Report& rep);

}  // namespace fenec::scenarios::concurrency
