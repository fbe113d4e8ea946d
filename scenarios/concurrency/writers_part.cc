// The writers part (CC-1, CC-2): 1..16 writers, a row a commit, every arm
// at every writer count, the repetitions' rounds taking turns.
#include <algorithm>
#include <map>
#include <tuple>

#include "engine/src/base/histogram.h"
#include "scenarios/concurrency/parts.h"
#include "scenarios/engines/workload.h"

namespace fc = fenec::scenarios::concurrency;

namespace fenec::scenarios::concurrency {
using namespace engines;

using kit::Harness;

namespace {

// What the repetitions of one (arm, writers) cell add up to.
struct WriterReps {
  std::vector<double> writes_per_s;
  uint64_t writes = 0, commits = 0, fsyncs = 0;
  double seconds = 0, machine_cpu_s = 0;
  fenec::base::Histogram write_ns;
};

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

}  // namespace

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
    std::vector<double> round_rates;  // one a round run; their count is the rounds run
    bool failed = false;
  };
  std::map<std::tuple<int, std::string, int>, Sum> sums;  // (repetition, arm, writers)
  for (int k = 0; k < c.rounds && !fenec::kit::stop_requested(); ++k) {
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
            sum.round_rates.push_back(res.per_s());
            sum.res.writes += res.writes;
            sum.res.seconds += res.seconds;
            sum.res.writes_in_budget += res.writes_in_budget;
            sum.res.budget_seconds += res.budget_seconds;
            sum.res.write_ns.Merge(res.write_ns);
            sum.res.counters.commits += res.counters.commits;
            sum.res.counters.fsyncs += res.counters.fsyncs;
            sum.res.machine_cpu_s += res.machine_cpu_s;
            if (rounds == 1) {
              sum.res.counters.extra = res.counters.extra;
            } else {
              // The engine's counters add up over the rounds (counts and
              // times); its means and maxima (us, ms) do not, and are left out.
              for (const auto& [name, v] : res.counters.extra) {
                if (v.second != "count" && v.second != "ns" && v.second != "bytes") continue;
                auto& into = sum.res.counters.extra[name];
                into = {into.first + v.first, v.second};
              }
            }
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
    // Failed, or cut short by Ctrl-C; past here at least one round ran.
    const size_t rounds = sum.round_rates.size();
    if (sum.failed || rounds < static_cast<size_t>(arm.durable ? 1 : c.rounds)) continue;
    const std::string f = finding_of("writers", arm);
    const std::string cs = rep_case(fmt::format("writers={}", w), r);
    const double wps = sum.res.per_s();
    const auto [round_min, round_max] = std::minmax_element(sum.round_rates.begin(), sum.round_rates.end());
    auto& res = h.results();
    res.add(f, arm_name, cs, "writes_per_s", wps, "ops/s");
    res.add_latency(f, arm_name, cs, sum.res.write_ns, "write");
    add_counters(h, f, arm_name, cs, sum.res.counters, sum.res.seconds);
    const double commits = static_cast<double>(sum.res.counters.commits);
    const double cpu_us = commits > 0 ? sum.res.machine_cpu_s * 1e6 / commits : -1;
    if (cpu_us >= 0) res.add(f, arm_name, cs, "cpu_us_per_commit", cpu_us, "us");
    if (rounds > 1) {
      res.add(f, arm_name, cs, "rounds", static_cast<double>(rounds), "count");
      res.add(f, arm_name, cs, "round_writes_per_s_min", *round_min, "ops/s");
      res.add(f, arm_name, cs, "round_writes_per_s_max", *round_max, "ops/s");
    }
    WriterReps& a = acc[{arm_name, w}];
    a.writes_per_s.push_back(wps);
    a.writes += sum.res.writes;
    a.commits += sum.res.counters.commits;
    a.fsyncs += sum.res.counters.fsyncs;
    a.seconds += sum.res.seconds;
    a.machine_cpu_s += sum.res.machine_cpu_s;
    a.write_ns.Merge(sum.res.write_ns);
    const double sync_ms = extra(sum.res.counters, "wal_sync_ms");
    const double sync_us =
        sync_ms >= 0 && sum.res.counters.fsyncs > 0 ? sync_ms * 1000 / static_cast<double>(sum.res.counters.fsyncs) : -1;
    if (sync_us >= 0) res.add(f, arm_name, cs, "sync_us_mean", sync_us, "us");
    fc::WriterFig fig{wps,
                      static_cast<double>(sum.res.counters.commits),
                      static_cast<double>(sum.res.counters.fsyncs),
                      sum.res.write_ns.max() / 1000.0,
                      *round_min,
                      *round_max,
                      cpu_us,
                      sync_us,
                      rounds > 1 ? sum.round_rates : std::vector<double>{}};
    fig.lock_acquisitions = extra(sum.res.counters, "write_lock_acquisitions");
    fig.lock_handovers = extra(sum.res.counters, "write_lock_handovers");
    fig.lock_contended = extra(sum.res.counters, "write_lock_contended");
    fig.lock_hold_ns = extra(sum.res.counters, "write_lock_hold_ns");
    fig.lock_wait_ns = extra(sum.res.counters, "write_lock_wait_ns");
    rep.writers[arm_name][w][r] = fig;
  }
  // The summary rows (case writers=N): the median rate of the repetitions,
  // the counts summed over them. The ratios and their intervals are judge()'s.
  for (const auto& [key, a] : acc) {
    const auto& [arm_name, w] = key;
    const fc::ArmSpec& arm = *std::find_if(all_arms().begin(), all_arms().end(), [&](const auto& x) { return x.name == arm_name; });
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
    if (a.commits > 0) res.add(f, arm_name, cs, "cpu_us_per_commit", a.machine_cpu_s * 1e6 / a.commits, "us");
  }
}

}  // namespace fenec::scenarios::concurrency
