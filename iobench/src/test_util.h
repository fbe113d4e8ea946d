// Helpers shared by iobench's tests: a seed that is logged and can be forced
// (FENEC_SEED), and a scratch folder on a real filesystem (FENEC_TEST_DIR, set
// by meson to the build folder) that is removed when the test ends.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <string>
#include <unistd.h>

#include "iobench/lib/test_seed.h"

namespace fenec::iobench::testing {

inline uint64_t test_seed() { return bench::test_seed("iobench test"); }

class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    const char* base = std::getenv("FENEC_TEST_DIR");
    std::string root = base && *base ? base : std::filesystem::temp_directory_path().string();
    path_ = fmt::format("{}/iobench-{}-{}", root, tag, ::getpid());
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  // Files left in the folder (a cell must remove its own).
  size_t entries() const {
    size_t n = 0;
    for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(path_)) ++n;
    return n;
  }
 private:
  std::string path_;
};

}  // namespace fenec::iobench::testing
