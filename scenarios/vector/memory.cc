// vector-bench's memory part (VS-3): see memory.h.
#include "scenarios/vector/memory.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>

#include "engine/src/index/vector/chunked.h"
#include "engine/src/index/vector/vector_index.h"
#include "scenarios/vector/workload.h"

namespace fenec::scenarios::vector {
namespace {

using Clock = std::chrono::steady_clock;

// What a child sends: progress lines while it builds, then its figures.
struct Message {
  uint32_t kind = 0;  // 1 progress, 2 done, 3 failed
  uint64_t done = 0;  // vectors indexed so far
  double build_s = 0;
  uint64_t hits = 0, queries = 0, major_faults = 0, link_major_faults = 0, pages = 0, vectors = 0;
  double user_s = 0, sys_s = 0;  // the child's CPU since the build began
  uint64_t read_bytes = 0;       // bytes the child had read from the disk (/proc/self/io)
  char error[200] = {};
};

// The memory cgroup (v1) this process is in, as a folder ("" if none).
std::string OwnMemoryCgroup() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    const size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    std::stringstream ctl(line.substr(a + 1, b - a - 1));
    for (std::string c; std::getline(ctl, c, ',');)
      if (c == "memory") return "/sys/fs/cgroup/memory" + line.substr(b + 1);
  }
  return "";
}

bool WriteFile(const std::string& path, const std::string& text) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  return ok;
}

uint64_t ReadNumber(const std::string& path) {
  std::ifstream in(path);
  uint64_t v = 0;
  in >> v;
  return v;
}

// What the build has cost the child so far: major faults, CPU, disk reads.
struct Usage {
  uint64_t major_faults = 0, read_bytes = 0;
  double user_s = 0, sys_s = 0;
  static Usage Now() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    Usage x;
    x.major_faults = static_cast<uint64_t>(u.ru_majflt);
    x.user_s = double(u.ru_utime.tv_sec) + double(u.ru_utime.tv_usec) / 1e6;
    x.sys_s = double(u.ru_stime.tv_sec) + double(u.ru_stime.tv_usec) / 1e6;
    std::ifstream io("/proc/self/io");
    for (std::string key; io >> key;) {
      uint64_t v = 0;
      io >> v;
      if (key == "read_bytes:") x.read_bytes = v;
    }
    return x;
  }
  void Into(Message& m, const Usage& from) const {
    m.major_faults = major_faults - from.major_faults;
    m.user_s = user_s - from.user_s;
    m.sys_s = sys_s - from.sys_s;
    m.read_bytes = read_bytes - from.read_bytes;
  }
};

