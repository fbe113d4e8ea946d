// statx(STATX_DIOALIGN) through the raw system call: glibc 2.36's struct statx
// predates the stx_dio_* fields, so this file includes only the kernel's
// header (and not <sys/stat.h>, whose struct statx would clash with it).
#include <fcntl.h>
#include <linux/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "iobench/src/probe.h"

namespace fenec::iobench {

bool statx_dio_align(const std::string& path, uint32_t* mem_align, uint32_t* offset_align) {
  struct statx stx {};
  if (::syscall(SYS_statx, AT_FDCWD, path.c_str(), 0, STATX_DIOALIGN, &stx) != 0) return false;
  if (!(stx.stx_mask & STATX_DIOALIGN)) return false;
  *mem_align = stx.stx_dio_mem_align;
  *offset_align = stx.stx_dio_offset_align;
  return true;
}

}  // namespace fenec::iobench
