#include "engine/src/io/posix_env.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>

namespace fenec {
namespace {

constexpr auto kRelaxed = std::memory_order_relaxed;

class PosixFile final : public File {
 public:
  PosixFile(std::string path, int fd, PosixEnv::Counters* counters)
      : path_(std::move(path)), fd_(fd), counters_(counters) {}
  ~PosixFile() override {
    if (map_ != nullptr) munmap(const_cast<uint8_t*>(map_), map_len_);
    ::close(fd_);
  }

  int fd() const override { return fd_; }

  Status Write(uint64_t offset, std::span<const uint8_t> data) override {
    const uint8_t* p = data.data();
    size_t left = data.size();
    while (left > 0) {
      ssize_t n = ::pwrite(fd_, p, left, static_cast<off_t>(offset));
      counters_->writes.fetch_add(1, kRelaxed);
      if (n < 0) {
        if (errno == EINTR) continue;
        return Status::FromErrno("pwrite", path_, errno);
      }
      counters_->write_bytes.fetch_add(static_cast<uint64_t>(n), kRelaxed);
      p += n;
      left -= static_cast<size_t>(n);
      offset += static_cast<uint64_t>(n);
    }
    return Status::OK();
  }

  Status WriteV(uint64_t offset, std::span<const iovec> parts) override {
    std::vector<iovec> iov(parts.begin(), parts.end());
    size_t first = 0;
    while (first < iov.size()) {
      int count = static_cast<int>(std::min<size_t>(iov.size() - first, IOV_MAX));
      ssize_t n = ::pwritev(fd_, iov.data() + first, count, static_cast<off_t>(offset));
      counters_->writes.fetch_add(1, kRelaxed);
      if (n < 0) {
        if (errno == EINTR) continue;
        return Status::FromErrno("pwritev", path_, errno);
      }
      counters_->write_bytes.fetch_add(static_cast<uint64_t>(n), kRelaxed);
      offset += static_cast<uint64_t>(n);
      // A short write leaves us mid-buffer: skip what went out and go on from there.
      size_t done = static_cast<size_t>(n);
      while (first < iov.size() && done >= iov[first].iov_len) done -= iov[first++].iov_len;
      if (first < iov.size()) {
        iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + done;
        iov[first].iov_len -= done;
      }
    }
    return Status::OK();
  }

  Status Read(uint64_t offset, std::span<uint8_t> out, size_t* got) override {
    size_t total = 0;
    while (total < out.size()) {
      ssize_t n = ::pread(fd_, out.data() + total, out.size() - total, static_cast<off_t>(offset + total));
      counters_->reads.fetch_add(1, kRelaxed);
      if (n < 0) {
        if (errno == EINTR) continue;
        return Status::FromErrno("pread", path_, errno);
      }
      if (n == 0) break;
      total += static_cast<size_t>(n);
    }
    *got = total;
    return Status::OK();
  }

  Status Sync() override {
    counters_->syncs.fetch_add(1, kRelaxed);
    if (::fdatasync(fd_) != 0) return Status::FromErrno("fdatasync", path_, errno);
    return Status::OK();
  }

  Status Size(uint64_t* size) override {
    struct stat st;
    if (::fstat(fd_, &st) != 0) return Status::FromErrno("fstat", path_, errno);
    *size = static_cast<uint64_t>(st.st_size);
    return Status::OK();
  }

  Status Truncate(uint64_t size) override {
    if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) return Status::FromErrno("ftruncate", path_, errno);
    return Status::OK();
  }

  Status Allocate(uint64_t offset, uint64_t length) override {
    int rc = ::fallocate(fd_, FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset), static_cast<off_t>(length));
    if (rc != 0) {
      if (errno == EOPNOTSUPP) return Status::NotSupported("fallocate: " + path_);
      return Status::FromErrno("fallocate", path_, errno);
    }
    return Status::OK();
  }

  Status Map(uint64_t reserve, const uint8_t** base) override {
    if (map_ != nullptr) return Status::InvalidArgument("file mapped twice: " + path_);
    void* p = ::mmap(nullptr, reserve, PROT_READ, MAP_SHARED | MAP_NORESERVE, fd_, 0);
    if (p == MAP_FAILED) return Status::FromErrno("mmap", path_, errno);
    map_ = static_cast<const uint8_t*>(p);
    map_len_ = reserve;
    *base = map_;
    return Status::OK();
  }

  const std::string& path() const override { return path_; }

 private:
  std::string path_;
  int fd_;
  PosixEnv::Counters* counters_;
  const uint8_t* map_ = nullptr;
  size_t map_len_ = 0;
};

}  // namespace

Env* Env::Default() {
  static PosixEnv* env = new PosixEnv();  // never deleted: files may outlive static destruction
  return env;
}

Status PosixEnv::Open(const std::string& path, OpenMode mode, std::unique_ptr<File>* out) {
  int flags = O_CLOEXEC;
  switch (mode) {
    case OpenMode::kRead: flags |= O_RDONLY; break;
    case OpenMode::kReadWrite: flags |= O_RDWR; break;
    case OpenMode::kCreate: flags |= O_RDWR | O_CREAT; break;
    case OpenMode::kCreateNew: flags |= O_RDWR | O_CREAT | O_EXCL; break;
  }
  int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) return Status::FromErrno("open", path, errno);
  *out = std::make_unique<PosixFile>(path, fd, &counters_);
  return Status::OK();
}

Status PosixEnv::CreateDir(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) return Status::FromErrno("mkdir", path, errno);
  return Status::OK();
}

Status PosixEnv::DeleteFile(const std::string& path) {
  if (::unlink(path.c_str()) != 0) return Status::FromErrno("unlink", path, errno);
  return Status::OK();
}

Status PosixEnv::DeleteDir(const std::string& path) {
  if (::rmdir(path.c_str()) != 0) return Status::FromErrno("rmdir", path, errno);
  return Status::OK();
}

Status PosixEnv::Rename(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) return Status::FromErrno("rename", from + " -> " + to, errno);
  return Status::OK();
}

Status PosixEnv::Link(const std::string& from, const std::string& to) {
  if (::link(from.c_str(), to.c_str()) != 0) return Status::FromErrno("link", from + " -> " + to, errno);
  return Status::OK();
}

Status PosixEnv::ListDir(const std::string& path, std::vector<std::string>* names) {
  names->clear();
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) return Status::FromErrno("opendir", path, errno);
  while (struct dirent* e = ::readdir(dir)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names->push_back(std::move(name));
  }
  ::closedir(dir);
  return Status::OK();
}

bool PosixEnv::Exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

Status PosixEnv::SyncDir(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno("open", path, errno);
  counters_.dir_syncs.fetch_add(1, kRelaxed);
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return Status::FromErrno("fsync", path, err);
  return Status::OK();
}

EnvCounters PosixEnv::counters() const {
  EnvCounters c;
  c.writes = counters_.writes.load(kRelaxed);
  c.write_bytes = counters_.write_bytes.load(kRelaxed);
  c.reads = counters_.reads.load(kRelaxed);
  c.syncs = counters_.syncs.load(kRelaxed);
  c.dir_syncs = counters_.dir_syncs.load(kRelaxed);
  return c;
}

}  // namespace fenec
