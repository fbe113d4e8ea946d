// micro-icount: every micro-benchmark kernel once, with a fixed amount of work
// and a fixed seed, so that under callgrind its instruction count is a
// stable metric: the same source gives the same count in any build dir or
// clone path, whatever the environment, ASLR, the machine's load, the other
// kernels or --only. micro-icount-engine (icount_engine_main.cc, linked with
// the engine) runs the engine's kernels (ENG/*) the same way: a binary of its
// own, because loading libfenec.so changed MM4's counts (which copy of the
// C++20 std::string members the process binds to). Each kernel is bracketed
// by CALLGRIND_ZERO_STATS and CALLGRIND_DUMP_STATS_AT("<kernel>"): one callgrind
// dump per kernel, named. Outside valgrind the macros do nothing and it prints
// each kernel's result.
//
// What made counts move before (a fresh clone counted MM2/flat_new 1% over
// the baseline of a dev build dir), and what pins each:
//  - glibc malloc's work depends on the heap's history (bins, top chunk, the
//    dynamic mmap threshold, when sbrk grows it), and that history held every
//    earlier kernel, the engine's fixtures when built, and CLI11's copy of
//    argv[0] (the build dir's path). Each kernel now runs in a new thread (its
//    first malloc creates a fresh arena: an empty heap and tcache) of its own
//    forked child, which builds only that kernel's inputs, with the malloc
//    thresholds fixed by mallopt; --heap-noise N litters the parent's heap to
//    check that the counts do not move. The child's main thread stops
//    collecting, so each dump holds the kernel's thread alone.
//  - one-time work (lazy PLT binding, whose symbol search depends on which
//    libraries are loaded; static and locale initialisation; heap growth) fell
//    in whichever kernel came first. Each kernel runs once uncounted (warm-up),
//    then once counted.
//  - string functions (stpncpy, memcpy, ...) take alignment- and page-offset-
//    dependent paths, and the stack's offset in its page moved with the size of
//    argv and the environment. The child puts its frames at a fixed offset in
//    a page before it runs the kernel.
// scripts/ci-charts/run.sh also runs it under `env -i` (no GLIBC_TUNABLES,
// LD_BIND_NOW, VALGRIND_OPTS from the caller):
//
//   env -i valgrind --tool=callgrind --collect-atstart=yes
//     --separate-threads=no --callgrind-out-file=/tmp/ic.%p micro-icount
#include <alloca.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <regex>
#include <thread>
#include <type_traits>
#include <vector>

#include "engine/src/base/scratch.h"
#include "scenarios/micro/icount.h"
#include "scenarios/micro/kernels.h"
#include "scenarios/micro/visited.h"
#include "engine/src/base/cli.h"

namespace {

using namespace fenec::scenarios::micro;

constexpr uint64_t kSeed = 42;  // fixed: the counts must not move from run to run

using Kernel = IcountKernel;

template <class V>
V make_visited(const Graph& g) {
  if constexpr (std::is_constructible_v<V, size_t>) {
    return V(g.nodes());
  } else {
    return V();
  }
}

template <class V, bool kFresh>
IcountWork walks() {
  auto g = std::make_shared<const Graph>(make_graph(20000, kSeed, 200, 300));
  return [g] {
    V v = make_visited<V>(*g);
    uint64_t total = 0;
    for (uint32_t s = 0; s < 300; ++s) {
      const uint32_t start = s * 97 % static_cast<uint32_t>(g->nodes());
      if (kFresh) {
        V nv = v;
        total += walk_two_hops(*g, start, nv);
      } else {
        v.clear();
        total += walk_two_hops(*g, start, v);
      }
    }
    return total;
  };
}

template <bool kPerItem>
IcountWork registers() {
  return [] {
    std::vector<uint64_t> items(256, 3), q;
    q.reserve(256);
    std::atomic<int64_t> count{0};
    for (int b = 0; b < 1000; ++b) {
      q.clear();
      (kPerItem ? register_per_item : register_per_batch)(items, q, count);
    }
    return static_cast<uint64_t>(count.load());
  };
}

template <class Matcher>
IcountWork matches() {
  auto lines = std::make_shared<const std::vector<std::string>>(make_lines(200, kSeed));
  return [lines] {
    Matcher m(kUserIdPattern);
    uint64_t hits = 0;
    for (const auto& l : *lines) hits += m.match(l);
    return hits;
  };
}

// MM-5's file of strings, written by the kernel's child and removed when the
// kernel's work is destroyed.
struct TempStrings {
  fenec::base::ScratchDir dir{"icount"};
  std::string path;
  StringFile file;
  int fd = -1;
  std::string error;
  TempStrings() {
    if (!dir.ok()) {
      error = dir.error();
      return;
    }
    path = dir.path("strings.dat");
    error = make_string_file(path, 2000, kSeed, &file);
    if (error.empty()) fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (error.empty() && fd < 0) error = "open " + path + " failed";
  }
  ~TempStrings() {
    if (fd >= 0) ::close(fd);
  }
  TempStrings(const TempStrings&) = delete;
  TempStrings& operator=(const TempStrings&) = delete;
};

enum class Mm5 { kPread, kReadOnce, kMmap };

template <Mm5 kArm>
IcountWork sorts() {
  auto t = std::make_shared<TempStrings>();
  if (!t->error.empty()) {
    std::cerr << "micro-icount: " << t->error << "\n";
    return nullptr;
  }
  return [t]() -> uint64_t {
    auto offs = t->file.offsets;
    if constexpr (kArm == Mm5::kPread) {
      uint64_t preads = 0;
      sort_by_pread(t->fd, offs, &preads);
      return preads;
    } else if constexpr (kArm == Mm5::kReadOnce) {
      sort_by_read(t->fd, t->file.bytes, offs);
      return offs.front();
    } else {
      sort_by_mmap(t->fd, t->file.bytes, offs);
      return offs.front();
    }
  };
}

// Test hook (--heap-noise): leave the parent's heap, which every kernel's
// child inherits, in a different state; the counts must not move.
void make_heap_noise(size_t n, std::vector<std::unique_ptr<char[]>>* keep) {
  for (size_t i = 0; i < n; ++i) {
    auto p = std::make_unique<char[]>(24 + (i * 7919) % 70000);
    if (i % 3 != 0) keep->push_back(std::move(p));  // every third freed: holes in the bins
  }
}


// In the kernel's child, with the stack already at a fixed page offset.
[[gnu::noinline]] int run_counted(const Kernel& k) {
  IcountWork work = k.prepare();
  if (!work) return 1;
  const uint64_t warm = work();  // uncounted: lazy binding, static init, the heap grown to the kernel's peak
  CALLGRIND_ZERO_STATS;
  const uint64_t result = work();
  CALLGRIND_DUMP_STATS_AT(k.name);
  work = nullptr;  // MM-5 removes its file
  std::cout << fmt::format("{} {}\n", k.name, result) << std::flush;
  // Every kernel does some work (0 means it broke), and the same work twice.
  return result == 0 || result != warm ? 1 : 0;
}

int run_child(const Kernel& k) {
  // The environment and argv sit above main's stack, so its offset in a page
  // moves with their size; string functions' instruction counts depend on
  // their operands' alignment and page offset. Move down to the same offset
  // in a page whatever it was (alloca rounds to 16, the stack's alignment).
  const auto sp = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  auto* pad = static_cast<volatile char*>(alloca(sp % 4096 + 1));
  pad[0] = 0;
  return run_counted(k);
}

}  // namespace

