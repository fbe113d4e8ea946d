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

std::string band(const kit::Ratio& r) {
  if (!r.ci95.known()) return "inconclusive (no interval)";
  if (r.ci95.lo >= kBandLo && r.ci95.hi <= kBandHi) return "met";
  if (r.ci95.hi < kBandLo || r.ci95.lo > kBandHi) return "missed";
  return "inconclusive";
}

std::string win(const kit::Ratio& r) {
  if (!r.ci95.known()) return "no interval";
  if (r.ci95.lo > 1) return "wins";
  if (r.ci95.hi < 1) return "LOSES";
  return "no clear win";
}

}  // namespace

Verdicts judge(const ia::Advice& a, const std::vector<Cell>& cells, kit::Results& res) {
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
    // Each repetition against its own prediction (its own calibration's);
    // the advice's prediction where a repetition has none.
    std::vector<double> rel;
    for (size_t i = 0; i < c.rates.size(); ++i)
      rel.push_back(c.rates[i] / (i < c.predicted.size() && c.predicted[i] > 0 ? c.predicted[i] : p->commits_per_s));
    const kit::Ratio vs_model = kit::of_reps(rel);
    const double predicted = c.predicted.empty() ? p->commits_per_s : kit::median(c.predicted);
    // The default settings at 1 and kCalibrationWriters writers are what the
    // calibration ran: their ratio shows the spread between a repetition's
    // calibration and its cell, not the model.
    const bool calibrated = (c.config == "default" || c.calibrated_apart) &&
                            (c.writers == 1 || c.writers == static_cast<int>(ia::kCalibrationWriters));
    const std::string verdict = band(vs_model) + (calibrated ? " (calibrated)" : "");
    const double per_round = kit::median(c.per_round);
    std::string vs_default = "-";
    kit::Ratio gain;
    if (c.config == "recommended")
      for (const Cell& d : cells)
        if (d.engine == c.engine && d.writers == c.writers && d.config == "default" && !d.rates.empty()) {
          gain = kit::paired_ratio(c.rates, d.rates);
          vs_default = kit::format_ratio(gain) + " " + win(gain);
          res.add_ratio("", arm, cs, "recommended_over_default", gain);
          if (win(gain) != "wins")
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
