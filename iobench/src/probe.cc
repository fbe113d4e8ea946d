#include "iobench/src/probe.h"
#include "engine/src/base/json.h"

#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <liburing.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include "iobench/kit/block_device.h"
#include "iobench/kit/console.h"
#include "iobench/kit/results.h"
#include "iobench/src/files.h"
#include "iobench/src/io_error.h"

namespace fenec::iobench {
namespace {

namespace fs = std::filesystem;

constexpr size_t kProbeBytes = 64 * 1024;
constexpr long kTmpfsMagic = 0x01021994;
constexpr long kRamfsMagic = 0x858458f6;

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\n')) line.pop_back();
  return line;
}

std::string unescape_mount(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      int v = 0;
      if (std::sscanf(s.c_str() + i + 1, "%3o", &v) == 1) {
        out.push_back(static_cast<char>(v));
        i += 3;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

// The mount holding `dir`: the longest mount point that prefixes its real path.
void read_mount(const std::string& real, ProbeResult* p) {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  size_t best = 0;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string id, parent, majmin, root, point, opts, tok;
    ls >> id >> parent >> majmin >> root >> point >> opts;
    while (ls >> tok && tok != "-") {
    }
    std::string type, source, super;
    ls >> type >> source >> super;
    point = unescape_mount(point);
    bool prefix = real == point || point == "/" ||
                  (real.compare(0, point.size(), point) == 0 && real.size() > point.size() &&
                   real[point.size()] == '/');
    if (prefix && point.size() >= best) {
      best = point.size();
      p->mount_point = point;
      p->fs_type = type;
      p->mount_source = source;
      p->mount_options = opts + (super.empty() ? "" : "," + super);
    }
  }
}

void read_device(const std::string& dir, ProbeResult* p) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || major(st.st_dev) == 0) return;
  std::error_code ec;
  // A partition's queue settings are its disk's, one level up.
  const fs::path sys = kit::disk_sysfs(major(st.st_dev), minor(st.st_dev));
  if (sys.empty()) return;
  p->device = sys.filename().string();
  fs::path q = sys / "queue";
  std::string rot = read_line(q / "rotational");
  if (!rot.empty()) p->rotational = rot == "1" ? 1 : 0;
  std::string wc = read_line(q / "write_cache");
  if (!wc.empty()) p->write_cache = wc;
  p->logical_block = static_cast<uint32_t>(std::atoi(read_line(q / "logical_block_size").c_str()));
  p->physical_block = static_cast<uint32_t>(std::atoi(read_line(q / "physical_block_size").c_str()));
  const kit::BlockSchedulers sched = kit::read_block_schedulers(p->device);
  p->schedulers = sched.offered;
  if (!sched.active.empty()) p->scheduler = sched.active;
  std::string model = read_line(sys / "device" / "model");
  if (model.empty() && fs::exists(sys / "device" / "driver", ec))
    model = fs::canonical(sys / "device" / "driver", ec).filename().string();
  if (!model.empty()) p->model = model;
}

// One O_DIRECT write; 0 on success, else errno (EINVAL = misaligned).
int direct_write(int fd, const uint8_t* buf, size_t len, uint64_t off) {
  while (true) {
    ssize_t n = ::pwrite(fd, buf, len, static_cast<off_t>(off));
    if (n == static_cast<ssize_t>(len)) return 0;
    if (n < 0 && errno == EINTR) continue;
    return n < 0 ? errno : EIO;
  }
}

