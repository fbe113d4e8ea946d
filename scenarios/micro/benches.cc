#include "scenarios/micro/benches.h"

#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <time.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "scenarios/micro/visited.h"

namespace fenec::scenarios::micro {
namespace {

constexpr size_t kBatch = 256;        // MM-3 items registered per call

uint64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}
constexpr size_t kLinesPerIter = 16;  // MM-4 matches per iteration

template <class Make>
void bench_walks(benchmark::State& state, const Fixtures& f, Make make_and_clear) {
  uint64_t visited_total = 0;
  for (auto _ : state) {
    for (uint32_t s : f.starts) visited_total += make_and_clear(s);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * f.starts.size()));
  state.counters["nodes_per_walk"] =
      static_cast<double>(visited_total) / static_cast<double>(state.iterations() * f.starts.size());
}

void register_mm2(Fixtures& f) {
  const Fixtures* fp = &f;
  benchmark::RegisterBenchmark("MM2/hash_clear", [fp](benchmark::State& st) {
    HashVisited v;
    bench_walks(st, *fp, [&](uint32_t s) {
      v.clear();
      return walk_two_hops(fp->graph, s, v);
    });
  });
  benchmark::RegisterBenchmark("MM2/hash_new", [fp](benchmark::State& st) {
    bench_walks(st, *fp, [&](uint32_t s) {
      HashVisited v;
      return walk_two_hops(fp->graph, s, v);
    });
  });
  benchmark::RegisterBenchmark("MM2/flat_clear", [fp](benchmark::State& st) {
    FlatVisited v;
    bench_walks(st, *fp, [&](uint32_t s) {
      v.clear();
      return walk_two_hops(fp->graph, s, v);
    });
  });
  benchmark::RegisterBenchmark("MM2/flat_new", [fp](benchmark::State& st) {
    bench_walks(st, *fp, [&](uint32_t s) {
      FlatVisited v;
      return walk_two_hops(fp->graph, s, v);
    });
  });
  benchmark::RegisterBenchmark("MM2/bitmap_clear", [fp](benchmark::State& st) {
    BitmapVisited v(fp->graph.nodes());
    bench_walks(st, *fp, [&](uint32_t s) {
      v.clear();
      return walk_two_hops(fp->graph, s, v);
    });
  });
  benchmark::RegisterBenchmark("MM2/versioned_bitmap", [fp](benchmark::State& st) {
    VersionedBitmap v(fp->graph.nodes());
    bench_walks(st, *fp, [&](uint32_t s) {
      v.clear();
      return walk_two_hops(fp->graph, s, v);
    });
  });
  // MM-2's judged pair, measured back to back: each iteration walks every
  // start once with the cleared flat set and once with the versioned bitmap
  // (which first alternates), each pass timed on the thread's CPU clock.
  // These walks are memory-bound, and on this VM their CPU a walk swings 4x
  // within seconds (a neighbour's memory traffic: the versioned bitmap's
  // ranged 5.4-19.7 us between passes of one run), so arms measured a pass
  // apart cannot be paired; passes milliseconds apart can.
  benchmark::RegisterBenchmark("MM2/paired", [fp](benchmark::State& st) {
    FlatVisited flat;
    VersionedBitmap vers(fp->graph.nodes());
    double flat_ns = 0, vers_ns = 0;
    uint64_t visited = 0;
    bool flat_first = true;
    auto walks = [&](auto& v) {
      const uint64_t t0 = ThreadCpuNs();
      for (uint32_t s : fp->starts) {
        v.clear();
        visited += walk_two_hops(fp->graph, s, v);
      }
      return static_cast<double>(ThreadCpuNs() - t0);
    };
    for (auto _ : st) {
      if (flat_first) {
        flat_ns += walks(flat);
        vers_ns += walks(vers);
      } else {
        vers_ns += walks(vers);
        flat_ns += walks(flat);
      }
      flat_first = !flat_first;
    }
    benchmark::DoNotOptimize(visited);
    const double n = static_cast<double>(st.iterations() * fp->starts.size());
    st.SetItemsProcessed(static_cast<int64_t>(2 * st.iterations() * fp->starts.size()));
    st.counters["flat_clear_cpu_ns_per_walk"] = flat_ns / n;
    st.counters["versioned_bitmap_cpu_ns_per_walk"] = vers_ns / n;
  });
}

std::atomic<int64_t> g_registered{0};

