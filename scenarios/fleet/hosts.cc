#include "scenarios/fleet/hosts.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "iobench/kit/proc.h"

extern char** environ;

namespace fenec::scenarios::fleet {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kBlkioV1 = "/sys/fs/cgroup/blkio";

sockaddr_in loopback(const std::string& addr, unsigned port) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, addr.c_str(), &sa.sin_addr);
  return sa;
}

// Whether `port` can be bound on addr now; with port 0, the one the kernel picked.
unsigned bindable(const std::string& addr, unsigned port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in sa = loopback(addr, port);
  socklen_t len = sizeof sa;
  unsigned got = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) == 0)
    got = ntohs(sa.sin_port);
  close(fd);
  return got;
}

bool accepts(const std::string& addr, unsigned port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in sa = loopback(addr, port);
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0;
  close(fd);
  return ok;
}

std::string write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text << std::flush;
  return out ? "" : fmt::format("write '{}' to {}: {}", text, path, std::strerror(errno));
}

// cgroup v2's mount, if the io controller can be enabled below it.
std::string cgroup2_root() {
  for (const char* root : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
    std::ifstream in(std::string(root) + "/cgroup.controllers");
    std::string word;
    while (in >> word)
      if (word == "io") return root;
  }
  return "";
}

pid_t spawn_server(const std::string& fio, const std::string& addr, unsigned port, const std::string& cwd,
                   const std::string& log, std::string* why) {
  const std::string arg = fmt::format("--server=ip:{},{}", addr, port);
  char* argv[] = {const_cast<char*>(fio.c_str()), const_cast<char*>(arg.c_str()), nullptr};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // A group of its own: a Ctrl-C at the terminal reaches the bench, which
  // tears the servers down itself, and the group takes the server's children.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, fio.c_str(), &fa, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return *why = fmt::format("{} --server: {}", fio, std::strerror(rc)), -1;
  return pid;
}

}  // namespace

const char* host_kind_name(HostKind k) {
  switch (k) {
    case HostKind::kHealthy: return "healthy";
    case HostKind::kSlow: return "slow";
    case HostKind::kLying: return "lying";
  }
  return "?";
}

std::string throttle_unavailable_reason() {
  if (geteuid() != 0) return "not root: a cgroup's write limit needs root";
  if (access((std::string(kBlkioV1) + "/blkio.throttle.write_iops_device").c_str(), W_OK) == 0) return "";
  if (!cgroup2_root().empty()) return "";
  return "no cgroup v1 blkio.throttle.write_iops_device and no cgroup v2 io controller";
}

std::vector<iobench::fleet::Host> LocalFleet::fleet_hosts() const {
  std::vector<iobench::fleet::Host> out;
  for (const LocalHost& h : hosts_) out.push_back(h.host);
  return out;
}