void probe_direct(const std::string& file, ProbeResult* p) {
  Fd fd;
  IoError e = open_file(file, O_RDWR | O_DIRECT, &fd);
  if (!e.ok()) {
    p->o_direct_note = e.message;
    return;
  }
  AlignedBuffer buf(kProbeBytes + 8192, 8192);
  buf.fill_random(7);
  int last = 0;
  for (uint32_t a : {1u, 512u, 1024u, 2048u, 4096u, 8192u, 16384u, 32768u}) {
    last = direct_write(fd.get(), buf.data(), a, a);
    if (last == 0) {
      p->direct_io_align = a;
      break;
    }
    if (last != EINVAL) break;
  }
  if (p->direct_io_align == 0) {
    p->o_direct_note = fmt::format("open with O_DIRECT succeeded but no aligned write did: {}",
                                   std::strerror(last));
    return;
  }
  size_t len = std::max<size_t>(p->direct_io_align, 4096);
  for (uint32_t m = 1; m <= 4096; m *= 2) {
    // buf is 8192-aligned, so buf + m is aligned to exactly m bytes.
    last = direct_write(fd.get(), buf.data() + m, len, 0);
    if (last == 0) {
      p->direct_mem_align = m;
      break;
    }
    if (last != EINVAL) break;
  }
  p->o_direct = p->direct_mem_align != 0;
  p->o_direct_note = p->o_direct ? "trial writes at each alignment"
                                 : fmt::format("no buffer alignment accepted: {}", std::strerror(last));
}

void probe_sync_flags(const std::string& file, ProbeResult* p) {
  uint8_t page[4096];
  std::memset(page, 0x5a, sizeof page);
  Fd fd;
  if (open_file(file, O_WRONLY | O_DSYNC, &fd).ok()) {
    uint64_t calls = 0;
    p->o_dsync = pwrite_full(fd.get(), page, sizeof page, 0, file, &calls).ok();
  }
  Fd plain;
  IoError e = open_file(file, O_WRONLY, &plain);
  if (!e.ok()) {
    p->rwf_dsync_note = e.message;
    return;
  }
  iovec iov{page, sizeof page};
  ssize_t n;
  do {
    n = ::pwritev2(plain.get(), &iov, 1, 0, RWF_DSYNC);
  } while (n < 0 && errno == EINTR);
  p->rwf_dsync = n == static_cast<ssize_t>(sizeof page);
  p->rwf_dsync_note = p->rwf_dsync ? "pwritev2(RWF_DSYNC) wrote" : fmt::format("pwritev2(RWF_DSYNC): {}", std::strerror(errno));
}

void probe_fallocate(const std::string& dir, ProbeResult* p) {
  std::string file = fmt::format("{}/.iobench-probe-falloc-{}", dir, ::getpid());
  ScratchFile guard(file);
  Fd fd;
  IoError e = open_file(file, O_RDWR | O_CREAT | O_TRUNC, &fd);
  if (!e.ok()) {
    p->fallocate_note = e.message;
    return;
  }
  int r;
  do {
    r = ::fallocate(fd.get(), 0, 0, 1 << 20);
  } while (r != 0 && errno == EINTR);
  p->fallocate = r == 0;
  p->fallocate_note = r == 0 ? "fallocate(1 MiB) succeeded" : fmt::format("fallocate: {}", std::strerror(errno));
}

void probe_link(const std::string& file, ProbeResult* p) {
  std::string link = file + ".link";
  int r = ::link(file.c_str(), link.c_str());
  p->hard_links = r == 0;
  p->hard_links_note = r == 0 ? "link(2) succeeded: fenecdb can share journals (JR-1)"
                              : fmt::format("link: {}: fenecdb falls back to separate journals", std::strerror(errno));
  if (r == 0) ::unlink(link.c_str());
}

void probe_uring(const std::string& file, ProbeResult* p) {
  io_uring ring;
  int r = io_uring_queue_init(2, &ring, 0);
  if (r < 0) {
    p->io_uring_note = fmt::format("io_uring_queue_init: {}", std::strerror(-r));
    return;
  }
  Fd fd;
  IoError e = open_file(file, O_WRONLY, &fd);
  if (!e.ok()) {
    p->io_uring_note = e.message;
    io_uring_queue_exit(&ring);
    return;
  }
  uint8_t page[4096];
  std::memset(page, 0x33, sizeof page);
  io_uring_sqe* sqe = io_uring_get_sqe(&ring);
  io_uring_prep_write(sqe, fd.get(), page, sizeof page, 4096);
  r = io_uring_submit_and_wait(&ring, 1);
  io_uring_cqe* cqe = nullptr;
  if (r >= 0 && io_uring_peek_cqe(&ring, &cqe) == 0 && cqe) {
    p->io_uring = cqe->res == static_cast<int>(sizeof page);
    p->io_uring_note = p->io_uring ? "a 4 KiB write through the ring completed"
                                   : fmt::format("ring write: {}", std::strerror(-cqe->res));
    io_uring_cqe_seen(&ring, cqe);
  } else {
    p->io_uring_note = fmt::format("io_uring_submit_and_wait: {}", std::strerror(-r));
  }
  io_uring_queue_exit(&ring);
}

