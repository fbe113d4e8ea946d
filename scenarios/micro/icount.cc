// micro-icount: every micro-benchmark kernel once, with a fixed amount of work
// and a fixed seed, so that under callgrind its instruction count is a
// stable metric (the same binary and input give the same count, whatever the
// machine's load). Each kernel is bracketed by CALLGRIND_ZERO_STATS and
// CALLGRIND_DUMP_STATS_AT("<kernel>"): one callgrind dump per kernel, named.
// Outside valgrind the macros do nothing and it prints each kernel's result.
//
//   valgrind --tool=callgrind --callgrind-out-file=/tmp/ic.%p micro-icount
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <regex>
#include <vector>

#include "scenarios/micro/kernels.h"
#ifdef FENEC_MICRO_ENGINE
#include "scenarios/micro/engine_benches.h"
#endif
#include "scenarios/micro/visited.h"

namespace {

using namespace fenec::micro;

constexpr uint64_t kSeed = 42;  // fixed: the counts must not move from run to run

struct Kernel {
  std::string name;
  std::function<uint64_t()> run;  // returns a result so the work cannot be optimised away
};

template <class V>
uint64_t walks(const Graph& g, V& v, size_t n, bool fresh) {
  uint64_t total = 0;
  for (uint32_t s = 0; s < n; ++s) {
    if (fresh) {
      V nv = v;
      total += walk_two_hops(g, s * 97 % static_cast<uint32_t>(g.nodes()), nv);
    } else {
      v.clear();
      total += walk_two_hops(g, s * 97 % static_cast<uint32_t>(g.nodes()), v);
    }
  }
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("micro-icount: the micro-benchmark kernels with fixed work, for callgrind "
               "instruction counts (see scripts/ci-charts/run.sh)");
  std::string only;
  bool list = false;
  app.add_option("--only", only, "run only the kernels whose name contains this");
  app.add_flag("--list", list, "print the kernel names and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << "micro-icount: " << e.what() << "\n";
    return 2;
  }

  const Graph g = make_graph(20000, kSeed, 200, 300);
  const auto lines = make_lines(200, kSeed);
  char dir[] = "/tmp/fenec-icount-XXXXXX";
  if (mkdtemp(dir) == nullptr) {
    std::cerr << "micro-icount: mkdtemp failed\n";
    return 1;
  }
  const std::string path = std::string(dir) + "/strings.dat";
  StringFile file;
  if (std::string err = make_string_file(path, 2000, kSeed, &file); !err.empty()) {
    std::cerr << "micro-icount: " << err << "\n";
    return 1;
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);

  std::vector<Kernel> kernels;
  auto walk_kernel = [&](const std::string& name, auto make, bool fresh) {
    kernels.push_back({name, [&g, make, fresh] {
                         auto v = make();
                         return walks(g, v, 300, fresh);
                       }});
  };
  walk_kernel("MM2/hash_clear", [] { return HashVisited(); }, false);
  walk_kernel("MM2/hash_new", [] { return HashVisited(); }, true);
  walk_kernel("MM2/flat_clear", [] { return FlatVisited(); }, false);
  walk_kernel("MM2/flat_new", [] { return FlatVisited(); }, true);
  walk_kernel("MM2/bitmap_clear", [&g] { return BitmapVisited(g.nodes()); }, false);
  walk_kernel("MM2/versioned_bitmap", [&g] { return VersionedBitmap(g.nodes()); }, false);
  for (bool per_item : {true, false}) {
    kernels.push_back({per_item ? "MM3/per_item" : "MM3/per_batch", [per_item] {
                         std::vector<uint64_t> items(256, 3), q;
                         q.reserve(256);
                         std::atomic<int64_t> count{0};
                         for (int b = 0; b < 1000; ++b) {
                           q.clear();
                           (per_item ? register_per_item : register_per_batch)(items, q, count);
                         }
                         return static_cast<uint64_t>(count.load());
                       }});
  }
  kernels.push_back({"MM4/shared_checkout", [&lines] {
                       SharedMatcher m(kUserIdPattern);
                       uint64_t hits = 0;
                       for (const auto& l : lines) hits += m.match(l);
                       return hits;
                     }});
  kernels.push_back({"MM4/per_thread", [&lines] {
                       LocalMatcher m(kUserIdPattern);
                       uint64_t hits = 0;
                       for (const auto& l : lines) hits += m.match(l);
                       return hits;
                     }});
  kernels.push_back({"MM5/pread", [&file, fd] {
                       auto offs = file.offsets;
                       uint64_t preads = 0;
                       sort_by_pread(fd, offs, &preads);
                       return preads;
                     }});
  kernels.push_back({"MM5/read_once", [&file, fd] {
                       auto offs = file.offsets;
                       sort_by_read(fd, file.bytes, offs);
                       return offs.front();
                     }});
  kernels.push_back({"MM5/mmap", [&file, fd] {
                       auto offs = file.offsets;
                       sort_by_mmap(fd, file.bytes, offs);
                       return offs.front();
                     }});

#ifdef FENEC_MICRO_ENGINE
  for (auto& [name, fn] : engine_icount_kernels()) kernels.push_back({name, fn});
#endif

  int rc = 0;
  for (const Kernel& k : kernels) {
    if (list) {
      std::cout << k.name << "\n";
      continue;
    }
    if (!only.empty() && k.name.find(only) == std::string::npos) continue;
    CALLGRIND_ZERO_STATS;
    const uint64_t result = k.run();
    CALLGRIND_DUMP_STATS_AT(k.name.c_str());
    std::cout << fmt::format("{} {}\n", k.name, result);
    if (result == 0) rc = 1;  // every kernel does some work: 0 means it broke
  }
  ::close(fd);
  ::unlink(path.c_str());
  ::rmdir(dir);
  return rc;
}
