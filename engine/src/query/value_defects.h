// Values at the boundary, one list per kind of field: the defects of
// values_test.cc's generated cases, shared so that soak-bench
// (scenarios/soak/) sends the very same bad values to a live server.
//   TextDefects    lone / swapped surrogates (FenecQL and JSON escapes), raw
//                  bytes that are not UTF-8
//   NumberDefects  NaN, infinities, past a double; for INT past 64 bits
//   VectorDefects  elements past a float, NaN, infinities
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "fenec/value.h"

namespace fenec::query {

// One bad value, spelt for each way it can arrive. `ql` goes where a value
// stands in a FenecQL statement, `json` where a value stands in a JSON body;
// both are the text as it appears inside the request's JSON (so "\\\\u" is a
// FenecQL escape, "\\u" a JSON one). Empty: the way cannot express it.
struct Defect {
  std::string name;
  std::string ql;
  std::string json;
  std::optional<Value> api;
};

inline std::vector<Defect> TextDefects() {
  // The escape defects as stored by a naive encoder (each half encoded alone).
  const std::string hi = "\xED\xA0\x80", lo = "\xED\xB0\x80";
  return {
      {"lone high surrogate", "'\\\\uD800'", "\"\\uD800\"", Value(hi)},
      {"lone low surrogate", "'\\\\uDC00'", "\"\\uDC00\"", Value(lo)},
      {"swapped pair", "'\\\\uDC00\\\\uD800'", "\"\\uDC00\\uD800\"", Value(lo + hi)},
      {"high then letter", "'\\\\uD800\\\\u0041'", "\"\\uD800\\u0041\"", Value(hi + "A")},
      {"two highs", "'x\\\\uD83D\\\\uD83D'", "\"x\\uD83D\\uD83D\"", Value("x" + hi + hi)},
      {"high at the end", "'x\\\\uDBFF'", "\"x\\uDBFF\"", Value("x\xED\xAF\xBF")},
      {"JSON escape in the statement", "'\\uD800'", "", std::nullopt},
      {"raw 0xFF", "'a\xFF'", "\"a\xFF\"", Value("a\xFF")},
      {"raw cut short", "'a\xC3'", "\"a\xC3\"", Value("a\xC3")},
      {"raw overlong", "'\xC0\xAF'", "\"\xC0\xAF\"", Value("\xC0\xAF")},
      {"raw surrogate", "'\xED\xA0\x80'", "\"\xED\xA0\x80\"", Value(hi)},
      {"raw past U+10FFFF", "'\xF4\x90\x80\x80'", "\"\xF4\x90\x80\x80\"", Value("\xF4\x90\x80\x80")},
  };
}

inline std::vector<Defect> NumberDefects(bool is_int) {
  std::vector<Defect> d = {
      {"NaN", "NaN", "NaN", std::nullopt},
      {"Infinity", "Infinity", "Infinity", std::nullopt},
      {"-Infinity", "-Infinity", "-Infinity", std::nullopt},
      {"1e400", "1e400", "1e400", std::nullopt},
      {"-1e400", "-1e400", "-1e400", std::nullopt},
      {"1.8e308", "1.8e308", "1.8e308", std::nullopt},
      {"401 digits", "1" + std::string(400, '0'), "1" + std::string(400, '0'), std::nullopt},
  };
  if (is_int) {
    d.push_back({"int64 max + 1", "9223372036854775808", "9223372036854775808", std::nullopt});
    d.push_back({"int64 min - 1", "-9223372036854775809", "-9223372036854775809", std::nullopt});
    d.push_back({"2^64", "18446744073709551616", "18446744073709551616", std::nullopt});
  } else {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    d[0].api = Value(nan);
    d[1].api = Value(inf);
    d[2].api = Value(-inf);
  }
  return d;
}

inline std::vector<Defect> VectorDefects() {
  const float kFNan = std::numeric_limits<float>::quiet_NaN();
  const float kFInf = std::numeric_limits<float>::infinity();
  return {
      {"element 1e400", "[1e400, 0]", "[1e400, 0]", std::nullopt},
      {"element past a float", "[0, 1e39]", "[0, 1e39]", std::nullopt},
      {"element -3.5e38", "[-3.5e38, 0]", "[-3.5e38, 0]", std::nullopt},
      {"element NaN", "[NaN, 0]", "[NaN, 0]", Value(std::vector<float>{kFNan, 0})},
      {"element Infinity", "[0, Infinity]", "[0, Infinity]", Value(std::vector<float>{0, kFInf})},
      {"element -Infinity", "[-Infinity, 0]", "[-Infinity, 0]", Value(std::vector<float>{-kFInf, 0})},
  };
}

}  // namespace fenec::query