std::unique_ptr<LocalFleet> LocalFleet::Build(const FleetOptions& o, std::string* why) {
  std::unique_ptr<LocalFleet> f(new LocalFleet);
  auto fail = [&](std::string w) {
    *why = std::move(w);
    if (std::string t = f->Teardown(); !t.empty()) *why += "; clean-up: " + t;
    return nullptr;
  };
  if (geteuid() != 0) return fail("not root: loop devices, mounts and cgroups need root");
  std::vector<std::string> addrs;
  for (size_t i = 0; i < o.kinds.size(); ++i) addrs.push_back(fmt::format("127.0.0.{}", o.first_addr + i));
  unsigned port = o.port ? o.port : iobench::fleet::kFioPort;
  auto free_everywhere = [&](unsigned p) {
    for (const std::string& a : addrs)
      if (bindable(a, p) != p) return false;
    return true;
  };
  for (int tries = 0; !free_everywhere(port); ++tries) {
    if (o.port || tries == 20) return fail(fmt::format("port {} is taken on one of 127.0.0.{}..", port, o.first_addr));
    port = bindable(addrs[0], 0);
  }
  std::error_code ec;
  // Absolute: each server runs in its own folder, and a job's directory is read from there.
  const std::string root = fs::absolute(o.dir, ec).lexically_normal().string();
  if (o.shared_tmpfs) {
    f->shared_mount_ = root + "/shared";
    fs::create_directories(f->shared_mount_, ec);
    if (::mount("fenec-fleet", f->shared_mount_.c_str(), "tmpfs", 0,
                fmt::format("size={},mode=0755", o.tmpfs_bytes).c_str()) != 0) {
      const std::string e = std::strerror(errno);
      f->shared_mount_.clear();
      return fail("mount tmpfs: " + e);
    }
  }
  for (size_t i = 0; i < o.kinds.size(); ++i) {
    LocalHost& h = f->hosts_.emplace_back();
    h.kind = o.kinds[i];
    h.host.addr = addrs[i];
    h.host.port = port;
    const std::string dir = fmt::format("{}/h{}", root, i + 1);
    fs::create_directories(dir, ec);
    if (o.shared_tmpfs) {
      h.host.dir = fmt::format("{}/h{}", f->shared_mount_, i + 1);
      fs::create_directories(h.host.dir, ec);
      h.fs = "tmpfs (shared)";
    } else if (h.kind == HostKind::kLying) {
      h.tmpfs = dir + "/mnt";
      fs::create_directories(h.tmpfs, ec);
      if (::mount("fenec-fleet", h.tmpfs.c_str(), "tmpfs", 0, fmt::format("size={},mode=0755", o.tmpfs_bytes).c_str()) !=
          0) {
        const std::string e = std::strerror(errno);
        h.tmpfs.clear();
        return fail(fmt::format("mount tmpfs on {}: {}", dir, e));
      }
      h.host.dir = h.tmpfs;
      h.fs = "tmpfs";
    } else {
      kit::LoopFsOptions lo;
      lo.dir = dir;
      lo.bytes = o.loop_bytes;
      lo.scheduler = "";  // the loop device's own default: the fleet compares disks, not schedulers
      std::string w;
      h.loop = kit::LoopFs::Create(lo, &w);
      if (!h.loop) return fail(fmt::format("host {}: {}", addrs[i], w));
      h.host.dir = h.loop->mount_point();
      h.fs = "ext4 on " + h.loop->device();
    }
    if (h.kind == HostKind::kSlow) {
      if (std::string w = throttle_unavailable_reason(); !w.empty()) return fail(w);
      struct stat st {};
      if (::stat(h.loop->device().c_str(), &st) != 0) return fail("stat " + h.loop->device());
      const std::string devno = fmt::format("{}:{}", major(st.st_rdev), minor(st.st_rdev));
      const std::string v2 = cgroup2_root();
      const bool v1 = access((std::string(kBlkioV1) + "/blkio.throttle.write_iops_device").c_str(), W_OK) == 0;
      f->cgroup_ = fmt::format("{}/fenec-fleet-{}", v1 ? kBlkioV1 : v2.c_str(), getpid());
      fs::create_directories(f->cgroup_, ec);
      if (ec) return fail(fmt::format("mkdir {}: {}", f->cgroup_, ec.message()));
      if (!v1)
        if (std::string e = write_text(v2 + "/cgroup.subtree_control", "+io"); !e.empty()) return fail(e);
      const std::string file = f->cgroup_ + (v1 ? "/blkio.throttle.write_iops_device" : "/io.max");
      const std::string limit = v1 ? fmt::format("{} {}", devno, o.slow_iops) : fmt::format("{} wiops={}", devno, o.slow_iops);
      if (std::string e = write_text(file, limit); !e.empty()) return fail(e);
      f->throttle_ = fmt::format("{} = {} ({})", file, limit, v1 ? "cgroup v1" : "cgroup v2");
      h.fs += fmt::format(", writes throttled to {}/s", o.slow_iops);
    }
    std::string w;
    h.server = spawn_server(o.fio, h.host.addr, port, h.host.dir, dir + "/server.log", &w);
    if (h.server < 0) return fail(w);
    // In the cgroup before a client connects: the jobs it forks inherit it.
    if (h.kind == HostKind::kSlow)
      if (std::string e = write_text(f->cgroup_ + "/cgroup.procs", std::to_string(h.server)); !e.empty()) return fail(e);
  }
  for (const LocalHost& h : f->hosts_) {
    bool up = false;
    for (int i = 0; i < 200 && !(up = accepts(h.host.addr, port)); ++i) std::this_thread::sleep_for(50ms);
    if (!up) return fail(fmt::format("fio --server on {} did not accept within 10 s", h.host.label()));
  }
  return f;
}

std::string LocalFleet::Teardown() {
  std::string err;
  auto note = [&err](const std::string& e) { err += (err.empty() ? "" : "; ") + e; };
  for (LocalHost& h : hosts_) {
    if (h.server > 0) {
      // With its jobs: they run in sessions of their own and would keep the
      // host's file system busy (no unmount) and its cgroup populated.
      kit::kill_process_tree(h.server);
      waitpid(h.server, nullptr, 0);
      h.server = -1;
    }
  }
  if (!cgroup_.empty()) {
    // Empty once its processes are gone; the kernel may take a moment to notice.
    int rc = -1;
    for (int i = 0; i < 100 && (rc = ::rmdir(cgroup_.c_str())) != 0 && errno == EBUSY; ++i)
      std::this_thread::sleep_for(20ms);
    if (rc != 0 && errno != ENOENT) note(fmt::format("rmdir {}: {}", cgroup_, std::strerror(errno)));
    cgroup_.clear();
  }
  for (LocalHost& h : hosts_) {
    if (!h.tmpfs.empty()) {
      if (::umount2(h.tmpfs.c_str(), 0) != 0 && ::umount2(h.tmpfs.c_str(), MNT_DETACH) != 0)
        note(fmt::format("umount {}: {}", h.tmpfs, std::strerror(errno)));
      h.tmpfs.clear();
    }
    if (h.loop)
      if (std::string e = h.loop->Teardown(); !e.empty()) note(e);
    h.loop.reset();
  }
  if (!shared_mount_.empty()) {
    if (::umount2(shared_mount_.c_str(), 0) != 0 && ::umount2(shared_mount_.c_str(), MNT_DETACH) != 0)
      note(fmt::format("umount {}: {}", shared_mount_, std::strerror(errno)));
    shared_mount_.clear();
  }
  return err;
}

LocalFleet::~LocalFleet() {
  if (std::string e = Teardown(); !e.empty()) std::cerr << "fleet-bench: clean-up: " << e << "\n";
}

}  // namespace fenec::scenarios::fleet
