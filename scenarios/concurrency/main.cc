// concurrency-bench: CC-1..CC-5 of FINDINGS.md, fenecdb against SQLite in
// the same run, on the same workloads (workload.h), each cell a fresh store,
// every cell's arms h.reps() times, interleaved, for the intervals of the
// verdicts' ratios (report.h).
//
//   writers    1..16 writers, a row a commit: writes/s, commits, fsyncs   CC-1, CC-2
//   readers    readers by id beside single-row writers: read waits        CC-4
//   batches    readers beside 1 000-row batches: read waits, lock hold    CC-3
//   long-read  an aggregate over the table beside writers: write waits    CC-5
//
// "-naive" flips the one fenecdb switch the part measures: commit mode
// (writers), buffer write under the lock (readers), batch built under the
// lock (batches), long reads under the lock (long-read).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "iobench/kit/console.h"
#include "iobench/kit/harness.h"
#include "engine/src/base/histogram.h"
#include "scenarios/concurrency/report.h"
#include "scenarios/concurrency/store.h"
#include "scenarios/concurrency/workload.h"
#include "engine/src/base/interrupt.h"
#include "iobench/kit/stats.h"

namespace fc = fenec::scenarios::concurrency;
using fenec::kit::Harness;

namespace {

const std::vector<fc::ArmSpec> kArms = {
    {"fenecdb-durable", fc::ArmSpec::Engine::kFenecdb, true, false},
    {"fenecdb-durable-naive", fc::ArmSpec::Engine::kFenecdb, true, true},
    {"fenecdb-buffered", fc::ArmSpec::Engine::kFenecdb, false, false},
    {"fenecdb-buffered-naive", fc::ArmSpec::Engine::kFenecdb, false, true},
    {"sqlite-full", fc::ArmSpec::Engine::kSqlite, true, false},
    {"sqlite-normal", fc::ArmSpec::Engine::kSqlite, false, false},
};

// Which arms each part runs: the naive arms only where the part has a switch.
const std::map<std::string, std::set<std::string>> kPartArms = {
    {"writers", {"fenecdb-durable", "fenecdb-durable-naive", "fenecdb-buffered", "sqlite-full", "sqlite-normal"}},
    {"readers", {"fenecdb-durable", "fenecdb-buffered", "fenecdb-buffered-naive", "sqlite-full", "sqlite-normal"}},
    {"batches",
     {"fenecdb-durable", "fenecdb-durable-naive", "fenecdb-buffered", "fenecdb-buffered-naive", "sqlite-full",
      "sqlite-normal"}},
    // SQLite's WAL readers never block its writers, whatever synchronous says:
    // one SQLite arm is the reference, and FULL's 1 000 preload syncs are not worth their time.
    {"long-read",
     {"fenecdb-durable", "fenecdb-durable-naive", "fenecdb-buffered", "fenecdb-buffered-naive", "sqlite-normal"}},
};

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
};

std::vector<fc::ArmSpec> arms_of(const Config& c, const std::string& part) {
  std::vector<fc::ArmSpec> out;
  for (const auto& a : kArms) {
    if (!kPartArms.at(part).count(a.name)) continue;
    if (!c.arms.empty() && std::find(c.arms.begin(), c.arms.end(), a.name) == c.arms.end()) continue;
    out.push_back(a);
  }
  return out;
}

std::string finding_of(const std::string& part, const fc::ArmSpec& a) {
  if (part == "writers") return a.durable ? "CC-1" : "CC-2";
  if (part == "readers") return "CC-4";
  if (part == "batches") return "CC-3";
  return "CC-5";
}

// Runs `body` on a fresh store for one (part, arm, case) cell, or on fresh
// stores of several arms at once (cells); a store that cannot open or a
// workload error is a skip with its reason (for every arm of the cell),
// never a number. Each returns true if the body ran without error.
class Runner {
 public:
  Runner(Harness& h, size_t cells) : h_(h), progress_("concurrency", cells) {}
  ~Runner() { progress_.finish(); }