std::string yes_no(bool b) { return b ? "yes" : "no"; }

}  // namespace

std::string ProbeResult::direct_skip_reason() const {
  if (memory_backed)
    return fmt::format("{} is on {} (memory-backed): O_DIRECT may be accepted but there is no device "
                       "below it, so a direct or durable figure would be meaningless",
                       dir, fs_type);
  if (!o_direct) return fmt::format("O_DIRECT is not supported on {} at {}: {}", fs_type, dir, o_direct_note);
  return "";
}

std::string ProbeResult::direct_size_problem(uint64_t size) const {
  if (direct_io_align > 1 && size % direct_io_align != 0)
    return fmt::format("size {} is not a multiple of {} bytes, the O_DIRECT alignment {} ({}) requires "
                       "(found by trial writes)",
                       size, direct_io_align, dir, fs_type);
  return "";
}

ProbeResult probe(const std::string& dir) {
  ProbeResult p;
  p.dir = dir;
  std::error_code ec;
  std::string real = fs::canonical(dir, ec).string();
  if (ec) {
    p.error = fmt::format("cannot probe {}: {}", dir, ec.message());
    return p;
  }
  struct statfs sf {};
  if (::statfs(real.c_str(), &sf) == 0) {
    p.fs_magic = fmt::format("0x{:x}", static_cast<unsigned long>(sf.f_type));
    p.memory_backed = sf.f_type == kTmpfsMagic || static_cast<unsigned long>(sf.f_type) == kRamfsMagic;
  }
  read_mount(real, &p);
  if (p.fs_type == "tmpfs" || p.fs_type == "ramfs") p.memory_backed = true;
  read_device(real, &p);

  std::string file = fmt::format("{}/.iobench-probe-{}", real, ::getpid());
  ScratchFile guard(file);
  bool fell_back = false;
  IoError e = create_preallocated(file, kProbeBytes, &fell_back);
  if (e.ok()) e = fill_file(file, kProbeBytes, 1);
  if (!e.ok()) {
    p.error = fmt::format("cannot write a probe file in {}: {}", dir, e.message);
    return p;
  }
  probe_direct(file, &p);
  statx_dio_align(file, &p.statx_mem_align, &p.statx_io_align);
  probe_sync_flags(file, &p);
  probe_fallocate(real, &p);
  probe_link(file, &p);
  probe_uring(file, &p);
  return p;
}

std::string probe_table(const ProbeResult& p) {
  kit::Table t({"property", "value", "how found"});
  t.row({"directory", p.dir, ""});
  t.row({"filesystem", p.fs_type, fmt::format("mountinfo, statfs magic {}", p.fs_magic)});
  t.row({"mount", fmt::format("{} on {}", p.mount_source, p.mount_point), p.mount_options});
  t.row({"memory-backed", yes_no(p.memory_backed), "tmpfs/ramfs persist nothing"});
  t.row({"device", p.device, p.model});
  t.row({"rotational", p.rotational < 0 ? "unknown" : yes_no(p.rotational == 1), "queue/rotational"});
  std::string offered;
  for (const std::string& s : p.schedulers) offered += (offered.empty() ? "" : " ") + s;
  t.row({"I/O scheduler", p.scheduler, offered.empty() ? "queue/scheduler unreadable" : "offered: " + offered});
  t.row({"write cache", p.write_cache, "queue/write_cache (\"write back\" = volatile, needs flushes)"});
  t.row({"logical block", p.logical_block ? fmt::format("{}", p.logical_block) : "unknown",
         fmt::format("physical {}", p.physical_block)});
  t.row({"O_DIRECT", yes_no(p.o_direct), p.o_direct_note});
  t.row({"O_DIRECT size/offset align", p.direct_io_align ? fmt::format("{}", p.direct_io_align) : "-",
         p.statx_io_align ? fmt::format("tried; statx says {}", p.statx_io_align) : "tried"});
  t.row({"O_DIRECT buffer align", p.direct_mem_align ? fmt::format("{}", p.direct_mem_align) : "-",
         p.statx_mem_align ? fmt::format("tried; statx says {}", p.statx_mem_align) : "tried"});
  t.row({"O_DSYNC", yes_no(p.o_dsync), "open + write"});
  t.row({"RWF_DSYNC", yes_no(p.rwf_dsync), p.rwf_dsync_note});
  t.row({"fallocate", yes_no(p.fallocate), p.fallocate_note});
  t.row({"hard links", yes_no(p.hard_links), p.hard_links_note});
  t.row({"io_uring", yes_no(p.io_uring), p.io_uring_note});
  std::string out = t.str();
  if (!p.error.empty()) out += fmt::format("error: {}\n", p.error);
  return out;
}

