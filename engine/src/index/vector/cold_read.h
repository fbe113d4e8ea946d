// ColdReader: the batch inserter's read-ahead of a step's vectors when they
// live in a file (VS-3; engine/doc/vectors.md, the batch arm's "preload").
//
// A step's gathered requests (ids sorted, unique) are looked up in the page
// cache (mincore): a resident vector is read through the mapping, as the
// row arm reads every vector; a cold one is read with O_DIRECT into a
// buffer this reader owns, in file order, every read of the step in flight
// at once on one io_uring, while the caller computes the distances to the
// resident ones. Why not the mapping with madvise(WILLNEED): under a memory
// cgroup each page brought into the cache is charged, so each one costs a
// reclaim of another page in the thread that brings it in; read-ahead
// overlapped the disk's wait but not that. A direct read charges nothing to
// the page cache: the buffer (kBufferBytes, allocated and touched once) is
// all this reader ever holds, so what it reads never evicts anything.
//
// Bounded: a step's cold vectors beyond the buffer (or any read that fails
// or comes back short) are read through the mapping instead, so a
// vector's pointer is always valid. One reader a thread (not thread-safe);
// it lives as long as its thread.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/src/index/vector/chunked.h"

struct io_uring;

namespace fenec::index::vec {

class ColdReader {
 public:
  // What one step's reads hold: room for a task's requests (a few
  // processes x 2M neighbours, or a link task's lists) at 768-d.
  static constexpr size_t kBufferBytes = size_t{2} << 20;
  static constexpr unsigned kDepth = 256;  // reads in flight at most
  static constexpr size_t kMaxRun = 64 * 1024;

  ColdReader();
  ~ColdReader();
  ColdReader(const ColdReader&) = delete;
  ColdReader& operator=(const ColdReader&) = delete;

  // The calling thread's reader.
  static ColdReader& ForThread();

  // ids: sorted ascending, unique, every one written. Points each at its
  // vector (resident ones at once) and submits the cold ones' reads.
  // Returns the pages submitted. An arena not file-backed, or a file
  // O_DIRECT cannot open, reads everything through the mapping.
  uint64_t Start(const VectorArena& arena, std::span<const uint32_t> ids);
  // ids[i]'s vector is readable now (resident, or its read came back).
  bool ready(size_t i) const { return ready_[i] != 0; }
  // Waits for every read submitted; then every vector is ready.
  void Wait();
  const float* at(size_t i) const { return ptr_[i]; }
  // Index of id in the ids of the last Start (id must be among them).
  size_t IndexOf(uint32_t id) const;

 private:
  struct Run {
    uint64_t lo = 0, hi = 0;  // byte offsets in the file, direct-I/O aligned
    size_t buf = 0;           // where in the buffer it lands
    uint32_t first = 0, last = 0;  // the ids' indices [first, last) it holds
  };
  void Fallback(const Run& r);

  io_uring* ring_ = nullptr;  // null: no ring (all through the mapping)
  uint8_t* buffer_ = nullptr;
  const VectorArena* arena_ = nullptr;
  std::span<const uint32_t> ids_;
  std::vector<const float*> ptr_;
  std::vector<uint8_t> ready_;
  std::vector<Run> runs_;
  std::vector<unsigned char> resident_;
  std::vector<uint8_t> cold_;
  unsigned in_flight_ = 0;
};

}  // namespace fenec::index::vec
