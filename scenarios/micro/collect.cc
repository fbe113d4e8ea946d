#include "scenarios/micro/collect.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <unistd.h>

#include <algorithm>

#include "findings/catalogue.h"

namespace fenec::scenarios::micro {
namespace {

// MM-4's line: the source's "as much as five times" (see the verdict).
constexpr double kMm4Line = findings::mm4::kShared.value;

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

// The share of calls that allocated fresh scratch, over every repetition.
double fresh_share(const Figure* f) {
  const auto reps = f->counter_reps.find("fresh_per_call");
  if (reps != f->counter_reps.end() && !reps->second.empty()) {
    double sum = 0;
    for (double x : reps->second) sum += x;
    return sum / static_cast<double>(reps->second.size());
  }
  const auto last = f->counters.find("fresh_per_call");
  return last == f->counters.end() ? 0 : last->second;
}

// The verdicts compare the CPU an item costs (cpu_ns_per_item), not its wall
// time: on this shared 2-core machine a neighbour's compile takes a core for
// seconds, and a benchmark thread waiting for one inflates its wall time (2x
// between repetitions, seen) but not its CPU. Every kernel here does its work
// on the CPU and never sleeps (the atomics spin, the matcher's slot is
// lock-free, preads and page faults are system CPU), so its CPU is its cost.

// a / b of two arms' CPU per item, paired by repetition (pass r of a and of b
// ran in the same pass, seconds apart): how many times slower a is.
kit::Ratio slower(const Figure* a, const Figure* b) {
  return a && b ? kit::paired_ratio(a->cpu_ns_per_item, b->cpu_ns_per_item) : kit::Ratio{};
}
// The same on wall time, shown beside.
kit::Ratio wall_slower(const Figure* a, const Figure* b) {
  return a && b ? kit::paired_ratio(a->ns_per_item, b->ns_per_item) : kit::Ratio{};
}

// "5.91e+03 ns [5.60e+03, 6.20e+03]": the geometric mean over the repetitions, its interval.
std::string interval_ns(const std::vector<double>& reps) {
  const kit::Ratio r = kit::of_reps(reps);
  if (!r.known()) return "n/a";
  if (!r.ci95.known()) return fmt::format("{:.3g} ns", r.value);
  return fmt::format("{:.3g} ns [{:.3g}, {:.3g}]", r.value, r.ci95.lo, r.ci95.hi);
}
std::string cpu(const Figure* f) { return f ? interval_ns(f->cpu_ns_per_item) : std::string("n/a"); }
std::string wall(const Figure* f) { return f ? interval_ns(f->ns_per_item) : std::string("n/a"); }

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

bool CollectingReporter::ReportContext(const Context& context) {
  if (context_printed_) return true;
  context_printed_ = true;
  return ConsoleReporter::ReportContext(context);
}

void CollectingReporter::ReportRuns(const std::vector<Run>& runs) {
  for (Run r : runs) {
    r.repetition_index = pass_;
    runs_.push_back(r);
  }
  ConsoleReporter::ReportRuns(runs);
}

PassesJsonReporter::PassesJsonReporter(std::ostream* out) {
  json_.SetOutputStream(out);
  json_.SetErrorStream(out);
}

bool PassesJsonReporter::ReportContext(const Context& context) {
  if (context_written_) return true;
  context_written_ = true;
  return json_.ReportContext(context);
}

void PassesJsonReporter::ReportRuns(const std::vector<Run>& runs) {
  std::vector<Run> stamped = runs;
  for (Run& r : stamped) r.repetition_index = pass_;
  json_.ReportRuns(stamped);
}

void PassesJsonReporter::Done() {
  if (context_written_) json_.Finalize();
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
      // items/s is every thread's items over the wall time (real_accumulated_time);
      // cpu_accumulated_time is every thread's CPU.
      const double items = ips->second.value * run.real_accumulated_time;
      if (items > 0) f.cpu_ns_per_item.push_back(run.cpu_accumulated_time * 1e9 / items);
    }
    for (const auto& [name, c] : run.counters) {
      if (name == "items_per_second") continue;
      f.counters[name] = c.value;
      f.counter_reps[name].push_back(c.value);
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
    if (!f.cpu_ns_per_item.empty()) r.add(f.finding, f.arm, f.case_, "cpu_ns_per_item", kit::median(f.cpu_ns_per_item), "ns");
    r.add(f.finding, f.arm, f.case_, "items_per_s", 1e9 / f.median_ns(), "items/s");
    for (const auto& [name, v] : f.counters) r.add(f.finding, f.arm, f.case_, name, v, "count");
    if (f.ns_per_item.size() > 1) {
      for (size_t i = 0; i < f.ns_per_item.size(); ++i) {
        r.add(f.finding, f.arm, fmt::format("{};rep={}", f.case_, i), "ns_per_item",
              f.ns_per_item[i], "ns");
        if (i < f.cpu_ns_per_item.size())
          r.add(f.finding, f.arm, fmt::format("{};rep={}", f.case_, i), "cpu_ns_per_item", f.cpu_ns_per_item[i], "ns");
      }
    }
  }
}

void add_verdicts(kit::Results& r, const std::vector<Figure>& figs, const std::string& plot) {
  // Each check: a/b of two arms' CPU per item, paired by repetition: how many
  // times slower a is than b, with its 95% interval.
  auto check = [](std::string what, const Figure* a, const Figure* b, double line, bool above = true) {
    return kit::Check{std::move(what), slower(a, b), line, above};
  };
  // Each check's ratio as rows beside the arm it is about.
  auto rows = [&r](const std::string& finding, const Figure* f, const std::string& metric, const kit::Ratio& ratio) {
    r.add_ratio(finding, f->arm, f->case_, metric, ratio);
  };
  {
    const Figure* clear = find(figs, "MM-2", "hash_clear", 1);
    const Figure* fresh = find(figs, "MM-2", "hash_new", 1);
    const Figure* fclear = find(figs, "MM-2", "flat_clear", 1);
    const Figure* ffresh = find(figs, "MM-2", "flat_new", 1);
    const Figure* bitmap = find(figs, "MM-2", "bitmap_clear", 1);
    const Figure* vers = find(figs, "MM-2", "versioned_bitmap", 1);
    kit::Verdict v = findings::verdict(findings::mm2::kFinding);
    v.plot = plot;
    if (clear && fresh && fclear && ffresh && bitmap && vers) {
      // The source gives no figure: each line is the direction it states (1).
      // Its set is array-based (.NET's HashSet<int>), so its claim is judged
      // on the flat set; the node-based std::unordered_set is shown beside it.
      // 1. "The allocating version was actually cheaper" than Clear().
      const kit::Check a = check("flat set cleared/new per walk", fclear, ffresh, findings::mm2::kDirection.value);
      // 2. The versioned bitmap clears in O(1): cheaper than the reused set's
      //    clear. Judged on MM2/paired, the two walked back to back in each
      //    iteration (benches.cc says why), when it ran; else on the two arms.
      kit::Check b = check("cleared flat set/versioned bitmap per walk", fclear, vers, findings::mm2::kDirection.value);
      std::string paired;
      if (const Figure* pair = find(figs, "MM-2", "paired", 1)) {
        const auto fl = pair->counter_reps.find("flat_clear_cpu_ns_per_walk");
        const auto vb = pair->counter_reps.find("versioned_bitmap_cpu_ns_per_walk");
        if (fl != pair->counter_reps.end() && vb != pair->counter_reps.end()) {
          b.what = "cleared flat set/versioned bitmap per walk, walked back to back";
          b.ratio = kit::paired_ratio(fl->second, vb->second);
          paired = fmt::format("; walked back to back, CPU a walk: cleared flat set {}, versioned bitmap {}",
                               interval_ns(fl->second), interval_ns(vb->second));
        }
      }
      // The plain bitmap is shown beside, not judged: the source gives no
      // figure between the two bitmaps, only that a plain one "does not
      // address the costs of clearing" (an O(nodes/64) memset a walk, which
      // the versioned one replaces by bumping a counter: O(1) by
      // construction). Which costs more a walk depends on the graph's size
      // against a walk's: at 1 M nodes its 128 KB memset costs about what
      // the version checks do; at the source's tens of millions it dominates.
      const kit::Ratio plain = slower(bitmap, vers);
      v.set(kit::judge({a, b}));
      v.ours = fmt::format(
          "CPU a walk: flat (array) hash set cleared {} vs new {} ({}); std::unordered_set cleared {} vs "
          "new {}; bitmap cleared {}; versioned bitmap {} ({} faster than the cleared flat set; the plain "
          "bitmap cleared a walk over the versioned one, not judged: {})",
          cpu(fclear), cpu(ffresh), kit::format_ratio(a.ratio), cpu(clear), cpu(fresh), cpu(bitmap), cpu(vers),
          kit::format_ratio(b.ratio), kit::format_ratio(plain));
      v.ours += paired;
      rows("MM-2", fclear, "over_flat_new", a.ratio);
      rows("MM-2", fclear, "over_versioned_bitmap", b.ratio);
      rows("MM-2", bitmap, "over_versioned_bitmap", plain);
    } else {
      v.not_applicable("MM-2 arms not run (see --filter)");
    }
    r.verdict(v);
  }
  {
    const Figure* item2 = find(figs, "MM-3", "per_item", 2);
    const Figure* batch2 = find(figs, "MM-3", "per_batch", 2);
    const Figure* item1 = find(figs, "MM-3", "per_item", 1);
    const Figure* batch1 = find(figs, "MM-3", "per_batch", 1);
    kit::Verdict v = findings::verdict(findings::mm3::kFinding);
    v.plot = plot;
    if (item2 && batch2 && item1 && batch1) {
      // No figure in the source: the lines are its direction (1).
      // 1. With two threads registering at once, one add a batch is faster.
      const kit::Check two = check("per item/per batch, 2 threads", item2, batch2, findings::mm3::kDirection.value);
      // 2. It is contention it cuts: the second thread widens the gap (the
      //    ratio at 2 threads over the ratio at 1 thread, paired by repetition).
      std::vector<double> at2, at1;
      for (size_t i = 0; i < std::min({item2->cpu_ns_per_item.size(), batch2->cpu_ns_per_item.size(),
                                       item1->cpu_ns_per_item.size(), batch1->cpu_ns_per_item.size()});
           ++i) {
        at2.push_back(item2->cpu_ns_per_item[i] / batch2->cpu_ns_per_item[i]);
        at1.push_back(item1->cpu_ns_per_item[i] / batch1->cpu_ns_per_item[i]);
      }
      const kit::Check contention{"(per item/per batch) at 2 threads/at 1 thread", kit::paired_ratio(at2, at1),
                                  findings::mm3::kDirection.value, true};
      v.set(kit::judge({two, contention}));
      v.ours = fmt::format("CPU an item, 2 threads: {} with an increment each vs {} with one add a "
                           "batch ({}); 1 thread: {} vs {} ({}); the gap at 2 threads over 1: {}",
                           cpu(item2), cpu(batch2), kit::format_ratio(two.ratio), cpu(item1), cpu(batch1),
                           kit::format_ratio(slower(item1, batch1)), kit::format_ratio(contention.ratio));
      rows("MM-3", item2, "over_per_batch", two.ratio);
      rows("MM-3", item2, "gap_over_1_thread", contention.ratio);
    } else {
      v.not_applicable("MM-3 arms not run (see --filter)");
    }
    r.verdict(v);
  }
  {
    // Judged on the matchers people share across threads: PCRE2
    // with its match data lent from one slot (the source's pattern: a call
    // that finds it taken allocates a fresh one) and one RE2 object (its DFA
    // cache shared under RE2's lock), each against one per thread. The
    // std::regex pair is shown beside. The finding has two parts, judged
    // apart: the mechanism, counted (the shared slot allocates under
    // concurrency and never alone), and the cost, against the source's own
    // magnitude, "as much as five times" (line 5, as MM-5 is judged on the
    // source's 16x). An earlier line of 1.5 ("clearly slower") sat between
    // the two costs this host gives a shared cache line, 1.1x when it places
    // the two vCPUs close and 1.7x when far, for minutes at a time: five
    // runs judged it not / inconclusive / reproduced / not / not, so that
    // verdict measured the host's placement, not the matcher.
    const Figure* shared2 = find(figs, "MM-4", "shared_checkout", 2);
    const Figure* local2 = find(figs, "MM-4", "per_thread", 2);
    const Figure* pcre_s = find(figs, "MM-4", "pcre2_shared_slot", 2);
    const Figure* pcre_l = find(figs, "MM-4", "pcre2_per_thread", 2);
    const Figure* re2_s = find(figs, "MM-4", "re2_shared", 2);
    const Figure* re2_l = find(figs, "MM-4", "re2_per_thread", 2);
    kit::Verdict v = findings::verdict(findings::mm4::kFinding);
    v.plot = plot;
    std::vector<kit::Check> checks;
    std::vector<std::string> parts;
    const auto fresh = [](const Figure* f) { return 100 * fresh_share(f); };
    // The judged pairs are sampled four times a pass (main.cc) and judged on
    // the median sample's ratio with its order-statistic interval (stats.h):
    // for seconds at a time the host places the two vCPUs where the shared
    // cache line costs ~1.6x more (both shared arms jump together, the
    // per-thread arms do not move), and a mean over samples would judge how
    // long that spell lasted. The spells are counted and the mean shown.
    const auto judged = [&](const std::string& what, const Figure* s, const Figure* l) {
      const kit::Ratio med = kit::median_ratio(s->cpu_ns_per_item, l->cpu_ns_per_item);
      const double typical = kit::median(s->cpu_ns_per_item);
      size_t spells = 0;
      for (double c : s->cpu_ns_per_item) spells += c >= 1.3 * typical;
      checks.push_back(kit::Check{what + " (median sample)", med, kMm4Line, true});
      rows("MM-4", s, "cpu_over_per_thread", med);
      return fmt::format("{:.3g} ns vs {:.3g} ns CPU a line, median of {} samples: {} (the mean over samples {}; "
                         "{} of {} samples of the shared arm in a costlier spell, >= 1.3x its median)",
                         typical, kit::median(l->cpu_ns_per_item), med.reps, kit::format_ratio(med),
                         kit::format_ratio(slower(s, l)), spells, s->cpu_ns_per_item.size());
    };
    if (pcre_s && pcre_l) {
      const std::string p = judged("PCRE2 shared slot/per-thread match data, a line, 2 threads", pcre_s, pcre_l);
      parts.push_back(fmt::format("PCRE2, 2 threads, shared slot vs per-thread: {}; {:.2g}% of calls allocated "
                                  "match data",
                                  p, fresh(pcre_s)));
    }
    if (re2_s && re2_l) {
      parts.push_back(fmt::format("RE2, 2 threads, shared vs per-thread: {}",
                                  judged("one shared RE2/one RE2 per thread, a line, 2 threads", re2_s, re2_l)));
    }
    if (shared2 && local2) {
      const kit::Check c = check("std::regex shared/per-thread matcher a line, 2 threads", shared2, local2, kMm4Line);
      if (checks.empty()) checks.push_back(c);  // only std::regex ran (--filter): judged on it
      parts.push_back(fmt::format(
          "std::regex{}: shared {} CPU a line vs per-thread {} ({}); wall time a line {} vs {} ({}); {:.2g}% of "
          "shared calls built a fresh scratch",
          checks.size() > 1 || (pcre_s && pcre_l) || (re2_s && re2_l) ? " (shown, not judged)" : "", cpu(shared2),
          cpu(local2), kit::format_ratio(c.ratio), wall(shared2), wall(local2),
          kit::format_ratio(wall_slower(shared2, local2)), fresh(shared2)));
      rows("MM-4", shared2, "cpu_over_per_thread", c.ratio);
    }
    // The mechanism, a count: the matcher the verdict judges (PCRE2's slot,
    // or std::regex's checkout when only it ran) allocated fresh scratch at
    // 2 threads and, where its 1-thread run is here, never at 1 thread.
    const bool on_pcre = pcre_s && pcre_l;
    const Figure* lender = on_pcre ? pcre_s : shared2;
    const Figure* alone = find(figs, "MM-4", on_pcre ? "pcre2_shared_slot" : "shared_checkout", 1);
    std::vector<kit::ExactPart> exact;
    if (lender && !checks.empty()) {
      const double two = fresh_share(lender), one = alone ? fresh_share(alone) : 0;
      exact.push_back({fmt::format("{} allocated fresh scratch on {:.2g}% of calls at 2 threads{}",
                                   on_pcre ? "PCRE2's shared slot" : "std::regex's shared checkout", 100 * two,
                                   alone ? fmt::format(" and {:.2g}% at 1 thread", 100 * one) : ""),
                       two > 0 && one == 0});
    }
    if (!checks.empty()) {
      v.set(kit::judge(checks, exact));
      v.ours = fmt::format("{}", fmt::join(parts, "; "));
    } else {
      v.not_applicable("MM-4 arms not run (see --filter)");
    }
    r.verdict(v);
  }
  {
    const Figure* pread = find(figs, "MM-5", "pread", 1);
    const Figure* once = find(figs, "MM-5", "read_once", 1);
    const Figure* map = find(figs, "MM-5", "mmap", 1);
    kit::Verdict v = findings::verdict(findings::mm5::kFinding);
    v.plot = plot;
    if (pread && once && map) {
      const auto pc = pread->counters.find("preads_per_sort");
      // Line 16: the source's ~50 min against under 3 min is more than 16x.
      const kit::Check a = check("preads/one read", pread, once, findings::mm5::kCalls.value);
      const kit::Check b = check("preads/mmap", pread, map, findings::mm5::kCalls.value);
      v.set(kit::judge({a, b}));
      v.ours = fmt::format("sorting offsets, CPU a string: {} with preads ({:.0f} preads a sort), {} "
                           "after one read, {} through mmap ({} / {})",
                           cpu(pread), pc == pread->counters.end() ? 0.0 : pc->second, cpu(once), cpu(map),
                           kit::format_ratio(a.ratio, 0), kit::format_ratio(b.ratio, 0));
      rows("MM-5", pread, "over_read_once", a.ratio);
      rows("MM-5", pread, "over_mmap", b.ratio);
    } else {
      v.not_applicable("MM-5 arms not run (see --filter)");
    }
    r.verdict(v);
  }
}

}  // namespace fenec::scenarios::micro
