// ChunkedStore and VectorArena: see chunked.h.
#include "engine/src/index/vector/chunked.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <new>

namespace fenec::index::vec {
ChunkedStore::ChunkedStore(size_t stride, std::string file) : stride_(stride), file_(std::move(file)) {
  assert(stride % 8 == 0 || stride < 8);
}

ChunkedStore::~ChunkedStore() {
  uint8_t** dir = dir_.load(std::memory_order_relaxed);
  for (size_t c = 0; c < chunks_; ++c) munmap(dir[c], stride_ * kPerChunk);
  if (fd_ >= 0) close(fd_);
  if (direct_fd_ >= 0) close(direct_fd_);
}

void ChunkedStore::Grow(size_t n) {
  if (!TryGrow(n).ok()) throw std::bad_alloc();
}

Status ChunkedStore::TryGrow(size_t n) {
  const size_t chunk = stride_ * kPerChunk;
  while (capacity() < n) {
    if (chunks_ == dir_capacity_) {
      size_t cap = std::max<size_t>(16, dir_capacity_ * 2);
      auto next = std::make_unique<uint8_t*[]>(cap);
      if (chunks_ != 0) std::memcpy(next.get(), dir_.load(std::memory_order_relaxed), chunks_ * sizeof(uint8_t*));
      dirs_.push_back(std::move(next));
      dir_capacity_ = cap;
    }
    void* p;
    if (file_.empty()) {
      p = mmap(nullptr, chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) return Status::IOError("mmap", "anonymous chunk", errno);
    } else {
      // Truncated at open: what it held is rebuilt from the journal and the catalog.
      if (fd_ < 0 && (fd_ = open(file_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
        return Status::IOError("open", file_, errno);
      if (direct_fd_ < 0 && (direct_fd_ = open(file_.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC)) >= 0) {
        // The file system's direct-read alignment (a 512-byte block device
        // lets a 3 KB vector be read as 3 KB, not as the two pages it spans).
        struct statx st {};
        if (statx(direct_fd_, "", AT_EMPTY_PATH, STATX_DIOALIGN, &st) == 0 && (st.stx_mask & STATX_DIOALIGN) &&
            st.stx_dio_offset_align != 0)
          direct_align_ = std::max(st.stx_dio_offset_align, st.stx_dio_mem_align);
      }
      const off_t at = static_cast<off_t>(chunks_ * chunk);
      // Allocated before it is mapped: a store through the mapping never
      // meets ENOSPC (a SIGBUS) or a hole's read.
      if (int e = posix_fallocate(fd_, at, static_cast<off_t>(chunk)); e != 0)
        return Status::FromErrno("fallocate", file_, e);
      p = mmap(nullptr, chunk, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, at);
      if (p == MAP_FAILED) return Status::IOError("mmap", file_, errno);
      madvise(p, chunk, MADV_RANDOM);  // a fault reads its own pages only
    }
    uint8_t** dir = dirs_.back().get();
    dir[chunks_++] = static_cast<uint8_t*>(p);
    // Publishes the chunk (and, after a doubling, the new directory).
    dir_.store(dir, std::memory_order_release);
  }
  return Status::OK();
}

size_t ChunkedStore::reserved_bytes() const {
  size_t dirs = 0;
  for (size_t i = 0, cap = 16; i < dirs_.size(); ++i, cap *= 2) dirs += cap * sizeof(uint8_t*);
  return chunks_ * stride_ * kPerChunk + dirs;
}

Status VectorArena::Write(uint32_t node, const float* v) {
  const size_t bytes = size_t{dim_} * sizeof(float);
  if (!file_backed()) {
    std::memcpy(At(node), v, bytes);
    return Status::OK();
  }
  const off_t at = static_cast<off_t>(store_.Offset(node));
  for (size_t done = 0; done < bytes;) {
    const ssize_t w = pwrite(store_.fd(), reinterpret_cast<const char*>(v) + done, bytes - done, at + off_t(done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return Status::FromErrno("pwrite", "vectors file", w < 0 ? errno : EIO);
    done += static_cast<size_t>(w);
  }
  if ((node + 1) % kWriteback == 0) {
    // This run's writeback started; the one kWritebackRuns back waited for
    // (long done unless the disk lags): at most that many runs dirty.
    const off_t run = static_cast<off_t>(kWriteback * stride());
    const off_t end = static_cast<off_t>(store_.Offset(node + 1));
    sync_file_range(store_.fd(), end - run, run, SYNC_FILE_RANGE_WRITE);
    if (end >= (kWritebackRuns + 1) * run)
      sync_file_range(store_.fd(), end - (kWritebackRuns + 1) * run, run,
                      SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
  }
  return Status::OK();
}

void VectorArena::Flush(uint32_t first, uint32_t n) const {
  if (!file_backed() || store_.fd() < 0 || n == 0) return;
  sync_file_range(store_.fd(), static_cast<off_t>(store_.Offset(first)), static_cast<off_t>(size_t{n} * stride()),
                  SYNC_FILE_RANGE_WRITE);
}

}  // namespace fenec::index::vec
