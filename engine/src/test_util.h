// Helpers shared by the engine's tests: scratch folders and logged seeds.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "iobench/lib/test_seed.h"

namespace fenec {

// A fresh folder under $TMPDIR (or /tmp), removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + std::string("/fenec-test-XXXXXX");
    path_ = mkdtemp(tmpl.data()) ? tmpl : "";
    EXPECT_FALSE(path_.empty());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The seed for a randomized test: FENEC_SEED if set, else random. Logged
// either way so a failure can be replayed with FENEC_SEED=<n>.
inline uint64_t TestSeed() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string who = info ? std::string(info->test_suite_name()) + "." + info->name() : "engine test";
  const uint64_t seed = bench::test_seed(who.c_str());
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  return seed;
}

}  // namespace fenec
