// A finding as the catalogue (findings/CATALOGUE.md) declares it, and what a
// scenario makes of it: its verdict's text and the lines its checks are
// judged against. The declarations themselves are generated into
// findings/catalogue.h; this header is the shape they take.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "iobench/kit/stats.h"
#include "iobench/kit/verdict.h"

namespace fenec::findings {

// One catalogue entry, or one row of it (a finding judged in several verdicts).
struct Finding {
  std::string_view id;        // "CC-1"
  std::string_view title;     // a few words, for REPORT.md's summary
  std::string_view claim;     // one line, in our words
  std::string_view source;    // the source's figure
  std::string_view setting;   // where the source measured it
  std::string_view line;      // what a full run's verdict is judged against
  std::string_view quick;     // what a quick run judges, or why it only shows
  std::string_view scenario;  // the scenario(s) judging it, or "none"
};

// A line a check is judged against. quick_judged is false where the catalogue
// says quick mode shows the check without judging it (quick_why says why).
struct Line {
  double value;
  bool quick_judged;
  std::string_view quick_why;
};

// A verdict with the catalogue's finding, claim and source (with its setting).
inline kit::Verdict verdict(const Finding& f) {
  kit::Verdict v;
  v.finding = std::string(f.id);
  v.claim = std::string(f.claim);
  v.source = std::string(f.source) + " (" + std::string(f.setting) + ")";
  return v;
}

// True where the catalogue's quick key reads "shown, not judged: why": a
// quick run shows the whole verdict's figures and judges none of them.
inline constexpr std::string_view kShownPrefix = "shown, not judged: ";
inline bool quick_only_shows(const Finding& f) { return f.quick.starts_with(kShownPrefix); }
// The catalogue's why, as a not-applicable reason.
inline std::string quick_why(const Finding& f) {
  return "quick mode shows it without judging it: " + std::string(f.quick.substr(kShownPrefix.size()));
}

// A check against a catalogue line; in a quick run, one the catalogue only
// shows carries its reason, and kit::judge reports it without counting it.
inline kit::Check check(std::string what, kit::Ratio ratio, const Line& l, bool above, bool quick) {
  kit::Check c{std::move(what), ratio, l.value, above};
  if (quick && !l.quick_judged) c.shown = "shown, not judged in quick mode: " + std::string(l.quick_why);
  return c;
}

}  // namespace fenec::findings
