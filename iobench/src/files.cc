#include "iobench/src/files.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <utility>

namespace fenec::iobench {
namespace {

}  // namespace

AlignedBuffer::AlignedBuffer(size_t bytes, size_t align) : size_(bytes) {
  size_t rounded = (bytes + align - 1) / align * align;
  data_ = static_cast<uint8_t*>(std::aligned_alloc(align, rounded ? rounded : align));
  if (!data_) throw std::bad_alloc();
}

AlignedBuffer::AlignedBuffer(AlignedBuffer&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}

AlignedBuffer& AlignedBuffer::operator=(AlignedBuffer&& o) noexcept {
  if (this != &o) {
    std::free(data_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
  }
  return *this;
}

AlignedBuffer::~AlignedBuffer() { std::free(data_); }

void AlignedBuffer::fill_random(uint64_t seed) {
  Rng rng(seed);
  size_t i = 0;
  for (; i + 8 <= size_; i += 8) {
    uint64_t v = rng.next();
    std::memcpy(data_ + i, &v, 8);
  }
  for (; i < size_; ++i) data_[i] = static_cast<uint8_t>(rng.next());
}

ScratchFile& ScratchFile::operator=(ScratchFile&& o) noexcept {
  if (this != &o) {
    if (!path_.empty()) ::unlink(path_.c_str());
    path_ = std::move(o.path_);
    o.path_.clear();
  }
  return *this;
}

ScratchFile::~ScratchFile() {
  if (!path_.empty()) ::unlink(path_.c_str());
}

IoError create_preallocated(const std::string& path, uint64_t bytes, bool* fell_back) {
  *fell_back = false;
  Fd fd;
  IoError e = open_file(path, O_RDWR | O_CREAT | O_TRUNC, &fd);
  if (!e.ok()) return e;
  if (bytes == 0) return {};  // an empty file (fallocate refuses a zero length)
  int r;
  do {
    r = ::fallocate(fd.get(), 0, 0, static_cast<off_t>(bytes));
  } while (r != 0 && errno == EINTR);
  if (r == 0) return {};
  int err = errno;
  if (err == EOPNOTSUPP || err == ENOSYS) {
    *fell_back = true;
    if (::ftruncate(fd.get(), static_cast<off_t>(bytes)) == 0) return {};
    err = errno;
  }
  ::unlink(path.c_str());
  if (err == ENOSPC || err == EDQUOT)
    return IoError{err, fmt::format("no space left for {} bytes at {} (file removed; free: {} bytes)",
                                    bytes, path, free_bytes(std::filesystem::path(path).parent_path()))};
  return io_error(fmt::format("fallocate {} bytes for", bytes), path, err);
}

IoError fill_file(const std::string& path, uint64_t bytes, uint64_t seed) {
  Fd fd;
  IoError e = open_file(path, O_WRONLY, &fd);
  if (!e.ok()) return e;
  AlignedBuffer buf(1 << 20);
  buf.fill_random(seed);
  uint64_t calls = 0;
  for (uint64_t off = 0; off < bytes; off += buf.size()) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(buf.size(), bytes - off));
    e = pwrite_full(fd.get(), buf.data(), n, off, path, &calls);
    if (!e.ok()) return e;
  }
  return sync_fd(fd.get(), false, path);
}

uint64_t free_bytes(const std::string& dir) {
  struct statvfs st {};
  if (::statvfs(dir.empty() ? "." : dir.c_str(), &st) != 0) return 0;
  return static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
}

std::string make_dirs(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return fmt::format("cannot create {}: {}", dir, ec.message());
  return "";
}

}  // namespace fenec::iobench
