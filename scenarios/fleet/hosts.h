// The fleet fleet-bench measures, built on this machine and torn down after:
// `fio --server`s on loopback addresses of their own (127.0.0.2, .3, ...),
// each host's folder on a file system the run makes for it:
//   healthy  ext4 on a loop device (kit::LoopFs: direct I/O to a sparse file)
//   slow     the same, every write to that loop device throttled to N a second
//            for its server's processes (a cgroup's blkio/io limit): a disk
//            that takes longer per write, honestly so
//   lying    tmpfs: durable writes that cost nothing and survive nothing
// One LocalFleet owns all of it (RAII): its destructor, and a failed Build,
// kill each server and all it started, remove the cgroup, unmount and detach,
// so a run that ends, fails or winds down on Ctrl-C (kit::stop_requested)
// leaves nothing behind. A second Ctrl-C kills the bench at once; then `losetup
// -a`, /proc/mounts and `pgrep -a fio` show what is left.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "iobench/kit/loopfs.h"
#include "iobench/src/fleet.h"

namespace fenec::scenarios::fleet {

enum class HostKind { kHealthy, kSlow, kLying };
const char* host_kind_name(HostKind k);

struct LocalHost {
  HostKind kind = HostKind::kHealthy;
  iobench::fleet::Host host;           // what iobench fleet is given
  std::string fs;                      // "ext4 on /dev/loop3", "tmpfs"
  std::unique_ptr<kit::LoopFs> loop;   // healthy and slow
  std::string tmpfs;                   // the lying host's mount point
  pid_t server = -1;                   // its fio server (a process group of its own)
};

struct FleetOptions {
  std::string dir;                     // scratch: a folder a host
  std::vector<HostKind> kinds;
  unsigned first_addr = 2;             // 127.0.0.<first_addr + i>
  unsigned port = 0;                   // 0: 8765 if free on every address, else a free one
  uint64_t loop_bytes = 2ull << 30;
  uint64_t tmpfs_bytes = 4ull << 30;
  unsigned slow_iops = 20;             // the slow host's writes a second
  std::string fio = "fio";
  // One tmpfs for every host's folder instead of a file system each: for
  // a fleet that measures the fan-out, not the disks.
  bool shared_tmpfs = false;
};

class LocalFleet {
 public:
  // nullptr and *why when it cannot be built here (not root, no loop
  // devices, no cgroup with a write limit, fio missing, no free port).
  static std::unique_ptr<LocalFleet> Build(const FleetOptions& o, std::string* why);
  ~LocalFleet();
  LocalFleet(const LocalFleet&) = delete;
  LocalFleet& operator=(const LocalFleet&) = delete;

  const std::vector<LocalHost>& hosts() const { return hosts_; }
  std::vector<iobench::fleet::Host> fleet_hosts() const;
  // The cgroup the slow host's server runs in, and the limit as written.
  const std::string& throttle() const { return throttle_; }
  // Kills the servers, removes the cgroup, unmounts, detaches. Idempotent;
  // "" or what failed.
  std::string Teardown();

 private:
  LocalFleet() = default;
  std::vector<LocalHost> hosts_;
  std::string cgroup_, throttle_, shared_mount_;
};

// Why the slow host cannot be throttled here ("" if it can): neither cgroup
// v1's blkio.throttle.write_iops_device nor v2's io.max is available.
std::string throttle_unavailable_reason();

}  // namespace fenec::scenarios::fleet
