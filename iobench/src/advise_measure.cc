// advise's measurements: sweep cells (run_cell), the lies check, the
// syncmethods table and probe, called as they are; only the I/O-priority
// control is advise's own (a foreground sync loop beside a background
// writer, the background's class the one thing that changes).
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "iobench/src/advise.h"

namespace fenec::iobench::advise {
namespace {

using Clock = std::chrono::steady_clock;

CellResult cell(const MeasureOptions& o, const SweepEnv& env, uint64_t size, Mode mode, bool prefill, unsigned jobs,
                Layout layout) {
  CellSpec s;
  s.size = size;
  s.mode = mode;
  s.jobs = jobs;
  s.layout = layout;
  s.submit = o.submit;
  s.prefill = prefill;
  s.duration_s = o.cell_s;
  s.interval_s = o.cell_s;
  // Bounded by time, not bytes, except that 1 MiB syncs must not fill a small disk.
  s.total = size >= (1u << 20) ? 128ull << 20 : 64ull << 20;
  return run_cell(s, env);
}

// ioprio_set(2) on the calling thread: class << 13 | level.
bool set_ioprio(int cls, int level) {
  return syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, 0, (cls << 13) | level) == 0;
}

struct Background {
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> bytes{0};
  std::string error;
};

// Sequential O_DIRECT 512 KiB writes over `path`, wrapping, at the given class.
void background_writer(const std::string& path, uint64_t file_bytes, int cls, Background* bg) {
  if (cls >= 0 && !set_ioprio(cls, cls == 3 ? 0 : 4)) bg->error = "ioprio_set refused";
  const int fd = ::open(path.c_str(), O_WRONLY | O_DIRECT);
  if (fd < 0) {
    bg->error = fmt::format("open {} O_DIRECT: {}", path, std::strerror(errno));
    return;
  }
  constexpr size_t kChunk = 512 << 10;
  void* buf = nullptr;
  if (posix_memalign(&buf, 4096, kChunk) != 0) {
    ::close(fd);
    return;
  }
  std::memset(buf, 0x5a, kChunk);
  uint64_t off = 0;
  while (!bg->stop.load(std::memory_order_relaxed)) {
    if (::pwrite(fd, buf, kChunk, static_cast<off_t>(off)) != static_cast<ssize_t>(kChunk)) break;
    bg->bytes.fetch_add(kChunk, std::memory_order_relaxed);
    off = (off + kChunk) % file_bytes;
  }
  free(buf);
  ::close(fd);
}

bool fill(const std::string& path, uint64_t bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return false;
  std::string chunk(1 << 20, 'x');
  bool ok = true;
  for (uint64_t off = 0; off < bytes && ok; off += chunk.size())
    ok = ::pwrite(fd, chunk.data(), chunk.size(), static_cast<off_t>(off)) == static_cast<ssize_t>(chunk.size());
  ok = ok && ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

// The foreground: 4 KiB write + fdatasync over a prefilled file; its p50 (us).
double foreground_p50(const std::string& path, double seconds, bool (*stop)()) {
  const int fd = ::open(path.c_str(), O_WRONLY);
  if (fd < 0) return 0;
  base::Histogram h;
  char buf[4096];
  std::memset(buf, 'f', sizeof buf);
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  uint64_t off = 0;
  while (Clock::now() < end && !(stop && stop())) {
    const auto t0 = Clock::now();
    if (::pwrite(fd, buf, sizeof buf, static_cast<off_t>(off)) != static_cast<ssize_t>(sizeof buf) ||
        ::fdatasync(fd) != 0)
      break;
    h.Record(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count()));
    off = (off + sizeof buf) % (1 << 20);
  }
  ::close(fd);
  return h.Percentile(50) / 1000.0;
}

PrioControl prio_control(const MeasureOptions& o, const ProbeResult& p) {
  PrioControl c;
  if (o.submit == SubmitKind::kNull) c.skipped = "null submission path: no I/O";
  else if (p.memory_backed) c.skipped = p.fs_type + " is memory-backed: no device queue to order";
  else if (!p.o_direct) c.skipped = "no O_DIRECT here: a buffered background reaches the disk through writeback, at its priority";
  if (!c.skipped.empty()) return c;
  const std::string fg = o.dir + "/advise-prio-fg", bg = o.dir + "/advise-prio-bg";
  constexpr uint64_t kBgBytes = 64ull << 20;
  if (!fill(fg, 1 << 20) || !fill(bg, kBgBytes)) {
    c.skipped = "could not write the control's files";
  } else {
    c.alone_p50_us = foreground_p50(fg, o.cell_s / 2, o.stop);
    for (int cls : {-1, 3}) {  // the task's own class (equal), then IDLE
      Background state;
      std::thread t(background_writer, bg, kBgBytes, cls, &state);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      const uint64_t b0 = state.bytes.load();
      const auto t0 = Clock::now();
      const double p50 = foreground_p50(fg, o.cell_s, o.stop);
      const double s = std::chrono::duration<double>(Clock::now() - t0).count();
      const double mb_s = static_cast<double>(state.bytes.load() - b0) / s / 1e6;
      state.stop = true;
      t.join();
      if (!state.error.empty()) c.skipped = state.error;
      (cls < 0 ? c.equal_p50_us : c.idle_p50_us) = p50;
      (cls < 0 ? c.equal_bg_mb_s : c.idle_bg_mb_s) = mb_s;
    }
    // Honoured only if the equal-priority writer hurt the foreground at all
    // (else there is nothing for a priority to protect) and IDLE undid most of it.
    c.honoured = c.skipped.empty() && c.equal_p50_us > 1.25 * c.alone_p50_us && c.idle_p50_us <= 0.8 * c.equal_p50_us;
  }
  ::unlink(fg.c_str());
  ::unlink(bg.c_str());
  return c;
}

}  // namespace

