#include "scenarios/smaps/workload.h"
#include "iobench/kit/interrupt.h"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "engine/src/base/smaps.h"

namespace fenec::scenarios::smaps {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t ns_since(Clock::time_point t0) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
}

void read_once(Reader r) {
  if (r == Reader::kSmaps) {
    (void)base::ReadSmapsFull(0);
  } else {
    (void)base::ReadSmapsRollup(0);
  }
}

// Paces a loop at hz without catching up: a thread whose read overran its
// period starts the next one at once, but never bursts to make up lost ticks
// (a real monitor does the same, and a burst would overstate the harm).
class Pacer {
 public:
  explicit Pacer(int hz) : period_(std::chrono::nanoseconds(1'000'000'000LL / std::max(hz, 1))) {}
  void wait(const std::atomic<bool>& stop) {
    next_ += period_;
    const auto now = Clock::now();
    if (next_ < now) {
      next_ = now;
      return;
    }
    // Sleep in slices so stop is seen within 50 ms even at 1 Hz.
    while (!stop.load(std::memory_order_relaxed) && Clock::now() < next_) {
      std::this_thread::sleep_until(std::min(next_, Clock::now() + std::chrono::milliseconds(50)));
    }
  }

 private:
  Clock::duration period_;
  Clock::time_point next_ = Clock::now();
};

}  // namespace

const char* reader_name(Reader r) {
  switch (r) {
    case Reader::kNone: return "none";
    case Reader::kSmaps: return "smaps";
    case Reader::kSmapsRollup: return "smaps_rollup";
    case Reader::kSampler: return "sampler";
  }
  return "?";
}

bool parse_reader(const std::string& name, Reader* out) {
  for (Reader r : {Reader::kNone, Reader::kSmaps, Reader::kSmapsRollup, Reader::kSampler}) {
    if (name == reader_name(r)) {
      *out = r;
      return true;
    }
  }
  return false;
}

ArmResult run_arm(const ArmConfig& cfg) {
  ArmResult res;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> proc_reads{0}, cached_reads{0};
  std::unique_ptr<base::SmapsRollupSampler> sampler;
  std::vector<std::thread> readers;

  if (cfg.reader == Reader::kSmaps || cfg.reader == Reader::kSmapsRollup) {
    for (int i = 0; i < cfg.threads; ++i) {
      readers.emplace_back([&] {
        Pacer pacer(cfg.hz);
        while (!stop.load(std::memory_order_relaxed)) {
          read_once(cfg.reader);
          proc_reads.fetch_add(1, std::memory_order_relaxed);
          pacer.wait(stop);
        }
      });
    }
  } else if (cfg.reader == Reader::kSampler) {
    sampler = std::make_unique<base::SmapsRollupSampler>(
        0, std::chrono::milliseconds(std::max(1, 1000 / std::max(cfg.hz, 1))));
    for (int i = 0; i < cfg.threads; ++i) {
      readers.emplace_back([&] {
        Pacer pacer(cfg.hz);
        while (!stop.load(std::memory_order_relaxed)) {
          (void)sampler->latest();
          cached_reads.fetch_add(1, std::memory_order_relaxed);
          pacer.wait(stop);
        }
      });
    }
  }

  const auto start = Clock::now();
  const auto end = start + cfg.duration;
  while (!kit::stop_requested()) {
    const auto t0 = Clock::now();
    if (t0 >= end) break;
    void* p = mmap(nullptr, cfg.map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (p == MAP_FAILED) break;
    static_cast<volatile unsigned char*>(p)[0] = 1;  // the fault takes the mm lock too
    munmap(p, cfg.map_bytes);
    res.op_ns.Record(ns_since(t0));
    ++res.ops;
  }
  res.seconds = std::chrono::duration<double>(Clock::now() - start).count();

  stop.store(true);
  for (auto& t : readers) t.join();
  if (sampler) {
    sampler->Stop();
    proc_reads.store(sampler->reads());
  }
  res.proc_reads = proc_reads.load();
  res.cached_reads = cached_reads.load();
  return res;
}

base::Histogram measure_reads(Reader r, int min_reads, double budget_s) {
  base::Histogram h;
  const auto start = Clock::now();
  for (int i = 0; !kit::stop_requested(); ++i) {
    if (i >= min_reads && std::chrono::duration<double>(Clock::now() - start).count() >= budget_s) {
      break;
    }
    const auto t0 = Clock::now();
    read_once(r);
    h.Record(ns_since(t0));
  }
  return h;
}

}  // namespace fenec::scenarios::smaps
