#include "iobench/kit/loopfs.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>
#include <vector>

#include "iobench/kit/block_device.h"

extern char** environ;

namespace fenec::kit {
namespace {

namespace fs = std::filesystem;

// Runs argv[0] (found on PATH, /sbin included) and waits; returns "" on exit
// 0, else the command and its output's last line. *out gets stdout+stderr.
std::string run(const std::vector<std::string>& argv, std::string* out = nullptr) {
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) return fmt::format("pipe: {}", std::strerror(errno));
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDERR_FILENO);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // Debian keeps losetup and mkfs.ext4 in /usr/sbin, not on every user's PATH.
  std::string exe = argv[0];
  for (const char* d : {"/usr/sbin/", "/sbin/", "/usr/bin/"})
    if (access((d + argv[0]).c_str(), X_OK) == 0) {
      exe = d + argv[0];
      break;
    }
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, exe.c_str(), &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(pipefd[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(pipefd[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  close(pipefd[0]);
  if (rc != 0) return fmt::format("{}: {}", argv[0], std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (out) *out = text;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  const size_t nl = text.rfind('\n');
  return fmt::format("{} failed: {}", argv[0], nl == std::string::npos ? text : text.substr(nl + 1));
}

// What a loop device is backed by ("" if it is detached). The kernel
// appends " (deleted)" once the file is unlinked under it.
std::string backing_file_of(const std::string& name) {
  std::ifstream in(fs::path("/sys/block") / name / "loop" / "backing_file");
  std::string line;
  return std::getline(in, line) ? line : "";
}

bool backed_by(const std::string& backing, const std::string& canonical_path) {
  return !backing.empty() && backing.rfind(canonical_path, 0) == 0;
}

// The kernel defers a detach while anyone holds the device open (udev
// probes each new loop device), so losetup -d can return before it is
// gone. Another run may attach the freed device at once: gone means no
// longer backed by this image.
bool detached(const std::string& name, const std::string& img) {
  std::error_code ec;
  const std::string want = fs::weakly_canonical(img, ec).string();
  for (int i = 0; i < 250; ++i) {
    if (!backed_by(backing_file_of(name), want)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

}  // namespace

std::string loop_unavailable_reason() {
  if (geteuid() != 0) return "not root: losetup, mkfs and mount need root";
  if (access("/dev/loop-control", R_OK | W_OK) != 0) return "no /dev/loop-control (loop driver absent)";
  return "";
}

static bool on_path(const std::string& exe) {
  for (const char* d : {"/usr/sbin/", "/sbin/", "/usr/bin/", "/bin/"})
    if (access((d + exe).c_str(), X_OK) == 0) return true;
  return false;
}

std::string fs_unavailable_reason(const std::string& fs_type) {
  if (std::string why = loop_unavailable_reason(); !why.empty()) return why;
  if (fs_type != "ext4" && fs_type != "xfs" && fs_type != "btrfs")
    return fmt::format("{}: not a file system LoopFs builds (ext4, xfs, btrfs)", fs_type);
  bool listed = false;
  std::ifstream in("/proc/filesystems");
  for (std::string line; std::getline(in, line);)
    if (line.size() >= fs_type.size() && line.substr(line.size() - fs_type.size()) == fs_type &&
        (line.size() == fs_type.size() || line[line.size() - fs_type.size() - 1] == '\t'))
      listed = true;
  if (!listed)
    return fmt::format("the kernel has no {} (not in /proc/filesystems)", fs_type);
  if (!on_path("mkfs." + fs_type))
    return fmt::format("mkfs.{} not installed ({})", fs_type,
                       fs_type == "ext4" ? "e2fsprogs" : fs_type == "xfs" ? "xfsprogs" : "btrfs-progs");
  return "";
}

std::vector<std::string> default_mkfs_options(const std::string& fs_type) {
  if (fs_type == "ext4") return {"-q", "-F", "-m", "0", "-E", "lazy_itable_init=0,lazy_journal_init=0,nodiscard"};
  if (fs_type == "xfs") return {"-q", "-f", "-K"};
  if (fs_type == "btrfs") return {"-q", "-f", "-K"};
  return {};
}

std::unique_ptr<LoopFs> LoopFs::Create(const LoopFsOptions& o, std::string* why_not) {
  *why_not = fs_unavailable_reason(o.fs_type);
  if (!why_not->empty()) return nullptr;
  std::unique_ptr<LoopFs> l(new LoopFs);
  // From here on every return of nullptr destroys l, which tears down what was built.
  auto fail = [&](std::string why) {
    *why_not = std::move(why);
    if (std::string t = l->Teardown(); !t.empty()) *why_not += "; clean-up: " + t;
    return nullptr;
  };
  std::error_code ec;
  fs::create_directories(o.dir, ec);
  if (ec) return fail(fmt::format("mkdir {}: {}", o.dir, ec.message()));
  l->img_ = o.dir + "/loop.img";
  {
    const int fd = ::open(l->img_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return fail(fmt::format("create {}: {}", l->img_, std::strerror(errno)));
    const int rc = ftruncate(fd, static_cast<off_t>(o.bytes));  // sparse: blocks only where written
    const int err = errno;
    close(fd);
    if (rc != 0) return fail(fmt::format("ftruncate {}: {}", l->img_, std::strerror(err)));
  }
  std::string dev;
  if (std::string e = run({"losetup", "--direct-io=on", "--find", "--show", l->img_}, &dev); !e.empty())
    return fail(e);
  l->dev_ = dev;
  if (l->dev_.rfind("/dev/loop", 0) != 0) return fail("losetup printed no device: " + dev);
  if (o.fail_after == "losetup") return fail("simulated failure after losetup");
  l->fs_type_ = o.fs_type;
  l->mount_options_ = o.mount_options;
  std::vector<std::string> mkfs{"mkfs." + o.fs_type};
  for (const std::string& a : o.mkfs_options.empty() ? default_mkfs_options(o.fs_type) : o.mkfs_options)
    mkfs.push_back(a);
  mkfs.push_back(l->dev_);
  for (const std::string& a : mkfs) l->mkfs_ += (l->mkfs_.empty() ? "" : " ") + a;
  if (std::string e = run(mkfs); !e.empty()) return fail(e);
  if (o.fail_after == "mkfs") return fail("simulated failure after mkfs");
  l->mnt_ = o.dir + "/mnt";
  fs::create_directories(l->mnt_, ec);
  if (ec) return fail(fmt::format("mkdir {}: {}", l->mnt_, ec.message()));
  if (::mount(l->dev_.c_str(), l->mnt_.c_str(), o.fs_type.c_str(), 0,
              o.mount_options.empty() ? nullptr : o.mount_options.c_str()) != 0)
    return fail(fmt::format("mount -t {} -o '{}' {} on {}: {}", o.fs_type, o.mount_options, l->dev_, l->mnt_,
                            std::strerror(errno)));
  l->mounted_ = true;
  if (o.fail_after == "mount") return fail("simulated failure after mount");
  const std::string name = l->name();
  if (!o.scheduler.empty()) {
    const kit::BlockSchedulers offered = kit::read_block_schedulers(name);
    if (!offered.offers(o.scheduler))
      return fail(fmt::format("{} does not offer {} (offers: {})", name, o.scheduler, offered.joined()));
    std::ofstream sched("/sys/block/" + name + "/queue/scheduler");
    sched << o.scheduler << std::flush;
    if (!sched) return fail(fmt::format("cannot set {} on {}", o.scheduler, name));
  }
  l->scheduler_ = kit::read_block_schedulers(name).active;
  if (!o.scheduler.empty() && l->scheduler_ != o.scheduler)
    return fail(fmt::format("{} kept scheduler {} after writing {}", name, l->scheduler_, o.scheduler));
  if (o.fail_after == "scheduler") return fail("simulated failure after setting the scheduler");
  return l;
}

std::string LoopFs::loop_settings() const {
  const std::string n = name();
  auto read = [&](const std::string& rel) {
    std::ifstream in("/sys/block/" + n + "/" + rel);
    std::string v;
    std::getline(in, v);
    return v.empty() ? std::string("unknown") : v;
  };
  return fmt::format("{} dio={} logical_block={} physical_block={} scheduler={} backing={} sectors={}", dev_,
                     read("loop/dio"), read("queue/logical_block_size"), read("queue/physical_block_size"),
                     kit::read_block_schedulers(n).active, img_, read("size"));
}

std::string LoopFs::name() const { return dev_.empty() ? "" : fs::path(dev_).filename().string(); }

std::string LoopFs::Teardown() {
  std::string err;
  auto note = [&err](const std::string& e) { err += (err.empty() ? "" : "; ") + e; };
  if (mounted_) {
    // EBUSY a moment after the last file closed is possible (a lazy
    // iput); retry briefly, then detach lazily so the loop can still go.
    int rc = -1;
    for (int i = 0; i < 50 && (rc = ::umount2(mnt_.c_str(), 0)) != 0 && errno == EBUSY; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (rc != 0) {
      note(fmt::format("umount {}: {}", mnt_, std::strerror(errno)));
      if (::umount2(mnt_.c_str(), MNT_DETACH) != 0) note(fmt::format("lazy umount: {}", std::strerror(errno)));
    }
    mounted_ = false;
  }
  if (!dev_.empty()) {
    if (std::string e = run({"losetup", "-d", dev_}); !e.empty()) {
      note(e);
    } else if (!detached(name(), img_)) {
      note(fmt::format("{} still attached: held open elsewhere (udev's probe?); the kernel detaches it at the "
                       "last close",
                       dev_));
    }
    dev_.clear();
  }
  std::error_code ec;
  if (!mnt_.empty()) {
    fs::remove(mnt_, ec);  // empty once unmounted; never remove_all a mount point
    mnt_.clear();
  }
  if (!img_.empty()) {
    fs::remove(img_, ec);
    if (ec) note(fmt::format("rm {}: {}", img_, ec.message()));
    img_.clear();
  }
  return err;
}

LoopFs::~LoopFs() {
  if (std::string e = Teardown(); !e.empty()) std::cerr << "loopfs: clean-up: " << e << "\n";
}

int loop_devices_backed_by(const std::string& path) {
  int n = 0;
  std::error_code ec;
  const std::string want = fs::weakly_canonical(path, ec).string();
  for (const auto& e : fs::directory_iterator("/sys/block", ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("loop", 0) == 0 && backed_by(backing_file_of(name), want)) ++n;
  }
  return n;
}

bool is_mounted(const std::string& mount_point) {
  std::error_code ec;
  const std::string want = fs::weakly_canonical(mount_point, ec).string();
  std::ifstream in("/proc/mounts");
  std::string src, point, rest;
  while (in >> src >> point && std::getline(in, rest))
    if (point == want || point == mount_point) return true;
  return false;
}

}  // namespace fenec::kit
