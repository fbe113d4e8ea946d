#include "iobench/kit/plot_style.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>

namespace fenec::kit::plot_style {
namespace {

bool has_word(const std::vector<std::string>& words, const char* w) {
  return std::find(words.begin(), words.end(), w) != words.end();
}

const Family* family_named_by(const std::vector<std::string>& words) {
  for (const std::string& w : words) {
    for (const Family& f : families()) {
      for (const char* fw : f.words)
        if (w == fw) return &f;
    }
  }
  return nullptr;
}

const Variant* variant_of(const std::vector<std::string>& words) {
  for (const Variant& v : variants())
    if (has_word(words, v.word)) return &v;
  return nullptr;
}

// Filled point types in the order ties take them (circle, square, triangle,
// diamond, inverted triangle); each open form is the number before it.
constexpr int kPoints[] = {7, 5, 9, 13, 11};

}  // namespace

std::vector<std::string> words_of(const std::string& title) {
  std::vector<std::string> out;
  std::string w;
  for (char ch : title) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '_') {
      w += static_cast<char>(std::tolower(c));
    } else if (!w.empty()) {
      out.push_back(std::move(w));
      w.clear();
    }
  }
  if (!w.empty()) out.push_back(std::move(w));
  return out;
}

std::string declared_family(const std::string& title) {
  const Family* f = family_named_by(words_of(title));
  return f ? f->name : "";
}

ModeClass mode_of(const std::string& title) {
  const std::vector<std::string> words = words_of(title);
  // A durable word wins: "direct-dsync" syncs every write.
  for (ModeClass c : {ModeClass::kDurable, ModeClass::kBuffered}) {
    for (const Mode& m : modes())
      if (m.cls == c && has_word(words, m.word)) return c;
  }
  return ModeClass::kNone;
}

std::string shade(const std::string& colour, int k) {
  if (k <= 0 || colour.size() != 7) return colour;
  // 1: darker, 2: lighter, 3: darker still, 4: lighter still, ...; a dark
  // colour the other way round (darker still would be black).
  const long rgb = std::strtol(colour.c_str() + 1, nullptr, 16);
  int c[3] = {static_cast<int>((rgb >> 16) & 255), static_cast<int>((rgb >> 8) & 255), static_cast<int>(rgb & 255)};
  const bool dark = 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2] < 80;
  const bool darker = (k % 2 == 1) != dark;
  const double amount = std::min(0.8, (darker ? 0.4 : 0.5) + 0.2 * ((k - 1) / 2));
  for (int& v : c) v = static_cast<int>(darker ? v * (1 - amount) : v + (255 - v) * amount + 0.5);
  return fmt::format("#{:02X}{:02X}{:02X}", c[0], c[1], c[2]);
}

std::vector<Style> styles_of(const std::vector<std::string>& titles) {
  std::vector<Style> out;
  // One mode in the whole chart: the dash would tell nothing apart (and
  // dashes make a dense line unreadable), so all are solid.
  std::set<ModeClass> named;
  for (const std::string& t : titles)
    if (mode_of(t) != ModeClass::kNone) named.insert(mode_of(t));
  std::map<std::string, size_t> other;  // undeclared family -> its colour's index, alphabetically
  for (const std::string& t : titles) {
    const std::vector<std::string> words = words_of(t);
    if (!family_named_by(words) && !words.empty()) other[words.front()] = 0;
  }
  size_t next = 0;
  for (auto& [name, index] : other) index = next++;
  std::map<std::tuple<std::string, int, int>, int> seen;  // (family, dash, variant shade) -> series so far
  for (const std::string& t : titles) {
    const std::vector<std::string> words = words_of(t);
    Style s;
    std::string base;
    if (const Family* f = family_named_by(words)) {
      s.family = f->name;
      base = f->colour;
    } else {
      s.family = words.empty() ? std::string() : words.front();
      base = other_colours()[s.family.empty() ? 0 : other[s.family] % other_colours().size()];
    }
    s.mode = mode_of(t);
    s.dash = named.size() > 1 ? dash_of(s.mode) : 1;
    const Variant* v = variant_of(words);
    // A family named by the variant's word ("naive") is that variant already: no shading twice.
    const int vshade = v && s.family != v->word ? v->shade : 0;
    const int tie = seen[{s.family, s.dash, vshade}]++;
    s.colour = shade(base, vshade + (tie > 0 && vshade > 0 ? tie + 1 : tie));
    s.point = kPoints[tie % std::size(kPoints)] - (v && v->open ? 1 : 0);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace fenec::kit::plot_style
