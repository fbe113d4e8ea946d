// FenecQL tokens. Keywords are not reserved: they are identifiers the parser
// compares without case, so a field may be called `limit` or `count`.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace fenec::query {

enum class Tok : unsigned char {
  kEnd,
  kIdent,    // name or keyword
  kInt,      // -?[0-9]+
  kFloat,    // -?[0-9]+(.[0-9]+)?([eE][+-]?[0-9]+)? with a '.' or exponent
  kString,   // '...' or "..."; `text` holds it unescaped
  kParam,    // $1 or $name; `text` holds "1" or "name"
  kPunct,    // ( ) { } [ ] , : * @
  kOp,       // = != <> < <= > >=
  kError,    // `text` says what is wrong at `offset`
};

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;   // unescaped for strings, the operator/punct itself, the number as written
  size_t offset = 0;  // byte offset of the token's first character
};

// Tokenizes the whole text (ending with kEnd), or stops at the first kError.
std::vector<Token> Lex(std::string_view text);

}  // namespace fenec::query
