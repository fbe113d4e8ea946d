#include "engine/src/query/lexer.h"

#include <cctype>
#include <cstdint>

namespace fenec::query {
namespace {

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : s_(text) {}

  std::vector<Token> Run() {
    std::vector<Token> out;
    for (;;) {
      Token t = Next();
      bool stop = t.kind == Tok::kEnd || t.kind == Tok::kError;
      out.push_back(std::move(t));
      if (stop) return out;
    }
  }

 private:
  Token Make(Tok kind, size_t start, std::string text) { return Token{kind, std::move(text), start}; }
  Token Fail(size_t at, std::string what) { return Token{Tok::kError, std::move(what), at}; }

  void SkipSpaceAndComments() {
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

  Token Next() {
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
    return Fail(start, std::string("unexpected character '") + c + "'");
  }

  Token Number(size_t start) {
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

  Token String(size_t start, char quote) {
    ++i_;
    std::string out;
    while (i_ < s_.size() && s_[i_] != quote) {
      char c = s_[i_++];
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
          if (i_ + 4 > s_.size()) return Fail(i_ - 2, "\\u needs four hex digits");
          uint32_t cp = 0;
          for (int k = 0; k < 4; ++k) {
            char h = s_[i_++];
            cp <<= 4;
            if (h >= '0' && h <= '9') cp |= h - '0';
            else if (h >= 'a' && h <= 'f') cp |= h - 'a' + 10;
            else if (h >= 'A' && h <= 'F') cp |= h - 'A' + 10;
            else return Fail(i_ - 1, "\\u needs four hex digits");
          }
          AppendUtf8(out, cp);
          break;
        }
        default: return Fail(i_ - 2, std::string("unknown escape '\\") + e + "'");
      }
    }
    if (i_ >= s_.size()) return Fail(start, "string not closed");
    ++i_;
    return Make(Tok::kString, start, std::move(out));
  }

  std::string_view s_;
  size_t i_ = 0;
};

}  // namespace

std::vector<Token> Lex(std::string_view text) { return Lexer(text).Run(); }

}  // namespace fenec::query
