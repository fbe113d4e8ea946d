#include "scenarios/fs/judge.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "findings/catalogue.h"
#include "iobench/kit/console.h"
#include "iobench/kit/plot.h"
#include "iobench/src/units.h"
#include "scenarios/fs/checks.h"
#include "scenarios/fs/runner.h"

namespace fenec::scenarios::fs {
namespace {

using iobench::Mode;
using iobench::SubmitKind;

std::string sweep_key(Mode m, uint64_t size, bool append, SubmitKind k = SubmitKind::kPwrite, unsigned batch = 1) {
  return sweep_cell(m, size, append, k, batch).key();
}
std::string engine_key(const std::string& arm, int writers) { return fmt::format("engines|{}|writers={}", arm, writers); }
std::string jr1_key(const std::string& mode, int writers) {
  return fmt::format("jr1|{}|indexes=8;writers={}", mode, writers);
}


std::string fmt_ratio(const kit::Ratio& r) { return r.known() ? kit::format_ratio(r) : "-"; }
// A def's value as the table prints it: a ratio, or a figure with its unit.
std::string fmt_def(const RatioDef& d, const kit::Ratio& r) {
  if (!d.den_key.empty() || !r.known()) return fmt_ratio(r);
  const bool us = d.num_metric.size() > 3 && d.num_metric.substr(d.num_metric.size() - 3) == "_us";
  return kit::format_interval(r, us ? "us" : "", us ? 0 : 3);
}

double median_of(const Measured& m, const std::string& fs_name, const std::string& key, const std::string& metric) {
  std::vector<double> v = m.values(fs_name, key, metric);
  return v.empty() ? NAN : kit::median(v);
}

}  // namespace

void def_values(const Measured& m, const RatioDef& d, const std::string& fs_name, std::vector<double>* num,
                std::vector<double>* den, const kit::Window& w) {
  if (d.den_key.empty()) {
    *num = m.values(fs_name, d.num_key, d.num_metric, w);
    den->assign(num->size(), 1.0);
    return;
  }
  m.paired(fs_name, d.num_key, d.num_metric, fs_name, d.den_key, d.den_metric, num, den, w);
}

kit::Ratio def_ratio(const Measured& m, const RatioDef& d, const std::string& fs_name, const kit::Window& w) {
  std::vector<double> a, b;
  def_values(m, d, fs_name, &a, &b, w);
  return kit::paired_ratio(a, b, kit::Window{0, SIZE_MAX, w.level});
}

const RatioDef* def_named(const std::string& name) {
  for (const RatioDef& d : ratio_defs())
    if (d.name == name) return &d;
  return nullptr;
}

const std::vector<RatioDef>& ratio_defs() {
  static const std::vector<RatioDef> defs = [] {
    std::vector<RatioDef> d;
    const Mode dd = Mode::kDirectDsync, fd = Mode::kFdatasync;
    // The sync cost of an append against an overwrite, by method and size.
    for (Mode m : {fd, dd})
      for (uint64_t size : {4096u, 8192u, 16384u, 1u << 20}) {
        const std::string sz = iobench::size_label(size);
        d.push_back({"", fmt::format("append_over_overwrite_p50_{}_{}", iobench::mode_name(m), sz),
                     fmt::format("{} {} append/overwrite commit p50", iobench::mode_name(m), sz),
                     sweep_key(m, size, true), "commit_p50_us", sweep_key(m, size, false), "commit_p50_us"});
      }
    d.push_back({"IO-1", "iops_16k_over_4k", "16k/4k durable IOPS", sweep_key(dd, 16384, false), "iops",
                 sweep_key(dd, 4096, false), "iops"});
    d.push_back({"IO-1", "mb_per_s_16m_over_16k", "16m/16k durable MB/s", sweep_key(dd, 16u << 20, false),
                 "mb_per_s", sweep_key(dd, 16384, false), "mb_per_s"});
    d.push_back({"IO-1", "mb_per_s_16k_durable_over_buffered", "16k durable/buffered MB/s",
                 sweep_key(dd, 16384, false), "mb_per_s", sweep_key(Mode::kBuffered, 16384, false), "mb_per_s"});
    d.push_back({"IO-4", "p50_4k_durable_over_buffered", "4k durable/buffered p50", sweep_key(dd, 4096, false),
                 "commit_p50_us", sweep_key(Mode::kBuffered, 4096, false), "commit_p50_us"});
    d.push_back({"IO-7", "mb_per_s_pwritev_over_pwrite", "one pwritev/16 pwrites MB/s",
                 sweep_key(dd, 4096, false, SubmitKind::kPwritev, 16), "mb_per_s",
                 sweep_key(dd, 4096, false, SubmitKind::kPwrite, 16), "mb_per_s"});
    d.push_back({"CC-1", "fsyncs_per_commit_16w", "fenecdb-durable fsyncs a commit at 16 writers",
                 engine_key("fenecdb-durable", 16), "syncs_per_op", "", ""});
    d.push_back({"CC-1", "writes_16w_over_1w", "fenecdb-durable 16/1 writers writes/s",
                 engine_key("fenecdb-durable", 16), "writes_per_s", engine_key("fenecdb-durable", 1), "writes_per_s"});
    d.push_back({"CC-1", "fenecdb_over_sqlite_16w", "fenecdb-durable/sqlite-full at 16 writers",
                 engine_key("fenecdb-durable", 16), "writes_per_s", engine_key("sqlite-full", 16), "writes_per_s"});
    for (int w : {1, 16})
      d.push_back({"JR-1", fmt::format("shared_over_separate_{}w", w),
                   fmt::format("shared/separate puts/s, 8 indexes, {} writer{}", w, w > 1 ? "s" : ""),
                   jr1_key("shared", w), "puts_per_s", jr1_key("separate", w), "puts_per_s"});
    for (int w : {1, 16})
      d.push_back({"JR-zero", fmt::format("zero_ahead_gain_{}w", w),
                   fmt::format("zero-ahead on/off writes/s, {} writer{}", w, w > 1 ? "s" : ""),
                   engine_key("fenecdb-durable", w), "writes_per_s", engine_key("fenecdb-durable-append", w),
                   "writes_per_s"});
    for (const char* peer : {"rocksdb-durable", "postgres-durable"})
      d.push_back({"", fmt::format("fenecdb_over_{}_16w", peer), fmt::format("fenecdb-durable/{} at 16 writers", peer),
                   engine_key("fenecdb-durable", 16), "writes_per_s", engine_key(peer, 16), "writes_per_s"});
    d.push_back({"", "dir_fsync_p50_us", "a new file's folder fsync p50 (us)", "create|create+fsync+dirfsync|size=4k",
                 "dir_fsync_p50_us", "", ""});
    d.push_back({"", "file_fsync_p50_us", "a new file's write+fsync p50 (us)", "create|create+fsync+dirfsync|size=4k",
                 "file_fsync_p50_us", "", ""});
    return d;
  }();
  return defs;
}

std::vector<FsRatio> fs_ratios(const Measured& m) {
  std::vector<FsRatio> out;
  for (const RatioDef& d : ratio_defs())
    for (const std::string& f : m.fs)
      if (kit::Ratio r = def_ratio(m, d, f); r.reps > 0) out.push_back({&d, f, r});
  return out;
}

std::vector<kit::Verdict> fs_verdicts(const Measured& m, bool quick, const std::string& plot, const JudgedChecks* judged) {
  std::vector<kit::Verdict> out;
  auto r = [&](const char* name, const std::string& f) { return def_ratio(m, *def_named(name), f); };
  // A check as the run judged it (a sequential run: on the repetitions that
  // decided it), else over every repetition.
  auto as_judged = [&](kit::Check c, const std::string& key) {
    if (judged == nullptr) return c;
    if (auto it = judged->find(key); it != judged->end()) {
      c.ratio = it->second.ratio;
      c.note = it->second.note;
    }
    return c;
  };
  auto chk = [&](const char* name, const std::string& f, const findings::Line& l, bool above) {
    const RatioDef& d = *def_named(name);
    return as_judged(findings::check(d.what, r(name, f), l, above, quick), check_key(f, d, ""));
  };
  for (const std::string& f : m.fs) {
    auto finish = [&](kit::Verdict v, const std::vector<kit::Check>& checks) {
      v.plot = plot;
      std::string ours;
      for (const kit::Check& c : checks) ours += (ours.empty() ? "" : "; ") + c.what + " " + fmt_ratio(c.ratio);
      v.ours = "fs=" + f + ": " + ours;
      bool any = false;
      for (const kit::Check& c : checks) any = any || c.ratio.reps > 0;
      if (!any) v.not_applicable("fs=" + f + ": none of its cells ran (see the skipped lines)");
      else v.set(kit::judge(checks));
      out.push_back(std::move(v));
    };
    finish(findings::verdict(findings::io1::kFinding),
           {chk("iops_16k_over_4k", f, findings::io1::kCount, true),
            chk("mb_per_s_16m_over_16k", f, findings::io1::kGrows, true),
            chk("mb_per_s_16k_durable_over_buffered", f, findings::io1::kBelow, false)});
    {
      // IO-4 classifies the device under the file system: honest (10x+) or
      // lying (under 3x); either class reproduces it, between them does not.
      kit::Verdict v = findings::verdict(findings::io4::kFinding);
      const RatioDef& d4 = *def_named("p50_4k_durable_over_buffered");
      const kit::Ratio q = r("p50_4k_durable_over_buffered", f);
      const kit::Check honest = as_judged({"4k durable/buffered p50", q, findings::io4::kHonest.value, true},
                                          check_key(f, d4, " (honest)"));
      const kit::Check lying = as_judged({"4k durable/buffered p50", q, findings::io4::kLying.value, false},
                                         check_key(f, d4, " (lying)"));
      v.plot = plot;
      v.ours = "fs=" + f + ": 4k O_DIRECT|O_DSYNC overwrite / buffered p50 " + fmt_ratio(q);
      const auto h = kit::check_result(honest), l = kit::check_result(lying);
      if (q.reps == 0) {
        v.not_applicable("fs=" + f + ": the 4k cells did not run");
      } else if (h == kit::CheckResult::kCleared || l == kit::CheckResult::kCleared) {
        v.outcome = kit::Outcome::kReproduced;
        v.reason = (h == kit::CheckResult::kCleared ? "the honest class: " + kit::describe(honest)
                                                    : "the lying class: " + kit::describe(lying));
      } else if (h == kit::CheckResult::kMissed && l == kit::CheckResult::kMissed) {
        v.outcome = kit::Outcome::kNotReproduced;
        v.reason = "between the classes: " + kit::describe(honest) + "; " + kit::describe(lying);
      } else {
        v.outcome = kit::Outcome::kInconclusive;
        v.reason = kit::describe(honest) + "; " + kit::describe(lying);
      }
      out.push_back(std::move(v));
    }
    finish(findings::verdict(findings::io7::kFinding),
           {chk("mb_per_s_pwritev_over_pwrite", f, findings::io7::kMerged, true)});
    finish(findings::verdict(findings::cc1::kFinding),
           {chk("fsyncs_per_commit_16w", f, findings::cc1::kShared, false),
            chk("writes_16w_over_1w", f, findings::cc1::kScales, true),
            chk("fenecdb_over_sqlite_16w", f, findings::cc1::kAhead, true)});
    finish(findings::verdict(findings::jr1::kFinding),
           {chk("shared_over_separate_1w", f, findings::jr1::kFaster, true),
            chk("shared_over_separate_16w", f, findings::jr1::kFaster, true)});
    finish(findings::verdict(findings::jr_zero::kFinding),
           {chk("zero_ahead_gain_1w", f, findings::jr_zero::kFaster, true),
            chk("zero_ahead_gain_16w", f, findings::jr_zero::kFaster, true)});
  }
  return out;
}

std::vector<Difference> differences(const Measured& m, double threshold, int* unsettled, const JudgedChecks* judged,
                                    PairCount* count) {
  if (unsettled) *unsettled = 0;
  std::vector<Difference> out;
  for (const RatioDef& d : ratio_defs()) {
    for (size_t i = 0; i < m.fs.size(); ++i)
      for (size_t j = i + 1; j < m.fs.size(); ++j) {
        const std::string &a = m.fs[i], &b = m.fs[j];
        const std::vector<kit::Check> own = pair_checks(m, d, a, b, threshold, kit::Window{});
        if (!own[0].ratio.ci95.known()) continue;
        kit::Check more = own[0], fewer = own[1];
        if (judged != nullptr) {
          if (auto it = judged->find(own[0].what); it != judged->end()) more = it->second;
          if (auto it = judged->find(own[1].what); it != judged->end()) fewer = it->second;
        }
        const PairResult pr = pair_result(more, fewer);
        if (count != nullptr) {
          ++count->pairs;
          count->differ += pr == PairResult::kDiffers;
          count->within += pr == PairResult::kWithin;
        }
        // The ratio shown: the one that decided it (a straddling check's, in
        // a sequential run, came from the main experiment).
        const kit::Ratio x = kit::check_result(fewer) == kit::CheckResult::kStraddles ? fewer.ratio : more.ratio;
        // Over 15% means the whole interval is: a point estimate past the
        // line with an interval reaching back inside it is not shown to differ.
        if (pr != PairResult::kDiffers) {
          if (x.known() && (x.value > threshold || x.value < 1 / threshold) && unsettled) ++*unsettled;
          continue;
        }
        // The counter whose num/den (or num alone) differs most between a and b.
        std::string best;
        double best_gap = 0;
        for (const std::string& c : per_op_counters()) {
          const double an = median_of(m, a, d.num_key, c), bn = median_of(m, b, d.num_key, c);
          // A den cell that leaves the device alone (buffered writes): its
          // counters are 0, and the num cell's alone tell the file systems apart.
          const bool two = !d.den_key.empty() && median_of(m, a, d.den_key, c) > 0 && median_of(m, b, d.den_key, c) > 0;
          const double ad = two ? median_of(m, a, d.den_key, c) : 1, bd = two ? median_of(m, b, d.den_key, c) : 1;
          if (!(an > 0 && bn > 0 && ad > 0 && bd > 0)) continue;
          const double gap = std::fabs(std::log((an / ad) / (bn / bd)));
          if (gap <= best_gap) continue;
          best_gap = gap;
          best = two ? fmt::format("{}: {:.3g}/{:.3g} on {} vs {:.3g}/{:.3g} on {} ({:.2f}x)", c, an, ad, a, bn, bd,
                                   b, (an / ad) / (bn / bd))
                     : fmt::format("{}: {:.3g} on {} vs {:.3g} on {} ({:.2f}x)", c, an, a, bn, b, an / bn);
        }
        std::string why;
        if (best.empty()) why = "no device counter recorded for these cells";
        else if (best_gap < std::log(threshold))
          why = "no counter differs by 15%; the largest: " + best + " (the difference is in each op's time)";
        else
          why = best;
        out.push_back({&d, a, b, x, why});
      }
  }
  return out;
}

std::string findings_table(const Measured& m, const std::vector<kit::Verdict>& verdicts) {
  std::string md = "| finding | ratio |";
  std::string sep = "|---|---|";
  for (const std::string& f : m.fs) {
    md += " " + f + " |";
    sep += "---|";
  }
  md += "\n" + sep + "\n";
  for (const RatioDef& d : ratio_defs()) {
    md += "| " + (d.finding.empty() ? "-" : d.finding) + " | " + d.what + " |";
    for (const std::string& f : m.fs) md += " " + fmt_def(d, def_ratio(m, d, f)) + " |";
    md += "\n";
  }
  std::vector<std::string> ids;
  for (const kit::Verdict& v : verdicts)
    if (std::find(ids.begin(), ids.end(), v.finding) == ids.end()) ids.push_back(v.finding);
  for (const std::string& id : ids) {
    md += "| " + id + " | verdict |";
    for (const std::string& f : m.fs) {
      std::string cell = "-";
      for (const kit::Verdict& v : verdicts)
        if (v.finding == id && v.ours.rfind("fs=" + f + ":", 0) == 0) cell = kit::outcome_name(v.outcome);
      md += " " + cell + " |";
    }
    md += "\n";
  }
  return md;
}

std::string differences_markdown(const std::vector<Difference>& diffs, int unsettled) {
  const std::string more =
      unsettled == 0 ? ""
                     : fmt::format("\n{} more pairs differ by over 15% at the point estimate, but their 95% interval "
                                   "reaches back within 15%: not shown to differ (more --reps would settle them).\n",
                                   unsettled);
  if (diffs.empty()) return "No headline figure differs by more than 15% (its whole 95% interval) between two file systems.\n" + more;
  std::string md = "| figure | a / b | ratio | explained by (the counter that differs most) |\n|---|---|---|---|\n";
  for (const Difference& d : diffs)
    md += fmt::format("| {} | {} / {} | {} | {} |\n", d.def->what, d.fs_a, d.fs_b, fmt_ratio(d.ratio), d.explanation);
  return md + more;
}

void add_ratio_rows(kit::Results& r, const std::vector<FsRatio>& ratios, const std::vector<Difference>& diffs) {
  for (const FsRatio& x : ratios) {
    const std::string unit = x.def->den_key.empty() ? "value" : "x";
    r.add_ratio(x.def->finding, "ratio", "fs=" + x.fs, x.def->name, x.ratio, unit);
  }
  for (const Difference& d : diffs)
    r.add_ratio(d.def->finding, "difference", "fs=" + d.fs_a + ";vs=" + d.fs_b, d.def->name, d.ratio);
}

std::string write_plots(const Measured& m, const std::function<std::string(const std::string&)>& plot_path) {
  // Durable-write cost by size: one chart a method, a series per file system and write kind.
  for (Mode mode : {Mode::kFdatasync, Mode::kDirectDsync}) {
    kit::Chart c;
    c.title = fmt::format("{}: commit p50 by write size, per file system", iobench::mode_name(mode));
    c.xlabel = "write size (KiB)";
    c.ylabel = "commit p50 (us)";
    c.logx = c.logy = true;
    for (const std::string& f : m.fs)
      for (bool append : {true, false}) {
        kit::Series s;
        s.title = f + (append ? " append" : " overwrite");
        for (uint64_t size : {4096u, 8192u, 16384u, 1u << 20}) {
          const kit::Ratio v = kit::of_reps(m.values(f, sweep_key(mode, size, append), "commit_p50_us"));
          if (!v.known()) continue;
          s.points.push_back({size / 1024.0, v.value});
          s.errors.push_back(v.ci95.known() ? std::pair{v.ci95.lo, v.ci95.hi} : std::pair{v.value, v.value});
        }
        if (!s.points.empty()) c.series.push_back(std::move(s));
      }
    if (!c.series.empty()) (void)kit::write_chart(c, plot_path(fmt::format("commit_p50_{}", iobench::mode_name(mode))));
  }
  // The headline ratios: a category each, a series per file system.
  kit::Chart r;
  r.title = "headline ratios per file system (95% intervals)";
  r.ylabel = "ratio";
  r.logy = true;
  std::vector<const RatioDef*> shown;
  for (const RatioDef& d : ratio_defs())
    if (!d.finding.empty() || d.name.rfind("fenecdb_over", 0) == 0 || d.name.find("_4k") != std::string::npos)
      if (!d.den_key.empty()) shown.push_back(&d);
  // Short category labels (the names overlap at this width): a finding's
  // checks numbered in its order, the others by what they compare.
  std::map<std::string, int> nth;
  for (size_t i = 0; i < shown.size(); ++i) {
    const RatioDef& d = *shown[i];
    std::string label;
    if (!d.finding.empty()) label = fmt::format("{}.{}", d.finding, ++nth[d.finding]);
    else if (d.name.rfind("append_over", 0) == 0) label = (d.name.find("direct") != std::string::npos ? "a/o direct 4k" : "a/o fdatasync 4k");
    else label = d.name.find("rocksdb") != std::string::npos ? "vs rocksdb" : "vs postgres";
    r.xtics.push_back({static_cast<double>(i), label});
  }
  for (size_t k = 0; k < m.fs.size(); ++k) {
    kit::Series s;
    s.title = m.fs[k];
    s.style = "points";
    for (size_t i = 0; i < shown.size(); ++i) {
      const kit::Ratio v = def_ratio(m, *shown[i], m.fs[k]);
      if (!v.known()) continue;
      // Each file system a little apart inside its category, so the bars do not hide each other.
      s.points.push_back({i + (k + 0.5) / (m.fs.size() + 1.0) - 0.5, v.value});
      s.errors.push_back(v.ci95.known() ? std::pair{v.ci95.lo, v.ci95.hi} : std::pair{v.value, v.value});
    }
    if (!s.points.empty()) r.series.push_back(std::move(s));
  }
  r.refs.push_back({1.0, "1x", kit::Reference::Kind::kGuide});
  r.width = 1400;
  std::string png;
  if (!r.series.empty()) {
    const std::string base = plot_path("ratios_by_fs");
    if (kit::write_chart(r, base).empty()) png = base + ".png";
  }
  // The engines at 16 writers: writes/s, a category an arm.
  kit::Chart e;
  e.title = "durable writes/s at 16 writers, per file system";
  e.ylabel = "writes/s";
  e.logy = true;
  const std::vector<std::string> arms = engine_arm_names();
  for (size_t i = 0; i < arms.size(); ++i) e.xtics.push_back({static_cast<double>(i), arms[i]});
  for (size_t k = 0; k < m.fs.size(); ++k) {
    kit::Series s;
    s.title = m.fs[k];
    s.style = "points";
    for (size_t i = 0; i < arms.size(); ++i) {
      const kit::Ratio v = kit::of_reps(m.values(m.fs[k], engine_key(arms[i], 16), "writes_per_s"));
      if (!v.known()) continue;
      s.points.push_back({i + (k + 0.5) / (m.fs.size() + 1.0) - 0.5, v.value});
      s.errors.push_back(v.ci95.known() ? std::pair{v.ci95.lo, v.ci95.hi} : std::pair{v.value, v.value});
    }
    if (!s.points.empty()) e.series.push_back(std::move(s));
  }
  if (!e.series.empty()) (void)kit::write_chart(e, plot_path("engines_16w"));
  return png;
}

}  // namespace fenec::scenarios::fs