// The vectors file's pages leave the page cache (written back first, or
// DONTNEED would keep the dirty ones): each cell starts cold.
void DropFileCache(const std::string& file) {
  int fd = open(file.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return;
  fdatasync(fd);
  posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  close(fd);
}

void Send(int fd, const Message& m) { (void)!write(fd, &m, sizeof m); }

[[noreturn]] void Fail(int fd, const std::string& why) {
  Message m;
  m.kind = 3;
  std::snprintf(m.error, sizeof m.error, "%s", why.c_str());
  Send(fd, m);
  _exit(1);
}

// The child: joins the cell's cgroup, builds, searches, reports, exits.
[[noreturn]] void Child(int fd, const std::string& cell, const std::string& arm, const Dataset& d, const ArmParams& p,
                        size_t ef, size_t k, const std::string& file) {
  if (!WriteFile(cell + "/cgroup.procs", std::to_string(getpid()))) Fail(fd, "joining " + cell + " failed");
  Message m;
  const Usage u0 = Usage::Now();
  const auto t0 = Clock::now();
  std::unique_ptr<AnnArm> hnsw;
  std::unique_ptr<index::vec::VectorIndex> index;
  if (arm == kHnswlib) {
    hnsw = make_hnswlib_arm(p);
    if (std::string e = hnsw->build(d); !e.empty()) Fail(fd, e);
  } else {
    index::vec::Options o;
    o.dim = p.dim;
    o.m = p.m;
    o.ef_construction = p.ef_construction;
    o.threads = p.threads;
    o.seed = p.seed;
    o.insert_arm = arm == kRow ? index::vec::InsertArm::kRow : index::vec::InsertArm::kBatch;
    if (arm != kInMemory) o.vector_file = file;
    auto created = index::vec::VectorIndex::Create(o);
    if (!created.ok()) Fail(fd, created.status().ToString());
    index = std::move(created).value();
    // In pieces, so the parent sees progress (a cell it stops says how far it got).
    constexpr size_t kPiece = 512;  // one link batch: the call's copy of its vectors stays small
    std::vector<index::vec::InsertItem> items;
    for (size_t b = 0; b < d.size(); b += kPiece) {
      items.clear();
      for (size_t i = b; i < std::min(d.size(), b + kPiece); ++i) items.push_back({i, d.row(i)});
      if (Status s = index->InsertBatch(items); !s.ok()) Fail(fd, s.ToString());
      Message pm;
      pm.kind = 1;
      pm.done = b + items.size();
      pm.build_s = std::chrono::duration<double>(Clock::now() - t0).count();
      Usage::Now().Into(pm, u0);
      Send(fd, pm);
    }
  }
  m.build_s = std::chrono::duration<double>(Clock::now() - t0).count();
  Usage::Now().Into(m, u0);
  m.done = d.size();
  for (size_t q = 0; q < d.query_count(); ++q) {
    std::vector<uint64_t> found;
    if (hnsw) {
      found = hnsw->search(d.query(q), k, ef);
    } else if (auto hits = index->Search(d.query(q), k, ef); hits.ok()) {
      for (const auto& h : *hits) found.push_back(h.owner);
    }
    m.hits += hits_at_k(found, d.truth[q], k);
  }
  m.queries = d.query_count();
  if (index) {
    const index::vec::Stats st = index->stats();
    m.link_major_faults = st.link_major_faults;
    m.pages = st.pages_preloaded;
    m.vectors = st.vectors_preloaded;
  }
  m.kind = 2;
  Send(fd, m);
  _exit(0);
}

// One child in a fresh cgroup under `parent`; limit 0: none.
MemoryCell RunCell(const std::string& parent, const std::string& arm, double fraction, uint64_t limit,
                   const Dataset& d, const ArmParams& p, size_t ef, size_t k, const std::string& file,
                   double cap_s) {
  MemoryCell c;
  c.arm = arm;
  c.fraction = fraction;
  c.limit = limit;
  c.cap_s = cap_s;
  const std::string cell = fmt::format("{}/cell-{}", parent, getpid());
  if (mkdir(cell.c_str(), 0755) != 0 && errno != EEXIST) {
    c.error = fmt::format("mkdir {}: {}", cell, std::strerror(errno));
    return c;
  }
  if (limit != 0 && !WriteFile(cell + "/memory.limit_in_bytes", std::to_string(limit))) {
    c.error = "writing " + cell + "/memory.limit_in_bytes failed";
    rmdir(cell.c_str());
    return c;
  }
  DropFileCache(file);
  unlink(file.c_str());
  int fds[2];
  if (pipe(fds) != 0) {
    c.error = "pipe failed";
    rmdir(cell.c_str());
    return c;
  }
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    Child(fds[1], cell, arm, d, p, ef, k, file);
  }
  close(fds[1]);
  Message last, got;
  uint64_t progress = 0;
  double progress_s = 0;
  Message at_progress;
  const auto t0 = Clock::now();
  bool stopped = false;
  size_t have = 0;
  char* buf = reinterpret_cast<char*>(&got);
  // The cap is the build's: once every vector is indexed, the searches
  // (recall) get a cap of their own.
  double cap = cap_s;
  while (true) {
    const double left = cap - std::chrono::duration<double>(Clock::now() - t0).count();
    if (left <= 0) {
      kill(pid, SIGKILL);
      stopped = true;
      break;
    }
    pollfd pf{fds[0], POLLIN, 0};
    if (poll(&pf, 1, static_cast<int>(std::min(left, 1.0) * 1000) + 1) <= 0) continue;
    const ssize_t r = read(fds[0], buf + have, sizeof got - have);
    if (r <= 0) break;
    have += static_cast<size_t>(r);
    if (have < sizeof got) continue;
    have = 0;
    if (got.kind == 1) {
      c.pieces.push_back(MemoryCell::Piece{got.done - progress, got.build_s - progress_s,
                                           got.major_faults - at_progress.major_faults,
                                           got.read_bytes - at_progress.read_bytes, got.user_s - at_progress.user_s,
                                           got.sys_s - at_progress.sys_s});
      progress = got.done;
      progress_s = got.build_s;
      at_progress = got;
      if (progress == d.size()) cap = std::chrono::duration<double>(Clock::now() - t0).count() + cap_s;
    } else {
      last = got;
    }
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  c.peak_bytes = ReadNumber(cell + "/memory.max_usage_in_bytes");
  c.failcnt = ReadNumber(cell + "/memory.failcnt");
  rmdir(cell.c_str());
  c.done = progress;
  c.done_s = progress_s;
  c.stopped = stopped;
  // What the build cost up to its last report (a stopped build: up to where it stopped).
  const Message& cost = last.kind == 2 ? last : at_progress;
  c.major_faults = cost.major_faults;
  c.user_s = cost.user_s;
  c.sys_s = cost.sys_s;
  c.read_bytes = cost.read_bytes;
  if (stopped) {
    c.error = fmt::format("stopped at the {:.0f} s cap: {} of {} vectors indexed by {:.1f} s", cap_s, progress,
                          d.size(), progress_s);
  } else if (last.kind == 2) {
    c.build_s = last.build_s;
    c.hits = last.hits;
    c.queries = last.queries;
    c.link_major_faults = last.link_major_faults;
    c.pages_preloaded = last.pages;
    c.vectors_preloaded = last.vectors;
  } else if (last.kind == 3) {
    c.error = last.error;
  } else if (WIFSIGNALED(status)) {
    c.error = fmt::format("killed by signal {} at a limit of {} bytes (memory.failcnt {}), {} of {} vectors indexed",
                          WTERMSIG(status), limit, c.failcnt, progress, d.size());
  } else {
    c.error = fmt::format("child exited {} without figures", WEXITSTATUS(status));
  }
  return c;
}

}  // namespace

