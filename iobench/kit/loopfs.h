// A scratch ext4 file system on a loop device (journals-bench's JR-3 first,
// shared by every scenario that needs its own device): the machine's disk
// (vda) runs mq-deadline, which serves every best-effort request alike and
// must not be changed; a loop device has a queue, and so a scheduler, of its
// own. So: a sparse backing file, `losetup --direct-io=on --find --show`
// (direct I/O, so the loop's own page cache of the backing file does not
// soak up and reorder writes), mkfs.ext4, a mount, and bfq set on that loop
// device only.
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

namespace fenec::kit {

struct LoopFsOptions {
  std::string dir;                // backing file and mount point go here (created)
  uint64_t bytes = 1ull << 30;    // the backing file's size (sparse)
  std::string scheduler = "bfq";  // set on the loop device's queue; "" leaves the default
  // Tests: stop after this step as if it had failed ("losetup", "mkfs",
  // "mount", "scheduler"), so the clean-up of a half-built set-up is exercised.
  std::string fail_after;
};

class LoopFs {
 public:
  // nullptr and *why_not when it cannot be built here: not root, no
  // /dev/loop-control, losetup/mkfs.ext4 missing or failing, the scheduler
  // not offered. Whatever was set up before the failure is torn down first.
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

 private:
  LoopFs() = default;
  std::string img_, dev_, mnt_, scheduler_;
  bool mounted_ = false;
};

// Loop devices whose backing file is `path` (/sys/block/loop*/loop/backing_file).
int loop_devices_backed_by(const std::string& path);
// Whether /proc/mounts lists `mount_point`.
bool is_mounted(const std::string& mount_point);
// Why the JR-3 loop arms cannot run here, checked without building anything
// ("" if they may): not root, no /dev/loop-control.
std::string loop_unavailable_reason();

}  // namespace fenec::kit
