#include "scenarios/micro/collect.h"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>

namespace fenec::scenarios::micro {
namespace {

const Figure* find(const std::vector<Figure>& figs, const std::string& finding,
                   const std::string& arm, int threads) {
  const std::string tail = fmt::format("threads={}", threads);
  for (const Figure& f : figs) {
    if (f.finding == finding && f.arm == arm && f.error.empty() && !f.ns_per_item.empty() &&
        f.case_.size() >= tail.size() && f.case_.ends_with(tail)) {
      return &f;
    }
  }
  return nullptr;
}

// "a / b" of two arms' median ns per item: how many times slower a is.
double slower(const Figure* a, const Figure* b) {
  return a && b && b->median_ns() > 0 ? a->median_ns() / b->median_ns() : 0;
}

std::string ns(const Figure* f) {
  return f ? fmt::format("{:.3g} ns", f->median_ns()) : std::string("n/a");
}

}  // namespace

double Figure::median_ns() const {
  if (ns_per_item.empty()) return 0;
  std::vector<double> v = ns_per_item;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

CollectingReporter::CollectingReporter()
    : benchmark::ConsoleReporter(isatty(STDOUT_FILENO) ? OO_ColorTabular : OO_Tabular) {}

void CollectingReporter::ReportRuns(const std::vector<Run>& runs) {
  for (const Run& r : runs) runs_.push_back(r);
  ConsoleReporter::ReportRuns(runs);
}

std::vector<Figure> figures_of(const std::vector<benchmark::BenchmarkReporter::Run>& runs,
                               const std::map<std::string, std::string>& cases) {
  std::vector<Figure> figs;
  std::map<std::string, size_t> index;  // instance name -> figs index
  for (const auto& run : runs) {
    if (run.run_type != benchmark::BenchmarkReporter::Run::RT_Iteration) continue;
    const std::string& fn = run.run_name.function_name;  // "MM2/hash_clear"
    const size_t slash = fn.find('/');
    if (slash == std::string::npos) continue;
    const std::string key = run.benchmark_name();
    auto [it, fresh] = index.emplace(key, figs.size());
    if (fresh) {
      Figure f;
      // "MM2/x" backs MM-2; "ENG/x" (the engine's hot paths) backs no finding.
      f.finding = fn.starts_with("MM") ? fmt::format("MM-{}", fn.substr(2, slash - 2)) : "";
      f.arm = fn.substr(slash + 1);
      const auto c = cases.find(fn);
      f.case_ = fmt::format("{}{}threads={}", c == cases.end() ? "" : c->second,
                            c == cases.end() ? "" : ";", run.threads);
      figs.push_back(f);
    }
    Figure& f = figs[it->second];
    if (run.error_occurred) {
      f.error = run.error_message;
      continue;
    }
    const auto ips = run.counters.find("items_per_second");
    if (ips != run.counters.end() && ips->second.value > 0) {
      f.ns_per_item.push_back(1e9 / ips->second.value);
    }
    for (const auto& [name, c] : run.counters) {
      if (name != "items_per_second") f.counters[name] = c.value;
    }
  }
  return figs;
}

void add_rows(kit::Results& r, const std::vector<Figure>& figs) {
  for (const Figure& f : figs) {
    if (!f.error.empty()) {
      r.skip(f.arm, f.case_, f.error);
      continue;
    }
    if (f.ns_per_item.empty()) continue;
    r.add(f.finding, f.arm, f.case_, "ns_per_item", f.median_ns(), "ns");
    r.add(f.finding, f.arm, f.case_, "items_per_s", 1e9 / f.median_ns(), "items/s");
    for (const auto& [name, v] : f.counters) r.add(f.finding, f.arm, f.case_, name, v, "count");
    if (f.ns_per_item.size() > 1) {
      for (size_t i = 0; i < f.ns_per_item.size(); ++i) {
        r.add(f.finding, f.arm, fmt::format("{};rep={}", f.case_, i), "ns_per_item",
              f.ns_per_item[i], "ns");
      }
    }
  }
}

void add_verdicts(kit::Results& r, const std::vector<Figure>& figs, const std::string& plot) {
  {
    const Figure* clear = find(figs, "MM-2", "hash_clear", 1);
    const Figure* fresh = find(figs, "MM-2", "hash_new", 1);
    const Figure* fclear = find(figs, "MM-2", "flat_clear", 1);
    const Figure* ffresh = find(figs, "MM-2", "flat_new", 1);
    const Figure* bitmap = find(figs, "MM-2", "bitmap_clear", 1);
    const Figure* vers = find(figs, "MM-2", "versioned_bitmap", 1);
    kit::Verdict v{"MM-2",
                     "clearing a big hash set can cost more than a new one; a versioned bitmap "
                     "clears in O(1)",
                     "allocating a new HashSet per walk beat Clear(); the versioned bitmap was "
                     "fastest (no figure given)",
                     "", "", plot};
    if (clear && fresh && fclear && ffresh && bitmap && vers) {
      v.ours = fmt::format(
          "per walk: flat (array) hash set cleared {} vs new {}; std::unordered_set cleared {} vs "
          "new {}; bitmap cleared {}; versioned bitmap {} ({:.1f}x faster than the cleared flat "
          "set)",
          ns(fclear), ns(ffresh), ns(clear), ns(fresh), ns(bitmap), ns(vers), slower(fclear, vers));
      // The source's set is array-based, so its claim is judged on the flat set;
      // the node-based std::unordered_set is shown beside it.
      const bool ok = fclear->median_ns() > ffresh->median_ns() &&
                      vers->median_ns() < std::min({clear->median_ns(), fresh->median_ns(),
                                                    fclear->median_ns(), ffresh->median_ns(),
                                                    bitmap->median_ns()});
      v.verdict = ok ? "reproduced" : "not reproduced";
    } else {
      v.verdict = "not applicable: MM-2 arms not run (see --filter)";
    }
    r.verdict(v);
  }
  {
    const Figure* item2 = find(figs, "MM-3", "per_item", 2);
    const Figure* batch2 = find(figs, "MM-3", "per_batch", 2);
    const Figure* item1 = find(figs, "MM-3", "per_item", 1);
    const Figure* batch1 = find(figs, "MM-3", "per_batch", 1);
    kit::Verdict v{"MM-3",
                     "one atomic add per batch instead of one increment per item cuts contention",
                     "lock inc per item vs one lock add per batch: 'drastically reduces the "
                     "contention' (no figure given)",
                     "", "", plot};
    if (item2 && batch2) {
      v.ours = fmt::format("2 threads: {} an item with an increment each vs {} with one add a "
                           "batch ({:.1f}x); 1 thread: {:.1f}x",
                           ns(item2), ns(batch2), slower(item2, batch2), slower(item1, batch1));
      v.verdict = slower(item2, batch2) >= 1.5 ? "reproduced" : "not reproduced";
    } else {
      v.verdict = "not applicable: MM-3 arms not run (see --filter)";
    }
    r.verdict(v);
  }
  {
    const Figure* shared2 = find(figs, "MM-4", "shared_checkout", 2);
    const Figure* local2 = find(figs, "MM-4", "per_thread", 2);
    kit::Verdict v{"MM-4",
                     "a shared matcher that checks out scratch state allocates under concurrency; "
                     "per-thread instances avoid it",
                     "shared Regex under concurrent use up to 5-6x slower than single-threaded "
                     "use; ThreadLocal<Regex> fixed it",
                     "", "", plot};
    if (shared2 && local2) {
      const auto fr = shared2->counters.find("fresh_per_call");
      v.ours = fmt::format(
          "std::regex, 2 threads: shared {} a line vs per-thread {} ({:.2f}x); {:.2g}% of shared "
          "calls built a fresh scratch",
          ns(shared2), ns(local2), slower(shared2, local2),
          fr == shared2->counters.end() ? 0.0 : 100 * fr->second);
      v.verdict = slower(shared2, local2) >= 1.5 ? "reproduced" : "not reproduced";
    } else {
      v.verdict = "not applicable: MM-4 arms not run (see --filter)";
    }
    r.verdict(v);
  }
  {
    const Figure* pread = find(figs, "MM-5", "pread", 1);
    const Figure* once = find(figs, "MM-5", "read_once", 1);
    const Figure* map = find(figs, "MM-5", "mmap", 1);
    kit::Verdict v{"MM-5",
                     "many tiny positioned reads cost far more than reading the file once or "
                     "mapping it",
                     "1.15 billion tiny preads ~50 min; one read (or mmap) under 3 min (>16x)",
                     "", "", plot};
    if (pread && once && map) {
      const auto pc = pread->counters.find("preads_per_sort");
      v.ours = fmt::format("sorting offsets: {} a string with preads ({:.0f} preads a sort), {} "
                           "after one read, {} through mmap ({:.0f}x / {:.0f}x)",
                           ns(pread), pc == pread->counters.end() ? 0.0 : pc->second, ns(once),
                           ns(map), slower(pread, once), slower(pread, map));
      v.verdict = slower(pread, once) >= 5 && slower(pread, map) >= 5 ? "reproduced"
                                                                       : "not reproduced";
    } else {
      v.verdict = "not applicable: MM-5 arms not run (see --filter)";
    }
    r.verdict(v);
  }
}

}  // namespace fenec::scenarios::micro
