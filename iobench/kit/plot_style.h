// The one plot style every chart is drawn in (declared here, applied by
// write_chart): a series' colour, dash type and point type come from its
// title, by one rule, so an engine looks the same in every scenario's charts.
//
//   words   the title lower-cased and split at every character that is not a
//           letter, a digit or '_' ("fenecdb-durable-naive (locked)" ->
//           fenecdb durable naive locked).
//   family  the first word that names a family of families() (fenec -> fenecdb,
//           pg -> postgres, ...): its colour, fixed across charts. A title that
//           names none is its own family, named by its first word and coloured
//           from other_colours() in the alphabetical order of such families in
//           the chart (so "shared, 1 writer" and "shared, 16 writers" share a
//           hue, and charts of the same arms colour them alike).
//   mode    any word of modes(): a mode that makes each commit durable (durable,
//           full, fsync, fdatasync, dsync) is drawn solid, one that does not
//           (buffered, normal) dashed; no mode word: solid. A chart whose
//           titles name one mode only draws all solid (the dash would tell
//           nothing apart there).
//   variant a word of variants() (naive, append) shades the family's colour
//           and sets the point type: the naive arm lighter with open points.
//   ties    series of one chart alike in all of the above take the family's
//           next shade and the next point type, in the chart's order.
//
// Split: a chart with more than its max_series_per_panel series is drawn as
// panels on shared axes: grouped by mode (durable, buffered) when that gives
// 2 to 4 groups within the limit, else by family when that does, else by
// mode or not at all, a group over the limit in even runs within it.
// Series::panel, set on any series, overrides the rule.
#pragma once

#include <string>
#include <vector>

namespace fenec::kit::plot_style {

struct Family {
  const char* name;
  std::vector<const char*> words;  // any of them in a title names the family
  const char* colour;              // '#rrggbb'
};

// Engines and arm families whose colour is fixed across charts. The colours
// are Okabe-Ito (told apart with the common colour-vision deficiencies).
inline const std::vector<Family>& families() {
  static const std::vector<Family> k = {
      {"source", {"source"}, "#000000"},  // the source's own figures
      {"fenecdb", {"fenecdb", "fenec"}, "#0072B2"},
      {"sqlite", {"sqlite", "sqlite3"}, "#D55E00"},
      {"rocksdb", {"rocksdb"}, "#009E73"},
      {"postgres", {"postgres", "postgresql", "pg", "pgvector"}, "#CC79A7"},
      {"hnswlib", {"hnswlib"}, "#E69F00"},
      {"naive", {"naive"}, "#8C564B"},  // a finding's naive arm, where no engine is named
      // iobench's arms are its modes (a submission path is a shade of its mode's).
      {"buffered", {"buffered"}, "#56B4E9"},
      {"fdatasync", {"fdatasync"}, "#882255"},
      {"fsync", {"fsync"}, "#AA4499"},
      {"dsync", {"dsync"}, "#999933"},
      {"direct", {"direct"}, "#44AA99"},
  };
  return k;
}

// Colours of the families no table names, in order of appearance (none of
// them close to a declared family's).
inline const std::vector<const char*>& other_colours() {
  static const std::vector<const char*> k = {"#332288", "#DDAA33", "#117733", "#CC6677",
                                             "#661100", "#88CCEE", "#666666", "#E7298A"};
  return k;
}

enum class ModeClass { kNone, kDurable, kBuffered };

struct Mode {
  const char* word;
  ModeClass cls;
};

inline const std::vector<Mode>& modes() {
  static const std::vector<Mode> k = {
      {"durable", ModeClass::kDurable},    {"full", ModeClass::kDurable},
      {"fsync", ModeClass::kDurable},      {"fdatasync", ModeClass::kDurable},
      {"dsync", ModeClass::kDurable},      {"buffered", ModeClass::kBuffered},
      {"normal", ModeClass::kBuffered},
  };
  return k;
}

// gnuplot dash types: 1 solid, 2 dashed.
inline int dash_of(ModeClass c) { return c == ModeClass::kBuffered ? 2 : 1; }
inline const char* mode_class_name(ModeClass c) {
  return c == ModeClass::kDurable ? "durable" : c == ModeClass::kBuffered ? "buffered" : "";
}

struct Variant {
  const char* word;
  int shade;  // index into the shades (0 the family's colour)
  bool open;  // open points
};

inline const std::vector<Variant>& variants() {
  static const std::vector<Variant> k = {{"naive", 2, true}, {"append", 1, false}};
  return k;
}

// A series' resolved style.
struct Style {
  std::string family;  // the declared family's name, or the title's first word
  ModeClass mode = ModeClass::kNone;
  std::string colour;  // '#rrggbb'
  int dash = 1;
  int point = 7;
};

std::vector<std::string> words_of(const std::string& title);
// The declared family a title names, or "" when it names none.
std::string declared_family(const std::string& title);
ModeClass mode_of(const std::string& title);
// The styles of one chart's series, titles in the chart's order.
std::vector<Style> styles_of(const std::vector<std::string>& titles);
// The family colour shaded: 0 itself, then darker and lighter by turns.
std::string shade(const std::string& colour, int k);

}  // namespace fenec::kit::plot_style
