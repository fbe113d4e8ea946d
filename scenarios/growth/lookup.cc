// growth-bench lookups and memory: see lookup.h.
#include "scenarios/growth/lookup.h"

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>

#include "engine/src/index/text_index.h"
#include "engine/src/index/unique_index.h"
#include "iobench/kit/interrupt.h"
#include "engine/src/base/smaps.h"

namespace fenec::scenarios::growth {
namespace {

using Clock = std::chrono::steady_clock;

// Heterogeneous lookup for std::unordered_map, so no arm builds a temporary
// std::string per lookup (absl's string hash is transparent already).
struct SvHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
struct SvEq {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return a == b; }
};

class AnyMap {
 public:
  virtual ~AnyMap() = default;
  virtual void put(std::string_view k, uint64_t row) = 0;
  virtual uint64_t find(std::string_view k) const = 0;  // row + 1, or 0
  virtual double own_bytes() const { return 0; }
  virtual double slots() const { return 0; }
};

class FenecMap : public AnyMap {
 public:
  explicit FenecMap(index::Arm arm) : idx_(arm) {}
  void put(std::string_view k, uint64_t row) override { idx_.Put(k, row); }
  uint64_t find(std::string_view k) const override {
    auto r = idx_.Find(k);
    return r ? *r + 1 : 0;
  }
  double own_bytes() const override { return static_cast<double>(idx_.stats().memory_bytes); }
  double slots() const override { return static_cast<double>(idx_.stats().capacity_slots); }

 private:
  index::UniqueIndex idx_;
};

class AbslMap : public AnyMap {
 public:
  // Debian's absl is built with its own string_view type, so views convert.
  void put(std::string_view k, uint64_t row) override { m_.emplace(std::string(k), row); }
  uint64_t find(std::string_view k) const override {
    auto it = m_.find(absl::string_view(k.data(), k.size()));
    return it == m_.end() ? 0 : it->second + 1;
  }

 private:
  absl::flat_hash_map<std::string, uint64_t> m_;
};

class StdMap : public AnyMap {
 public:
  void put(std::string_view k, uint64_t row) override { m_.emplace(k, row); }
  uint64_t find(std::string_view k) const override {
    auto it = m_.find(k);
    return it == m_.end() ? 0 : it->second + 1;
  }

 private:
  std::unordered_map<std::string, uint64_t, SvHash, SvEq> m_;
};

class TextMap : public AnyMap {
 public:
  explicit TextMap(index::Arm arm) : idx_(arm) {}
  void put(std::string_view k, uint64_t row) override { idx_.Insert(row, k); }
  uint64_t find(std::string_view k) const override { return idx_.Query(k, 1).size(); }
  double own_bytes() const override { return static_cast<double>(idx_.stats().memory_bytes); }
  double slots() const override { return static_cast<double>(idx_.stats().capacity_slots); }

 private:
  index::TextIndex idx_;
};

std::unique_ptr<AnyMap> make_map(const std::string& arm) {
  if (arm == "unique-sharded") return std::make_unique<FenecMap>(index::Arm::kSharded);
  if (arm == "unique-naive") return std::make_unique<FenecMap>(index::Arm::kNaive);
  if (arm == "absl-flat") return std::make_unique<AbslMap>();
  if (arm == "std-unordered") return std::make_unique<StdMap>();
  if (arm == "text-sharded") return std::make_unique<TextMap>(index::Arm::kSharded);
  if (arm == "text-naive") return std::make_unique<TextMap>(index::Arm::kNaive);
  return nullptr;
}

bool is_text(const std::string& arm) { return arm.rfind("text-", 0) == 0; }

void fill(AnyMap& m, uint64_t keys, KeyStyle style, bool text) {
  char buf[64];
  for (uint64_t i = 0; i < keys; ++i) {
    size_t len = text ? make_term(i, buf) : make_key(style, i, buf);
    m.put({buf, len}, i);
  }
}

constexpr size_t kBatch = 256;

// Mean ns a lookup over `count` keys drawn by rng from [lo, lo + span).
double time_lookups(const AnyMap& m, KeyStyle style, std::mt19937_64& rng, uint64_t lo,
                    uint64_t span, uint64_t count, uint64_t* sink) {
  static thread_local char bufs[kBatch][48];
  size_t lens[kBatch];
  uint64_t total_ns = 0, done = 0;
  while (done < count) {
    size_t b = static_cast<size_t>(std::min<uint64_t>(kBatch, count - done));
    for (size_t j = 0; j < b; ++j) lens[j] = make_key(style, lo + rng() % span, bufs[j]);
    Clock::time_point t0 = Clock::now();
    uint64_t s = 0;
    for (size_t j = 0; j < b; ++j) s += m.find({bufs[j], lens[j]});
    Clock::time_point t1 = Clock::now();
    *sink += s;
    total_ns += static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
    done += b;
  }
  return static_cast<double>(total_ns) / static_cast<double>(count);
}

}  // namespace

