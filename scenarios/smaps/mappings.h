// A process with many memory mappings, as a long-running database ends up
// with once its address space fragments (MM-1).
//
// The kernel merges neighbouring anonymous mappings that have the same flags,
// so N separate mmap() calls can collapse into one VMA. MappingSet instead
// maps one region of N pages and gives every other page a different
// protection: no two neighbours can merge, so the region is exactly N VMAs,
// which is what /proc/PID/smaps has to walk and print.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace fenec::scenarios::smaps {

class MappingSet {
 public:
  MappingSet() = default;
  ~MappingSet();
  MappingSet(const MappingSet&) = delete;
  MappingSet& operator=(const MappingSet&) = delete;

  // Maps `count` one-page VMAs and touches each writable page so it is
  // resident (smaps then has real per-page work to do). Returns "" on
  // success, else why not (mmap/mprotect errno, or the kernel's map limit).
  std::string create(size_t count);
  void release();
  size_t count() const { return count_; }

 private:
  void* base_ = nullptr;
  size_t bytes_ = 0;
  size_t count_ = 0;
};

// Lines in /proc/self/maps: the process's VMA count right now.
size_t count_vmas();
// /proc/sys/vm/max_map_count (65530 by default), 0 if unreadable.
size_t max_map_count();

}  // namespace fenec::scenarios::smaps
