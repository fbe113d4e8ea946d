// JSON string escaping: the one copy every JSON writer in the project uses
// (fenec-server's answers, the results' JSON sidecars, the CI outputs).
// Escapes the quote, the backslash and every control character; UTF-8 passes
// through as it is, and each byte that is not part of well-formed UTF-8 is
// written as \ufffd, so the output is valid JSON whatever the input.
#pragma once

#include <string>
#include <string_view>

namespace fenec::base {

// Appends s escaped, without quotes.
void AppendJsonEscaped(std::string& out, std::string_view s);
// Appends s as a JSON string: quotes and escapes.
void AppendJsonString(std::string& out, std::string_view s);
// s escaped, without quotes (for a format string that supplies them).
std::string JsonEscape(std::string_view s);

}  // namespace fenec::base
