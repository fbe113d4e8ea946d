// advise's verdicts: measured against predicted (the model's band is
// [0.8, 1.25]), recommended against default (a win needs its interval above
// 1.0), and the commits a sync carried against the model's commits a round.
#include <fmt/format.h>

#include "iobench/kit/console.h"
#include "iobench/kit/stats.h"
#include "scenarios/advise/verify.h"

namespace fenec::scenarios::advise {
namespace {

constexpr double kBandLo = 0.8, kBandHi = 1.25;

const ia::Prediction* prediction(const ia::Advice& a, ia::Engine e, const std::string& config, int w) {
  for (const ia::Prediction& p : a.predictions)
    if (p.engine == e && p.config == config && static_cast<int>(p.writers) == w) return &p;
  return nullptr;
}

// The band from its two checks: met when both clear, missed when either
// misses, else inconclusive.
std::string band(const kit::Check& lo, const kit::Check& hi) {
  const kit::CheckResult l = kit::check_result(lo), u = kit::check_result(hi);
  if (l == kit::CheckResult::kUnknown || u == kit::CheckResult::kUnknown) return "inconclusive (no interval)";
  if (l == kit::CheckResult::kCleared && u == kit::CheckResult::kCleared) return "met";
  if (l == kit::CheckResult::kMissed || u == kit::CheckResult::kMissed) return "missed";
  return "inconclusive";
}

std::string win(const kit::Check& c) {
  switch (kit::check_result(c)) {
    case kit::CheckResult::kCleared: return "wins";
    case kit::CheckResult::kMissed: return "LOSES";
    case kit::CheckResult::kStraddles: return "no clear win";
    default: return "no interval";
  }
}

// v's values whose repetition (cell.reps) lies in w.
std::vector<double> in_window(const Cell& c, const std::vector<double>& v, const kit::Window& w) {
  std::vector<double> out;
  for (size_t i = 0; i < v.size() && i < c.reps.size(); ++i)
    if (static_cast<size_t>(c.reps[i]) >= w.begin && static_cast<size_t>(c.reps[i]) < w.end) out.push_back(v[i]);
  return out;
}

std::string cell_name(const Cell& c) { return fmt::format("{}-{} {}w", ia::engine_name(c.engine), c.config, c.writers); }

// Each repetition against its own prediction (its own calibration's); the
// advice's prediction where a repetition has none.
std::vector<double> relative(const Cell& c, const ia::Prediction& p) {
  std::vector<double> rel;
  for (size_t i = 0; i < c.rates.size(); ++i)
    rel.push_back(c.rates[i] / (i < c.predicted.size() && c.predicted[i] > 0 ? c.predicted[i] : p.commits_per_s));
  return rel;
}

const Cell* default_of(const std::vector<Cell>& cells, const Cell& c) {
  for (const Cell& d : cells)
    if (d.engine == c.engine && d.writers == c.writers && d.config == "default" && !d.rates.empty()) return &d;
  return nullptr;
}

// A's and b's values at the repetitions both ran, in w.
void paired_reps(const Cell& a, const Cell& b, const kit::Window& w, std::vector<double>* va, std::vector<double>* vb) {
  for (size_t i = 0; i < a.reps.size(); ++i) {
    const int r = a.reps[i];
    if (static_cast<size_t>(r) < w.begin || static_cast<size_t>(r) >= w.end) continue;
    for (size_t j = 0; j < b.reps.size(); ++j)
      if (b.reps[j] == r) {
        va->push_back(a.rates[i]);
        vb->push_back(b.rates[j]);
      }
  }
}

const kit::Check* find_check(const std::vector<kit::Check>& checks, const std::string& what) {
  for (const kit::Check& c : checks)
    if (c.what == what) return &c;
  return nullptr;
}

}  // namespace

std::vector<kit::Check> cell_checks(const ia::Advice& a, const std::vector<Cell>& cells, const kit::Window& w) {
  std::vector<kit::Check> out;
  const kit::Window level{0, SIZE_MAX, w.level};
  for (const Cell& c : cells) {
    const ia::Prediction* p = prediction(a, c.engine, c.config, c.writers);
    if (!c.error.empty() || c.rates.empty() || !p) continue;
    const kit::Ratio vs_model = kit::of_reps(in_window(c, relative(c, *p), w), level);
    out.push_back({cell_name(c) + " measured/predicted", vs_model, kBandLo, true});
    out.push_back({cell_name(c) + " measured/predicted", vs_model, kBandHi, false});
    if (c.config != "recommended") continue;
    if (const Cell* d = default_of(cells, c)) {
      std::vector<double> rv, dv;
      paired_reps(c, *d, w, &rv, &dv);
      out.push_back({cell_name(c) + " recommended/default", kit::paired_ratio(rv, dv, level), 1.0, true});
    }
  }
  return out;
}

Verdicts judge(const ia::Advice& a, const std::vector<Cell>& cells, kit::Results& res,
               const std::vector<kit::Check>* judged) {
  const std::vector<kit::Check> all = judged != nullptr ? *judged : cell_checks(a, cells, kit::Window{});
  int band_cells = 0, band_decided = 0;
  Verdicts v;
  kit::Table t({"engine", "writers", "config", "measured /s", "predicted /s", "measured/predicted", "band",
                "commits/sync (model)", "recommended/default"});
  std::string plain, json = "[";
  for (const Cell& c : cells) {
    const std::string arm = fmt::format("{}-{}", ia::engine_name(c.engine), c.config);
    const std::string cs = fmt::format("writers={}", c.writers);
    const ia::Prediction* p = prediction(a, c.engine, c.config, c.writers);
    if (!c.error.empty() || c.rates.empty() || !p) {
      plain += fmt::format("- {} at {} writers: did not run: {}\n", arm, c.writers, c.error);
      continue;
    }
    const kit::Ratio rate = kit::of_reps(c.rates);
    // The band's two checks as judged (in a sequential run, on the
    // repetitions that decided them): the first has the ratio to show.
    const kit::Check* lo = nullptr;
    const kit::Check* hi = nullptr;
    for (const kit::Check& k : all)
      if (k.what == cell_name(c) + " measured/predicted") (lo == nullptr ? lo : hi) = &k;
    if (lo == nullptr || hi == nullptr) continue;
    const kit::Ratio vs_model = lo->ratio;
    const double predicted = c.predicted.empty() ? p->commits_per_s : kit::median(c.predicted);
    // The default settings at 1 and kCalibrationWriters writers are what the
    // calibration ran: their ratio shows the spread between a repetition's
    // calibration and its cell, not the model.
    const bool calibrated = (c.config == "default" || c.calibrated_apart) &&
                            (c.writers == 1 || c.writers == static_cast<int>(ia::kCalibrationWriters));
    const std::string b = band(*lo, *hi);
    ++band_cells;
    band_decided += b == "met" || b == "missed";
    std::string note = lo->note.empty() ? hi->note : lo->note;
    if (kit::check_result(*lo) == kit::CheckResult::kStraddles || kit::check_result(*hi) == kit::CheckResult::kStraddles)
      note = kit::check_result(*lo) == kit::CheckResult::kStraddles ? lo->note : hi->note;
    const std::string verdict = b + (calibrated ? " (calibrated)" : "") + (note.empty() ? "" : " (" + note + ")");
    const double per_round = kit::median(c.per_round);
    std::string vs_default = "-";
    kit::Ratio gain;
    if (c.config == "recommended")
      if (const kit::Check* g = find_check(all, cell_name(c) + " recommended/default")) {
          gain = g->ratio;
          vs_default = kit::format_ratio(gain) + " " + win(*g);
          res.add_ratio("", arm, cs, "recommended_over_default", gain);
          if (win(*g) != "wins")
            plain += fmt::format("- {} at {} writers: the recommendation does not win here ({}); the model "
                                 "predicted {:.2f}x\n",
                                 ia::engine_name(c.engine), c.writers, kit::format_ratio(gain),
                                 p->commits_per_s / prediction(a, c.engine, "default", c.writers)->commits_per_s);
        }
    t.row({ia::engine_name(c.engine), std::to_string(c.writers), c.config, kit::format_interval(rate, "/s", 0),
           fmt::format("{:.0f}", predicted), kit::format_ratio(vs_model), verdict,
           fmt::format("{:.1f} ({:.1f})", per_round, p->commits_per_round), vs_default});
    res.add_ratio("", arm, cs, "measured_over_predicted", vs_model);
    res.add("", arm, cs, "predicted_commits_per_s", predicted, "ops/s");
    res.add("", arm, cs, "commits_per_s", kit::median(c.rates), "ops/s");
    res.add("", arm, cs, "commits_per_sync", per_round, "count");
    v.points.push_back({c.engine, c.config, static_cast<unsigned>(c.writers), rate.value,
                        rate.ci95.known() ? rate.ci95.lo : rate.value, rate.ci95.known() ? rate.ci95.hi : rate.value});
    json += fmt::format(
        "{}{{\"engine\":\"{}\",\"config\":\"{}\",\"writers\":{},\"measured\":{:.1f},\"measured_lo\":{:.1f},"
        "\"measured_hi\":{:.1f},\"predicted\":{:.1f},\"measured_over_predicted\":{:.3f},\"band\":\"{}\","
        "\"commits_per_sync\":{:.2f},\"predicted_commits_per_round\":{:.2f},\"recommended_over_default\":{:.3f},"
        "\"gain_lo\":{:.3f},\"gain_hi\":{:.3f}}}",
        json.size() > 1 ? "," : "", ia::engine_name(c.engine), c.config, c.writers, rate.value,
        rate.ci95.known() ? rate.ci95.lo : 0, rate.ci95.known() ? rate.ci95.hi : 0, predicted,
        vs_model.value, verdict, per_round, p->commits_per_round, gain.known() ? gain.value : 0,
        gain.ci95.known() ? gain.ci95.lo : 0, gain.ci95.known() ? gain.ci95.hi : 0);
  }
  plain += fmt::format("- {} of {} cells' bands decided (met or missed, the whole interval on one side of each line)\n",
                       band_decided, band_cells);
  res.add("", "all", "band", "cells_decided", band_decided, "count");
  res.add("", "all", "band", "cells_judged", band_cells, "count");
  plain += fmt::format("- \"(calibrated)\": the default settings at 1 and {} writers are the cells each engine's "
                       "calibration ran in the same repetition (and so are recommended settings that change what "
                       "the engine does a commit, such as SQLite's journal mode, calibrated apart); their band "
                       "shows the spread between the two, not the model. Every cell is predicted from its own "
                       "repetition's calibration.\n",
                       ia::kCalibrationWriters);
  v.table = t.str() + plain;
  v.markdown = "```\n" + t.str() + "```\n\n" + plain;
  v.json = json + "]";
  return v;
}

}  // namespace fenec::scenarios::advise
