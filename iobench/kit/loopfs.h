// A scratch file system (ext4, xfs or btrfs) on a loop device, shared by
// every scenario that needs a device of its own: JR-3 a scheduler (the
// machine's disk runs mq-deadline, which must not be changed; a loop device
// has a queue, and so a scheduler, of its own), fs-bench one file system
// beside another on the same disk. So: a sparse backing file, `losetup
// --direct-io=on --find --show` (direct I/O, so the loop's own page cache of
// the backing file does not soak up and reorder writes), mkfs, a mount with
// the options asked for, and the scheduler set on that loop device only.
//
// LoopFs owns all of it (RAII): the destructor, and a failed Create, unmount,
// detach the loop device and delete the backing file and mount point, so a
// run that fails, or winds down on Ctrl-C (kit::stop_requested), leaves no
// loop device and no mount behind. A second Ctrl-C kills the process at once
// (iobench/kit/interrupt.h); that alone can leave them, and `losetup -a` shows them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fenec::kit {

struct LoopFsOptions {
  std::string dir;                // backing file and mount point go here (created)
  uint64_t bytes = 1ull << 30;    // the backing file's size (sparse)
  std::string fs_type = "ext4";   // ext4, xfs, btrfs: mkfs.<fs_type>, then mount -t <fs_type>
  // mkfs's options; empty: default_mkfs_options(fs_type).
  std::vector<std::string> mkfs_options;
  std::string mount_options;      // mount(2)'s data ("data=journal"); "" the defaults
  std::string scheduler = "bfq";  // set on the loop device's queue; "" leaves the default
  // Tests: stop after this step as if it had failed ("losetup", "mkfs",
  // "mount", "scheduler"), so the clean-up of a half-built set-up is exercised.
  std::string fail_after;
};

class LoopFs {
 public:
  // nullptr and *why_not when it cannot be built here: not root, no
  // /dev/loop-control, losetup/mkfs.ext4 missing or failing, the scheduler
  // not offered, a mount option refused. Whatever was set up before the
  // failure is torn down first.
  static std::unique_ptr<LoopFs> Create(const LoopFsOptions& o, std::string* why_not);
  ~LoopFs();
  LoopFs(const LoopFs&) = delete;
  LoopFs& operator=(const LoopFs&) = delete;

  // Unmounts, detaches, deletes. Idempotent; "" or what failed (the
  // destructor prints that on stderr).
  std::string Teardown();

  const std::string& mount_point() const { return mnt_; }
  const std::string& device() const { return dev_; }        // "/dev/loop3"
  std::string name() const;                                 // "loop3"
  const std::string& backing_file() const { return img_; }
  const std::string& scheduler() const { return scheduler_; }  // as read back from sysfs
  const std::string& fs_type() const { return fs_type_; }
  const std::string& mkfs_command() const { return mkfs_; }      // as run: "mkfs.xfs -q -f -K /dev/loop3"
  const std::string& mount_options() const { return mount_options_; }
  // The loop device's settings as sysfs reads them now: direct I/O, block
  // sizes, scheduler, backing file ("dio=1 logical_block=512 ...").
  std::string loop_settings() const;

 private:
  LoopFs() = default;
  std::string img_, dev_, mnt_, scheduler_, fs_type_, mkfs_, mount_options_;
  bool mounted_ = false;
};

// Loop devices whose backing file is `path` (/sys/block/loop*/loop/backing_file).
int loop_devices_backed_by(const std::string& path);
// Whether /proc/mounts lists `mount_point`.
bool is_mounted(const std::string& mount_point);
// Why no loop file system can be built here, checked without building
// anything ("" if one may): not root, no /dev/loop-control.
std::string loop_unavailable_reason();
// Why `fs_type` cannot be built here ("" if it may): the above, the kernel
// not listing it in /proc/filesystems, or mkfs.<fs_type> not installed.
std::string fs_unavailable_reason(const std::string& fs_type);
// mkfs's options when none are given: every block initialised now (no lazy
// init thread writing behind a measurement), no discard, no reserved blocks.
std::vector<std::string> default_mkfs_options(const std::string& fs_type);

}  // namespace fenec::kit