template <class Register>
void bench_register(benchmark::State& state, Register reg) {
  std::vector<uint64_t> items(kBatch);
  for (size_t i = 0; i < kBatch; ++i) items[i] = i * 2654435761u;
  std::vector<uint64_t> queue;
  queue.reserve(kBatch);
  for (auto _ : state) {
    queue.clear();
    reg(items, queue, g_registered);
    benchmark::DoNotOptimize(queue.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kBatch));
}

void register_mm3() {
  for (const char* arm : {"MM3/per_item", "MM3/per_batch"}) {
    const bool per_item = std::string(arm) == "MM3/per_item";
    benchmark::RegisterBenchmark(arm, [per_item](benchmark::State& st) {
      bench_register(st, per_item ? register_per_item : register_per_batch);
    })->Threads(1)->Threads(2)->UseRealTime();
  }
}

template <class Match>
void bench_matches(benchmark::State& state, const Fixtures& f, Match match) {
  size_t i = static_cast<size_t>(state.thread_index()) * 997;
  int64_t hits = 0;
  for (auto _ : state) {
    for (size_t k = 0; k < kLinesPerIter; ++k) {
      hits += match(f.lines[i % f.lines.size()]) ? 1 : 0;
      ++i;
    }
  }
  benchmark::DoNotOptimize(hits);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kLinesPerIter));
}

void register_mm4(Fixtures& f, double min_time) {
  const Fixtures* fp = &f;
  benchmark::RegisterBenchmark("MM4/shared_checkout", [fp](benchmark::State& st) {
    const uint64_t fresh0 = fp->shared->fresh_scratch();
    bench_matches(st, *fp, [&](const std::string& l) { return fp->shared->match(l); });
    // Every thread sees the same global count; averaged over threads it is the total.
    const double calls = static_cast<double>(st.iterations() * kLinesPerIter) * st.threads();
    st.counters["fresh_per_call"] = benchmark::Counter(
        static_cast<double>(fp->shared->fresh_scratch() - fresh0) / calls,
        benchmark::Counter::kAvgThreads);
  })->Threads(1)->Threads(2)->UseRealTime()->MinTime(min_time * kMm4MinTimeFactor);
  benchmark::RegisterBenchmark("MM4/per_thread", [fp](benchmark::State& st) {
    LocalMatcher m(kUserIdPattern);
    bench_matches(st, *fp, [&](const std::string& l) { return m.match(l); });
  })->Threads(1)->Threads(2)->UseRealTime()->MinTime(min_time * kMm4MinTimeFactor);
  // RE2: one object (its DFA cache shared under RE2's lock) or one per thread.
  benchmark::RegisterBenchmark("MM4/re2_shared", [fp](benchmark::State& st) {
    bench_matches(st, *fp, [&](const std::string& l) { return fp->re2->match(l); });
  })->Threads(1)->Threads(2)->UseRealTime()->MinTime(min_time);
  benchmark::RegisterBenchmark("MM4/re2_per_thread", [fp](benchmark::State& st) {
    const Re2Matcher m(kUserIdPatternAnyCase);
    bench_matches(st, *fp, [&](const std::string& l) { return m.match(l); });
  })->Threads(1)->Threads(2)->UseRealTime()->MinTime(min_time);
  // PCRE2: match data lent from one slot, a fresh one when taken (the
  // source's pattern), or one per thread.
  benchmark::RegisterBenchmark("MM4/pcre2_shared_slot", [fp](benchmark::State& st) {
    const uint64_t fresh0 = fp->pcre2_shared->fresh_match_data();
    bench_matches(st, *fp, [&](const std::string& l) { return fp->pcre2_shared->match(l); });
    const double calls = static_cast<double>(st.iterations() * kLinesPerIter) * st.threads();
    st.counters["fresh_per_call"] = benchmark::Counter(
        static_cast<double>(fp->pcre2_shared->fresh_match_data() - fresh0) / calls, benchmark::Counter::kAvgThreads);
  })->Threads(1)->Threads(2)->UseRealTime()->MinTime(min_time);
  benchmark::RegisterBenchmark("MM4/pcre2_per_thread", [fp](benchmark::State& st) {
    Pcre2LocalMatcher m(*fp->pcre2);
    bench_matches(st, *fp, [&](const std::string& l) { return m.match(l); });
  })->Threads(1)->Threads(2)->UseRealTime()->MinTime(min_time);
}

