// Errors as iobench reports them: the operation, the path and the errno text
// in one line ("pwrite /x/f.dat at 4096: No space left on device"), plus the
// errno itself so callers can single out ENOSPC or EINVAL. Helpers retry
// EINTR/EAGAIN and short transfers, as every caller would otherwise have to.
#pragma once

#include <cerrno>
#include <cstdint>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <sys/uio.h>

namespace fenec::iobench {

struct IoError {
  int errnum = 0;
  std::string message;
  bool ok() const { return errnum == 0 && message.empty(); }
  bool no_space() const { return errnum == ENOSPC || errnum == EDQUOT; }
};

IoError io_error(std::string_view op, std::string_view path, int errnum);
// A failure that has no errno (a short write that made no progress, a bad reply).
IoError io_failure(std::string_view op, std::string_view path, std::string_view what);

// pwrite/pwritev until every byte is written; `calls` counts the system calls made.
IoError pwrite_full(int fd, const void* buf, size_t len, uint64_t off, const std::string& path,
                    uint64_t* calls);
IoError pwritev_full(int fd, const iovec* iov, int iovcnt, uint64_t off, const std::string& path,
                     uint64_t* calls);
// pread until `len` bytes or end of file; *got is the byte count read.
IoError pread_full(int fd, void* buf, size_t len, uint64_t off, const std::string& path, size_t* got);
IoError sync_fd(int fd, bool datasync, const std::string& path);

// A file descriptor closed on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept;
  ~Fd();
  int get() const { return fd_; }
  int release();
  bool valid() const { return fd_ >= 0; }
 private:
  int fd_ = -1;
};

// open(2) retried on EINTR; the error says which flags were asked for.
IoError open_file(const std::string& path, int flags, Fd* out, mode_t mode = 0644);

}  // namespace fenec::iobench