namespace fenec::scenarios::micro {

std::vector<IcountKernel> mm_icount_kernels() {
  std::vector<IcountKernel> k;
  k.reserve(64);  // one fixed-size block whichever kernels a binary runs
  k.push_back({"MM2/hash_clear", walks<HashVisited, false>});
  k.push_back({"MM2/hash_new", walks<HashVisited, true>});
  k.push_back({"MM2/flat_clear", walks<FlatVisited, false>});
  k.push_back({"MM2/flat_new", walks<FlatVisited, true>});
  k.push_back({"MM2/bitmap_clear", walks<BitmapVisited, false>});
  k.push_back({"MM2/versioned_bitmap", walks<VersionedBitmap, false>});
  k.push_back({"MM3/per_item", registers<true>});
  k.push_back({"MM3/per_batch", registers<false>});
  k.push_back({"MM4/shared_checkout", matches<SharedMatcher>});
  k.push_back({"MM4/per_thread", matches<LocalMatcher>});
  k.push_back({"MM5/pread", sorts<Mm5::kPread>});
  k.push_back({"MM5/read_once", sorts<Mm5::kReadOnce>});
  k.push_back({"MM5/mmap", sorts<Mm5::kMmap>});
  return k;
}

int icount_main(int argc, char** argv, std::vector<IcountKernel> (*make_kernels)()) {
  // The same heap behaviour whatever the caller's GLIBC_TUNABLES or the heap's
  // history: no dynamic mmap threshold, no trimming, sbrk in large steps.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_TOP_PAD, 64 << 20);
  // A fixed name: CLI11 would otherwise keep a copy of argv[0] (the build
  // dir's path) on the heap the kernels' children inherit.
  CLI::App app("micro-icount: the micro-benchmark kernels with fixed work, for callgrind "
               "instruction counts (see scripts/ci-charts/run.sh)",
               "micro-icount");
  std::string only;
  bool list = false;
  size_t heap_noise = 0;
  app.add_option("--only", only, "run only the kernels whose name contains this");
  app.add_flag("--list", list, "print the kernel names and exit");
  app.add_option("--heap-noise", heap_noise,
                 "test: leave this many assorted blocks on the heap before the kernels run "
                 "(the counts must not move)");
  if (int rc = fenec::base::ParseFlags(app, argc, argv); rc >= 0) return rc;

  const std::vector<Kernel> kernels = make_kernels();
  std::vector<std::unique_ptr<char[]>> noise;
  make_heap_noise(heap_noise, &noise);
  int rc = 0;
  for (const Kernel& k : kernels) {
    if (list) {
      std::cout << k.name << "\n";
      continue;
    }
    if (!only.empty() && std::string_view(k.name).find(only) == std::string_view::npos) continue;
    std::cout << std::flush;
    const pid_t pid = ::fork();
    if (pid < 0) {
      std::cerr << "micro-icount: fork failed\n";
      return 1;
    }
    if (pid == 0) {
      // A new thread: its first malloc creates a new arena, an empty heap of
      // its own, and it has an empty tcache, whatever the parent's heap holds.
      // callgrind zeroes only the calling thread's counters but dumps every
      // thread's: this thread's (the parent's history, the thread's creation
      // and join) are zeroed and no longer collected, so the dump holds the
      // kernel's thread alone. That needs --collect-atstart=yes (the default),
      // which a new thread starts with.
      CALLGRIND_ZERO_STATS;
      CALLGRIND_TOGGLE_COLLECT;
      int child_rc = 1;
      std::thread t([&k, &child_rc] { child_rc = run_child(k); });
      t.join();
      std::cerr << std::flush;
      ::_exit(child_rc);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::cerr << "micro-icount: " << k.name << " failed\n";
      rc = 1;
    }
  }
  return rc;
}

}  // namespace fenec::scenarios::micro
