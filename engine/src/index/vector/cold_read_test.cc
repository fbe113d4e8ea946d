// ColdReader (cold_read.h): cold vectors of a file-backed arena read past the
// page cache into the reader's buffer, resident ones through the mapping,
// every pointer valid and holding the vector's bytes.
#include "engine/src/index/vector/cold_read.h"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "engine/src/base/scratch.h"

namespace fenec::index::vec {
namespace cold_read_test {

constexpr uint32_t kDim = 24;  // 96 bytes a vector: many to a page, runs merge

float Value(uint32_t node, uint32_t j) { return float(node) * 1000.0f + float(j); }

void Fill(VectorArena& arena, uint32_t n) {
  ASSERT_TRUE(arena.TryGrow(n).ok());
  std::vector<float> v(kDim);
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t j = 0; j < kDim; ++j) v[j] = Value(i, j);
    ASSERT_TRUE(arena.Write(i, v.data()).ok());
  }
}

// The file's pages leave the page cache (written back first).
void Evict(const std::string& path) {
  int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(fdatasync(fd), 0);
  ASSERT_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
  close(fd);
}

void ExpectBytes(const ColdReader& r, std::span<const uint32_t> ids) {
  for (size_t i = 0; i < ids.size(); ++i) {
    ASSERT_TRUE(r.ready(i));
    EXPECT_EQ(r.IndexOf(ids[i]), i);
    for (uint32_t j = 0; j < kDim; ++j) ASSERT_EQ(r.at(i)[j], Value(ids[i], j)) << "node " << ids[i];
  }
}

TEST(ColdReader, ColdVectorsReadPastTheCacheResidentOnesMapped) {
  base::ScratchDir dir;
  const std::string path = dir.path() + "/v.fvec";
  VectorArena arena(kDim, path);
  Fill(arena, 20000);  // 1.9 MB: 469 pages
  Evict(path);
  if (arena.direct_fd() < 0) GTEST_SKIP() << "no O_DIRECT on " << dir.path();
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < 20000; i += 97) ids.push_back(i);  // 207 ids, every other page or so
  ColdReader r;
  EXPECT_GT(r.Start(arena, ids), 0u);
  r.Wait();
  ExpectBytes(r, ids);
  bool any_buffered = false;
  for (size_t i = 0; i < ids.size(); ++i) any_buffered |= r.at(i) != arena.At(ids[i]);
  EXPECT_TRUE(any_buffered);
  // Read through the mapping: resident now, so pointed at, never read again.
  volatile float sink = 0;
  for (uint32_t id : ids)
    for (uint32_t j = 0; j < kDim; ++j) sink = sink + arena.At(id)[j];  // every page the vector spans
  EXPECT_EQ(r.Start(arena, ids), 0u);
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(r.at(i), arena.At(ids[i]));
  r.Wait();
  ExpectBytes(r, ids);
}

// More cold vectors than the buffer holds: the rest come through the
// mapping, every one still right.
TEST(ColdReader, BeyondTheBufferThroughTheMapping) {
  base::ScratchDir dir;
  const std::string path = dir.path() + "/v.fvec";
  VectorArena arena(kDim, path);
  const uint32_t n = 200000;  // 19 MB
  Fill(arena, n);
  Evict(path);
  if (arena.direct_fd() < 0) GTEST_SKIP() << "no O_DIRECT on " << dir.path();
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < n; i += 61) ids.push_back(i);  // 3 279 ids, each on a page of its own
  ColdReader r;
  const uint64_t pages = r.Start(arena, ids);
  EXPECT_GT(pages, 0u);
  EXPECT_LE(pages * 4096, ColdReader::kBufferBytes + ColdReader::kDepth * 4096);
  r.Wait();
  ExpectBytes(r, ids);
}

}  // namespace cold_read_test
}  // namespace fenec::index::vec
