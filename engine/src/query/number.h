// Reading a number's text into a double or a float, the same way for a
// FenecQL literal and a JSON value, so a number means one thing whichever
// way it arrives:
//  - rounded to the nearest representable value;
//  - past the type's largest finite value it is an overflow: refused by the
//    caller, never stored as an infinity (JSON has none) or as zero (what
//    std::from_chars leaves behind on ERANGE);
//  - below the smallest subnormal it rounds to a zero of its sign, as IEEE 754
//    and JSON readers do: the nearest value, not a silent wrong one.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace fenec::query {

enum class NumberRead { kOk, kOverflow, kSyntax };

template <typename T>
NumberRead ReadNumber(std::string_view text, T* out) {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, float>);
  T v = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec == std::errc::invalid_argument || r.ptr != text.data() + text.size()) return NumberRead::kSyntax;
  if (r.ec == std::errc::result_out_of_range) {
    // from_chars does not say which way it fell out of range; strtod does:
    // an infinity past the largest value, a rounded tiny value below.
    std::string z(text);
    if constexpr (std::is_same_v<T, double>) {
      v = std::strtod(z.c_str(), nullptr);
    } else {
      v = std::strtof(z.c_str(), nullptr);
    }
  }
  *out = v;
  return std::isfinite(v) ? NumberRead::kOk : NumberRead::kOverflow;
}

// True if text is a number as JSON writes it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
inline bool IsJsonNumber(std::string_view t) {
  size_t i = 0;
  auto digits = [&]() {
    size_t from = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    return i > from;
  };
  if (i < t.size() && t[i] == '-') ++i;
  if (i < t.size() && t[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < t.size() && t[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == t.size();
}

// The common case of a vector element, in one step: a JSON number's token
// read straight into a float by from_chars, without the text copied, a
// double in between, or the grammar scanned first. from_chars consuming the
// whole token already leaves only [-]digits[.digits][e[+-]digits] with the
// parts from_chars allows and JSON does not: no digit before the dot (".5",
// also "inf", "nan"), a leading zero ("01"), no digit after the dot ("1.",
// "1.e5"); those are checked here on the same bytes. False for anything
// else, including past a float's range and below its smallest subnormal
// (ERANGE): the caller reads those again by ReadNumber's rules and says why.
// Agrees with IsJsonNumber(tok) && ReadNumber<float> wherever it says true
// (number_test.cc checks the two side by side).
inline bool ReadJsonFloat(std::string_view tok, float* out) {
  const char* p = tok.data();
  const char* end = p + tok.size();
  float v = 0;
  const auto r = std::from_chars(p, end, v);
  if (r.ec != std::errc() || r.ptr != end) return false;
  if (*p == '-') ++p;  // from_chars succeeded, so a digit or a letter follows
  if (*p < '0' || *p > '9') return false;
  if (*p == '0' && p + 1 < end && p[1] >= '0' && p[1] <= '9') return false;
  for (const char* q = p + 1; q < end && *q != 'e' && *q != 'E'; ++q) {
    if (*q == '.') {
      if (q + 1 == end || q[1] < '0' || q[1] > '9') return false;
      break;
    }
  }
  *out = v;
  return true;
}

// A JSON token without the whitespace simdjson leaves after it.
inline std::string_view TrimToken(std::string_view tok) {
  while (!tok.empty() && (tok.back() == ' ' || tok.back() == '\t' || tok.back() == '\n' || tok.back() == '\r'))
    tok.remove_suffix(1);
  return tok;
}

}  // namespace fenec::query
