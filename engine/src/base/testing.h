// What every test in the tree shares (header-only; tests link gtest):
//  - TestSeed(): the seed rule of seed.h, logged with the test's name and
//    recorded as the test's "seed" property in gtest's XML.
//  - BinarySeed(): one seed for a whole test binary, logged once (for
//    helpers shared by many tests).
//  - ScratchTest: a fixture with a fresh ScratchDir per test, named after the
//    suite and the test.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>

#include "engine/src/base/scratch.h"
#include "engine/src/base/seed.h"

namespace fenec::base {

inline std::string CurrentTestName() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return info ? std::string(info->test_suite_name()) + "." + info->name() : std::string("test");
}

inline uint64_t TestSeed() {
  const uint64_t seed = SeedFromEnv(CurrentTestName().c_str());
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  return seed;
}

inline uint64_t BinarySeed(const char* binary) {
  static const uint64_t seed = SeedFromEnv(binary);
  return seed;
}

class ScratchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tag = CurrentTestName();
    for (char& c : tag)
      if (c == '/') c = '_';  // parameterized names
    scratch_ = std::make_unique<ScratchDir>(tag);
    ASSERT_TRUE(scratch_->ok()) << scratch_->error();
  }
  void TearDown() override { scratch_.reset(); }
  const std::string& dir() const { return scratch_->path(); }
  std::string path(const std::string& name) const { return scratch_->path(name); }

 private:
  std::unique_ptr<ScratchDir> scratch_;
};

}  // namespace fenec::base