std::string probe_json(const ProbeResult& p) {
  auto s = [](const std::string& v) { return fmt::format("\"{}\"", base::JsonEscape(v)); };
  auto b = [](bool v) { return v ? "true" : "false"; };
  std::string offered_json = "[";
  for (const std::string& v : p.schedulers) offered_json += (offered_json.size() > 1 ? "," : "") + s(v);
  offered_json += "]";
  return fmt::format(
      "{{\"dir\":{},\"fs_type\":{},\"fs_magic\":{},\"mount_point\":{},\"mount_source\":{},"
      "\"memory_backed\":{},\"device\":{},\"model\":{},\"rotational\":{},\"write_cache\":{},"
      "\"scheduler\":{},\"schedulers\":{},\"logical_block\":{},\"physical_block\":{},\"o_direct\":{},"
      "\"o_direct_note\":{},"
      "\"direct_io_align\":{},\"direct_mem_align\":{},\"statx_io_align\":{},\"statx_mem_align\":{},"
      "\"o_dsync\":{},\"rwf_dsync\":{},\"fallocate\":{},\"hard_links\":{},\"io_uring\":{},"
      "\"io_uring_note\":{},\"error\":{}}}",
      s(p.dir), s(p.fs_type), s(p.fs_magic), s(p.mount_point), s(p.mount_source), b(p.memory_backed),
      s(p.device), s(p.model), p.rotational, s(p.write_cache), s(p.scheduler), offered_json, p.logical_block,
      p.physical_block,
      b(p.o_direct), s(p.o_direct_note), p.direct_io_align, p.direct_mem_align, p.statx_io_align,
      p.statx_mem_align, b(p.o_dsync), b(p.rwf_dsync), b(p.fallocate), b(p.hard_links), b(p.io_uring),
      s(p.io_uring_note), s(p.error));
}

void add_probe_rows(kit::Results& r, const ProbeResult& p) {
  std::string c = fmt::format("fs={};device={}", p.fs_type, p.device);
  auto flag = [&](const char* metric, bool v) { r.add("", "probe", c, metric, v ? 1 : 0, "bool"); };
  flag("memory_backed", p.memory_backed);
  flag("o_direct", p.o_direct);
  flag("o_dsync", p.o_dsync);
  flag("rwf_dsync", p.rwf_dsync);
  flag("fallocate", p.fallocate);
  flag("hard_links", p.hard_links);
  flag("io_uring", p.io_uring);
  r.add("", "probe", c, "direct_io_align", p.direct_io_align, "bytes");
  r.add("", "probe", c, "direct_mem_align", p.direct_mem_align, "bytes");
  r.add("", "probe", c, "logical_block", p.logical_block, "bytes");
  r.add("", "probe", c, "rotational", p.rotational, "bool");
  // One row per scheduler the device offers, 1 for the active one, 0 for the rest.
  for (const std::string& s : p.schedulers) r.add("", "probe", c, "scheduler_" + s, s == p.scheduler ? 1 : 0, "bool");
  r.add("", "probe", c, "volatile_write_cache",
        p.write_cache == "write back" ? 1 : p.write_cache == "write through" ? 0 : -1, "bool");
}

}  // namespace fenec::iobench
