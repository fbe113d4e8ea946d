// A small JSON writer appending to one std::string: every answer the server
// sends is built here in one buffer, so it goes out in one write.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "engine/src/base/json.h"
#include "engine/src/query/shortest.h"
#include "fenec/value.h"

namespace fenec::query {

using base::AppendJsonString;

// A FLOAT field (double) or a distance (float) as JSON: its shortest text
// (a float's own, not the double it widens to, which would print
// 0.30000001192092896 for 0.3f); a whole number keeps a ".0" so a reader
// sees a float field as a float. JSON has no NaN or infinity: null.
template <typename T>
void AppendJsonFloating(std::string& out, T v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[kShortestMax + 2];
  char* end = WriteShortest(buf, v);
  if (std::find_if(buf, end, [](char c) { return c == '.' || c == 'e'; }) == end) {
    *end++ = '.';
    *end++ = '0';
  }
  out.append(buf, end);
}
inline void AppendJsonDouble(std::string& out, double d) { AppendJsonFloating(out, d); }

inline void AppendJsonValue(std::string& out, const Value& v) {
  if (v.is_null()) {
    out += "null";
  } else if (v.is_text()) {
    AppendJsonString(out, v.text());
  } else if (v.is_int()) {
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), v.int_value());
  } else if (v.is_float()) {
    AppendJsonDouble(out, v.float_value());
  } else if (v.is_bool()) {
    out += v.bool_value() ? "true" : "false";
  } else {
    out.push_back('[');
    // Written in place: room for every element made once, cut back after
    // (an append a number went through a buffer and a size check each).
    const std::span<const float> vec = v.vector();
    const size_t at = out.size();
    out.resize(at + vec.size() * (kShortestMax + 1));
    char* p = out.data() + at;
    for (size_t i = 0; i < vec.size(); ++i) {
      const float f = vec[i];
      if (i > 0) *p++ = ',';
      if (f == 0 && std::signbit(f)) {
        // "-0" reads back as the integer 0 in many JSON readers (simdjson's
        // among them): the sign of a stored -0.0 would be lost.
        std::memcpy(p, "-0.0", 4);
        p += 4;
      } else if (std::isfinite(f)) {
        p = WriteShortest(p, f);
      } else {
        std::memcpy(p, "null", 4);
        p += 4;
      }
    }
    out.resize(p - out.data());
    out.push_back(']');
  }
}

}  // namespace fenec::query