  template <typename Body>
  bool cell(const std::string& part, const fc::ArmSpec& arm, const std::string& case_, Body body) {
    return cells(part, {arm}, case_, [&](const std::vector<fc::Store*>& s) { return body(*s[0]); });
  }

  template <typename Body>
  bool cells(const std::string& part, const std::vector<fc::ArmSpec>& arms, const std::string& case_, Body body) {
    std::string names;
    for (const auto& a : arms) names += (names.empty() ? "" : "+") + a.name;
    progress_.update(done_++, fmt::format("{} {} {}", part, names, case_));
    if (fenec::base::StopRequested()) return false;
    std::vector<std::string> dirs;
    std::vector<std::unique_ptr<fc::Store>> stores;
    std::vector<fc::Store*> ptrs;
    std::string err;
    for (const auto& a : arms) {
      dirs.push_back(fmt::format("{}/{}/{}-{}", h_.data_dir(), part, a.name, cell_no_++));
      stores.push_back(fc::open_store(a, part, dirs.back(), &err));
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
  Harness& h_;
  fenec::kit::Progress progress_;
  size_t done_ = 0, cell_no_ = 0;
};

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

// What the repetitions of one (arm, writers) cell add up to.
struct WriterReps {
  std::vector<double> writes_per_s;
  uint64_t writes = 0, commits = 0, fsyncs = 0;
  double seconds = 0;
  fenec::base::Histogram write_ns;
};

std::string rep_case(const std::string& cs, int r) { return fmt::format("{};rep={}", cs, r); }

// Whether a writers cell runs in round k of repetition r: a buffered cell
// in every round (its time split over them, a fresh store each), a durable
// one in one round, the (writer count, repetition) pairs' rounds spread over
// the part.
bool runs_in_round(const fc::ArmSpec& arm, size_t writer_index, size_t writer_counts, int rep, int reps, int round,
                   int rounds) {
  if (!arm.durable) return true;
  const size_t slot = writer_index * static_cast<size_t>(reps) + static_cast<size_t>(rep);
  return static_cast<size_t>(round) == slot * static_cast<size_t>(rounds) / (writer_counts * reps);
}

void run_writers_part(Harness& h, const Config& c, Runner& run, fc::Report& rep) {
  std::map<std::pair<std::string, int>, WriterReps> acc;
  const auto arms = arms_of(c, "writers");
  // Arms inside writer counts inside repetitions: a shared machine's drift
  // (other work, other fsyncs) then hits every arm and every count alike, and
  // repetition r of each (arm, writers) cell can be paired with any other's.
  //
  // A buffered cell is CPU-bound, and its rate with two or more writers
  // swings with stretches of the machine's: at a third to a half of the
  // usual speed for a second or for a whole repetition (every store opened
  // then, this process alone on both CPUs), as if the hypervisor had moved
  // the two vCPUs apart and the lock's cache line now crossed between them;
  // one writer never does. So a buffered cell's time is split into c.rounds
  // rounds, a fresh store each, and the rounds of the repetitions take turns
  // (round 0 of every repetition, then round 1, ...): each repetition's rate
  // is then spread over the whole part, and a slow stretch is shared by the
  // repetitions rather than deciding one. Their intervals are then about the
  // ratio over this run's stretches. A durable cell (fsync-bound, where
  // SQLite's 16 writers also overrun a cell by a second in busy waits) runs
  // once a repetition, at one of those rounds.
  struct Sum {
    fc::WritersResult res;
    double round_min = 0, round_max = 0;
    int rounds = 0;
    bool failed = false;
  };
  std::map<std::tuple<int, std::string, int>, Sum> sums;  // (repetition, arm, writers)
  for (int k = 0; k < c.rounds && !fenec::base::StopRequested(); ++k) {
    for (int r = 0; r < h.reps(); ++r) {
      for (size_t wi = 0; wi < c.writers.size(); ++wi) {
        const int w = c.writers[wi];
        for (const auto& arm : arms) {
          if (!runs_in_round(arm, wi, c.writers.size(), r, h.reps(), k, c.rounds)) continue;
          Sum& sum = sums[{r, arm.name, w}];
          if (sum.failed) continue;
          const int rounds = arm.durable ? 1 : c.rounds;
          const fc::Budget b{c.seconds / rounds, std::max<uint64_t>(1, c.max_ops / rounds)};
          const std::string cs = rep_case(fmt::format("writers={}", w), r);
          sum.failed = !run.cell("writers", arm, cs, [&](fc::Store& s) -> std::string {
            const fc::WritersResult res = fc::run_writers(s, w, b, h.seed() + w + 1000 * r + 100'000 * k);
            if (!res.error.empty()) return res.error;
            const double rate = res.writes / res.seconds;
            sum.round_min = sum.rounds == 0 ? rate : std::min(sum.round_min, rate);
            sum.round_max = std::max(sum.round_max, rate);
            ++sum.rounds;
            sum.res.writes += res.writes;
            sum.res.seconds += res.seconds;
            sum.res.write_ns.Merge(res.write_ns);
            sum.res.counters.commits += res.counters.commits;
            sum.res.counters.fsyncs += res.counters.fsyncs;
            if (rounds == 1) sum.res.counters.extra = res.counters.extra;
            return "";
          });
        }
      }
    }
  }
  for (const auto& [key, sum] : sums) {
    const auto& [r, arm_name, w] = key;
    const fc::ArmSpec& arm =
        *std::find_if(arms.begin(), arms.end(), [&](const auto& x) { return x.name == arm_name; });
    if (sum.failed || sum.rounds < (arm.durable ? 1 : c.rounds)) continue;  // failed, or cut short by Ctrl-C
    const std::string f = finding_of("writers", arm);
    const std::string cs = rep_case(fmt::format("writers={}", w), r);
    const double wps = sum.res.writes / sum.res.seconds;
    auto& res = h.results();
    res.add(f, arm_name, cs, "writes_per_s", wps, "ops/s");
    res.add_latency(f, arm_name, cs, sum.res.write_ns, "write");
    add_counters(h, f, arm_name, cs, sum.res.counters, sum.res.seconds);
    if (sum.rounds > 1) {
      res.add(f, arm_name, cs, "rounds", sum.rounds, "count");
      res.add(f, arm_name, cs, "round_writes_per_s_min", sum.round_min, "ops/s");
      res.add(f, arm_name, cs, "round_writes_per_s_max", sum.round_max, "ops/s");
    }
    WriterReps& a = acc[{arm_name, w}];
    a.writes_per_s.push_back(wps);
    a.writes += sum.res.writes;
    a.commits += sum.res.counters.commits;
    a.fsyncs += sum.res.counters.fsyncs;
    a.seconds += sum.res.seconds;
    a.write_ns.Merge(sum.res.write_ns);
    rep.writers[arm_name][w][r] = {wps, static_cast<double>(sum.res.counters.commits),
                                   static_cast<double>(sum.res.counters.fsyncs), sum.res.write_ns.max() / 1000.0,
                                   sum.round_min, sum.round_max};
  }
  // The summary rows (case writers=N): the median rate of the repetitions,
  // the counts summed over them. The ratios and their intervals are judge()'s.
  for (const auto& [key, a] : acc) {
    const auto& [arm_name, w] = key;
    const fc::ArmSpec& arm = *std::find_if(kArms.begin(), kArms.end(), [&](const auto& x) { return x.name == arm_name; });
    const std::string f = finding_of("writers", arm);
    const std::string cs = fmt::format("writers={}", w);
    auto& res = h.results();
    res.add(f, arm_name, cs, "writes_per_s", fenec::kit::median(a.writes_per_s), "ops/s");
    res.add(f, arm_name, cs, "writes", static_cast<double>(a.writes), "count");
    res.add(f, arm_name, cs, "reps", static_cast<double>(a.writes_per_s.size()), "count");
    res.add_latency(f, arm_name, cs, a.write_ns, "write");
    fc::Counters total;
    total.commits = a.commits;
    total.fsyncs = a.fsyncs;
    add_counters(h, f, arm_name, cs, total, a.seconds);
  }
}

// A read by id costs well under a microsecond here uncontended (p99.9 < 1
// us): one that took 10 us waited for something, a batch holding the lock or
// the scheduler. Only a few reads in a thousand do, so the percentiles of all
// reads never show them; the median of these is the readers' wait for a batch.
constexpr uint64_t kBlockedNs = 10'000;

struct Blocked {
  uint64_t count = 0;
  double p50_us = 0;
};

Blocked blocked_reads(const fenec::base::Histogram& ns) {
  Blocked b;
  const auto bins = ns.Bins();
  for (const auto& bin : bins) b.count += bin.lo >= kBlockedNs ? bin.count : 0;
  uint64_t seen = 0;
  for (const auto& bin : bins) {
    if (bin.lo < kBlockedNs) continue;
    seen += bin.count;
    if (2 * seen >= b.count) {
      b.p50_us = (bin.lo + bin.hi) / 2000.0;
      break;
    }
  }
  return b;
}

fc::MixedFig mixed_fig(const fc::MixedResult& r) {
  const auto rs = fenec::base::LatencySummary::Of(r.read_ns);
  fc::MixedFig f;
  f.reads_per_s = r.reads / r.seconds;
  f.writes_per_s = r.writes / r.seconds;
  f.read_p50_us = rs.p50_us;
  f.read_p99_us = rs.p99_us;
  f.read_p999_us = rs.p999_us;
  f.read_max_us = rs.max_us;
  const Blocked b = blocked_reads(r.read_ns);
  f.reads_blocked = static_cast<double>(b.count);
  f.read_blocked_p50_us = b.p50_us;
  f.lock_hold_mean_us = extra(r.counters, "lock_hold_mean_us");
  f.lock_hold_max_us = extra(r.counters, "lock_hold_max_us");
  f.buffer_flushes = extra(r.counters, "buffer_flushes");
  f.buffer_flushes_under_lock = extra(r.counters, "buffer_flushes_under_lock");
  return f;
}

void add_mixed_rows(Harness& h, const std::string& f, const std::string& arm, const std::string& cs,
                    const fc::MixedResult& r, const char* write_prefix) {
  auto& res = h.results();
  res.add(f, arm, cs, "reads_per_s", r.reads / r.seconds, "ops/s");
  res.add(f, arm, cs, "reads", static_cast<double>(r.reads), "count");
  res.add(f, arm, cs, "writes_per_s", r.writes / r.seconds, "rows/s");
  res.add_latency(f, arm, cs, r.read_ns, "read_wait");
  const Blocked b = blocked_reads(r.read_ns);
  res.add(f, arm, cs, "reads_blocked", static_cast<double>(b.count), "count");
  res.add(f, arm, cs, "read_blocked_p50_us", b.p50_us, "us");
  res.add_latency(f, arm, cs, r.write_ns, write_prefix);
  add_counters(h, f, arm, cs, r.counters, r.seconds);
}

// One cell's rounds as one result: counts add, histograms merge, the
// longest of the *_max_us extras is kept, the *_mean_us ones are weighted by
// the write lock's acquisitions (else by time).
void merge_rounds(fc::MixedResult* into, const fc::MixedResult& r) {
  const auto weight = [](const fc::MixedResult& x) {
    auto it = x.counters.extra.find("write_lock_acquisitions");
    return it != x.counters.extra.end() ? it->second.first : x.seconds;
  };
  const double w0 = weight(*into), w1 = weight(r);
  for (const auto& [name, v] : r.counters.extra) {
    auto [it, fresh] = into->counters.extra.try_emplace(name, v);
    if (fresh) continue;
    double& x = it->second.first;
    const auto ends = [&](const char* suffix) {
      const std::string s(suffix);
      return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
    };
    if (ends("_max_us")) x = std::max(x, v.first);
    else if (ends("_mean_us")) x = w0 + w1 > 0 ? (x * w0 + v.first * w1) / (w0 + w1) : x;
    else x += v.first;
  }
  into->reads += r.reads;
  into->writes += r.writes;
  into->commits_done += r.commits_done;
  into->seconds += r.seconds;
  into->read_ns.Merge(r.read_ns);
  into->write_ns.Merge(r.write_ns);
  into->hold_ns.Merge(r.hold_ns);
  into->counters.commits += r.counters.commits;
  into->counters.fsyncs += r.counters.fsyncs;
}

void run_mixed_part(Harness& h, const Config& c, Runner& run, fc::Report& rep, const std::string& part) {
  const bool batches = part == "batches";
  const std::string base_case = batches ? fmt::format("batch={};readers={}", c.batch, c.batch_readers)
                                        : fmt::format("readers={};writers={}", c.readers, c.reader_writers);
  (batches ? rep.batches_case : rep.readers_case) = base_case;
  const auto arms = arms_of(c, part);
  // A repetition opens every arm's store and runs them in c.rounds rounds,
  // the arms in turn in each: each arm's figures then span the repetition,
  // and a stretch of seconds when the two vCPUs are slow to share a cache
  // line (main.cc's writers part) meets every arm alike rather than one.
  for (int rep_no = 0; rep_no < h.reps() && !fenec::base::StopRequested(); ++rep_no) {
    const std::string cs = rep_case(base_case, rep_no);
    run.cells(part, arms, cs, [&](const std::vector<fc::Store*>& stores) -> std::string {
      for (fc::Store* s : stores) {
        int64_t sum = 0;
        if (auto e = fc::preload(*s, c.preload_rows, h.seed() + rep_no, &sum); !e.empty()) return e;
      }
      std::vector<fc::MixedResult> acc(arms.size());
      const fc::Budget b{c.seconds / c.rounds, std::max<uint64_t>(1, c.max_ops / c.rounds)};
      for (int k = 0; k < c.rounds; ++k) {
        const uint64_t seed = h.seed() + 1000 * rep_no + 100'000 * k;
        for (size_t i = 0; i < arms.size(); ++i) {
          const fc::MixedResult r =
              batches ? fc::run_readers_beside_batches(*stores[i], c.batch_readers, c.batch, c.preload_rows, b, seed)
                      : fc::run_readers_beside_writers(*stores[i], c.readers, c.reader_writers, c.preload_rows, b,
                                                       seed);
          if (!r.error.empty()) return arms[i].name + ": " + r.error;
          merge_rounds(&acc[i], r);
        }
      }
      for (size_t i = 0; i < arms.size(); ++i) {
        const fc::MixedResult& r = acc[i];
        const std::string f = finding_of(part, arms[i]);
        add_mixed_rows(h, f, arms[i].name, cs, r, batches ? "batch" : "write");
        if (c.rounds > 1) h.results().add(f, arms[i].name, cs, "rounds", c.rounds, "count");
        fc::MixedFig fig = mixed_fig(r);
        if (batches) {
          h.results().add(f, arms[i].name, cs, "batches", static_cast<double>(r.commits_done), "count");
          if (r.hold_ns.count() > 0) {
            h.results().add_latency(f, arms[i].name, cs, r.hold_ns, "batch_hold");
            fig.batch_hold_p50_us = r.hold_ns.Percentile(50) / 1000.0;
          }
        }
        (batches ? rep.batches : rep.readers)[arms[i].name][rep_no] = fig;
      }
      return "";
    });
  }
}

// The long-read part's cells: each fenecdb durability's pinned and locked
// arms together (their reads alone alternate, so a slow second of the machine
// hits both alike: CC-5's "same speed"), any other arm alone.
std::vector<std::vector<fc::ArmSpec>> long_read_units(const Config& c) {
  std::vector<std::vector<fc::ArmSpec>> units;
  const auto arms = arms_of(c, "long-read");
  for (const auto& a : arms) {
    if (a.naive) continue;
    std::vector<fc::ArmSpec> unit{a};
    for (const auto& b : arms) {
      if (b.naive && b.engine == a.engine && b.durable == a.durable) unit.push_back(b);
    }
    units.push_back(std::move(unit));
  }
  for (const auto& a : arms) {  // a naive arm without its pinned one
    const bool paired = std::any_of(units.begin(), units.end(), [&](const auto& u) {
      return std::any_of(u.begin(), u.end(), [&](const auto& x) { return x.name == a.name; });
    });
    if (!paired) units.push_back({a});
  }
  return units;
}

void record_long_read(Harness& h, const fc::ArmSpec& arm, const std::string& cs, const fc::LongReadResult& r,
                      const fc::AloneReads& alone, fc::LongFig* lf) {
  auto& res = h.results();
  const std::string f = "CC-5";
  res.add(f, arm.name, cs, "writes_per_s", r.writes / r.seconds, "ops/s");
  res.add_latency(f, arm.name, cs, r.write_ns, "write_wait");
  double total = 0, longest = 0;
  for (double ms : r.long_read_ms) {
    total += ms;
    longest = std::max(longest, ms);
  }
  const double mean = r.long_read_ms.empty() ? 0 : total / r.long_read_ms.size();
  const double alone_ms = fenec::kit::median(alone.ms);
  res.add(f, arm.name, cs, "long_reads", static_cast<double>(r.long_read_ms.size()), "count");
  res.add(f, arm.name, cs, "long_read_ms", mean, "ms");
  res.add(f, arm.name, cs, "long_read_max_ms", longest, "ms");
  res.add(f, arm.name, cs, "long_read_alone_ms", alone_ms, "ms");
  if (alone.first_pin_us >= 0) res.add(f, arm.name, cs, "pin_alone_us", alone.first_pin_us, "us");
  const bool answers_ok = r.answers_ok && alone.answers_ok;
  res.add(f, arm.name, cs, "answers_ok", answers_ok ? 1 : 0, "bool");
  // The writes that overlapped a long read, and those in as long a window just before each.
  res.add_latency(f, arm.name, cs, r.during_read_ns, "write_wait_during_read");
  res.add_latency(f, arm.name, cs, r.before_read_ns, "write_wait_before_read");
  add_counters(h, f, arm.name, cs, r.counters, r.seconds);
  for (const std::string* problem : {&alone.answer_problem, &r.answer_problem}) {
    if (!problem->empty()) std::cerr << fmt::format("warning: {} {}: {}\n", arm.name, cs, *problem);
  }
  const auto ws = fenec::base::LatencySummary::Of(r.write_ns);
  lf->write_wait_max_us = ws.max_us;
  lf->write_wait_p999_us = ws.p999_us;
  lf->write_wait_p99_us = ws.p99_us;
  lf->write_wait_p50_us = ws.p50_us;
  const auto during = fenec::base::LatencySummary::Of(r.during_read_ns);
  const auto before = fenec::base::LatencySummary::Of(r.before_read_ns);
  lf->during_p50_us = during.p50_us;
  lf->during_p99_us = during.p99_us;
  lf->during_p999_us = during.p999_us;
  lf->during_max_us = during.max_us;
  lf->before_p999_us = before.p999_us;
  lf->before_max_us = before.max_us;
  lf->writes_per_s = r.writes / r.seconds;
  lf->alone_ms = alone_ms;
  lf->alone_pin_us = alone.first_pin_us;
  lf->long_read_mean_ms = mean;
  lf->pin_mean_us = extra(r.counters, "pin_mean_us");
  lf->pin_max_us = extra(r.counters, "pin_max_us");
  lf->lock_wait_max_us = extra(r.counters, "lock_wait_max_us");
  lf->answers_ok = answers_ok;
  lf->wait_series = r.wait_series;
  lf->long_read_at_s = r.long_read_at_s;
}

// Three reads alone a store before the writers start; CC-5 takes their median.
constexpr int kAloneRounds = 3;

void run_long_read_part(Harness& h, const Config& c, Runner& run, fc::Report& rep) {
  const std::string base_case = fmt::format("rows={};writers={}", c.long_rows, c.long_writers);
  rep.long_case = base_case;
  const auto units = long_read_units(c);
  fenec::kit::run_interleaved(h.reps(), units.size(), [&](size_t u, int rep_no) {
    const auto& arms = units[u];
    const std::string cs = rep_case(base_case, rep_no);
    run.cells("long-read", arms, cs, [&](const std::vector<fc::Store*>& stores) -> std::string {
      int64_t sum = 0;
      for (fc::Store* s : stores) {  // the same rows in each
        if (auto e = fc::preload(*s, c.long_rows, h.seed() + rep_no, &sum); !e.empty()) return e;
      }
      const auto alone = fc::run_alone_reads(stores, c.long_rows, sum, kAloneRounds);
      for (const auto& a : alone) {
        if (!a.error.empty()) return a.error;
      }
      std::vector<fc::LongReadResult> results;
      for (fc::Store* s : stores) {
        results.push_back(fc::run_long_read(*s, c.long_writers, c.long_rows, sum, c.long_reads, c.long_gap,
                                            h.seed() + 1000 * rep_no));
        if (!results.back().error.empty()) return results.back().error;
      }
      for (size_t i = 0; i < arms.size(); ++i) {
        record_long_read(h, arms[i], cs, results[i], alone[i], &rep.long_read[arms[i].name][rep_no]);
      }
      return "";
    });
  });
}

}  // namespace

int main(int argc, char** argv) {
  Harness h("concurrency",
            "CC-1..CC-5: what one writer at a time costs when many want to write, and what readers and "
            "writers wait meanwhile. fenecdb (one shared Database) against SQLite (WAL, a connection per "
            "thread, 30 s busy timeout), a row a write, a row by id a read, every arm in the same run.\n"
            "Parts: writers (CC-1/CC-2), readers beside writers (CC-4), readers beside 1 000-row batches "
            "(CC-3), a long aggregate beside writers (CC-5). '-naive' arms flip only the switch the part "
            "measures: commit mode, buffer write, batch build, long reads.");
  Config c;
  auto& app = h.app();
  app.footer(
      "Every cell's arms run --reps times, interleaved (rep 0 of every arm, then rep 1, ...), each on a fresh "
      "store under --dir; a buffered writers cell, and the readers and batches parts (their arms in turn), in "
      "--rounds rounds spread over the repetition. Each verdict "
      "is checks of ratios with 95% intervals over the repetitions (iobench/kit/verdict.h) against the "
      "finding's line: CC-1 fsyncs/commit at 16 writers < 1, 16 writers/1 > 1 and fenecdb/sqlite-full at "
      "16 > 1; CC-2 fenecdb-buffered/sqlite-normal at 1 writer >= 6 (half the source's 12x) and 16 writers/1 "
      "< 0.5; CC-3 median lock hold a batch, built under/outside the lock >= 1.65 (half the source's 3.3x); "
      "CC-4 no buffer written under the lock and no lock hold reaching 17 ms (counts that must be 0); "
      "CC-5 every answer right (categorical), p99.9 wait of the writes that met a long read, locked/pinned "
      ">= 10, and the read alone pinned/locked < 2.\n"
      "Writes results/concurrency/latest.csv (one measurement a row, case ...;rep=N for each repetition, "
      "and each check's ratio with its _ci95_lo/_ci95_hi/_reps rows; metrics include writes_per_s, commits, "
      "fsyncs, fsyncs_per_commit, reads_per_s, read_wait_{p50,p999,max}_us, batch_hold_p50_us, "
      "write_wait_max_us, write_wait_during_read_{p99,p999,max}_us, pin_mean_us), "
      "plots/concurrency/*.png|svg (error bars: the 95% intervals), and prints each figure beside the "
      "source's with a verdict for CC-1..CC-5. fenecdb's fsyncs are its Stats; SQLite's are the xSync calls a "
      "counting VFS shim sees.");
  app.add_option("--writers", c.writers, "writer counts for the writers part (default 1,2,4,8,16)")
      ->delimiter(',')
      ->check(CLI::Range(1, 256));
  app.add_option("--parts", c.parts, "parts to run: writers,readers,batches,long-read (default all)")
      ->delimiter(',')
      ->check(CLI::IsMember({"writers", "readers", "batches", "long-read"}));
  std::vector<std::string> arm_names;
  for (const auto& a : kArms) arm_names.push_back(a.name);
  app.add_option("--arms", c.arms, "arms to run (default all): " + fmt::format("{}", fmt::join(arm_names, ",")))
      ->delimiter(',')
      ->check(CLI::IsMember(arm_names));
  app.add_option("--seconds", c.seconds, "time budget per cell and repetition (default 0.4 quick, 2 full)")
      ->check(CLI::Range(0.05, 600.0));
  app.add_option("--rounds", c.rounds,
                 "rounds a cell's time is split into, spread over its repetition, their figures together the "
                 "repetition's (a 2-vCPU VM's multi-thread speed swings for seconds at a time): a buffered writers "
                 "cell on a fresh store each round; readers and batches with every arm's store open, the arms in "
                 "turn each round")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  app.add_option("--max-ops", c.max_ops, "operation cap per cell (default 2000000)")->check(CLI::Range(1, 1 << 30));
  app.add_option("--readers", c.readers, "readers beside writers (default 2)")->check(CLI::Range(1, 64));
  app.add_option("--reader-writers", c.reader_writers, "writers beside those readers (default 2)")
      ->check(CLI::Range(1, 64));
  app.add_option("--batch", c.batch, "rows a batch (default 1000)")->check(CLI::Range(1, 1000000));
  app.add_option("--batch-readers", c.batch_readers, "readers beside the batches (default 2)")
      ->check(CLI::Range(1, 64));
  app.add_option("--preload", c.preload_rows, "rows in the table the readers read (default 20000 quick, 100000 full)")
      ->check(CLI::Range(1, 100000000));
  app.add_option("--long-rows", c.long_rows, "rows the long read aggregates (default 1000000, the source's)")
      ->check(CLI::Range(1, 100000000));
  app.add_option("--long-reads", c.long_reads,
                 "long reads per cell; CC-5 pools the writes that met them, over a repetition (default 5)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--long-writers", c.long_writers,
                 "writers beside the long read (default 1: with the reader, one thread a core here)")
      ->check(CLI::Range(1, 64));
  app.add_option("--long-gap", c.long_gap, "seconds between long reads (default 0.1 quick, 0.25 full)")
      ->check(CLI::Range(0.0, 60.0));
  if (const int rc = h.parse(argc, argv); rc >= 0) return rc;

  if (c.writers.empty()) c.writers = {1, 2, 4, 8, 16};
  if (c.seconds == 0) c.seconds = h.quick() ? 0.4 : 2.0;
  if (c.preload_rows == 0) c.preload_rows = h.quick() ? 20'000 : 100'000;
  // 1 M rows in quick mode too: a shorter long read would be lost in a shared
  // machine's scheduling stalls, and the preload costs only seconds.
  if (c.long_rows == 0) c.long_rows = 1'000'000;
  if (c.long_reads == 0) c.long_reads = 5;
  if (c.long_gap < 0) c.long_gap = h.quick() ? 0.1 : 0.25;
  auto& meta = h.results().meta();
  meta.set("cell_seconds", fmt::format("{}", c.seconds));
  meta.set("naive_switches",
           "writers: CommitMode::kNaive; readers: BufferWrite::kUnderLock; batches: BatchBuild::kUnderLock; "
           "long-read: LongReads::kUnderLock");
  meta.set("sqlite_fsyncs", "xSync calls counted by a VFS shim (sync_vfs.h); directory syncs not seen");

  const auto has = [&](const char* p) { return std::find(c.parts.begin(), c.parts.end(), p) != c.parts.end(); };
  size_t cells = 0;
  if (has("writers")) {
    for (const auto& arm : arms_of(c, "writers")) cells += h.reps() * c.writers.size() * (arm.durable ? 1 : c.rounds);
  }
  for (const char* p : {"readers", "batches"}) cells += has(p) ? h.reps() : 0;
  if (has("long-read")) cells += h.reps() * long_read_units(c).size();

  fc::Report rep;
  {
    Runner run(h, cells);
    if (has("writers")) run_writers_part(h, c, run, rep);
    if (has("readers")) run_mixed_part(h, c, run, rep, "readers");
    if (has("batches")) run_mixed_part(h, c, run, rep, "batches");
    if (has("long-read")) run_long_read_part(h, c, run, rep);
  }
  fc::write_plots(h, rep);
  fc::judge(h, rep);
  return h.finish();
}
