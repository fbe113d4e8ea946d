// What a directory's filesystem and device support and require, found by
// trying (a write with O_DIRECT at each alignment, a pwritev2 with RWF_DSYNC,
// a fallocate, a hard link, an io_uring write) rather than by assuming from
// the filesystem's name. Every other subcommand asks it what it must skip.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fenec::kit {
class Results;
}

namespace fenec::iobench {

struct ProbeResult {
  std::string dir;
  std::string fs_type = "unknown";   // from /proc/self/mountinfo ("ext4", "tmpfs")
  std::string fs_magic;              // statfs f_type, hex
  std::string mount_point = "unknown", mount_source = "unknown", mount_options;
  bool memory_backed = false;        // tmpfs/ramfs: nothing below it to persist to
  std::string device = "none";       // block device name ("vda"), or "none"
  std::string model = "unknown";
  int rotational = -1;               // 1, 0, or -1 unknown
  std::string write_cache = "unknown";  // "write back" (volatile cache), "write through"
  uint32_t logical_block = 0, physical_block = 0;
  // queue/scheduler: what the kernel offers this device and which is active
  // (JR-3 needs one that honours I/O priority: bfq for BE levels, mq-deadline for IDLE).
  std::vector<std::string> schedulers;
  std::string scheduler = "unknown";

  bool o_direct = false;
  std::string o_direct_note;          // why not, or how it was established
  uint32_t direct_io_align = 0;       // smallest accepted size/offset multiple (tried)
  uint32_t direct_mem_align = 0;      // smallest accepted buffer alignment (tried)
  uint32_t statx_io_align = 0, statx_mem_align = 0;  // what the kernel reports, 0 if not
  bool o_dsync = false;
  bool rwf_dsync = false;
  std::string rwf_dsync_note;
  bool fallocate = false;
  std::string fallocate_note;
  bool hard_links = false;
  std::string hard_links_note;
  bool io_uring = false;
  std::string io_uring_note;
  std::string error;                  // set if the directory could not be probed at all

  // Why a mode that needs O_DIRECT cannot run here ("" if it can).
  std::string direct_skip_reason() const;
  // Why a size cannot be written with O_DIRECT here ("" if it can).
  std::string direct_size_problem(uint64_t size) const;
};

ProbeResult probe(const std::string& dir);

std::string probe_table(const ProbeResult& p);
std::string probe_json(const ProbeResult& p);
// Rows under arm "probe": capabilities as 1/0 and sizes in bytes.
void add_probe_rows(kit::Results& results, const ProbeResult& p);

// statx(STATX_DIOALIGN); false where the kernel or filesystem does not say.
bool statx_dio_align(const std::string& path, uint32_t* mem_align, uint32_t* offset_align);

}  // namespace fenec::iobench
