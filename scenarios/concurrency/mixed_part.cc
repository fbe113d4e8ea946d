// The readers part (CC-4: reads by id beside single-row writers) and the
// batches part (CC-3: reads beside 1 000-row batches), every arm's store
// open at once and the arms in turn each round.
#include <algorithm>
#include <map>

#include "engine/src/base/histogram.h"
#include "iobench/kit/stats.h"
#include "scenarios/concurrency/parts.h"
#include "scenarios/engines/workload.h"

namespace fc = fenec::scenarios::concurrency;

namespace fenec::scenarios::concurrency {
using namespace engines;

using kit::Harness;

namespace {

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

}  // namespace

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
  for (int rep_no = 0; rep_no < h.reps() && !fenec::kit::stop_requested(); ++rep_no) {
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

}  // namespace fenec::scenarios::concurrency
