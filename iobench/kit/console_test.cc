#include "iobench/kit/console.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace fenec::kit {
namespace console_test {

TEST(Table, PadsAndRightAlignsNumbers) {
  Table t({"arm", "iops", "p99"});
  t.row({"buffered", "12345", "250 us"});
  t.row({"direct", "7", "1.52 ms"});
  EXPECT_EQ(t.str(),
            "arm        iops      p99\n"
            "--------  -----  -------\n"
            "buffered  12345   250 us\n"
            "direct        7  1.52 ms\n");
}

TEST(Table, ShortRowsAndTextColumns) {
  Table t({"finding", "verdict"});
  t.row({"IO-1"});
  t.row({"CC-1", "reproduced"});
  EXPECT_EQ(t.str(),
            "finding  verdict\n"
            "-------  ----------\n"
            "IO-1\n"
            "CC-1     reproduced\n");
}

TEST(Table, WidthCountsCodePoints) {
  Table t({"unit", "x"});
  t.row({"µs", "a"});
  EXPECT_EQ(t.str(), "unit  x\n----  -\nµs    a\n");
}

TEST(Format, Bytes) {
  EXPECT_EQ(format_bytes(0), "0");
  EXPECT_EQ(format_bytes(4096), "4k");
  EXPECT_EQ(format_bytes(1048576), "1m");
  EXPECT_EQ(format_bytes(3ull << 30), "3g");
  EXPECT_EQ(format_bytes(1500), "1500");
  EXPECT_EQ(format_bytes(1536), "1536");
}

TEST(Format, Micros) {
  EXPECT_EQ(format_us(250.4), "250 us");
  EXPECT_EQ(format_us(12.34), "12.3 us");
  EXPECT_EQ(format_us(1520), "1.52 ms");
  EXPECT_EQ(format_us(2.5e6), "2.5 s");
  EXPECT_EQ(format_us(3600e6), "3600 s");
}

TEST(Format, Count) {
  EXPECT_EQ(format_count(42), "42");
  EXPECT_EQ(format_count(4123), "4.12 k");
  EXPECT_EQ(format_count(2.5e6), "2.5 M");
  EXPECT_EQ(format_count(7e9), "7 G");
}

TEST(Progress, QuietUnlessForced) {
  setenv("FENEC_PROGRESS", "0", 1);
  EXPECT_FALSE(Progress("x", 3).enabled());
  setenv("FENEC_PROGRESS", "1", 1);
  testing::internal::CaptureStderr();
  {
    Progress p("cells", 2);
    EXPECT_TRUE(p.enabled());
    p.update(1, "size=4k");
    p.update(2);
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("cells 1/2  [size=4k]"), std::string::npos) << err;
  EXPECT_NE(err.find("cells 2/2"), std::string::npos) << err;
  unsetenv("FENEC_PROGRESS");
}

}  // namespace console_test
}  // namespace fenec::kit
