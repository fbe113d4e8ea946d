#include "scenarios/smaps/mappings.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

namespace fenec::scenarios::smaps {
namespace {
// Headroom under vm.max_map_count for the libraries, heap, thread stacks and
// the worker's own mmap/munmap loop.
constexpr size_t kMapHeadroom = 2000;
}  // namespace

MappingSet::~MappingSet() { release(); }

std::string MappingSet::create(size_t count) {
  release();
  if (count == 0) return "";
  const size_t limit = max_map_count();
  if (limit != 0 && count + kMapHeadroom > limit) {
    return fmt::format("vm.max_map_count={} allows at most ~{} extra mappings", limit,
                       limit > kMapHeadroom ? limit - kMapHeadroom : 0);
  }
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  bytes_ = count * page;
  void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    bytes_ = 0;
    return fmt::format("mmap {} bytes: {}", count * page, std::strerror(err));
  }
  base_ = p;
  auto* bytes = static_cast<unsigned char*>(p);
  for (size_t i = 0; i < count; i += 2) bytes[i * page] = 1;
  for (size_t i = 1; i < count; i += 2) {
    if (mprotect(bytes + i * page, page, PROT_READ) != 0) {
      const int err = errno;
      release();
      return fmt::format("mprotect page {} of {}: {}", i, count, std::strerror(err));
    }
  }
  count_ = count;
  return "";
}

void MappingSet::release() {
  if (base_ != nullptr) munmap(base_, bytes_);
  base_ = nullptr;
  bytes_ = 0;
  count_ = 0;
}

size_t count_vmas() {
  std::ifstream in("/proc/self/maps");
  size_t n = 0;
  std::string line;
  while (std::getline(in, line)) ++n;
  return n;
}

size_t max_map_count() {
  std::ifstream in("/proc/sys/vm/max_map_count");
  size_t n = 0;
  if (!(in >> n)) return 0;
  return n;
}

}  // namespace fenec::scenarios::smaps
