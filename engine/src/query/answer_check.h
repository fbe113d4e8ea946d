// For tests: is an answer valid JSON in valid UTF-8? simdjson's DOM parser
// reads the whole text and validates its UTF-8 (the On-Demand parser the
// service uses reads only what it is asked for), so it judges every byte.
#pragma once

#include <string>
#include <string_view>

#include <fmt/format.h>
#include <simdjson.h>

namespace fenec::query {

// "" when body is one valid JSON value in valid UTF-8, else why not.
inline std::string JsonProblem(std::string_view body) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  simdjson::padded_string text(body);
  if (auto ec = parser.parse(text).get(root)) {
    return fmt::format("not valid JSON ({}): {}", simdjson::error_message(ec), body);
  }
  return "";
}

// The error's "where" of an error answer, "" when it has none.
inline std::string ErrorWhere(std::string_view body) {
  simdjson::dom::parser parser;
  simdjson::padded_string text(body);
  std::string_view where;
  if (parser.parse(text)["error"]["where"].get_string().get(where)) return "";
  return std::string(where);
}

// The error's "code" of an error answer, "" when it has none.
inline std::string ErrorCode(std::string_view body) {
  simdjson::dom::parser parser;
  simdjson::padded_string text(body);
  std::string_view code;
  if (parser.parse(text)["error"]["code"].get_string().get(code)) return "";
  return std::string(code);
}

}  // namespace fenec::query
