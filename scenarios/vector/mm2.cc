// vector-bench's MM-2 part: see mm2.h.
#include "scenarios/vector/mm2.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "iobench/kit/interrupt.h"
#include "findings/catalogue.h"
#include "engine/src/index/vector/table.h"  // ThreadCpuNs, MonotonicNs
#include "iobench/kit/plot.h"
#include "iobench/kit/stats.h"

namespace fenec::scenarios::vector {
namespace {

using index::vec::VisitedSet;

constexpr const char* kMM2 = "MM-2";
constexpr VisitedSet kSets[] = {VisitedSet::kBitmap, VisitedSet::kHashCleared, VisitedSet::kHashNew};

std::string arm_name(VisitedSet v) { return fmt::format("visited-{}", index::vec::VisitedSetName(v)); }

// One pass of the query set; the answers' ids into *ids when given.
uint64_t pass(const index::vec::VectorIndex& index, const Dataset& d, VisitedSet set, size_t k, size_t ef,
              std::vector<std::vector<uint64_t>>* ids) {
  uint64_t searches = 0;
  for (size_t q = 0; q < d.query_count(); ++q) {
    auto hits = index.SearchWith(set, d.query(q), k, ef);
    ++searches;
    if (!ids) continue;
    std::vector<uint64_t> row;
    if (hits.ok())
      for (const auto& h : *hits) row.push_back(h.owner);
    ids->push_back(std::move(row));
  }
  return searches;
}

std::string ns_text(const std::vector<double>& x) { return kit::format_interval(kit::of_reps(x), "ns", 0); }

}  // namespace

const Mm2Arm* Mm2Run::arm(VisitedSet v) const {
  for (const auto& a : arms)
    if (a.set == v) return &a;
  return nullptr;
}

Mm2Run run_mm2(const index::vec::VectorIndex& index, const Dataset& d, size_t k, size_t ef, int reps,
               double cell_seconds) {
  using index::vec::MonotonicNs;
  using index::vec::ThreadCpuNs;
  const uint64_t start = MonotonicNs();
  Mm2Run m;
  m.nodes = index.node_count();
  m.ef = ef;
  m.k = k;
  if (d.query_count() == 0) {
    m.error = "no queries";
    return m;
  }
  // An untimed pass of each set first: the graph and each set's memory are
  // warm before any timed cell, so the first arm of the first repetition is
  // not the one that pays for it. It also checks the answers.
  std::vector<std::vector<uint64_t>> reference;
  const auto before = index.stats();
  for (VisitedSet set : kSets) {
    Mm2Arm a;
    a.set = set;
    std::vector<std::vector<uint64_t>> ids;
    pass(index, d, set, k, ef, &ids);
    if (set == VisitedSet::kBitmap) reference = std::move(ids);
    else a.same_answers = ids == reference;
    m.arms.push_back(std::move(a));
  }
  const auto warm = index.stats();
  m.distances_per_search = double(warm.search_distances - before.search_distances) /
                           double(std::max<uint64_t>(warm.searches - before.searches, 1));
  // Interleaved, and the order rotated each repetition (bitmap, cleared,
  // new; cleared, new, bitmap; ...): repetition r still runs each set once
  // (paired by r), and no set always runs first, right after the new set's
  // allocations or the cleared set's memsets.
  kit::run_interleaved(reps, m.arms.size(), [&](size_t a, int rep) {
    Mm2Arm& arm = m.arms[(a + static_cast<size_t>(rep)) % m.arms.size()];
    const uint64_t zeroed0 = index.stats().visited_zeroings;
    const uint64_t cpu0 = ThreadCpuNs(), wall0 = MonotonicNs();
    const uint64_t until = wall0 + static_cast<uint64_t>(cell_seconds * 1e9);
    uint64_t searches = 0;
    do {
      searches += pass(index, d, arm.set, k, ef, nullptr);
    } while (MonotonicNs() < until && !kit::stop_requested());
    const uint64_t cpu = ThreadCpuNs() - cpu0, wall = MonotonicNs() - wall0;
    arm.cpu_ns_per_search.push_back(double(cpu) / double(searches));
    arm.searches_per_s.push_back(double(searches) * 1e9 / double(std::max<uint64_t>(wall, 1)));
    arm.searches += searches;
    arm.visited_zeroings += index.stats().visited_zeroings - zeroed0;
  });
  m.wall_s = double(MonotonicNs() - start) / 1e9;
  return m;
}

kit::Judgement judge_mm2(const std::vector<double>& cleared_ns, const std::vector<double>& new_ns,
                         const std::vector<double>& bitmap_ns) {
  return kit::judge({
      {"hash set cleared / new per search, CPU a search", kit::paired_ratio(cleared_ns, new_ns),
       findings::mm2::kDirection.value},
      {"cleared hash set / versioned bitmap, CPU a search", kit::paired_ratio(cleared_ns, bitmap_ns),
       findings::mm2::kDirection.value},
      {"new hash set / versioned bitmap, CPU a search", kit::paired_ratio(new_ns, bitmap_ns),
       findings::mm2::kDirection.value},
  });
}

void add_mm2_rows(kit::Results& r, const Mm2Run& m) {
  if (!m.error.empty()) {
    r.skip("visited", "", m.error);
    return;
  }
  const std::string c = fmt::format("nodes={};ef={};k={};threads=1", m.nodes, m.ef, m.k);
  const Mm2Arm* bitmap = m.arm(VisitedSet::kBitmap);
  for (const Mm2Arm& a : m.arms) {
    const std::string name = arm_name(a.set);
    for (size_t i = 0; i < a.cpu_ns_per_search.size(); ++i) {
      const std::string ci = fmt::format("{};rep={}", c, i + 1);
      r.add(kMM2, name, ci, "cpu_ns_per_search", a.cpu_ns_per_search[i], "ns");
      r.add(kMM2, name, ci, "searches_per_s", a.searches_per_s[i], "searches/s");
    }
    r.add_ratio(kMM2, name, c, "cpu_ns_per_search", kit::of_reps(a.cpu_ns_per_search), "ns");
    r.add_ratio(kMM2, name, c, "searches_per_s", kit::of_reps(a.searches_per_s), "searches/s");
    r.add(kMM2, name, c, "searches", double(a.searches), "count");
    r.add(kMM2, name, c, "visited_zeroings", double(a.visited_zeroings), "count");
    r.add(kMM2, name, c, "same_answers_as_bitmap", a.same_answers ? 1 : 0, "bool");
    r.add(kMM2, name, c, "distances_per_search", m.distances_per_search, "count");
    if (bitmap && a.set != VisitedSet::kBitmap)
      r.add_ratio(kMM2, name, c, "cpu_over_bitmap", kit::paired_ratio(a.cpu_ns_per_search, bitmap->cpu_ns_per_search));
  }
}

void print_mm2(const Mm2Run& m) {
  if (!m.error.empty()) {
    fmt::print("MM-2: not run: {}\n", m.error);
    return;
  }
  fmt::print("MM-2, visited sets in fenec's searches: {} nodes, ef {}, {:.0f} distances a search, one thread "
             "({:.1f} s)\n",
             m.nodes, m.ef, m.distances_per_search, m.wall_s);
  fmt::print("{:<24} {:>28} {:>30} {:>10} {:>13}\n", "visited set", "CPU a search", "searches/s", "zeroings",
             "same answers");
  for (const Mm2Arm& a : m.arms)
    fmt::print("{:<24} {:>28} {:>30} {:>10} {:>13}\n", arm_name(a.set), ns_text(a.cpu_ns_per_search),
               kit::format_interval(kit::of_reps(a.searches_per_s), "/s", 0), a.visited_zeroings,
               a.same_answers ? "yes" : "NO");
}

void write_mm2_plot(kit::Harness& h, const Mm2Run& m) {
  if (!m.error.empty()) return;
  kit::Chart c;
  c.title = fmt::format("MM-2: CPU a search by visited set, {} nodes, ef {} (95% interval)", m.nodes, m.ef);
  c.xlabel = "visited set";
  c.ylabel = "CPU a search (ns)";
  double x = 1;
  for (const Mm2Arm& a : m.arms) {
    const kit::Ratio t = kit::of_reps(a.cpu_ns_per_search);
    if (!t.known()) continue;
    const auto e = t.ci95.known() ? std::pair{t.ci95.lo, t.ci95.hi} : std::pair{t.value, t.value};
    c.series.emplace_back(arm_name(a.set), std::vector<std::pair<double, double>>{{x, t.value}}, "points",
                          std::vector<std::pair<double, double>>{e});
    c.xtics.push_back({x, arm_name(a.set)});
    x += 1;
  }
  if (c.series.empty()) return;
  const std::string err = kit::write_chart(c, h.plot_path("mm2-visited"));
  if (!err.empty()) fmt::print(stderr, "vector-bench: plot mm2-visited: {}\n", err);
}

kit::Verdict mm2_verdict(const Mm2Run* m, const std::string& why_not, const std::string& plot) {
  kit::Verdict v = findings::verdict(findings::mm2::kSearch);
  v.plot = plot;
  if (!why_not.empty()) {
    v.skipped(why_not);
    return v;
  }
  if (!m || !m->error.empty()) {
    v.skipped(m ? m->error : "not run");
    return v;
  }
  const Mm2Arm* bitmap = m->arm(VisitedSet::kBitmap);
  const Mm2Arm* cleared = m->arm(VisitedSet::kHashCleared);
  const Mm2Arm* fresh = m->arm(VisitedSet::kHashNew);
  if (!cleared->same_answers || !fresh->same_answers) {
    v.reason = "the hash sets' answers differ from the bitmap's: the walks are not the same, nothing to compare";
    return v;
  }
  v.set(judge_mm2(cleared->cpu_ns_per_search, fresh->cpu_ns_per_search, bitmap->cpu_ns_per_search));
  const kit::Ratio a = kit::paired_ratio(cleared->cpu_ns_per_search, fresh->cpu_ns_per_search);
  const kit::Ratio b = kit::paired_ratio(cleared->cpu_ns_per_search, bitmap->cpu_ns_per_search);
  const kit::Ratio c = kit::paired_ratio(fresh->cpu_ns_per_search, bitmap->cpu_ns_per_search);
  v.ours = fmt::format(
      "fenec's own searches ({} nodes, ef {}, k {}, {:.0f} distances a search, one thread, the same answers "
      "with every set): CPU a search: hash set (micro's flat open-addressing set) cleared {} vs new {} ({}); "
      "versioned bitmap {} (cleared set/bitmap {}, new set/bitmap {}); zeroing clears over the timed searches: "
      "bitmap {} of {} (one every 65 536 searches a thread, the arms' earlier ones counted), cleared set {} of {}",
      m->nodes, m->ef, m->k, m->distances_per_search, ns_text(cleared->cpu_ns_per_search),
      ns_text(fresh->cpu_ns_per_search), kit::format_ratio(a, 3), ns_text(bitmap->cpu_ns_per_search),
      kit::format_ratio(b, 3), kit::format_ratio(c, 3), bitmap->visited_zeroings, bitmap->searches,
      cleared->visited_zeroings, cleared->searches);
  // The kept table doubles at half full: at least twice the nodes a search
  // marks (about its distances), rounded up to a power of two.
  size_t slots = 16;
  while (slots < 2 * static_cast<size_t>(m->distances_per_search)) slots *= 2;
  v.reason += fmt::format(
      ". Each line is the direction the source states (1), as micro's MM-2. A search here marks about {:.0f} "
      "nodes, so the kept table is about {} KB: zeroing it costs less than a new set's {} doublings, each "
      "rehashing what it holds",
      m->distances_per_search, slots * 4 / 1024, std::countr_zero(slots) - 4);
  return v;
}

}  // namespace fenec::scenarios::vector