std::vector<LookupResult> run_lookups(uint64_t keys, uint64_t lookups, int reps, KeyStyle style,
                                      uint64_t seed) {
  std::vector<LookupResult> out;
  std::vector<std::unique_ptr<AnyMap>> maps;
  for (const char* arm : kLookupArms) {
    LookupResult r;
    r.arm = arm;
    r.keys = keys;
    maps.push_back(make_map(arm));
    Clock::time_point t0 = Clock::now();
    fill(*maps.back(), keys, style, false);
    r.build_s = std::chrono::duration<double>(Clock::now() - t0).count();
    out.push_back(r);
  }
  uint64_t sink = 0, per_rep = std::max<uint64_t>(1, lookups / static_cast<uint64_t>(reps));
  for (int rep = 0; rep < reps; ++rep) {
    for (size_t a = 0; a < maps.size(); ++a) {
      std::mt19937_64 hit_rng(seed + static_cast<uint64_t>(rep)), miss_rng(~seed + static_cast<uint64_t>(rep));
      // Hits: keys 0..keys-1; misses: the next `keys` indexes, never inserted.
      double hit = time_lookups(*maps[a], style, hit_rng, 0, keys, per_rep, &sink);
      double miss = time_lookups(*maps[a], style, miss_rng, keys, keys, per_rep, &sink);
      out[a].hit_ns += hit / reps;
      out[a].miss_ns += miss / reps;
      out[a].hit_ns_reps.push_back(hit);
      out[a].miss_ns_reps.push_back(miss);
      out[a].lookups += per_rep;
    }
  }
  // Every hit returns row+1 > 0 and every miss 0: the sum proves the lookups ran.
  if (sink < out[0].lookups) fmt::print(stderr, "growth-bench: lookups returned too few hits\n");
  return out;
}

MemResult measure_memory(const std::string& arm, uint64_t keys, KeyStyle style) {
  MemResult res;
  res.arm = arm;
  res.keys = keys;
  int fds[2];
  if (pipe(fds) != 0) {
    res.error = fmt::format("pipe: {}", std::strerror(errno));
    return res;
  }
  pid_t pid = fork();
  if (pid < 0) {
    res.error = fmt::format("fork: {}", std::strerror(errno));
    close(fds[0]);
    close(fds[1]);
    return res;
  }
  if (pid == 0) {
    close(fds[0]);
    double msg[4] = {0, 0, 0, 0};  // ok, smaps bytes/key, own bytes/key, slots/key
    bool ok1 = false, ok2 = false;
    // The child inherits the parent's heap, free chunks and all: hand them
    // back first, so what the build allocates shows up as new pages.
    malloc_trim(0);
    base::MemSample before = base::ReadSmapsRollup(0, &ok1);
    std::unique_ptr<AnyMap> m = make_map(arm);
    if (m) {
      fill(*m, keys, style, is_text(arm));
      base::MemSample after = base::ReadSmapsRollup(0, &ok2);
      double k = static_cast<double>(keys);
      msg[0] = ok1 && ok2 ? 1 : 0;
      msg[1] = static_cast<double>(after.anon_kb - std::min(after.anon_kb, before.anon_kb)) * 1024.0 / k;
      msg[2] = m->own_bytes() / k;
      msg[3] = m->slots() / k;
    }
    ssize_t w = write(fds[1], msg, sizeof msg);
    _exit(w == static_cast<ssize_t>(sizeof msg) ? 0 : 1);
  }
  close(fds[1]);
  double msg[4] = {0, 0, 0, 0};
  ssize_t got = 0;
  while (got < static_cast<ssize_t>(sizeof msg)) {
    ssize_t r = read(fds[0], reinterpret_cast<char*>(msg) + got, sizeof msg - static_cast<size_t>(got));
    if (r <= 0) break;
    got += r;
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (got != static_cast<ssize_t>(sizeof msg) || msg[0] != 1) {
    res.error = got != static_cast<ssize_t>(sizeof msg) ? "the measuring child died"
                                                        : "/proc/self/smaps_rollup unreadable";
    return res;
  }
  res.ok = true;
  res.smaps_bytes_per_key = msg[1];
  res.own_bytes_per_key = msg[2];
  res.slots_per_key = msg[3];
  return res;
}

std::vector<RebuildResult> time_rebuilds(uint64_t keys, KeyStyle style, int reps) {
  std::vector<std::string> owned(keys);
  std::vector<index::UniqueIndex::Entry> entries(keys);
  char buf[64];
  for (uint64_t i = 0; i < keys; ++i) {
    owned[i].assign(buf, make_key(style, i, buf));
    entries[i] = {owned[i], i};
  }
  std::vector<RebuildResult> out;
  for (index::Arm arm : {index::Arm::kSharded, index::Arm::kNaive}) {
    RebuildResult res;
    res.arm = fmt::format("unique-{}", index::ArmName(arm));
    res.keys = keys;
    res.same = true;
    out.push_back(res);
  }
  for (int rep = 0; rep < reps && !kit::stop_requested(); ++rep) {
    for (size_t a = 0; a < out.size(); ++a) {
      index::UniqueIndex idx(a == 0 ? index::Arm::kSharded : index::Arm::kNaive);
      Clock::time_point t0 = Clock::now();
      bool clean = !idx.Rebuild(entries).has_value();
      const double s = std::chrono::duration<double>(Clock::now() - t0).count();
      uint64_t same = 0;
      for (uint64_t i = 0; i < keys; ++i) same += idx.Find(owned[i]) == i;
      out[a].rebuild_s_reps.push_back(s);
      out[a].same = out[a].same && clean && same == keys && idx.stats().growths == 0;
    }
  }
  for (auto& r : out) {
    for (double s : r.rebuild_s_reps) r.rebuild_s += s / static_cast<double>(r.rebuild_s_reps.size());
    if (r.rebuild_s_reps.empty()) r.same = false;
  }
  return out;
}

}  // namespace fenec::scenarios::growth
