#include "engine/src/query/lexer.h"

#include <cctype>
#include <cstdint>

#include <fmt/format.h>

#include "engine/src/base/utf8.h"

namespace fenec::query {
namespace {

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// How an unexpected character is named in an error: the character itself
// when it is printable UTF-8, else its byte in hex (echoing a lone byte of a
// multi-byte character would put invalid UTF-8 in the answer).
std::string DescribeChar(std::string_view s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c >= 0x20 && c < 0x7F) return fmt::format("'{}'", static_cast<char>(c));
  const size_t n = c >= 0x80 ? base::Utf8SequenceLength(s, i) : 0;
  if (n > 0) return fmt::format("'{}'", s.substr(i, n));
  return fmt::format("byte 0x{:02X}{}", c, c >= 0x80 ? " (not UTF-8)" : "");
}

bool IsHighSurrogate(uint32_t cp) { return cp >= 0xD800 && cp <= 0xDBFF; }
bool IsLowSurrogate(uint32_t cp) { return cp >= 0xDC00 && cp <= 0xDFFF; }

}  // namespace

void Lexer::SkipSpaceAndComments() {
  for (;;) {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    // "--" to the end of the line: statements kept in files can say why.
    if (i_ + 1 < s_.size() && s_[i_] == '-' && s_[i_ + 1] == '-') {
      while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      continue;
    }
    return;
  }
}

Token Lexer::Scan() {
  SkipSpaceAndComments();
  if (i_ >= s_.size()) return Make(Tok::kEnd, s_.size(), "");
  size_t start = i_;
  char c = s_[i_];
  if (IsIdentStart(c)) {
    while (i_ < s_.size() && IsIdentChar(s_[i_])) ++i_;
    return Make(Tok::kIdent, start, std::string(s_.substr(start, i_ - start)));
  }
  if (IsDigit(c) || (c == '-' && i_ + 1 < s_.size() && (IsDigit(s_[i_ + 1]) || s_[i_ + 1] == '.'))) {
    return Number(start);
  }
  if (c == '\'' || c == '"') return String(start, c);
  if (c == '$') {
    ++i_;
    size_t name_start = i_;
    if (i_ < s_.size() && IsDigit(s_[i_])) {
      while (i_ < s_.size() && IsDigit(s_[i_])) ++i_;
      if (s_[name_start] == '0') return Fail(start, "parameters are numbered from $1");
    } else if (i_ < s_.size() && IsIdentStart(s_[i_])) {
      while (i_ < s_.size() && IsIdentChar(s_[i_])) ++i_;
    } else {
      return Fail(start, "expected a parameter number or name after '$'");
    }
    return Make(Tok::kParam, start, std::string(s_.substr(name_start, i_ - name_start)));
  }
  static constexpr std::string_view kPuncts = "(){}[],:*@";
  if (kPuncts.find(c) != std::string_view::npos) {
    ++i_;
    return Make(Tok::kPunct, start, std::string(1, c));
  }
  if (c == '=' || c == '<' || c == '>' || c == '!') {
    ++i_;
    char n = i_ < s_.size() ? s_[i_] : '\0';
    if ((c == '<' && (n == '=' || n == '>')) || (c == '>' && n == '=') || (c == '!' && n == '=')) {
      ++i_;
      std::string op = std::string(s_.substr(start, 2));
      return Make(Tok::kOp, start, op == "<>" ? "!=" : op);
    }
    if (c == '=' && n == '=') ++i_;  // "==" reads as "="
    if (c == '!') return Fail(start, "expected '!='");
    return Make(Tok::kOp, start, std::string(1, c));
  }
  return Fail(start, "unexpected character " + DescribeChar(s_, start));
}

Token Lexer::Number(size_t start) {
  if (s_[i_] == '-') ++i_;
  bool is_float = false;
  while (i_ < s_.size() && IsDigit(s_[i_])) ++i_;
  if (i_ < s_.size() && s_[i_] == '.') {
    is_float = true;
    ++i_;
    if (i_ >= s_.size() || !IsDigit(s_[i_])) return Fail(i_, "expected a digit after '.'");
    while (i_ < s_.size() && IsDigit(s_[i_])) ++i_;
  }
  if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
    is_float = true;
    ++i_;
    if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
    if (i_ >= s_.size() || !IsDigit(s_[i_])) return Fail(i_, "expected a digit in the exponent");
    while (i_ < s_.size() && IsDigit(s_[i_])) ++i_;
  }
  if (i_ < s_.size() && IsIdentChar(s_[i_])) return Fail(i_, "unexpected character after a number");
  return Make(is_float ? Tok::kFloat : Tok::kInt, start, std::string(s_.substr(start, i_ - start)));
}

