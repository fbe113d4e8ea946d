// growth-bench workloads: see workload.h.
#include "scenarios/growth/workload.h"
#include "iobench/kit/interrupt.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cassert>
#include <chrono>
#include <mutex>
#include <random>
#include <shared_mutex>
#include <thread>

#include "engine/src/index/text_index.h"
#include "engine/src/index/unique_index.h"

namespace fenec::scenarios::growth {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kFirstBandEnd = 114688;  // 7/8 of 131 072: the split point
constexpr uint64_t kSideKeyBase = uint64_t{1} << 31;

// Odd multiplier mod 2^32: a bijection, so distinct i give distinct keys,
// and consecutive i give keys that do not sort or hash alike.
uint64_t scramble(uint64_t i) { return (i * 0x9E3779B1u) & 0xFFFFFFFFu; }

uint64_t ns_between(Clock::time_point a, Clock::time_point b) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
}

}  // namespace

size_t make_key(KeyStyle style, uint64_t i, char* buf) {
  auto r = style == KeyStyle::kEmail ? fmt::format_to_n(buf, 48, "user{}@example.com", scramble(i))
                                     : fmt::format_to_n(buf, 48, "u{}", scramble(i));
  return r.size;
}

size_t make_term(uint64_t i, char* buf) {
  static constexpr char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  uint64_t v = scramble(i);
  char tmp[16];
  size_t n = 0;
  do {
    tmp[n++] = kDigits[v % 36];
    v /= 36;
  } while (v != 0);
  buf[0] = 't';  // never all digits, always one token
  for (size_t k = 0; k < n; ++k) buf[1 + k] = tmp[n - 1 - k];
  return n + 1;
}

std::string Band::label() const { return fmt::format("keys={}..{}", lo, hi); }

size_t band_of(uint64_t keys) {
  size_t b = 0;
  for (uint64_t lo = kFirstBandEnd; keys >= lo; lo *= 2) ++b;
  return b;
}

std::vector<Band> bands_up_to(uint64_t n) {
  std::vector<Band> out{{0, kFirstBandEnd}};
  for (uint64_t lo = kFirstBandEnd; lo < n; lo *= 2) out.push_back({lo, lo * 2});
  return out;
}

std::vector<uint64_t> doublings_up_to(uint64_t n) {
  std::vector<uint64_t> out;
  for (uint64_t k = kFirstBandEnd / 2; k < n; k *= 2) out.push_back(k);
  return out;
}

PutRecorder::PutRecorder(uint64_t n, size_t points)
    : band_max_(bands_up_to(n).size(), 0), chunk_len_(std::max<uint64_t>(1, n / std::max<size_t>(1, points))) {}

void PutRecorder::record(uint64_t keys_before, uint64_t ns, bool grew) {
  hist_.Record(ns);
  (grew ? max_grew_ : max_plain_) = std::max(grew ? max_grew_ : max_plain_, ns);
  if (grew) grew_.emplace_back(keys_before, ns);
  size_t b = band_of(keys_before);
  if (b >= band_max_.size()) band_max_.resize(b + 1, 0);
  band_max_[b] = std::max(band_max_[b], ns);
  auto cmp = [](const Top& a, const Top& b) { return a.ns > b.ns; };  // min-heap
  if (top_.size() < kTop) {
    top_.push_back({ns, keys_before});
    std::push_heap(top_.begin(), top_.end(), cmp);
  } else if (ns > top_.front().ns) {
    std::pop_heap(top_.begin(), top_.end(), cmp);
    top_.back() = {ns, keys_before};
    std::push_heap(top_.begin(), top_.end(), cmp);
  }
  chunk_max_ = std::max(chunk_max_, ns);
  if (++in_chunk_ == chunk_len_) {
    chunks_.emplace_back(keys_before + 1, chunk_max_);
    in_chunk_ = chunk_max_ = 0;
  }
}

std::vector<PutRecorder::Top> PutRecorder::top() const {
  std::vector<Top> out = top_;
  std::sort(out.begin(), out.end(), [](const Top& a, const Top& b) { return a.ns > b.ns; });
  return out;
}

namespace {

// The index under test, behind the engine's lock discipline.
struct Guarded {
  Guarded(Kind kind, index::Arm arm) : kind(kind), unique(arm), text(arm) {}
  Kind kind;
  std::shared_mutex mu;
  index::UniqueIndex unique;
  index::TextIndex text;
  size_t growths_seen = 0;              // under mu
  std::atomic<uint64_t> growth_epoch{0};  // bumped under mu after a put that grew

