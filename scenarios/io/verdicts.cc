#include "scenarios/io/verdicts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <map>

#include "findings/catalogue.h"
#include "iobench/src/units.h"

namespace fenec::scenarios::io {
namespace {

using iobench::Layout;
using iobench::Mode;
using iobench::SubmitKind;

double p50_us(const CellResult& c) {
  return base::LatencySummary::Of(iobench::mode_sync(c.spec.mode) != iobench::SyncCall::kNone ? c.commit : c.lat)
      .p50_us;
}

std::string missing(const char* what) { return fmt::format("{} did not run here (see skips)", what); }

// "84.2 MB/s [80.1, 88.0]", whole numbers from 100 up.
std::string rate(const kit::Ratio& r, const char* unit = "MB/s") {
  return kit::format_interval(r, unit, r.known() && r.value >= 100 ? 0 : 1);
}
std::string ratio(const kit::Ratio& r) { return kit::format_ratio(r, r.known() && r.value < 0.1 ? 3 : 2); }

}  // namespace

std::vector<const CellResult*> find_reps(const std::vector<CellResult>& cells, Mode mode, uint64_t size,
                                         unsigned jobs, Layout layout, SubmitKind submit, unsigned batch) {
  std::vector<const CellResult*> out;
  for (const CellResult& c : cells)
    if (c.ran() && c.error.empty() && !c.interrupted && c.ops > 0 && c.spec.mode == mode && c.spec.size == size &&
        c.spec.jobs == jobs && c.spec.layout == layout && c.spec.submit == submit && c.spec.batch == batch &&
        !c.spec.prefill)
      out.push_back(&c);
  std::stable_sort(out.begin(), out.end(), [](const CellResult* x, const CellResult* y) { return x->rep < y->rep; });
  return out;
}

kit::Ratio paired(const std::vector<const CellResult*>& a, double (*fa)(const CellResult&),
                  const std::vector<const CellResult*>& b, double (*fb)(const CellResult&)) {
  std::map<int, double> by_rep;
  for (const CellResult* c : b) by_rep[c->rep] = fb(*c);
  std::vector<double> num, den;
  for (const CellResult* c : a) {
    auto it = by_rep.find(c->rep);
    if (it == by_rep.end()) continue;
    num.push_back(fa(*c));
    den.push_back(it->second);
  }
  return kit::paired_ratio(num, den);
}

kit::Ratio over_reps(const std::vector<const CellResult*>& runs, double (*f)(const CellResult&)) {
  std::vector<double> v;
  for (const CellResult* c : runs) v.push_back(f(*c));
  return kit::of_reps(v);
}

Judged io1_verdict(const std::vector<CellResult>& cells, Mode durable, const std::string& plot) {
  Judged j;
  kit::Verdict& v = j.verdict;
  v = findings::verdict(findings::io1::kFinding);
  v.plot = plot;
  const auto d4 = find_reps(cells, durable, 4096, 1);
  const auto d16 = find_reps(cells, durable, 16384, 1);
  const auto b16 = find_reps(cells, Mode::kBuffered, 16384, 1);
  const auto d1m = find_reps(cells, durable, 1 << 20, 1);
  const auto d16m = find_reps(cells, durable, 16 << 20, 1);
  if (d4.empty() || d16.empty() || b16.empty() || d16m.empty()) {
    v.not_applicable(missing("the 4k/16k/16m durable or 16k buffered cell"));
    return j;
  }
  // Bounded by count: 4x the bytes a write, about the same writes a second.
  // Line 0.5: halfway (geometrically) between bound by count (1: the same
  // IOPS) and bound by bytes (0.25: the same MB/s); the source's io2 wrote
  // 8 KB at 7.1 MB/s and 32 KB at 26.9 MB/s, 0.95x the writes a second.
  kit::Check count{"16k/4k durable IOPS", paired(d16, iops, d4, iops), findings::io1::kCount.value, true};
  // Big writes reach GB/s. Line 4: the smallest such rise the source gives,
  // i4i's 16 MB durable 584 vs 16 KB 126 MB/s (4.6x; io2 1 MB 502 vs 8 KB 7.1).
  kit::Check grows{"16m/16k durable MB/s", paired(d16m, mb_per_s, d16, mb_per_s), findings::io1::kGrows.value, true};
  // Durable small writes cost: i4i's 16 KB durable 126 vs buffered 553 MB/s
  // is 0.23x. Line 0.5: durable under half of buffered (below, not near it).
  kit::Check below{"16k durable/buffered MB/s", paired(d16, mb_per_s, b16, mb_per_s), findings::io1::kBelow.value, false};
  v.set(kit::judge({count, grows, below}));
  const char* dn = iobench::mode_name(durable);
  v.ours = fmt::format("{} 16k {} vs buffered {} ({}); IOPS 4k {}, 16k {} (16k/4k {}); {}16m {} (16m/16k {})", dn,
                       rate(over_reps(d16, mb_per_s)), rate(over_reps(b16, mb_per_s)), ratio(below.ratio),
                       rate(over_reps(d4, iops), ""), rate(over_reps(d16, iops), ""), ratio(count.ratio),
                       d1m.empty() ? "" : fmt::format("1m {}, ", rate(over_reps(d1m, mb_per_s))),
                       rate(over_reps(d16m, mb_per_s)), ratio(grows.ratio));
  j.rows = {{dn, d16[0]->spec.case_(), "iops_over_4k", count.ratio},
            {dn, d16m[0]->spec.case_(), "mb_per_s_over_16k", grows.ratio},
            {dn, d16[0]->spec.case_(), "mb_per_s_over_buffered", below.ratio}};
  return j;
}

Judged io2_verdict(const std::vector<CellResult>& cells, const std::vector<CellResult>& sizes, Mode durable,
                   uint64_t size, const std::string& plot) {
  Judged j;
  kit::Verdict& v = j.verdict;
  v = findings::verdict(findings::io2::kFinding);
  v.plot = plot;
  const auto one = find_reps(cells, durable, size, 1);
  std::vector<const CellResult*> many;
  for (unsigned jobs : {16u, 8u, 4u})
    if (!(many = find_reps(cells, durable, size, jobs)).empty()) break;
  if (one.empty() || many.empty()) {
    v.not_applicable(missing("the 1-job or many-job durable cell"));
    return j;
  }
  const unsigned n = many[0]->spec.jobs;
  // "Raises total durable throughput": line 1, more than one job alone (the
  // source's 16 threads wrote 91 MB/s in all against one thread's 15.5).
  kit::Check total{fmt::format("{}-job/1-job total MB/s", n), paired(many, mb_per_s, one, mb_per_s), findings::io2::kTotal.value,
                  true};
  // "And latency a lot": line 2, the typical durable write at least twice as
  // slow (the source's 16 threads at 5.7 MB/s each against one at 15.5 wait
  // 2.7x as long a write; 128 threads at 4 MB/s, 3.9x).
  kit::Check latency{fmt::format("{}-job/1-job p50 write latency", n), paired(many, p50_us, one, p50_us),
                     findings::io2::kLatency.value, true};
  v.set(kit::judge({total, latency}));
  const std::string sz = iobench::size_label(size);
  const auto big = find_reps(sizes, durable, 1 << 20, 1);
  std::vector<double> each;
  for (const CellResult* c : many) each.push_back(c->mb_per_s() / n);
  v.ours = fmt::format("{} {}: 1 job {} (p50 {:.0f} us); {} jobs {} total ({}), {:.2f} MB/s each (p50 {:.0f} us, "
                       "{}){}",
                       iobench::mode_name(durable), sz, rate(over_reps(one, mb_per_s)),
                       over_reps(one, p50_us).value, n, rate(over_reps(many, mb_per_s)), ratio(total.ratio),
                       kit::of_reps(each).value, over_reps(many, p50_us).value, ratio(latency.ratio),
                       big.empty() ? "" : fmt::format("; 1 job of 1m writes: {}", rate(over_reps(big, mb_per_s))));
  const std::string arm = iobench::mode_name(durable);
  j.rows = {{arm, many[0]->spec.case_(), "mb_per_s_over_1job", total.ratio},
            {arm, many[0]->spec.case_(), "p50_over_1job", latency.ratio}};
  return j;
}

namespace {

// The rate of the intervals written wholly before `dirty` bytes (before) and
// wholly after (after), from the cumulative bytes of the series; 0 where none.
void rates_around(const CellResult& c, uint64_t dirty, double* before, double* after) {
  double cum = 0, prev_t = 0, b_bytes = 0, b_s = 0, a_bytes = 0, a_s = 0;
  for (const iobench::IntervalPoint& p : c.intervals) {
    const double span = p.t_s - prev_t, bytes = p.mb_per_s * 1e6 * span;
    if (cum + bytes <= static_cast<double>(dirty)) b_bytes += bytes, b_s += span;
    if (cum >= static_cast<double>(dirty)) a_bytes += bytes, a_s += span;
    cum += bytes;
    prev_t = p.t_s;
  }
  *before = b_s > 0 ? b_bytes / b_s / 1e6 : 0;
  *after = a_s > 0 ? a_bytes / a_s / 1e6 : 0;
}

}  // namespace

Judged io3_verdict(const std::vector<CellResult>& cells, uint64_t dirty_bytes, const std::string& plot) {
  Judged j;
  kit::Verdict& v = j.verdict;
  v = findings::verdict(findings::io3::kFinding);
  v.plot = plot;
  std::vector<const CellResult*> runs;
  for (const CellResult& c : cells)
    if (c.ran() && c.error.empty() && !c.interrupted && c.intervals.size() >= 3) runs.push_back(&c);
  if (runs.empty()) {
    v.not_applicable(missing("the long buffered cell"));
    return j;
  }
  if (dirty_bytes == 0) {
    v.not_applicable("the page cache's writeback threshold (vm.dirty_background_*) is unknown here");
    return j;
  }
  std::vector<double> before, after, written;
  for (const CellResult* c : runs) {
    double b = 0, a = 0;
    rates_around(*c, dirty_bytes, &b, &a);
    before.push_back(b);
    after.push_back(a);
    written.push_back(static_cast<double>(c->bytes));
  }
  const double least = *std::min_element(written.begin(), written.end());
  v.ours = fmt::format("buffered 1m, {} runs: {:.1f} GB written in {:.1f} s at least; writeback starts at ~{:.1f} GB "
                       "dirty",
                       runs.size(), least / 1e9, runs[0]->seconds, dirty_bytes / 1e9);
  if (std::find(after.begin(), after.end(), 0.0) != after.end() ||
      std::find(before.begin(), before.end(), 0.0) != before.end()) {
    v.not_applicable(fmt::format("a run wrote only {:.1f} GB, not past the ~{:.1f} GB the page cache holds before "
                                 "writeback, so no rate after it to compare",
                                 least / 1e9, dirty_bytes / 1e9));
    return j;
  }
  // The drain: the rate past the writeback threshold against the rate before
  // it, in the same run. Line 0.7: a fall of 30% or more; the source fell to
  // 0.42x (1.3 GB/s -> ~550 MB/s). A fall before the threshold is not the
  // drain and counts as "before".
  kit::Check fall{"after/before writeback MB/s", kit::paired_ratio(after, before), findings::io3::kFall.value, false};
  v.set(kit::judge({fall}));
  v.ours += fmt::format("; before {}, after {} ({})", rate(kit::of_reps(before)), rate(kit::of_reps(after)),
                        ratio(fall.ratio));
  j.rows = {{runs[0]->spec.arm(), runs[0]->spec.case_(), "after_over_before_writeback", fall.ratio}};
  return j;
}

Judged io3_quick_verdict(uint64_t dirty_bytes) {
  Judged j;
  kit::Verdict& v = j.verdict;
  v = findings::verdict(findings::io3::kFinding);
  v.not_applicable(fmt::format("{} (~{:.1f} GB here; make io-bench judges it)",
                               findings::quick_why(findings::io3::kFinding), dirty_bytes / 1e9));
  return j;
}

uint64_t dirty_background_bytes() {
  auto read_u64 = [](const char* path, const char* key) -> uint64_t {
    FILE* f = std::fopen(path, "r");
    if (!f) return 0;
    char line[256];
    uint64_t v = 0;
    while (std::fgets(line, sizeof line, f)) {
      if (!key) {
        v = std::strtoull(line, nullptr, 10);
        break;
      }
      if (std::strncmp(line, key, std::strlen(key)) == 0) {
        v = std::strtoull(line + std::strlen(key), nullptr, 10) * 1024;  // meminfo is in kB
        break;
      }
    }
    std::fclose(f);
    return v;
  };
  if (uint64_t b = read_u64("/proc/sys/vm/dirty_background_bytes", nullptr)) return b;
  uint64_t ratio = read_u64("/proc/sys/vm/dirty_background_ratio", nullptr);
  uint64_t avail = read_u64("/proc/meminfo", "MemAvailable:");
  return ratio * avail / 100;
}

Judged io4_verdict(const std::vector<iobench::LiesResult>& lies) {
  Judged j;
  kit::Verdict& v = j.verdict;
  v = findings::verdict(findings::io4::kFinding);
  if (lies.empty()) {
    v.not_applicable("no figures");
    return j;
  }
  for (const iobench::LiesResult& r : lies) {
    if (r.verdict == iobench::Durability::kNotDurable) {
      v.not_applicable("memory-backed filesystem, nothing is durable");
      return j;
    }
    if (r.verdict == iobench::Durability::kUnknown) {
      v.not_applicable(r.skipped.empty() ? std::string("no figures") : r.skipped);
      return j;
    }
  }
  std::vector<double> durable, buffered, flush;
  for (const iobench::LiesResult& r : lies) {
    durable.push_back(r.durable_p50_us);
    buffered.push_back(r.buffered_p50_us);
    flush.push_back(r.flush_p50_us);
  }
  const kit::Ratio r = kit::paired_ratio(durable, buffered), d = kit::of_reps(durable);
  // The two classes of the finding, with iobench lies' lines: the honest one
  // ("io2 and physical NVMe: 10x or more") and the lying one ("almost nothing
  // extra": under 3x, or a durable write faster than any device persists one,
  // 20 us). Either class reproduces IO-4: it is a classification of this disk.
  const kit::Check honest{"4k durable/buffered p50", r, findings::io4::kHonest.value, true};
  const kit::Check lying{"4k durable/buffered p50", r, findings::io4::kLying.value, false};
  const kit::Check instant{"4k durable p50 (us)", d, findings::io4::kInstantUs.value, false};
  v.ours = fmt::format("4k durable p50 {} vs buffered {} ({}), fdatasync {}", rate(d, "us"),
                       rate(kit::of_reps(buffered), "us"), ratio(r), rate(kit::of_reps(flush), "us"));
  const auto h = kit::check_result(honest), l = kit::check_result(lying), i = kit::check_result(instant);
  if (h == kit::CheckResult::kCleared) {
    v.outcome = kit::Outcome::kReproduced;
    v.reason = "the honest class: " + kit::describe(honest) + "; a durable write costs 10x+ (only a power cut proves it)";
  } else if (l == kit::CheckResult::kCleared || i == kit::CheckResult::kCleared) {
    v.outcome = kit::Outcome::kReproduced;
    v.reason = "the lying class: " + kit::describe(l == kit::CheckResult::kCleared ? lying : instant) +
               "; durable costs almost nothing extra (run iobench diskcheck)";
  } else if (h == kit::CheckResult::kMissed && l == kit::CheckResult::kMissed) {
    v.outcome = kit::Outcome::kNotReproduced;
    v.reason = "between the classes: " + kit::describe(honest) + "; " + kit::describe(lying);
  } else {
    v.outcome = kit::Outcome::kInconclusive;
    v.reason = "the interval holds a class's line: " + kit::describe(honest) + "; " + kit::describe(lying);
  }
  j.rows = {{"lies", "size=4k", "durable_to_buffered", r}};
  return j;
}

kit::Verdict io5_verdict(const iobench::CoherenceResult& c, const iobench::ProbeResult& p) {
  kit::Verdict v = findings::verdict(findings::io5::kFinding);
  if (!c.skipped.empty() || !c.error.empty()) {
    v.not_applicable(c.skipped.empty() ? c.error : c.skipped);
    return v;
  }
  // A count, not a timing: one stale read reproduces it, none on a coherent mount cannot.
  v.ours = fmt::format("{} rounds on {} ({}): {} stale reads of {}", c.rounds, p.fs_type, p.device, c.stale, c.reads);
  if (c.stale) {
    v.outcome = kit::Outcome::kReproduced;
    v.reason = fmt::format("{} of {} re-reads returned stale data", c.stale, c.reads);
  } else {
    v.not_applicable(fmt::format("this mount ({}) is coherent; the stale pattern needs a CIFS-like mount (the detector "
                                 "is proven by iobench's coherence_test)",
                                 p.fs_type));
  }
  return v;
}

Judged io7_verdict(const std::vector<CellResult>& cells, Mode durable, unsigned batch, const std::string& plot) {
  Judged j;
  kit::Verdict& v = j.verdict;
  v = findings::verdict(findings::io7::kFinding);
  v.plot = plot;
  const auto pw = find_reps(cells, durable, 4096, 1, Layout::kShared, SubmitKind::kPwrite, batch);
  const auto pv = find_reps(cells, durable, 4096, 1, Layout::kShared, SubmitKind::kPwritev, batch);
  const auto ur = find_reps(cells, durable, 4096, 1, Layout::kShared, SubmitKind::kUring, batch);
  if (pw.empty() || pv.empty()) {
    v.not_applicable(missing("the batched pwrite / pwritev cells"));
    return j;
  }
  // The source gives no figure. Line 2: merged writes at least twice the
  // one-by-one rate, well short of the up to `batch`x that IO-1's rule (a
  // durable write costs by count) predicts for `batch` buffers in one write.
  kit::Check merged{fmt::format("one pwritev/{} pwrites MB/s", batch), paired(pv, mb_per_s, pw, mb_per_s),
                   findings::io7::kMerged.value, true};
  v.set(kit::judge({merged}));
  v.ours = fmt::format("{} x{} {} per op: {} pwrites {}; one pwritev {} ({}){}", iobench::mode_name(durable), batch,
                       iobench::size_label(pw[0]->spec.size), batch, rate(over_reps(pw, mb_per_s)),
                       rate(over_reps(pv, mb_per_s)), ratio(merged.ratio),
                       ur.empty() ? "" : fmt::format("; one ring writev {}", rate(over_reps(ur, mb_per_s))));
  j.rows = {{pv[0]->spec.arm(), pv[0]->spec.case_(), "mb_per_s_over_pwrite", merged.ratio}};
  return j;
}

}  // namespace fenec::scenarios::io
