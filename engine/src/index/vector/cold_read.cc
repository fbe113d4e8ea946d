// ColdReader: see cold_read.h.
#include "engine/src/index/vector/cold_read.h"

#include <liburing.h>
#include <sys/mman.h>

#include <algorithm>
#include <cassert>
#include <cstring>

namespace fenec::index::vec {
namespace {

constexpr uint64_t kPage = 4096;  // mincore's unit
constexpr uint64_t kMincoreGap = 64;  // pages between two ids one mincore still covers

}  // namespace

ColdReader::ColdReader() {
  void* b = mmap(nullptr, kBufferBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (b == MAP_FAILED) return;
  // Touched now: the buffer is charged once, up front, never page by page
  // in the middle of a step (and a calibration run counts it).
  std::memset(b, 0, kBufferBytes);
  auto* ring = new io_uring;
  if (io_uring_queue_init(kDepth, ring, 0) != 0) {
    delete ring;
    munmap(b, kBufferBytes);
    return;
  }
  buffer_ = static_cast<uint8_t*>(b);
  ring_ = ring;
}

ColdReader::~ColdReader() {
  if (ring_ != nullptr) {
    Wait();
    io_uring_queue_exit(ring_);
    delete ring_;
  }
  if (buffer_ != nullptr) munmap(buffer_, kBufferBytes);
}

ColdReader& ColdReader::ForThread() {
  thread_local ColdReader reader;
  return reader;
}

size_t ColdReader::IndexOf(uint32_t id) const {
  const auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
  assert(it != ids_.end() && *it == id);
  return static_cast<size_t>(it - ids_.begin());
}

void ColdReader::Fallback(const Run& r) {
  for (uint32_t i = r.first; i < r.last; ++i) {
    ptr_[i] = arena_->At(ids_[i]);
    ready_[i] = 1;
  }
}

uint64_t ColdReader::Start(const VectorArena& arena, std::span<const uint32_t> ids) {
  assert(in_flight_ == 0);
  arena_ = &arena;
  ids_ = ids;
  const size_t n = ids.size();
  ptr_.resize(n);
  ready_.assign(n, 1);
  for (size_t i = 0; i < n; ++i) ptr_[i] = arena.At(ids[i]);
  const int fd = arena.direct_fd();
  if (ring_ == nullptr || fd < 0 || n == 0) return 0;
  const uint64_t stride = arena.stride(), align = arena.direct_align();
  const uint64_t chunk = stride * ChunkedStore::kPerChunk;  // a multiple of the page: no vector spans two
  // Residency: one mincore for ids whose pages lie close in one chunk (a
  // system call costs more than a few dozen pages' lookups).
  cold_.assign(n, 0);
  for (size_t i = 0; i < n;) {
    const uint64_t c = arena.Offset(ids[i]) / chunk, lo = arena.Offset(ids[i]) / kPage * kPage;
    uint64_t hi = lo;
    size_t j = i;
    for (; j < n; ++j) {
      const uint64_t off = arena.Offset(ids[j]);
      if (off / chunk != c || off / kPage * kPage > hi + kMincoreGap * kPage) break;
      hi = std::max(hi, (off + stride + kPage - 1) / kPage * kPage);
    }
    resident_.resize((hi - lo) / kPage);
    const uint8_t* base = reinterpret_cast<const uint8_t*>(arena.At(static_cast<uint32_t>(c * ChunkedStore::kPerChunk)));
    if (mincore(const_cast<uint8_t*>(base) + (lo - c * chunk), hi - lo, resident_.data()) == 0) {
      for (size_t k = i; k < j; ++k) {
        const uint64_t off = arena.Offset(ids[k]);
        for (uint64_t p = off / kPage; p * kPage < off + stride; ++p)
          if ((resident_[p - lo / kPage] & 1) == 0) cold_[k] = 1;
      }
    }
    i = j;
  }
  // Cold vectors, merged into runs of adjacent blocks in file order.
  runs_.clear();
  size_t used = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!cold_[i]) continue;
    const uint64_t off = arena.Offset(ids[i]);
    const uint64_t a = off / align * align, b = (off + stride + align - 1) / align * align;
    Run* last = runs_.empty() ? nullptr : &runs_.back();
    if (last != nullptr && last->last == i && a <= last->hi && b - last->lo <= kMaxRun &&
        last->buf + (b - last->lo) <= kBufferBytes) {
      used += b > last->hi ? b - last->hi : 0;
      last->hi = std::max(last->hi, b);
      last->last = static_cast<uint32_t>(i + 1);
    } else {
      if (used + (b - a) > kBufferBytes || runs_.size() == kDepth) break;  // the rest through the mapping
      runs_.push_back(Run{a, b, used, static_cast<uint32_t>(i), static_cast<uint32_t>(i + 1)});
      used += b - a;
    }
    ptr_[i] = reinterpret_cast<const float*>(buffer_ + runs_.back().buf + (off - runs_.back().lo));
    ready_[i] = 0;
  }
  uint64_t pages = 0;
  for (size_t r = 0; r < runs_.size(); ++r) {
    io_uring_sqe* sqe = io_uring_get_sqe(ring_);
    if (sqe == nullptr) {  // cannot happen (runs <= depth); read through the mapping then
      Fallback(runs_[r]);
      continue;
    }
    const Run& run = runs_[r];
    io_uring_prep_read(sqe, fd, buffer_ + run.buf, static_cast<unsigned>(run.hi - run.lo), run.lo);
    io_uring_sqe_set_data64(sqe, r);
    ++in_flight_;
    pages += (run.hi - run.lo + kPage - 1) / kPage;
  }
  if (in_flight_ > 0 && io_uring_submit(ring_) < 0) {
    // Nothing went out: every cold vector through the mapping.
    io_uring_queue_exit(ring_);
    delete ring_;
    ring_ = nullptr;
    in_flight_ = 0;
    for (const Run& r : runs_) Fallback(r);
    return 0;
  }
  return pages;
}

void ColdReader::Wait() {
  while (in_flight_ > 0) {
    io_uring_cqe* cqe = nullptr;
    const int e = io_uring_wait_cqe(ring_, &cqe);
    if (e == -EINTR) continue;
    if (e < 0) {
      // The ring went bad: closing it ends its reads (none lands in the
      // buffer after), and every vector is read through the mapping.
      for (const Run& r : runs_) Fallback(r);
      io_uring_queue_exit(ring_);
      delete ring_;
      ring_ = nullptr;
      in_flight_ = 0;
      return;
    }
    const Run& run = runs_[io_uring_cqe_get_data64(cqe)];
    const bool whole = cqe->res == static_cast<int>(run.hi - run.lo);
    io_uring_cqe_seen(ring_, cqe);
    --in_flight_;
    if (!whole) {
      Fallback(run);
      continue;
    }
    for (uint32_t i = run.first; i < run.last; ++i) ready_[i] = 1;
  }
}

}  // namespace fenec::index::vec
