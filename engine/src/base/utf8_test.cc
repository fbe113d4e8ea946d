// The UTF-8 check against a reference decoder written the other way round
// (decode by bit pattern, then refuse by code point), over every 1- and
// 2-byte input, every 3-byte one from a lead byte, and every 4-byte one whose
// tail bytes sit on a boundary; and the JSON escaper, which must turn any
// bytes into valid UTF-8.
#include <gtest/gtest.h>

#include <string>

#include "engine/src/base/json.h"
#include "engine/src/base/utf8.h"

namespace fenec::base {
namespace {

// Length of the sequence at s[0] by the reference rules, 0 if ill-formed.
size_t ReferenceLength(std::string_view s) {
  if (s.empty()) return 0;
  const unsigned c = static_cast<unsigned char>(s[0]);
  size_t n = 0;
  uint32_t cp = 0;
  if ((c & 0x80) == 0) return 1;
  if ((c & 0xE0) == 0xC0) {
    n = 2;
    cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3;
    cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (s.size() < n) return 0;
  for (size_t k = 1; k < n; ++k) {
    const unsigned b = static_cast<unsigned char>(s[k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n]) return 0;                       // overlong
  if (cp >= 0xD800 && cp <= 0xDFFF) return 0;       // a surrogate
  if (cp > 0x10FFFF) return 0;                      // past Unicode
  return n;
}

std::string Bytes(std::initializer_list<unsigned> bytes) {
  std::string s;
  for (unsigned b : bytes) s.push_back(static_cast<char>(b));
  return s;
}

TEST(Utf8, AgreesWithTheReferenceOnEveryShortInput) {
  size_t checked = 0, valid = 0;
  auto check = [&](const std::string& s) {
    const size_t want = ReferenceLength(s);
    ASSERT_EQ(Utf8SequenceLength(s, 0), want) << std::hex << int(static_cast<unsigned char>(s[0]));
    // A whole input is valid iff its sequences chain to its end.
    bool whole = true;
    for (size_t i = 0, n = 0; i < s.size() && whole; i += n) {
      n = ReferenceLength(std::string_view(s).substr(i));
      whole = n != 0;
    }
    ASSERT_EQ(IsValidUtf8(s), whole);
    ++checked;
    valid += want != 0;
  };
  for (unsigned a = 0; a < 256; ++a) {
    check(Bytes({a}));
    for (unsigned b = 0; b < 256; ++b) {
      check(Bytes({a, b}));
      // Three bytes from every lead byte of a multi-byte sequence (below
      // 0xC0 the first byte stands alone, as the two-byte inputs show).
      if (a >= 0xC0)
        for (unsigned c = 0; c < 256; ++c) check(Bytes({a, b, c}));
    }
  }
  for (unsigned a = 0xF0; a <= 0xFF; ++a)
    for (unsigned b = 0; b < 256; ++b)
      for (unsigned c : {0x7Fu, 0x80u, 0xBFu, 0xC0u})
        for (unsigned d : {0x7Fu, 0x80u, 0xBFu, 0xC0u}) check(Bytes({a, b, c, d}));
  EXPECT_EQ(checked, 256u + 256u * 256u + 64u * 256u * 256u + 16u * 256u * 16u);
  EXPECT_GT(valid, 0u);
}

TEST(Utf8, NamedDefectsAreRefusedAtTheirOffset) {
  EXPECT_EQ(FirstInvalidUtf8("plain ascii, longer than eight bytes"), kUtf8Valid);
  EXPECT_EQ(FirstInvalidUtf8(""), kUtf8Valid);
  EXPECT_EQ(FirstInvalidUtf8("caf\xC3\xA9 \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF"), kUtf8Valid);  // é, U+1F600, U+10FFFF
  EXPECT_EQ(FirstInvalidUtf8("abcdefgh\xFF"), 8u);            // a byte no UTF-8 has
  EXPECT_EQ(FirstInvalidUtf8("ab\xC3"), 2u);                  // cut short
  EXPECT_EQ(FirstInvalidUtf8("ab\xC0\xAF"), 2u);              // overlong '/'
  EXPECT_EQ(FirstInvalidUtf8("ab\xED\xA0\x80"), 2u);          // U+D800 encoded
  EXPECT_EQ(FirstInvalidUtf8("\xED\xB0\x80\xED\xA0\x80"), 0u);  // a swapped pair, encoded
  EXPECT_EQ(FirstInvalidUtf8("a\xF4\x90\x80\x80"), 1u);       // past U+10FFFF
  EXPECT_EQ(FirstInvalidUtf8("a\x80"), 1u);                   // a lone continuation byte
}

TEST(Utf8, EveryScalarValueEncodesAndChecksValid) {
  size_t n = 0;
  for (uint32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    std::string s;
    AppendUtf8(s, cp);
    ASSERT_EQ(s.size(), cp < 0x80 ? 1u : cp < 0x800 ? 2u : cp < 0x10000 ? 3u : 4u) << cp;
    ASSERT_EQ(Utf8SequenceLength(s, 0), s.size()) << cp;
    ++n;
  }
  EXPECT_EQ(n, 0x110000u - 0x800u);
}

TEST(JsonEscape, AnyBytesComeOutAsValidUtf8) {
  EXPECT_EQ(JsonEscape("caf\xC3\xA9 \xF0\x9F\x98\x80"), "caf\xC3\xA9 \xF0\x9F\x98\x80");
  EXPECT_EQ(JsonEscape("a\xFF" "b"), "a\\ufffdb");
  EXPECT_EQ(JsonEscape("\xED\xA0\x80"), "\\ufffd\\ufffd\\ufffd");  // an encoded surrogate: three bad bytes
  EXPECT_EQ(JsonEscape("\xC3"), "\\ufffd");
  EXPECT_EQ(JsonEscape("q\"\\\n\x01"), "q\\\"\\\\\\n\\u0001");
  // Every two-byte input escapes to valid UTF-8 holding no raw control byte.
  size_t n = 0;
  for (unsigned a = 0; a < 256; ++a) {
    for (unsigned b = 0; b < 256; ++b) {
      std::string out = JsonEscape(Bytes({a, b}));
      ASSERT_TRUE(IsValidUtf8(out)) << a << " " << b;
      for (char c : out) ASSERT_GE(static_cast<unsigned char>(c), 0x20u);
      ++n;
    }
  }
  EXPECT_EQ(n, 65536u);
}

}  // namespace
}  // namespace fenec::base