  size_t size() const { return kind == Kind::kUnique ? unique.size() : text.term_count(); }
  size_t growths() const {
    return (kind == Kind::kUnique ? unique.growth_log() : text.growth_log()).size();
  }
  // Under mu, exclusive. Returns whether this put grew the index.
  bool put(uint64_t row, std::string_view key) {
    if (kind == Kind::kUnique) {
      [[maybe_unused]] auto v = unique.Put(key, row);
      assert(!v.has_value());
    } else {
      text.Insert(row, key);
    }
    if (size_t g = growths(); g != growths_seen) {
      growths_seen = g;
      growth_epoch.fetch_add(1, std::memory_order_release);
      return true;
    }
    return false;
  }
  // Under mu, shared.
  uint64_t read(std::string_view key) const {
    if (kind == Kind::kUnique) return unique.Find(key).value_or(0);
    return text.Query(key, 10).size();
  }
};

void side_loop(Guarded& g, KeyStyle style, const std::atomic<uint64_t>& done,
               const std::atomic<bool>& stop, SideStats* out) {
  std::mt19937_64 rng(42);
  char buf[64];
  uint64_t sink = 0, next_key = kSideKeyBase;
  while (!stop.load(std::memory_order_relaxed)) {
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    uint64_t d = done.load(std::memory_order_relaxed);
    if (d == 0) continue;
    bool write = rng() % 8 == 0;
    uint64_t i = write ? next_key++ : rng() % d;
    size_t len = g.kind == Kind::kUnique ? make_key(style, i, buf) : make_term(i, buf);
    std::string_view key(buf, len);
    uint64_t e0 = g.growth_epoch.load(std::memory_order_acquire);
    Clock::time_point t0 = Clock::now(), t1;
    if (write) {
      std::unique_lock lk(g.mu);
      t1 = Clock::now();
      g.put(i, key);
    } else {
      std::shared_lock lk(g.mu);
      t1 = Clock::now();
      sink += g.read(key);
    }
    bool waited = g.growth_epoch.load(std::memory_order_acquire) != e0;
    uint64_t ns = ns_between(t0, t1);
    if (write) {
      ++out->writes;
      out->writes_waited_on_growth += waited;
      out->write_wait_max_ns = std::max(out->write_wait_max_ns, ns);
    } else {
      ++out->reads;
      out->reads_waited_on_growth += waited;
      out->read_wait_max_ns = std::max(out->read_wait_max_ns, ns);
    }
  }
  if (sink == 42) std::fputc(' ', stderr);  // keeps the reads from being optimized away
}

}  // namespace

PutRun run_puts(Kind kind, index::Arm arm, uint64_t n, KeyStyle style, bool side,
                size_t plot_points) {
  PutRun run(n, plot_points);
  auto g = std::make_unique<Guarded>(kind, arm);
  std::atomic<uint64_t> done{0};
  std::atomic<bool> stop{false};
  std::thread th;
  if (side) th = std::thread(side_loop, std::ref(*g), style, std::cref(done), std::cref(stop), &run.side);
  char buf[64];
  Clock::time_point start = Clock::now();
  for (uint64_t i = 0; i < n; ++i) {
    if ((i & 0xFFFF) == 0 && kit::stop_requested()) {
      run.interrupted = true;
      break;
    }
    size_t len = kind == Kind::kUnique ? make_key(style, i, buf) : make_term(i, buf);
    std::string_view key(buf, len);
    uint64_t keys_before;
    bool grew;
    Clock::time_point t0 = Clock::now();
    {
      std::unique_lock lk(g->mu);
      keys_before = g->size();
      grew = g->put(i, key);
    }
    Clock::time_point t1 = Clock::now();
    run.rec.record(keys_before, ns_between(t0, t1), grew);
    done.store(i + 1, std::memory_order_relaxed);
  }
  run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  stop.store(true);
  if (th.joinable()) th.join();
  run.stats = kind == Kind::kUnique ? g->unique.stats() : g->text.stats();
  run.growths = kind == Kind::kUnique ? g->unique.growth_log() : g->text.growth_log();
  return run;
}

}  // namespace fenec::scenarios::growth
