// A VECTOR(n) field's numbers, read straight into floats (number.h's
// ReadJsonFloat, bind.cc's ReadVector): the fast path must give the bits
// from_chars gives and accept exactly what the JSON grammar and ReadNumber
// accept, and every refused form must keep its code, message, where and offset.
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "engine/src/query/bind.h"
#include "engine/src/query/number.h"

namespace fenec::query {
namespace vector_read_test {

uint32_t Bits(float f) {
  uint32_t b = 0;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

// Decimals where a float's rounding is easy to get wrong: ties to even, one
// past a tie, long mantissas, the range's ends, signed zeros, exponents.
const std::vector<std::string> kTricky = {
    "0", "-0", "0.0", "-0.0", "0e0", "0E-5", "1", "-1", "0.1", "0.2", "0.3", "1e5", "1E+2", "1e-2", "2.5e-1",
    "16777216", "16777217", "16777218", "16777219",  // 2^24 and its neighbours: ties to even
    "1.000000059604644775390625",                   // exactly half an ulp above 1: ties to even, 1
    "1.00000005960464477539062500000000001",        // just past the tie: up
    "1.0000000596046447753906249999999999",         // just under: down
    "0.30000001192092895507812500000000000001", "3.14159265358979323846264338327950288",
    "123456789012345678901234567890", "0.000000000000000000000000000000000000000000001",
    "3.4028234663852886e38",   // FLT_MAX
    "3.4028235677973362e38",   // just under the overflow threshold: FLT_MAX
    "1.17549435e-38",          // FLT_MIN
    "1.1754942e-38",           // the largest subnormal
    "1.401298464324817e-45",   // the smallest subnormal
    "-1.401298464324817e-45",  // and negative
    "7.006492321624087e-46",   // half the smallest subnormal: ties to even, 0 (ERANGE: the slow path)
    "7.1e-46",                 // past half: the smallest subnormal
    "1e-50", "-1e-50",         // below it: a zero of its sign (the slow path)
    "0.0000001", "9999999", "8388607.5", "8388608.5", "-98765.4321e-3",
};

TEST(ReadJsonFloat, AgreesWithFromCharsAndTheSlowPath) {
  for (const std::string& s : kTricky) {
    SCOPED_TRACE(s);
    ASSERT_TRUE(IsJsonNumber(s));
    float slow = -1;
    ASSERT_EQ(ReadNumber(std::string_view(s), &slow), NumberRead::kOk);
    float fast = -1;
    if (!ReadJsonFloat(s, &fast)) {
      // Only ERANGE below the smallest subnormal is left to the slow path.
      float fc = 0;
      EXPECT_EQ(std::from_chars(s.data(), s.data() + s.size(), fc).ec, std::errc::result_out_of_range);
      continue;
    }
    float fc = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), fc);
    ASSERT_EQ(r.ec, std::errc());
    EXPECT_EQ(Bits(fast), Bits(fc));
    EXPECT_EQ(Bits(fast), Bits(slow));
    EXPECT_EQ(Bits(fast), Bits(std::strtof(s.c_str(), nullptr)));
  }
  float f = 0;
  ASSERT_TRUE(ReadJsonFloat("16777217", &f));
  EXPECT_EQ(f, 16777216.0f);
  ASSERT_TRUE(ReadJsonFloat("1.000000059604644775390625", &f));
  EXPECT_EQ(f, 1.0f);
  ASSERT_TRUE(ReadJsonFloat("1.00000005960464477539062500000000001", &f));
  EXPECT_EQ(f, std::nextafter(1.0f, 2.0f));
  ASSERT_TRUE(ReadJsonFloat("-0", &f));
  EXPECT_TRUE(std::signbit(f));
}

TEST(ReadJsonFloat, RefusesWhatJsonOrAFloatRefuses) {
  const std::vector<std::string> refused = {
      "",    "-",        "+1",      "01",  "-01",   "00",   ".5",       "-.5",      "1.",        "1.e5",  "-1.",
      "1e",  "1e+",      "1e-",     "0x1", "0x1p3", "inf",  "-inf",     "nan",      "Infinity",  "-Infinity",
      "NaN", "1e39",     "-1e39",   "3.4028236e38",    "1 ", " 1",     "1,2",      "\"1\"",     "true",  "null",
      "[1]", "1.5.5",    "1e5e5",   "--1", "1-",    "1e5.5"};
  for (const std::string& s : refused) {
    SCOPED_TRACE(s);
    float f = 42;
    EXPECT_FALSE(ReadJsonFloat(s, &f));
    EXPECT_EQ(f, 42) << "left untouched";
    // Wherever the fast path says no, the slow path must too, or say overflow.
    float slow = 0;
    const bool slow_ok = IsJsonNumber(s) && ReadNumber(std::string_view(s), &slow) == NumberRead::kOk;
    EXPECT_FALSE(slow_ok);
  }
}

// One document {"v": <text>} read by JsonReader into a vector(2) field.
struct Read {
  std::optional<Error> err;
  Document doc;
};

Read ReadV(const std::string& text) {
  static const Schema schema{{Field::Vector("v", 2)}};
  simdjson::padded_string body(std::string(R"({"v":)") + text + "}");
  sj::parser parser;
  sj::document doc;
  sj::value root;
  Read r;
  if (parser.iterate(body).get(doc) || doc.get_value().get(root)) {
    r.err = Error{400, "setup", "", "", -1};
    return r;
  }
  JsonReader reader(body.data());
  r.err = reader.ReadDoc(root, schema, "body", &r.doc);
  return r;
}

TEST(ReadVector, GoodVectorsKeepTheirBits) {
  for (const char* text : {"[0.1, -2.5e-3]", "[ 0.1 ,-2.5e-3 ]", "[0.1,-2.5e-3]", "[\n0.1,\t-2.5e-3\r\n]"}) {
    SCOPED_TRACE(text);
    Read r = ReadV(text);
    ASSERT_FALSE(r.err) << r.err->message;
    ASSERT_TRUE(r.doc[0].is_vector());
    EXPECT_EQ(Bits(r.doc[0].vector()[0]), Bits(0.1f));
    EXPECT_EQ(Bits(r.doc[0].vector()[1]), Bits(-2.5e-3f));
  }
  // Below the smallest subnormal: a zero of its sign, as before.
  Read r = ReadV("[1e-50, -1e-50]");
  ASSERT_FALSE(r.err) << r.err->message;
  EXPECT_EQ(Bits(r.doc[0].vector()[0]), Bits(0.0f));
  EXPECT_EQ(Bits(r.doc[0].vector()[1]), Bits(-0.0f));
}

TEST(ReadVector, EveryRefusedFormKeepsItsError) {
  struct Case {
    std::string text, code, message, where;
    int64_t offset;  // in {"v":<text>}: the text starts at 5
  };
  const std::vector<Case> cases = {
      {"[1, \"a\"]", "type", "field 'v' is vector(2): element 1 is a string, not a number", "body.v[1]", 9},
      {"[null, 1]", "type", "field 'v' is vector(2): element 0 is null, not a number", "body.v[0]", 6},
      {"[1, true]", "type", "field 'v' is vector(2): element 1 is a bool, not a number", "body.v[1]", 9},
      {"[[1], 2]", "type", "field 'v' is vector(2): element 0 is an array, not a number", "body.v[0]", 6},
      {"[{}, 2]", "type", "field 'v' is vector(2): element 0 is an object, not a number", "body.v[0]", 6},
      {"[1, 1e39]", "type", "field 'v': element 1 does not fit in a float", "body.v[1]", 9},
      {"[-3.5e38, 1]", "type", "field 'v': element 0 does not fit in a float", "body.v[0]", 6},
      {"[1]", "dim", "field 'v' is vector(2), got 1 numbers", "body.v", 5},
      {"[1, 2, 3]", "dim", "field 'v' is vector(2), got 3 numbers", "body.v", 5},
      {"[]", "dim", "field 'v' is vector(2), got 0 numbers", "body.v", 5},
      {"[01, 2]", "json", "", "body.v[0]", 6},
      {"[1., 2]", "json", "", "body.v[0]", 6},
      {"[-.5, 2]", "json", "", "body.v[0]", 6},
      {"[1, NaN]", "json", "", "body.v[1]", -2},
      {"[Infinity, 1]", "json", "", "body.v[0]", -2},
      {"1", "type", "field 'v' is vector(2), got a number", "body.v", 5},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    Read r = ReadV(c.text);
    ASSERT_TRUE(r.err);
    EXPECT_EQ(r.err->code, c.code) << r.err->message;
    if (!c.message.empty()) {
      EXPECT_EQ(r.err->message, c.message);
    }
    if (c.code != "json") {
      EXPECT_EQ(r.err->where, c.where);
      EXPECT_EQ(r.err->offset, c.offset);
    } else if (c.offset >= 0) {
      EXPECT_EQ(r.err->where, c.where);
      EXPECT_EQ(r.err->offset, c.offset);
    }
  }
}

}  // namespace vector_read_test
}  // namespace fenec::query
