// A small JSON writer appending to one std::string: every answer the server
// sends is built here in one buffer, so it goes out in one write.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "engine/src/base/json.h"
#include "fenec/value.h"

namespace fenec::query {

using base::AppendJsonString;

// JSON has no NaN or infinity: they are written as null.
inline void AppendJsonDouble(std::string& out, double d) {
  if (!std::isfinite(d)) {
    out += "null";
    return;
  }
  // "{}" is the shortest text that reads back as the same double; a whole
  // number keeps a ".0" so a reader sees a float field as a float.
  size_t start = out.size();
  fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), d);
  if (out.find_first_of(".eEn", start) == std::string::npos) out += ".0";
}

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
    bool first = true;
    for (float f : v.vector()) {
      if (!first) out.push_back(',');
      first = false;
      if (f == 0 && std::signbit(f)) {
        // "-0" reads back as the integer 0 in many JSON readers (simdjson's
        // among them): the sign of a stored -0.0 would be lost.
        out += "-0.0";
      } else if (std::isfinite(f)) {
        // Into a stack buffer, then one append: format_to a back_inserter
        // goes through fmt's iterator buffer for every element, a tenth of
        // a 128-dim get by id's handling in the profile (RQ-1). FMT_COMPILE:
        // the same text without parsing "{}" again for every element.
        char buf[32];  // the shortest float text is at most 15 characters
        out.append(buf, fmt::format_to(buf, FMT_COMPILE("{}"), f));
      } else {
        out += "null";
      }
    }
    out.push_back(']');
  }
}

}  // namespace fenec::query
