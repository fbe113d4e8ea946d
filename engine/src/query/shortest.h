// The shortest decimal text that reads back as the same float or double,
// character for character what fmt's "{}" writes (shortest_test.cc compares
// them), with fmt's conversion (dragonbox) and the digits written here:
// fmt's general writer costs three times the conversion, and an answer of
// ten 128-dim rows writes 1 280 of them (RQ-1). The conversion is fmt's
// detail::dragonbox::to_decimal, exported but internal: were a newer fmt to
// change it, shortest_test.cc fails.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <fmt/format.h>

namespace fenec::query {

// Room enough for what WriteShortest writes: at most a sign, 17 digits, a
// point, and "0.000" before them or "e-324" after.
inline constexpr size_t kShortestMax = 32;

namespace shortest_detail {

inline constexpr char kPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

inline constexpr uint64_t kPow10[] = {1ull,
                                      10ull,
                                      100ull,
                                      1000ull,
                                      10000ull,
                                      100000ull,
                                      1000000ull,
                                      10000000ull,
                                      100000000ull,
                                      1000000000ull,
                                      10000000000ull,
                                      100000000000ull,
                                      1000000000000ull,
                                      10000000000000ull,
                                      100000000000000ull,
                                      1000000000000000ull,
                                      10000000000000000ull,
                                      100000000000000000ull,
                                      1000000000000000000ull,
                                      10000000000000000000ull};

// How many decimal digits v has (v > 0): log10 from the bit width, then
// one comparison.
template <typename U>
int CountDigits(U v) {
  const int t = ((64 - std::countl_zero(static_cast<uint64_t>(v))) * 1233) >> 12;
  return t - (v < kPow10[t]) + 1;
}

// v's n decimal digits, the last one at end[-1].
template <typename U>
void DigitsBefore(char* end, U v) {
  while (v >= 100) {
    end -= 2;
    std::memcpy(end, kPairs + (v % 100) * 2, 2);
    v /= 100;
  }
  if (v >= 10) {
    std::memcpy(end - 2, kPairs + v * 2, 2);
  } else {
    end[-1] = static_cast<char>('0' + v);
  }
}

// The digits at out[1..n], the first `lead` of them moved one to the left
// and a point put after them.
inline void PointAfter(char* out, int lead) {
  for (int i = 0; i < lead; ++i) out[i] = out[i + 1];
  out[lead] = '.';
}

}  // namespace shortest_detail

// v finite; out has room for kShortestMax characters. Returns the end.
// fmt's general format: fixed when the decimal exponent is in [-4, 16),
// else d[.ddd]e±XX; no ".0" on whole numbers (callers add it where a
// reader must see a float).
template <typename T>
char* WriteShortest(char* out, T v) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  using shortest_detail::DigitsBefore;
  if (std::signbit(v)) {
    *out++ = '-';
    v = -v;
  }
  if (v == 0) {
    *out = '0';
    return out + 1;
  }
  const auto dec = fmt::detail::dragonbox::to_decimal(v);
  const int n = shortest_detail::CountDigits(dec.significand);
  const int output_exp = dec.exponent + n - 1;
  if (output_exp < -4 || output_exp >= 16) {  // 1234e20 -> 1.234e+23
    if (n == 1) {
      *out++ = static_cast<char>('0' + dec.significand);
    } else {
      DigitsBefore(out + 1 + n, dec.significand);
      shortest_detail::PointAfter(out, 1);
      out += n + 1;
    }
    *out++ = 'e';
    int e = output_exp;
    *out++ = e < 0 ? '-' : '+';
    if (e < 0) e = -e;
    if (e >= 100) {  // a double's exponents stop at 308 and -324
      DigitsBefore(out + 3, static_cast<unsigned>(e));
      return out + 3;
    }
    std::memcpy(out, shortest_detail::kPairs + e * 2, 2);
    return out + 2;
  }
  if (dec.exponent >= 0) {  // 1234e2 -> 123400
    DigitsBefore(out + n, dec.significand);
    out += n;
    for (int i = 0; i < dec.exponent; ++i) *out++ = '0';
    return out;
  }
  const int lead = n + dec.exponent;
  if (lead > 0) {  // 1234e-2 -> 12.34
    DigitsBefore(out + 1 + n, dec.significand);
    shortest_detail::PointAfter(out, lead);
    return out + n + 1;
  }
  // 1234e-6 -> 0.001234
  *out++ = '0';
  *out++ = '.';
  for (int i = 0; i < -lead; ++i) *out++ = '0';
  DigitsBefore(out + n, dec.significand);
  return out + n;
}

}  // namespace fenec::query
