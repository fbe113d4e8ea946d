// The malformed requests the soak sends beside its valid load, each of which
// must be answered 4xx with a JSON error message (anything else, a 2xx, a
// 5xx, a dropped connection, counts as a failure):
//   value    every defect of values_test.cc's generated cases (value_defects.h:
//            numbers past their type, NaN and infinities, lone and swapped
//            surrogates, bytes that are not UTF-8) sent three ways: a FenecQL
//            literal, a $1 parameter and a /docs body (a good document first,
//            so all-or-nothing is exercised too)
//   json     bodies that are not the JSON asked for
//   fenecql  statements that do not parse or bind
//   utf8     invalid UTF-8 in a path, a statement, a key
//   header   a header past --max-header-bytes, too many fields (431)
//   http     a request line that is not HTTP, a body past --max-body (400, 413)
//   route    a path or method the server does not have (404, 405)
// They go to the collection `edge`, never `soak`, and must leave it as it
// was: its count is checked after every restart.
#pragma once

#include <string>
#include <vector>

#include "scenarios/soak/raw_http.h"

namespace fenec::scenarios::soak {

inline constexpr const char* kEdgeSchema =
    "CREATE COLLECTION edge (i INT, f FLOAT, s TEXT, v VECTOR(2), h VECTOR(2) @hnsw)";
inline constexpr const char* kEdgeSeed = R"j({"i": 7, "f": 0.5, "s": "seed", "v": [1, 2], "h": [3, 4]})j";

struct BadRequest {
  std::string kind;   // value, json, fenecql, utf8, header, http, route
  std::string name;   // what is wrong with it
  std::string bytes;  // the whole request, as sent
};

// Every malformed request, in a fixed order (the soak shuffles them with its seed).
std::vector<BadRequest> BadRequests();

// "" when `a` is what a malformed request must get: a 4xx whose body is
// valid JSON with a string error.message; else what was wrong.
std::string JudgeRefusal(const RawAnswer& a);

}  // namespace fenec::scenarios::soak
