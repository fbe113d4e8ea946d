#include "scenarios/engines/workload.h"
#include "iobench/kit/interrupt.h"
#include "iobench/kit/proc.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <thread>

#include <unistd.h>


namespace fenec::scenarios::engines {
namespace {

using Clock = std::chrono::steady_clock;
using base::Histogram;

uint64_t ns_between(Clock::time_point a, Clock::time_point b) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
}
double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// What the threads of one cell share: the start gun, the stop flag, the
// operation cap and the first error (which stops everyone).
struct Shared {
  std::atomic<bool> go{false}, stop{false};
  kit::CpuTimes cpu_at_start;  // the machine's CPU times at the start gun
  std::atomic<uint64_t> ops{0};
  uint64_t max_ops = UINT64_MAX;
  Clock::time_point start, deadline = Clock::time_point::max();
  std::mutex mu;
  std::string error;

  void fail(std::string e) {
    std::lock_guard lock(mu);
    if (error.empty()) error = std::move(e);
    stop.store(true);
  }
  bool should_stop() const {
    return stop.load(std::memory_order_relaxed) || kit::stop_requested() || Clock::now() >= deadline;
  }
  // Takes one operation from the cap; false once the cell has done enough.
  bool take_op() { return ops.fetch_add(1, std::memory_order_relaxed) < max_ops; }
};

using Body = std::function<void(Session&)>;

// Opens a session per body (connections are not part of any measurement),
// starts every thread at once, joins them, and returns the seconds from the
// start to the last thread's end. The store's counters cover exactly that span.
double run_threads(Store& store, Shared& sh, const std::vector<Body>& bodies, double seconds) {
  std::vector<std::unique_ptr<Session>> sessions;
  for (size_t i = 0; i < bodies.size(); ++i) {
    std::string err;
    auto s = store.session(&err);
    if (!s) {
      sh.fail("session: " + err);
      return 0;
    }
    sessions.push_back(std::move(s));
  }
  std::vector<std::thread> threads;
  for (size_t i = 0; i < bodies.size(); ++i) {
    threads.emplace_back([&, i] {
      while (!sh.go.load(std::memory_order_acquire)) std::this_thread::yield();
      bodies[i](*sessions[i]);
    });
  }
  store.reset_counters();
  sh.cpu_at_start = kit::read_cpu_times();
  sh.start = Clock::now();
  if (seconds > 0) sh.deadline = sh.start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  sh.go.store(true, std::memory_order_release);
  for (auto& t : threads) t.join();
  return seconds_between(sh.start, Clock::now());
}

constexpr std::array<const char*, 8> kWords = {"amber", "basalt", "cedar", "delta",
                                               "ember", "fjord", "granite", "harbor"};

}  // namespace

Doc make_doc(std::mt19937_64& rng, uint64_t i, int64_t n) {
  const uint64_t r = rng();
  return Doc{fmt::format("doc {:010d} {} {} {}", i, kWords[r % 8], kWords[(r >> 8) % 8], r >> 40), n};
}

std::string preload(Store& store, uint64_t rows, uint64_t seed, int64_t* sum) {
  std::string err;
  auto s = store.session(&err);
  if (!s) return "session: " + err;
  std::mt19937_64 rng(seed);
  *sum = 0;
  std::vector<Doc> batch;
  for (uint64_t i = 0; i < rows;) {
    batch.clear();
    for (; i < rows && batch.size() < 1000; ++i) {
      const int64_t n = static_cast<int64_t>(i % 1000);
      *sum += n;
      batch.push_back(make_doc(rng, i + 1, n));
    }
    if (auto e = s->put_batch(batch); !e.empty()) return "preload: " + e;
    if (kit::stop_requested()) return "interrupted";
  }
  return "";
}

