// The long-read part (CC-5): an aggregate over a million rows beside
// writers, pinned against locked, each durability's two arms in one cell.
#include <algorithm>
#include <iostream>

#include "engine/src/base/histogram.h"
#include "iobench/kit/stats.h"
#include "scenarios/concurrency/parts.h"
#include "scenarios/engines/workload.h"

namespace fc = fenec::scenarios::concurrency;

namespace fenec::scenarios::concurrency {
using namespace engines;

using kit::Harness;

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

namespace {

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
  if (alone.pinned) res.add(f, arm.name, cs, "pin_alone_us", alone.first_pin_us, "us");
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
  lf->alone_pin_us = alone.pinned ? alone.first_pin_us : -1;
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

}  // namespace

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

}  // namespace fenec::scenarios::concurrency