MemoryRun run_memory(const Dataset& d, const ArmParams& p, size_t ef, size_t k, const std::string& dir,
                     const std::vector<double>& fractions, bool with_row, bool with_hnswlib, double cap_s,
                     double decide_at) {
  MemoryRun r;
  r.ef = ef;
  r.cap_s = cap_s;
  r.decide_at = decide_at;
  const std::string own = OwnMemoryCgroup();
  if (own.empty() || access((own + "/memory.limit_in_bytes").c_str(), R_OK) != 0) {
    r.error = "no cgroup v1 memory controller (/sys/fs/cgroup/memory) for this process";
    return r;
  }
  r.cgroup = fmt::format("{}/fenec-vector-{}", own, getpid());
  if (mkdir(r.cgroup.c_str(), 0755) != 0 && errno != EEXIST) {
    r.error = fmt::format("mkdir {}: {}", r.cgroup, std::strerror(errno));
    return r;
  }
  const std::string file = dir + "/vs3-vectors.fvec";
  r.vector_bytes = uint64_t{d.size()} * index::vec::VectorArena::Stride(d.dim);
  // The in-memory build (the reference at 100%), then the calibration: the
  // batch arm in a file under no limit; what it charged beyond the vectors
  // is its footprint.
  r.in_memory = RunCell(r.cgroup, kInMemory, 0, 0, d, p, ef, k, file, cap_s);
  for (const char* arm : {kBatch, kRow}) {
    if (arm == std::string(kRow) && !with_row) break;
    MemoryCell cal = RunCell(r.cgroup, arm, 0, 0, d, p, ef, k, file, cap_s);
    if (!cal.error.empty()) {
      r.error = fmt::format("calibration of {}: {}", arm, cal.error);
      rmdir(r.cgroup.c_str());
      return r;
    }
    (arm == std::string(kBatch) ? r.footprint : r.row_footprint) =
        cal.peak_bytes > r.vector_bytes ? cal.peak_bytes - r.vector_bytes : 0;
  }
  std::vector<std::string> arms = {kBatch};
  if (with_row) arms.push_back(kRow);
  if (with_hnswlib) arms.push_back(kHnswlib);
  for (double f : fractions) {
    const uint64_t cache = static_cast<uint64_t>(f * double(r.vector_bytes));
    const size_t batch = r.cells.size();  // arms run in order: the batch cell of this fraction first
    for (const std::string& arm : arms) {
      double cap = cap_s;
      if (arm == kRow && decide_at > 0 && r.cells[batch].error.empty() && r.cells[batch].build_s > 0)
        cap = std::min(cap_s, decide_at * r.cells[batch].build_s);
      r.cells.push_back(RunCell(r.cgroup, arm, f, (arm == kRow ? r.row_footprint : r.footprint) + cache, d, p, ef, k,
                                file, cap));
    }
  }
  unlink(file.c_str());
  rmdir(r.cgroup.c_str());
  return r;
}

}  // namespace fenec::scenarios::vector
