// What a measurement needs around its writes: buffers aligned for O_DIRECT
// and filled with incompressible (seeded random) bytes, preallocated scratch
// files that are removed however the run ends, and a stop flag set by Ctrl-C.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "iobench/src/io_error.h"

namespace fenec::iobench {

// splitmix64: tiny, seedable, and good enough to make data incompressible.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
 private:
  uint64_t s_;
};

// Heap memory aligned to `align` (4096 covers every O_DIRECT requirement seen).
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  AlignedBuffer(size_t bytes, size_t align = 4096);
  AlignedBuffer(AlignedBuffer&& o) noexcept;
  AlignedBuffer& operator=(AlignedBuffer&& o) noexcept;
  ~AlignedBuffer();
  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  void fill_random(uint64_t seed);
 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// Unlinks its path on destruction, unless release()d.
class ScratchFile {
 public:
  ScratchFile() = default;
  explicit ScratchFile(std::string path) : path_(std::move(path)) {}
  ScratchFile(ScratchFile&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  ScratchFile& operator=(ScratchFile&& o) noexcept;
  ~ScratchFile();
  const std::string& path() const { return path_; }
 private:
  std::string path_;
};

// Creates (truncating) `path` and reserves `bytes` with fallocate(2), falling
// back to ftruncate where the filesystem has no fallocate (*fell_back set).
// On ENOSPC the file is removed and the error says how much was asked for.
IoError create_preallocated(const std::string& path, uint64_t bytes, bool* fell_back);

// Writes `bytes` of random data over the file (buffered) and syncs it, so
// later writes overwrite allocated, initialised blocks (pg_test_fsync does this).
IoError fill_file(const std::string& path, uint64_t bytes, uint64_t seed);

// Free bytes for an unprivileged writer on the filesystem holding `dir` (0 if unknown).
uint64_t free_bytes(const std::string& dir);
// Makes `dir` (and parents); "" on success, else why not.
std::string make_dirs(const std::string& dir);

}  // namespace fenec::iobench