// Strings hold UTF-8 only: a byte that is not part of a well-formed
// sequence, and a \u escape of a lone or swapped surrogate, are refused
// here, where the offset still points at them, rather than stored and
// served back as invalid JSON.
Token Lexer::String(size_t start, char quote) {
  ++i_;
  std::string out;
  while (i_ < s_.size() && s_[i_] != quote) {
    char c = s_[i_];
    if (static_cast<unsigned char>(c) >= 0x80) {
      const size_t n = base::Utf8SequenceLength(s_, i_);
      if (n == 0) return Fail(i_, fmt::format("a string holds {}", DescribeChar(s_, i_)));
      out.append(s_.substr(i_, n));
      i_ += n;
      continue;
    }
    ++i_;
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (i_ >= s_.size()) break;
    char e = s_[i_++];
    switch (e) {
      case 'n': out.push_back('\n'); break;
      case 't': out.push_back('\t'); break;
      case 'r': out.push_back('\r'); break;
      case '\\': case '\'': case '"': case '/': out.push_back(e); break;
      case 'u': {
        const size_t at = i_ - 2;
        uint32_t cp = 0;
        if (!Hex4(&cp)) return Fail(bad_hex_, "\\u needs four hex digits");
        if (IsLowSurrogate(cp)) {
          return Fail(at, fmt::format("\\u{:04X} is a low surrogate with no high one before it: a character "
                                      "past U+FFFF is written \\uD800-\\uDBFF then \\uDC00-\\uDFFF", cp));
        }
        if (IsHighSurrogate(cp)) {
          // The pair is one character past U+FFFF; its halves alone are none.
          uint32_t low = 0;
          if (i_ + 1 >= s_.size() || s_[i_] != '\\' || s_[i_ + 1] != 'u') {
            return Fail(at, fmt::format("\\u{:04X} is a high surrogate with no \\uDC00-\\uDFFF after it", cp));
          }
          i_ += 2;
          if (!Hex4(&low)) return Fail(bad_hex_, "\\u needs four hex digits");
          if (!IsLowSurrogate(low)) {
            return Fail(at, fmt::format("\\u{:04X} is a high surrogate followed by \\u{:04X}, not by "
                                        "\\uDC00-\\uDFFF", cp, low));
          }
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        base::AppendUtf8(out, cp);
        break;
      }
      default:
        if (e > 0x20 && e < 0x7F) return Fail(i_ - 2, fmt::format("unknown escape '\\{}'", e));
        return Fail(i_ - 2, "unknown escape: '\\' then " + DescribeChar(s_, i_ - 1));
    }
  }
  if (i_ >= s_.size()) return Fail(start, "string not closed");
  ++i_;
  return Make(Tok::kString, start, std::move(out));
}

// Four hex digits at i_ into *cp; false with bad_hex_ at the offending
// place (the escape itself when the text ends first).
bool Lexer::Hex4(uint32_t* cp) {
  if (i_ + 4 > s_.size()) {
    bad_hex_ = i_ - 2;
    return false;
  }
  *cp = 0;
  for (int k = 0; k < 4; ++k) {
    char h = s_[i_++];
    *cp <<= 4;
    if (h >= '0' && h <= '9') *cp |= h - '0';
    else if (h >= 'a' && h <= 'f') *cp |= h - 'a' + 10;
    else if (h >= 'A' && h <= 'F') *cp |= h - 'A' + 10;
    else {
      bad_hex_ = i_ - 1;
      return false;
    }
  }
  return true;
}

Token Lexer::Next() {
  if (done_) return last_;
  Token t = Scan();
  if (t.kind == Tok::kEnd || t.kind == Tok::kError) {
    done_ = true;
    last_ = t;
  }
  return t;
}

std::vector<Token> Lex(std::string_view text) {
  Lexer lexer(text);
  std::vector<Token> out;
  for (;;) {
    out.push_back(lexer.Next());
    if (out.back().kind == Tok::kEnd || out.back().kind == Tok::kError) return out;
  }
}

}  // namespace fenec::query