double machine_busy_seconds_since(const kit::CpuTimes& from) {
  const kit::CpuTimes now = kit::read_cpu_times();
  if (!now.ok || !from.ok) return -1;
  const uint64_t busy = (now.total - now.idle - now.steal) - (from.total - from.idle - from.steal);
  return static_cast<double>(busy) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

WritersResult run_writers(Store& store, int writers, const Budget& budget, uint64_t seed) {
  Shared sh;
  sh.max_ops = budget.max_ops;
  std::vector<Histogram> hists(writers);
  std::vector<uint64_t> counts(writers, 0), in_budget(writers, 0);
  std::vector<Body> bodies;
  for (int w = 0; w < writers; ++w) {
    bodies.push_back([&, w](Session& s) {
      std::mt19937_64 rng(seed + w);
      while (!sh.should_stop() && sh.take_op()) {
        const Doc d = make_doc(rng, counts[w], w);
        const auto t0 = Clock::now();
        if (auto e = s.put(d); !e.empty()) return sh.fail("put: " + e);
        const auto t1 = Clock::now();
        hists[w].Record(ns_between(t0, t1));
        ++counts[w];
        if (t1 <= sh.deadline) ++in_budget[w];
      }
    });
  }
  WritersResult r;
  r.seconds = run_threads(store, sh, bodies, budget.seconds);
  for (uint64_t n : in_budget) r.writes_in_budget += n;
  r.budget_seconds = budget.seconds > 0 ? std::min(r.seconds, budget.seconds) : r.seconds;
  r.machine_cpu_s = std::max(0.0, machine_busy_seconds_since(sh.cpu_at_start));
  r.counters = store.counters();
  r.error = sh.error;
  r.per_writer = counts;
  for (int w = 0; w < writers; ++w) {
    r.write_ns.Merge(hists[w]);
    r.writes += counts[w];
  }
  return r;
}

namespace {

// A reader's loop: random preloaded ids, each must be there.
Body reader_body(Shared& sh, uint64_t preloaded, uint64_t seed, Histogram* h, uint64_t* count) {
  return [&sh, preloaded, seed, h, count](Session& s) {
    std::mt19937_64 rng(seed);
    Doc d;
    while (!sh.should_stop()) {
      const uint64_t id = 1 + rng() % preloaded;
      bool found = false;
      const auto t0 = Clock::now();
      if (auto e = s.get(id, &d, &found); !e.empty()) return sh.fail("get: " + e);
      h->Record(ns_between(t0, Clock::now()));
      if (!found) return sh.fail(fmt::format("get: preloaded row {} not found", id));
      ++*count;
    }
  };
}

using WriterMaker = std::function<Body(Shared&, int, Histogram*, uint64_t*, uint64_t*)>;

MixedResult run_mixed(Store& store, int readers, uint64_t preloaded, const Budget& budget, uint64_t seed,
                      int writers, const WriterMaker& writer) {
  Shared sh;
  sh.max_ops = budget.max_ops;
  std::vector<Histogram> rh(readers), wh(writers);
  std::vector<uint64_t> reads(readers, 0), rows(writers, 0), commits(writers, 0);
  std::vector<Body> bodies;
  for (int i = 0; i < readers; ++i) bodies.push_back(reader_body(sh, preloaded, seed + 1000 + i, &rh[i], &reads[i]));
  // The readers read for as long as anyone writes: the last writer to stop ends the cell.
  std::atomic<int> writing{writers};
  for (int w = 0; w < writers; ++w) {
    bodies.push_back([&sh, &writing, body = writer(sh, w, &wh[w], &rows[w], &commits[w])](Session& s) {
      body(s);
      if (writing.fetch_sub(1) == 1) sh.stop.store(true);
    });
  }
  MixedResult r;
  r.seconds = run_threads(store, sh, bodies, budget.seconds);
  r.counters = store.counters();
  r.error = sh.error;
  for (int i = 0; i < readers; ++i) {
    r.read_ns.Merge(rh[i]);
    r.reads += reads[i];
  }
  for (int w = 0; w < writers; ++w) {
    r.write_ns.Merge(wh[w]);
    r.writes += rows[w];
    r.commits_done += commits[w];
  }
  return r;
}

}  // namespace

MixedResult run_readers_beside_writers(Store& store, int readers, int writers, uint64_t preloaded,
                                       const Budget& budget, uint64_t seed) {
  auto writer = [seed](Shared& sh, int w, Histogram* h, uint64_t* rows, uint64_t* commits) -> Body {
    return [&sh, w, h, rows, commits, seed](Session& s) {
      std::mt19937_64 rng(seed + w);
      while (!sh.should_stop() && sh.take_op()) {
        const Doc d = make_doc(rng, *rows, w);
        const auto t0 = Clock::now();
        if (auto e = s.put(d); !e.empty()) return sh.fail("put: " + e);
        h->Record(ns_between(t0, Clock::now()));
        ++*rows;
        ++*commits;
      }
    };
  };
  return run_mixed(store, readers, preloaded, budget, seed, writers, writer);
}

MixedResult run_readers_beside_batches(Store& store, int readers, int batch, uint64_t preloaded,
                                       const Budget& budget, uint64_t seed) {
  Histogram holds;
  auto writer = [&store, &holds, seed, batch](Shared& sh, int, Histogram* h, uint64_t* rows,
                                               uint64_t* commits) -> Body {
    return [&store, &holds, &sh, h, rows, commits, seed, batch](Session& s) {
      // Generated before the clock starts: the cell measures the engine
      // landing a batch, not this bench making one.
      std::mt19937_64 rng(seed);
      std::vector<Doc> docs;
      for (int i = 0; i < batch; ++i) docs.push_back(make_doc(rng, static_cast<uint64_t>(i), i));
      uint64_t held = 0, held_before = 0;
      const bool holds_known = store.write_lock_hold_ns(&held_before);
      while (!sh.should_stop() && sh.take_op()) {
        const auto t0 = Clock::now();
        if (auto e = s.put_batch(docs); !e.empty()) return sh.fail("batch: " + e);
        h->Record(ns_between(t0, Clock::now()));
        if (holds_known && store.write_lock_hold_ns(&held)) {
          holds.Record(held - held_before);
          held_before = held;
        }
        *rows += docs.size();
        ++*commits;
      }
    };
  };
  MixedResult r = run_mixed(store, readers, preloaded, budget, seed, 1, writer);
  r.hold_ns = holds;
  return r;
}

std::vector<AloneReads> run_alone_reads(const std::vector<Store*>& stores, uint64_t preloaded,
                                        int64_t preloaded_sum, int rounds) {
  std::vector<AloneReads> out(stores.size());
  std::vector<std::unique_ptr<Session>> sessions;
  for (size_t i = 0; i < stores.size(); ++i) {
    std::string err;
    auto s = stores[i]->session(&err);
    if (!s) {
      out[i].error = "session: " + err;
      return out;
    }
    sessions.push_back(std::move(s));
  }
  for (int round = 0; round < rounds && !kit::stop_requested(); ++round) {
    for (size_t i = 0; i < stores.size(); ++i) {
      AloneReads& r = out[i];
      Aggregate a;
      const auto t0 = Clock::now();
      if (auto e = sessions[i]->aggregate(&a); !e.empty()) {
        r.error = "aggregate: " + e;
        return out;
      }
      r.ms.push_back(seconds_between(t0, Clock::now()) * 1000);
      if (round == 0) {
        // Stats cover the store's life so far: the preload never pins, so a
        // pin counted now is this aggregate's own.
        const Counters k = stores[i]->counters();
        if (auto pins = k.extra.find("pins"); pins != k.extra.end() && pins->second.first > 0) {
          r.pinned = true;
          r.first_pin_us = k.extra.at("pin_max_us").first;
        }
      }
      if ((a.count != preloaded || a.sum != preloaded_sum) && r.answers_ok) {
        r.answers_ok = false;
        r.answer_problem = fmt::format("alone: count {} sum {}, expected {} and {}", a.count, a.sum, preloaded,
                                       preloaded_sum);
      }
    }
  }
  return out;
}

LongReadResult run_long_read(Store& store, int writers, uint64_t preloaded, int64_t preloaded_sum, int long_reads,
                             double gap_s, uint64_t seed) {
  LongReadResult r;
  Shared sh;
  std::vector<Histogram> hists(writers);
  std::vector<uint64_t> counts(writers, 0);
  std::vector<std::vector<uint64_t>> windows(writers);  // max wait (ns) per kWindowMs
  // Every write's (start, wait) in ns from the cell's start, to find the
  // writes each long read overlapped once the cell is over.
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> spans(writers);
  std::vector<Body> bodies;
  for (int w = 0; w < writers; ++w) {
    spans[w].reserve((1u << 20) / static_cast<unsigned>(writers));  // about a quick cell of buffered writes
    bodies.push_back([&, w](Session& s) {
      std::mt19937_64 rng(seed + w);
      while (!sh.should_stop()) {
        const Doc d = make_doc(rng, counts[w], 0);  // n = 0 keeps the table's sum fixed
        const auto t0 = Clock::now();
        if (auto e = s.put(d); !e.empty()) return sh.fail("put: " + e);
        const uint64_t ns = ns_between(t0, Clock::now());
        hists[w].Record(ns);
        const uint64_t at = ns_between(sh.start, t0);
        spans[w].emplace_back(at, ns);
        const size_t win = at / (kWindowMs * 1'000'000ull);
        if (windows[w].size() <= win) windows[w].resize(win + 1, 0);
        windows[w][win] = std::max(windows[w][win], ns);
        ++counts[w];
      }
    });
  }
  std::vector<std::pair<uint64_t, uint64_t>> reads;  // each long read's [start, end) in ns from the cell's start
  bodies.push_back([&](Session& s) {
    const auto gap = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(gap_s));
    for (int i = 0; i < long_reads && !sh.stop.load() && !kit::stop_requested(); ++i) {
      std::this_thread::sleep_for(gap);
      Aggregate a;
      const auto t0 = Clock::now();
      if (auto e = s.aggregate(&a); !e.empty()) return sh.fail("aggregate: " + e);
      const auto t1 = Clock::now();
      r.long_read_ms.push_back(seconds_between(t0, t1) * 1000);
      r.long_read_at_s.push_back(seconds_between(sh.start, t0));
      reads.emplace_back(ns_between(sh.start, t0), ns_between(sh.start, t1));
      if (a.sum != preloaded_sum || a.count < preloaded) {
        std::lock_guard lock(sh.mu);
        r.answers_ok = false;
        if (r.answer_problem.empty()) {
          r.answer_problem = fmt::format("aggregate {}: count {} sum {}, expected sum {} over >= {} rows", i,
                                         a.count, a.sum, preloaded_sum, preloaded);
        }
      }
    }
    std::this_thread::sleep_for(gap);  // the writers' wait after the last read, for comparison
    sh.stop.store(true);
  });
  r.seconds = run_threads(store, sh, bodies, 0);
  r.counters = store.counters();
  r.error = sh.error;
  std::vector<uint64_t> merged;
  for (int w = 0; w < writers; ++w) {
    r.write_ns.Merge(hists[w]);
    r.writes += counts[w];
    if (merged.size() < windows[w].size()) merged.resize(windows[w].size(), 0);
    for (size_t i = 0; i < windows[w].size(); ++i) merged[i] = std::max(merged[i], windows[w][i]);
  }
  for (size_t i = 0; i < merged.size(); ++i) {
    if (merged[i]) r.wait_series.emplace_back(static_cast<double>(i * kWindowMs) / 1000.0, merged[i] / 1000.0);
  }
  // Every write that overlapped [from, to) (began before it ended, ended
  // after it began) into *h; returns the longest one's wait in us.
  const auto overlapping = [&spans](uint64_t from, uint64_t to, Histogram* h) {
    uint64_t longest = 0;
    for (const auto& writer : spans) {
      // Writes are in start order: skip to the first that could overlap.
      auto it = std::lower_bound(writer.begin(), writer.end(), std::pair<uint64_t, uint64_t>{from, 0});
      if (it != writer.begin()) --it;  // the one begun before may still have been waiting
      for (; it != writer.end() && it->first < to; ++it) {
        if (it->first + it->second <= from) continue;
        h->Record(it->second);
        longest = std::max(longest, it->second);
      }
    }
    return static_cast<double>(longest) / 1000.0;
  };
  uint64_t prev_end = 0;
  for (const auto& [from, to] : reads) {
    r.wait_during_read_us.push_back(overlapping(from, to, &r.during_read_ns));
    // As long a window just before the read (kQuietMarginMs clear of it and
    // of the one before), where the writers wait what they wait with no long read.
    const uint64_t margin = kQuietMarginMs * 1'000'000ull, len = to - from;
    const uint64_t end = from > margin ? from - margin : 0;
    const uint64_t floor = prev_end + margin;
    const uint64_t begin = end > floor + len ? end - len : std::min(end, floor);
    r.wait_before_read_us.push_back(end > begin ? overlapping(begin, end, &r.before_read_ns) : 0);
    prev_end = to;
  }
  return r;
}

}  // namespace fenec::scenarios::engines
