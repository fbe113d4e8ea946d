// FenecQL tokens. Keywords are not reserved: they are identifiers the parser
// compares without case, so a field may be called `limit` or `count`.
#pragma once

#include <cstddef>
#include <cstdint>
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

// Tokens one at a time, so a parse holds the few it is looking at rather
// than the whole statement's (a token is ~48 bytes). After kEnd or
// kError, Next gives that token again.
class Lexer {
 public:
  explicit Lexer(std::string_view text) : s_(text) {}
  Token Next();

 private:
  Token Scan();
  Token Make(Tok kind, size_t start, std::string text) { return Token{kind, std::move(text), start}; }
  Token Fail(size_t at, std::string what) { return Token{Tok::kError, std::move(what), at}; }
  void SkipSpaceAndComments();
  Token Number(size_t start);
  Token String(size_t start, char quote);
  bool Hex4(uint32_t* cp);

  std::string_view s_;
  size_t i_ = 0;
  size_t bad_hex_ = 0;
  bool done_ = false;  // kEnd or kError given: last_ is it
  Token last_;
};

// Tokenizes the whole text (ending with kEnd), or stops at the first kError.
std::vector<Token> Lex(std::string_view text);

}  // namespace fenec::query
