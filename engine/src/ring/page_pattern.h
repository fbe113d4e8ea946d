// Test helpers for whatever writes pages through the ring (the ring's own
// test and commit-bench's flusher arms): a scratch file, and a known pattern
// of pages whose bytes say which page they are, so a misplaced page shows.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/src/base/scratch.h"
#include "engine/src/ring/global_ring.h"

namespace fenec::ring::pattern {

constexpr uint32_t kPage = 4096;

// An empty file in a scratch folder of its own.
class TempFile {
 public:
  TempFile() : dir_("ring-test") {
    EXPECT_TRUE(dir_.ok()) << dir_.error();
    fd_ = ::open(dir_.path("pages").c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    EXPECT_GE(fd_, 0);
  }
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  int fd() const { return fd_; }
  std::string read_all() const {
    std::string out(static_cast<size_t>(lseek(fd_, 0, SEEK_END)), '\0');
    EXPECT_EQ(pread(fd_, out.data(), out.size(), 0), static_cast<ssize_t>(out.size()));
    return out;
  }

 private:
  base::ScratchDir dir_;
  int fd_ = -1;
};

// Page i of the pattern: its bytes say which page it is.
inline std::vector<char> page_bytes(uint64_t index, uint32_t seed) {
  std::vector<char> b(kPage);
  std::mt19937 rng(static_cast<uint32_t>(index * 7919 + seed));
  for (char& c : b) c = static_cast<char>(rng() & 0xff);
  return b;
}

struct Pattern {
  std::vector<std::vector<char>> buffers;
  std::vector<Page> pages;
  std::string expected;  // the file's contents after the flush (holes are zeros)
};

// Pages at the given page indexes, shuffled so the arms must sort before merging.
inline Pattern make_pattern(const std::vector<uint64_t>& indexes, uint32_t seed) {
  Pattern p;
  uint64_t last = 0;
  for (uint64_t i : indexes) last = std::max(last, i + 1);
  p.expected.assign(last * kPage, '\0');
  for (uint64_t i : indexes) {
    p.buffers.push_back(page_bytes(i, seed));
    std::memcpy(p.expected.data() + i * kPage, p.buffers.back().data(), kPage);
  }
  for (size_t k = 0; k < indexes.size(); ++k) {
    p.pages.push_back(Page{indexes[k] * kPage, p.buffers[k].data(), kPage});
  }
  std::shuffle(p.pages.begin(), p.pages.end(), std::mt19937(seed));
  return p;
}

inline std::vector<uint64_t> run_of(uint64_t first, uint64_t n) {
  std::vector<uint64_t> v;
  for (uint64_t i = 0; i < n; ++i) v.push_back(first + i);
  return v;
}

}  // namespace fenec::ring::pattern
