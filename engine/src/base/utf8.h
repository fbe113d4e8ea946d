// UTF-8 as RFC 3629 defines it: the one check every boundary of the project
// uses (the engine's Schema::Check, FenecQL's lexer, the JSON binder, the JSON
// writer), so "valid text" means the same thing everywhere.
//
// Strict on purpose: overlong forms, encoded surrogates (U+D800..U+DFFF, what a
// lone-surrogate escape becomes when encoded naively) and code points past
// U+10FFFF are refused. Any of them inside a JSON answer makes it invalid for
// strict readers (simdjson among them), so the engine must never store one.
//
// Header-only: the engine (libfenec) uses it without linking the base library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace fenec::base {

inline constexpr size_t kUtf8Valid = std::string_view::npos;

// Bytes of the well-formed sequence starting at s[i]: 1..4, or 0 if none starts there.
inline size_t Utf8SequenceLength(std::string_view s, size_t i) {
  auto byte = [&](size_t k) -> unsigned {
    return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0x100u;  // 0x100: past the end
  };
  auto cont = [&](size_t k, unsigned lo, unsigned hi) {
    unsigned b = byte(k);
    return b >= lo && b <= hi;
  };
  const unsigned c = byte(0);
  if (c < 0x80) return 1;
  if (c < 0xC2) return 0;  // a continuation byte, or C0/C1 (always overlong)
  if (c <= 0xDF) return cont(1, 0x80, 0xBF) ? 2 : 0;
  if (c <= 0xEF) {
    // E0 A0..: no overlongs below U+0800; ED ..9F: no surrogates.
    const unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return cont(1, lo, hi) && cont(2, 0x80, 0xBF) ? 3 : 0;
  }
  if (c <= 0xF4) {
    // F0 90..: no overlongs below U+10000; F4 ..8F: nothing past U+10FFFF.
    const unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return cont(1, lo, hi) && cont(2, 0x80, 0xBF) && cont(3, 0x80, 0xBF) ? 4 : 0;
  }
  return 0;
}

// Byte offset of the first ill-formed sequence, or kUtf8Valid.
inline size_t FirstInvalidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    // Eight ASCII bytes at a time: most stored text is ASCII, and this check
    // runs on every text value a write lands.
    while (i + 8 <= s.size()) {
      uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      if (w & 0x8080808080808080ull) break;
      i += 8;
    }
    if (i >= s.size()) break;
    const size_t n = Utf8SequenceLength(s, i);
    if (n == 0) return i;
    i += n;
  }
  return kUtf8Valid;
}

inline bool IsValidUtf8(std::string_view s) { return FirstInvalidUtf8(s) == kUtf8Valid; }

// Appends code point cp (at most U+10FFFF, not a surrogate) as UTF-8.
inline void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace fenec::base
