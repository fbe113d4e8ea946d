// Size, duration and axis parsing: what the CLI accepts and what it rejects
// (with exit 2), and the names reports rely on.
#include <gtest/gtest.h>

#include "iobench/src/mode.h"
#include "iobench/src/submit.h"
#include "iobench/src/units.h"

namespace fenec::iobench {
namespace units_test {

TEST(ParseSize, AcceptsSuffixes) {
  std::string err;
  uint64_t v = 0;
  ASSERT_TRUE(parse_size("4096", &v, &err));
  EXPECT_EQ(v, 4096u);
  ASSERT_TRUE(parse_size("4k", &v, &err));
  EXPECT_EQ(v, 4096u);
  ASSERT_TRUE(parse_size("4K", &v, &err));
  EXPECT_EQ(v, 4096u);
  ASSERT_TRUE(parse_size("16KiB", &v, &err));
  EXPECT_EQ(v, 16384u);
  ASSERT_TRUE(parse_size("1m", &v, &err));
  EXPECT_EQ(v, 1u << 20);
  ASSERT_TRUE(parse_size(" 16M ", &v, &err));
  EXPECT_EQ(v, 16u << 20);
  ASSERT_TRUE(parse_size("2g", &v, &err));
  EXPECT_EQ(v, 2ull << 30);
}

TEST(ParseSize, RejectsBadInput) {
  std::string err;
  uint64_t v = 0;
  for (const char* bad : {"", "0", "0k", "k", "-4k", "4q", "1.5k", "4 k k", "99999999999999999999",
                          "18014398509481984k"}) {
    EXPECT_FALSE(parse_size(bad, &v, &err)) << bad;
    EXPECT_FALSE(err.empty()) << bad;
  }
  EXPECT_FALSE(parse_size("0", &v, &err));
  EXPECT_NE(err.find("greater than zero"), std::string::npos) << err;
}

TEST(ParseSize, ListsAndLabelsRoundTrip) {
  std::string err;
  std::vector<uint64_t> sizes;
  ASSERT_TRUE(parse_size_list("4k,16k,64k,256k,1m,16m", &sizes, &err));
  ASSERT_EQ(sizes.size(), 6u);
  std::vector<std::string> labels;
  for (uint64_t s : sizes) labels.push_back(size_label(s));
  EXPECT_EQ(labels, (std::vector<std::string>{"4k", "16k", "64k", "256k", "1m", "16m"}));
  EXPECT_EQ(size_label(1536), "1536");
  EXPECT_EQ(size_label(1ull << 30), "1g");
  EXPECT_FALSE(parse_size_list("4k,,8k", &sizes, &err));
  for (uint64_t s : {512ull, 1536ull, 8192ull, 3ull << 20, 1ull << 30}) {
    uint64_t back = 0;
    ASSERT_TRUE(parse_size(size_label(s), &back, &err));
    EXPECT_EQ(back, s);
  }
}

TEST(ParseDuration, Units) {
  std::string err;
  double s = 0;
  ASSERT_TRUE(parse_duration("2s", &s, &err));
  EXPECT_DOUBLE_EQ(s, 2);
  ASSERT_TRUE(parse_duration("500ms", &s, &err));
  EXPECT_DOUBLE_EQ(s, 0.5);
  ASSERT_TRUE(parse_duration("1.5", &s, &err));
  EXPECT_DOUBLE_EQ(s, 1.5);
  ASSERT_TRUE(parse_duration("1m", &s, &err));
  EXPECT_DOUBLE_EQ(s, 60);
  EXPECT_FALSE(parse_duration("0s", &s, &err));
  EXPECT_FALSE(parse_duration("fast", &s, &err));
  EXPECT_FALSE(parse_duration("2h", &s, &err));
}

TEST(ParseMode, KnownAndUnknown) {
  std::string err;
  std::vector<Mode> modes;
  ASSERT_TRUE(parse_mode_list("buffered,fsync,fdatasync,dsync,direct,direct-dsync", &modes, &err));
  ASSERT_EQ(modes.size(), 6u);
  EXPECT_EQ(modes[5], Mode::kDirectDsync);
  EXPECT_TRUE(mode_direct(Mode::kDirectDsync));
  EXPECT_FALSE(mode_durable(Mode::kDirect));
  EXPECT_EQ(mode_sync(Mode::kFdatasync), SyncCall::kFdatasync);
  EXPECT_EQ(mode_sync(Mode::kDsync), SyncCall::kNone);
  EXPECT_FALSE(parse_mode_list("buffered,osync", &modes, &err));
  EXPECT_NE(err.find("unknown mode 'osync'"), std::string::npos) << err;
  EXPECT_NE(err.find("direct-dsync"), std::string::npos) << "the error lists the known modes";
}

TEST(Names, ArmAndCase) {
  EXPECT_EQ(arm_name(Mode::kDirectDsync, SubmitKind::kPwrite), "direct-dsync");
  EXPECT_EQ(arm_name(Mode::kDirectDsync, SubmitKind::kUring), "direct-dsync+uring");
  EXPECT_EQ(arm_name(Mode::kFsync, SubmitKind::kPwritev), "fsync+pwritev");
  EXPECT_EQ(case_name(4096, 1, Layout::kShared, 1, 1), "size=4k;jobs=1;layout=shared");
  EXPECT_EQ(case_name(8192, 16, Layout::kPerJob, 16, 1), "size=8k;jobs=16;layout=per-job;batch=16");
  EXPECT_EQ(case_name(4096, 2, Layout::kShared, 1, 8), "size=4k;jobs=2;layout=shared;depth=8");
  std::string err;
  std::vector<SubmitKind> kinds;
  EXPECT_TRUE(parse_submit_list("pwrite,pwritev,uring,null", &kinds, &err));
  EXPECT_FALSE(parse_submit_list("aio", &kinds, &err));
  std::vector<Layout> layouts;
  EXPECT_TRUE(parse_layout_list("shared,per-job", &layouts, &err));
  EXPECT_FALSE(parse_layout_list("striped", &layouts, &err));
  std::vector<unsigned> jobs;
  EXPECT_TRUE(parse_count_list("1,2,4,8,16", &jobs, &err));
  EXPECT_FALSE(parse_count_list("1,0", &jobs, &err));
  EXPECT_FALSE(parse_count_list("two", &jobs, &err));
}

}  // namespace units_test
}  // namespace fenec::iobench