Measurement measure(const MeasureOptions& o) {
  const auto t0 = Clock::now();
  Measurement m;
  m.cores = std::max(1u, std::thread::hardware_concurrency());
  const bool null_path = o.submit == SubmitKind::kNull;
  if (null_path) {
    m.probe.dir = o.dir;
  } else {
    m.probe = probe(o.dir);
    if (!m.probe.error.empty()) return m;
  }
  SweepEnv env;
  env.dir = o.dir;
  env.seed = o.seed;
  env.probe = null_path ? nullptr : &m.probe;
  env.stop = o.stop;
  for (uint64_t size : {4096ull, 8192ull, 1ull << 20}) {
    if (o.stop && o.stop()) break;
    SyncCosts s;
    s.size = size;
    s.append = cell(o, env, size, Mode::kFdatasync, false, 1, Layout::kShared);
    s.overwrite = cell(o, env, size, Mode::kFdatasync, true, 1, Layout::kShared);
    s.direct = cell(o, env, size, Mode::kDirectDsync, true, 1, Layout::kShared);
    m.sizes.push_back(std::move(s));
  }
  for (unsigned j : o.jobs) {
    if (o.stop && o.stop()) break;
    m.overlap.push_back(cell(o, env, 8192, Mode::kFdatasync, true, j, Layout::kPerJob));
    m.overlap_append.push_back(cell(o, env, 8192, Mode::kFdatasync, false, j, Layout::kPerJob));
  }
  if (null_path) {
    m.lies.skipped = m.syncmethods.error = "null submission path: no I/O";
  } else {
    LiesOptions lo;
    lo.seconds = o.cell_s;
    m.lies = run_lies(lo, env);
    SyncMethodsOptions so;
    so.dir = o.dir;
    so.seconds = std::min(o.cell_s, 0.5);  // a table of ~20 tests: the 8k rows are all advise reads
    so.stop = o.stop;
    m.syncmethods = run_syncmethods(so, m.probe);
  }
  m.prio = prio_control(o, m.probe);
  m.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return m;
}

}  // namespace fenec::iobench::advise