void register_mm5(Fixtures& f) {
  const Fixtures* fp = &f;
  auto run = [fp](benchmark::State& st, int arm) {
    uint64_t preads = 0;
    std::vector<uint64_t> offs;
    for (auto _ : st) {
      offs = fp->file.offsets;
      std::string err = arm == 0   ? sort_by_pread(fp->fd, offs, &preads)
                        : arm == 1 ? sort_by_read(fp->fd, fp->file.bytes, offs)
                                   : sort_by_mmap(fp->fd, fp->file.bytes, offs);
      if (!err.empty()) {
        st.SkipWithError(err.c_str());
        break;
      }
    }
    st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * fp->file.offsets.size()));
    st.counters["preads_per_sort"] =
        st.iterations() > 0 ? static_cast<double>(preads) / static_cast<double>(st.iterations()) : 0;
  };
  benchmark::RegisterBenchmark("MM5/pread", [run](benchmark::State& st) { run(st, 0); })
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("MM5/read_once", [run](benchmark::State& st) { run(st, 1); })
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("MM5/mmap", [run](benchmark::State& st) { run(st, 2); })
      ->Unit(benchmark::kMillisecond);
}

}  // namespace

std::string build_fixtures(const FixtureSizes& sizes, uint64_t seed, const std::string& dir,
                           Fixtures* f) {
  f->graph = make_graph(sizes.graph_nodes, seed, 200, 1000);
  std::mt19937_64 rng(seed ^ 0x5eed);
  f->starts.clear();
  // One walk in kHubStartEvery starts at a hub and reaches ~15 000 nodes, the
  // source's "a node that can access 10,000 nodes": it sizes a reused set.
  constexpr size_t kHubStartEvery = 64, kHubEvery = 200;
  for (size_t i = 0; i < sizes.walks; ++i) {
    const uint64_t r = rng();
    f->starts.push_back(static_cast<uint32_t>(
        i % kHubStartEvery == kHubStartEvery / 2 ? (r % (sizes.graph_nodes / kHubEvery)) * kHubEvery
                                                 : r % sizes.graph_nodes));
  }
  f->lines = make_lines(sizes.lines, seed + 1);
  f->shared = std::make_unique<SharedMatcher>(kUserIdPattern);
  f->re2 = std::make_unique<Re2Matcher>(kUserIdPatternAnyCase);
  if (!f->re2->ok()) return "RE2 did not compile the MM-4 pattern";
  f->pcre2 = std::make_unique<Pcre2Code>(kUserIdPatternAnyCase);
  if (!f->pcre2->ok()) return "PCRE2 did not compile the MM-4 pattern";
  f->pcre2_shared = std::make_unique<Pcre2SharedMatcher>(*f->pcre2);
  const std::string path = dir + "/strings.dat";
  if (std::string err = make_string_file(path, sizes.strings, seed + 2, &f->file); !err.empty()) {
    return err;
  }
  f->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f->fd < 0) return fmt::format("open {}: {}", path, std::strerror(errno));
  return "";
}

void close_fixtures(Fixtures* f) {
  if (f->fd >= 0) ::close(f->fd);
  f->fd = -1;
}

void register_benchmarks(Fixtures& f, const FixtureSizes& sizes, double min_time,
                         std::map<std::string, std::string>* cases) {
  register_mm2(f);
  register_mm3();
  register_mm4(f, min_time);
  register_mm5(f);
  const std::string walks = fmt::format("nodes={};walks={}", sizes.graph_nodes, sizes.walks);
  for (const char* a : {"hash_clear", "hash_new", "flat_clear", "flat_new", "bitmap_clear",
                        "versioned_bitmap", "paired"}) {
    (*cases)[fmt::format("MM2/{}", a)] = walks;
  }
  for (const char* a : {"per_item", "per_batch"}) (*cases)[fmt::format("MM3/{}", a)] = fmt::format("batch={}", kBatch);
  for (const char* a : {"shared_checkout", "per_thread"}) {
    (*cases)[fmt::format("MM4/{}", a)] = "regex=std::regex";
  }
  for (const char* a : {"re2_shared", "re2_per_thread"}) (*cases)[fmt::format("MM4/{}", a)] = "regex=re2";
  for (const char* a : {"pcre2_shared_slot", "pcre2_per_thread"}) {
    (*cases)[fmt::format("MM4/{}", a)] = f.pcre2 && f.pcre2->jit() ? "regex=pcre2;jit=1" : "regex=pcre2;jit=0";
  }
  for (const char* a : {"pread", "read_once", "mmap"}) {
    (*cases)[fmt::format("MM5/{}", a)] = fmt::format("strings={}", sizes.strings);
  }
}

}  // namespace fenec::scenarios::micro
