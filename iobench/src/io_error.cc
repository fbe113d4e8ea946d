#include "iobench/src/io_error.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace fenec::iobench {

IoError io_error(std::string_view op, std::string_view path, int errnum) {
  return IoError{errnum, fmt::format("{} {}: {} (errno {})", op, path, std::strerror(errnum), errnum)};
}

IoError io_failure(std::string_view op, std::string_view path, std::string_view what) {
  return IoError{0, fmt::format("{} {}: {}", op, path, what)};
}

IoError pwrite_full(int fd, const void* buf, size_t len, uint64_t off, const std::string& path,
                    uint64_t* calls) {
  const char* p = static_cast<const char*>(buf);
  while (len > 0) {
    ssize_t n = ::pwrite(fd, p, len, static_cast<off_t>(off));
    ++*calls;
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return io_error(fmt::format("pwrite {} bytes at {} to", len, off), path, errno);
    }
    if (n == 0) return io_failure("pwrite", path, "wrote 0 bytes");
    p += n;
    len -= static_cast<size_t>(n);
    off += static_cast<uint64_t>(n);
  }
  return {};
}

IoError pwritev_full(int fd, const iovec* iov, int iovcnt, uint64_t off, const std::string& path,
                     uint64_t* calls) {
  // Copy only if a short write forces us to advance through the vector.
  std::vector<iovec> rest;
  while (iovcnt > 0) {
    ssize_t n = ::pwritev(fd, iov, iovcnt, static_cast<off_t>(off));
    ++*calls;
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return io_error(fmt::format("pwritev {} buffers at {} to", iovcnt, off), path, errno);
    }
    if (n == 0) return io_failure("pwritev", path, "wrote 0 bytes");
    off += static_cast<uint64_t>(n);
    size_t left = static_cast<size_t>(n);
    while (iovcnt > 0 && left >= iov[0].iov_len) {
      left -= iov[0].iov_len;
      ++iov;
      --iovcnt;
    }
    if (iovcnt > 0 && left > 0) {
      rest.assign(iov, iov + iovcnt);
      rest[0].iov_base = static_cast<char*>(rest[0].iov_base) + left;
      rest[0].iov_len -= left;
      iov = rest.data();
    }
  }
  return {};
}

IoError pread_full(int fd, void* buf, size_t len, uint64_t off, const std::string& path, size_t* got) {
  char* p = static_cast<char*>(buf);
  *got = 0;
  while (len > 0) {
    ssize_t n = ::pread(fd, p, len, static_cast<off_t>(off));
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return io_error(fmt::format("pread {} bytes at {} from", len, off), path, errno);
    }
    if (n == 0) break;
    p += n;
    *got += static_cast<size_t>(n);
    len -= static_cast<size_t>(n);
    off += static_cast<uint64_t>(n);
  }
  return {};
}

IoError sync_fd(int fd, bool datasync, const std::string& path) {
  while ((datasync ? ::fdatasync(fd) : ::fsync(fd)) != 0) {
    if (errno == EINTR) continue;
    return io_error(datasync ? "fdatasync" : "fsync", path, errno);
  }
  return {};
}

Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.release();
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

int Fd::release() { return std::exchange(fd_, -1); }

IoError open_file(const std::string& path, int flags, Fd* out, mode_t mode) {
  int fd;
  do {
    fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    std::string what = "open";
    if (flags & O_DIRECT) what += " (O_DIRECT)";
    if ((flags & O_SYNC) == O_SYNC) what += " (O_SYNC)";
    else if (flags & O_DSYNC) what += " (O_DSYNC)";
    return io_error(what, path, errno);
  }
  *out = Fd(fd);
  return {};
}

}  // namespace fenec::iobench
