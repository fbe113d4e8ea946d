// Metadata::collect: where a run happened, read from git, uname, mountinfo and sysfs.
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "iobench/kit/block_device.h"
#include "iobench/kit/results.h"

namespace fenec::kit {
namespace {

constexpr const char* kUnknown = "unknown";

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// stdout of a shell command; ok=false if it could not run or exited non-zero.
std::string run(const std::string& cmd, bool* ok) {
  *ok = false;
  std::FILE* p = popen((cmd + " 2>/dev/null").c_str(), "r");
  if (!p) return "";
  std::string out;
  std::array<char, 512> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  *ok = pclose(p) == 0;
  return out;
}

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return "";
  return trim(line);
}

std::string git_commit() {
  bool ok = false;
  std::string head = trim(run("git rev-parse --short HEAD", &ok));
  if (!ok || head.empty()) return kUnknown;
  const std::string status = run("git status --porcelain --untracked-files=no", &ok);
  if (ok && !trim(status).empty()) head += "-dirty";
  return head;
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape_mount(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      const std::string oct = s.substr(i + 1, 3);
      if (oct.find_first_not_of("01234567") == std::string::npos) {
        out += static_cast<char>(std::stoi(oct, nullptr, 8));
        i += 3;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

struct Mount {
  std::string point, fstype, source;
  unsigned major = 0, minor = 0;
};

// The mount holding `path`: the longest mount point that prefixes it (the last
// one listed wins a tie, as a later mount shadows an earlier one).
bool find_mount(const std::string& path, Mount* best) {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  bool found = false;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string id, parent, devno, root, point, opts, tok;
    if (!(ls >> id >> parent >> devno >> root >> point >> opts)) continue;
    while (ls >> tok && tok != "-") {
    }
    Mount m;
    if (!(ls >> m.fstype >> m.source)) continue;
    m.point = unescape_mount(point);
    m.source = unescape_mount(m.source);
    std::sscanf(devno.c_str(), "%u:%u", &m.major, &m.minor);
    const bool prefix =
        m.point == "/" || path == m.point ||
        (path.compare(0, m.point.size(), m.point) == 0 && path.size() > m.point.size() &&
         path[m.point.size()] == '/');
    if (prefix && (!found || m.point.size() >= best->point.size())) {
      *best = m;
      found = true;
    }
  }
  return found;
}

std::string statfs_name(const std::string& path) {
  struct statfs sf {};
  if (statfs(path.c_str(), &sf) != 0) return kUnknown;
  switch (static_cast<unsigned long>(sf.f_type)) {
    case 0xEF53: return "ext4";
    case 0x58465342: return "xfs";
    case 0x9123683E: return "btrfs";
    case 0x01021994: return "tmpfs";
    case 0x794C7630: return "overlay";
    case 0x2FC12FC1: return "zfs";
    case 0xF2F52010: return "f2fs";
    case 0x6969: return "nfs";
    default: return fmt::format("0x{:x}", static_cast<unsigned long>(sf.f_type));
  }
}

// The nearest existing ancestor: results are often collected before the scratch dir exists.
std::string existing_ancestor(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = fs::absolute(dir.empty() ? "." : dir, ec);
  while (!p.empty() && !fs::exists(p, ec)) {
    if (p == p.parent_path()) break;
    p = p.parent_path();
  }
  fs::path canon = fs::canonical(p, ec);
  return ec ? p.string() : canon.string();
}

void add_device(Metadata& m, const Mount& mount) {
  m.set("device", mount.source.empty() ? kUnknown : mount.source);
  std::string sys = disk_sysfs(mount.major, mount.minor);
  if (sys.empty() && mount.source.rfind("/dev/", 0) == 0) {
    struct stat st {};
    if (stat(mount.source.c_str(), &st) == 0 && S_ISBLK(st.st_mode))
      sys = disk_sysfs(major(st.st_rdev), minor(st.st_rdev));
  }
  std::string model = sys.empty() ? "" : read_line(sys + "/device/model");
  // virtio and device-mapper disks have no model; the driver or dm name still says what they are.
  if (model.empty() && !sys.empty()) model = read_line(sys + "/dm/name");
  if (model.empty() && !sys.empty()) {
    std::error_code ec;
    const auto drv = std::filesystem::read_symlink(sys + "/device/driver", ec);
    if (!ec) model = drv.filename().string();
  }
  m.set("device_model", model.empty() ? kUnknown : model);
  const std::string rot = sys.empty() ? "" : read_line(sys + "/queue/rotational");
  m.set("rotational", rot.empty() ? kUnknown : rot);
}

std::string mem_total() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  uint64_t kb = 0;
  while (in >> key >> kb >> unit) {
    if (key == "MemTotal:") return fmt::format("{} MiB", kb / 1024);
  }
  return kUnknown;
}

}  // namespace

std::string utc_now(const char* strftime_format) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  return std::strftime(buf, sizeof buf, strftime_format, &tm) ? buf : "";
}

Metadata Metadata::collect(const std::string& dir, bool quick) {
  Metadata m;
  m.set("commit", git_commit());
  char host[256] = {};
  m.set("host", gethostname(host, sizeof host - 1) == 0 ? host : kUnknown);
  struct utsname u {};
  m.set("kernel", uname(&u) == 0 ? u.release : kUnknown);
  const std::string path = existing_ancestor(dir);
  Mount mount;
  if (find_mount(path, &mount)) {
    m.set("filesystem", mount.fstype);
    add_device(m, mount);
  } else {
    m.set("filesystem", statfs_name(path));
    m.set("device", kUnknown);
    m.set("device_model", kUnknown);
    m.set("rotational", kUnknown);
  }
  m.set("date", utc_now("%Y-%m-%dT%H:%M:%SZ"));
  m.set("quick", quick ? "true" : "false");
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  m.set("cpus", cpus > 0 ? std::to_string(cpus) : kUnknown);
  m.set("mem", mem_total());
  return m;
}

}  // namespace fenec::kit
