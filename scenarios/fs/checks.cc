#include "scenarios/fs/checks.h"

#include <fmt/format.h>

#include "findings/catalogue.h"

namespace fenec::scenarios::fs {
namespace {

// The verdicts' checks (fs_verdicts builds the same from the same lines):
// a def, the line and side it is judged against, the key's suffix.
struct VerdictCheck {
  const char* def;
  const findings::Line* line;
  bool above;
  const char* suffix;
};
const std::vector<VerdictCheck>& verdict_checks() {
  static const std::vector<VerdictCheck> v = {
      {"iops_16k_over_4k", &findings::io1::kCount, true, ""},
      {"mb_per_s_16m_over_16k", &findings::io1::kGrows, true, ""},
      {"mb_per_s_16k_durable_over_buffered", &findings::io1::kBelow, false, ""},
      {"p50_4k_durable_over_buffered", &findings::io4::kHonest, true, " (honest)"},
      {"p50_4k_durable_over_buffered", &findings::io4::kLying, false, " (lying)"},
      {"mb_per_s_pwritev_over_pwrite", &findings::io7::kMerged, true, ""},
      {"fsyncs_per_commit_16w", &findings::cc1::kShared, false, ""},
      {"writes_16w_over_1w", &findings::cc1::kScales, true, ""},
      {"fenecdb_over_sqlite_16w", &findings::cc1::kAhead, true, ""},
      {"shared_over_separate_1w", &findings::jr1::kFaster, true, ""},
      {"shared_over_separate_16w", &findings::jr1::kFaster, true, ""},
      {"zero_ahead_gain_1w", &findings::jr_zero::kFaster, true, ""},
      {"zero_ahead_gain_16w", &findings::jr_zero::kFaster, true, ""},
  };
  return v;
}

}  // namespace

std::string check_key(const std::string& fs, const RatioDef& d, const std::string& suffix) {
  return fmt::format("fs={}: {}{}", fs, d.what, suffix);
}

std::string part_of(const RatioDef& d) { return d.num_key.substr(0, d.num_key.find('|')); }

std::vector<kit::Check> pair_checks(const Measured& m, const RatioDef& d, const std::string& a, const std::string& b,
                                    double threshold, const kit::Window& w) {
  std::vector<double> na, da, nb, db;
  def_values(m, d, a, &na, &da, w);
  def_values(m, d, b, &nb, &db, w);
  std::vector<double> ra, rb;
  for (size_t k = 0; k < std::min(na.size(), nb.size()); ++k) {
    ra.push_back(na[k] / da[k]);
    rb.push_back(nb[k] / db[k]);
  }
  // Positions pair here: each side's repetitions in w, in order (a hole on
  // one side shifts the other; a cell with a failed repetition has none).
  const kit::Ratio x = kit::paired_ratio(ra, rb, kit::Window{0, SIZE_MAX, w.level});
  const std::string name = fmt::format("pair {}/{}: {}", a, b, d.what);
  return {kit::Check(fmt::format("{} >= {:g}", name, threshold), x, threshold, true),
          kit::Check(fmt::format("{} < {:.3g}", name, 1 / threshold), x, 1 / threshold, false)};
}

PairResult pair_result(const kit::Check& more, const kit::Check& fewer) {
  const kit::CheckResult a = kit::check_result(more), b = kit::check_result(fewer);
  if (a == kit::CheckResult::kCleared || b == kit::CheckResult::kCleared) return PairResult::kDiffers;
  if (a == kit::CheckResult::kMissed && b == kit::CheckResult::kMissed) return PairResult::kWithin;
  return PairResult::kUndecided;
}

std::vector<kit::Check> part_checks(const Measured& m, const std::string& part, bool quick, const kit::Window& w) {
  std::vector<kit::Check> out;
  for (const std::string& f : m.fs)
    for (const VerdictCheck& v : verdict_checks()) {
      const RatioDef& d = *def_named(v.def);
      if (part_of(d) != part) continue;
      kit::Check c = findings::check(check_key(f, d, v.suffix), def_ratio(m, d, f, w), *v.line, v.above, quick);
      out.push_back(std::move(c));
    }
  for (const RatioDef& d : ratio_defs()) {
    if (part_of(d) != part) continue;
    for (size_t i = 0; i < m.fs.size(); ++i)
      for (size_t j = i + 1; j < m.fs.size(); ++j) {
        // Every window gives the same checks in the same order: a pair
        // with no repetitions still names its two (with no ratio).
        for (kit::Check& c : pair_checks(m, d, m.fs[i], m.fs[j], 1.15, w)) out.push_back(std::move(c));
      }
  }
  return out;
}

}  // namespace fenec::scenarios::fs
