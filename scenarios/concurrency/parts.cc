// What the parts share: the arms, which part runs which, and the rows of a
// cell's counters.
#include "scenarios/concurrency/parts.h"

#include <algorithm>
#include <map>
#include <set>

namespace fc = fenec::scenarios::concurrency;

namespace fenec::scenarios::concurrency {

using kit::Harness;

namespace {

const std::vector<ArmSpec> kArms = {
    {"fenecdb-durable", fc::ArmSpec::Engine::kFenecdb, true, false},
    {"fenecdb-durable-naive", fc::ArmSpec::Engine::kFenecdb, true, true},
    {"fenecdb-durable-append", fc::ArmSpec::Engine::kFenecdb, true, false, true},
    // Its commit_window_us is --commit-window-us (arms_of sets it); fenecdb-durable's is the default, adaptive.
    {"fenecdb-durable-window", fc::ArmSpec::Engine::kFenecdb, true, false},
    // No commit window at all (arms_of sets commit_window_us 0): what the window buys.
    {"fenecdb-durable-nowindow", fc::ArmSpec::Engine::kFenecdb, true, false},
    {"fenecdb-buffered", fc::ArmSpec::Engine::kFenecdb, false, false},
    {"fenecdb-buffered-naive", fc::ArmSpec::Engine::kFenecdb, false, true},
    {"sqlite-full", fc::ArmSpec::Engine::kSqlite, true, false},
    {"sqlite-normal", fc::ArmSpec::Engine::kSqlite, false, false},
    {"rocksdb-durable", fc::ArmSpec::Engine::kRocksdb, true, false},
    {"rocksdb-buffered", fc::ArmSpec::Engine::kRocksdb, false, false},
    {"postgres-durable", fc::ArmSpec::Engine::kPostgres, true, false},
    {"postgres-buffered", fc::ArmSpec::Engine::kPostgres, false, false},
};

// Which arms each part runs: the naive arms only where the part has a switch;
// the peers that group-commit too (RocksDB, PostgreSQL) where the question
// is what a durable write costs at 1..16 writers.
const std::map<std::string, std::set<std::string>> kPartArms = {
    {"writers",
     {"fenecdb-durable", "fenecdb-durable-naive", "fenecdb-durable-append", "fenecdb-durable-window",
      "fenecdb-durable-nowindow", "fenecdb-buffered", "sqlite-full", "sqlite-normal", "rocksdb-durable", "rocksdb-buffered", "postgres-durable", "postgres-buffered"}},
    {"readers", {"fenecdb-durable", "fenecdb-buffered", "fenecdb-buffered-naive", "sqlite-full", "sqlite-normal"}},
    {"batches",
     {"fenecdb-durable", "fenecdb-durable-naive", "fenecdb-buffered", "fenecdb-buffered-naive", "sqlite-full",
      "sqlite-normal"}},
    // SQLite's WAL readers never block its writers, whatever synchronous says:
    // one SQLite arm is the reference, and FULL's 1 000 preload syncs are not worth their time.
    {"long-read",
     {"fenecdb-durable", "fenecdb-durable-naive", "fenecdb-buffered", "fenecdb-buffered-naive", "sqlite-normal"}},
};

}  // namespace

const std::vector<ArmSpec>& all_arms() { return kArms; }

std::vector<fc::ArmSpec> arms_of(const Config& c, const std::string& part) {
  std::vector<fc::ArmSpec> out;
  for (const auto& a : all_arms()) {
    if (!kPartArms.at(part).count(a.name) || c.unavailable.count(a.name)) continue;
    if (!c.arms.empty() && std::find(c.arms.begin(), c.arms.end(), a.name) == c.arms.end()) continue;
    out.push_back(a);
    if (a.name == "fenecdb-durable-window") out.back().commit_window_us = c.commit_window_us;
    if (a.name == "fenecdb-durable-nowindow") out.back().commit_window_us = 0;
  }
  return out;
}

std::string finding_of(const std::string& part, const fc::ArmSpec& a) {
  if (part == "writers") return a.durable ? "CC-1" : "CC-2";
  if (part == "readers") return "CC-4";
  if (part == "batches") return "CC-3";
  return "CC-5";
}

void add_counters(Harness& h, const std::string& f, const std::string& arm, const std::string& c,
                  const fc::Counters& k, double seconds) {
  auto& r = h.results();
  r.add(f, arm, c, "commits", static_cast<double>(k.commits), "count");
  r.add(f, arm, c, "fsyncs", static_cast<double>(k.fsyncs), "count");
  r.add(f, arm, c, "fsyncs_per_commit", k.commits ? static_cast<double>(k.fsyncs) / k.commits : 0, "ratio");
  r.add(f, arm, c, "seconds", seconds, "s");
  for (const auto& [metric, v] : k.extra) r.add(f, arm, c, metric, v.first, v.second);
}

double extra(const fc::Counters& k, const std::string& name) {
  auto it = k.extra.find(name);
  return it == k.extra.end() ? -1 : it->second.first;
}

}  // namespace fenec::scenarios::concurrency
