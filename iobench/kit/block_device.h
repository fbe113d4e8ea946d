// What sysfs says about the block device below a path: the whole disk's
// sysfs folder, and its I/O schedulers as queue/scheduler lists them
// ("none [mq-deadline] kyber bfq": the bracketed one is active). Shared by
// the run metadata, `iobench probe` (which reports the schedulers) and
// journals-bench's JR-3 part (which needs bfq on its loop device and checks
// that it took).
#pragma once

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fenec::kit {

// Whole-disk sysfs folder for a block device number (a partition's parent
// holds model/ and queue/), or "" if sysfs has none.
inline std::string disk_sysfs(unsigned major, unsigned minor) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = fs::canonical(fmt::format("/sys/dev/block/{}:{}", major, minor), ec);
  if (ec) return "";
  if (fs::exists(p / "partition", ec)) p = p.parent_path();
  return p.string();
}

// The whole disk the file system holding `path` sits on ("vda", "loop3"),
// or "" (tmpfs and other device-less file systems).
inline std::string disk_of_path(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || major(st.st_dev) == 0) return "";
  const std::string sys = disk_sysfs(major(st.st_dev), minor(st.st_dev));
  return sys.empty() ? "" : std::filesystem::path(sys).filename().string();
}

struct BlockSchedulers {
  std::vector<std::string> offered;  // every scheduler the kernel offers this queue, in sysfs order
  std::string active;                // the bracketed one; "" if none could be read
  bool offers(const std::string& name) const {
    for (const std::string& s : offered)
      if (s == name) return true;
    return false;
  }
  std::string joined() const {  // "none,mq-deadline,kyber,bfq"
    std::string out;
    for (const std::string& s : offered) out += (out.empty() ? "" : ",") + s;
    return out;
  }
};

inline BlockSchedulers parse_block_schedulers(const std::string& line) {
  BlockSchedulers b;
  std::istringstream in(line);
  std::string tok;
  while (in >> tok) {
    if (tok.size() > 2 && tok.front() == '[' && tok.back() == ']') {
      tok = tok.substr(1, tok.size() - 2);
      b.active = tok;
    }
    b.offered.push_back(tok);
  }
  return b;
}

// Reads /sys/block/<device>/queue/scheduler (device as "vda", "loop3").
// Empty when the file is missing (no device, a partition, a stacked device).
inline BlockSchedulers read_block_schedulers(const std::string& device) {
  std::ifstream in("/sys/block/" + device + "/queue/scheduler");
  std::string line;
  std::getline(in, line);
  return parse_block_schedulers(line);
}

}  // namespace fenec::kit
