#include "iobench/src/prio.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/ioprio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>

#include "iobench/src/files.h"

namespace fenec::iobench::prio {
namespace {

using Clock = std::chrono::steady_clock;

AlignedBuffer filled(size_t bytes, uint8_t fill) {
  AlignedBuffer b(bytes);
  std::memset(b.data(), fill, bytes);
  return b;
}

std::string sys_error(const std::string& what, const std::string& path, int err) {
  return fmt::format("{} {}: {}", what, path, std::strerror(err));
}

void sleep_for(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

// `threads` threads of O_DIRECT pwrite over [base, base + span) of the data
// file, each at ioprio `prio` (0: left as the thread starts). Stops with `stop`.
class DirectWriters : public Background {
 public:
  DirectWriters(const PrioConfig& cfg, int threads, uint16_t prio, uint64_t base, uint64_t span, FirstError* err) {
    for (int k = 0; k < threads; ++k)
      threads_.emplace_back([=, this, &cfg] { Run(cfg, k, threads, prio, base, span, err); });
  }
  ~DirectWriters() override { Stop(); }
  void Stop() override {
    stop_.store(true);
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }
  uint64_t bytes() const override { return bytes_.load(); }

 private:
  void Run(const PrioConfig& cfg, int k, int threads, uint16_t prio, uint64_t base, uint64_t span,
           FirstError* err) {
    if (prio != 0)
      if (std::string e = set_thread_ioprio(prio); !e.empty()) return err->set(e);
    const std::string path = data_file_path(cfg);
    const int fd = ::open(path.c_str(), O_WRONLY | O_DIRECT | O_CLOEXEC);
    if (fd < 0) return err->set(sys_error("open O_DIRECT", path, errno));
    AlignedBuffer buf = filled(cfg.chunk, static_cast<uint8_t>(0x40 + k));
    const uint64_t slots = std::max<uint64_t>(1, span / cfg.chunk);
    for (uint64_t i = static_cast<uint64_t>(k); !stop_.load(std::memory_order_relaxed); i += threads) {
      const uint64_t off = base + (i % slots) * cfg.chunk;
      const ssize_t n = ::pwrite(fd, buf.data(), cfg.chunk, static_cast<off_t>(off));
      if (n < 0 && errno == EINTR) continue;
      if (n != static_cast<ssize_t>(cfg.chunk)) {
        err->set(n < 0 ? sys_error("pwrite O_DIRECT", path, errno) : "short O_DIRECT write to " + path);
        break;
      }
      bytes_.fetch_add(cfg.chunk, std::memory_order_relaxed);
    }
    ::close(fd);
  }

  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> bytes_{0};
  std::vector<std::thread> threads_;
};

}  // namespace

const std::vector<std::string>& bg_prio_names() {
  static const std::vector<std::string> n{"alone", "equal", "be7", "idle"};
  return n;
}

bool parse_bg_prio(const std::string& name, BgPrio* out) {
  const auto& n = bg_prio_names();
  for (size_t i = 0; i < n.size(); ++i)
    if (n[i] == name) {
      *out = static_cast<BgPrio>(i);
      return true;
    }
  return false;
}

const char* bg_prio_name(BgPrio p) { return bg_prio_names()[static_cast<size_t>(p)].c_str(); }

void FirstError::set(const std::string& e) {
  std::lock_guard<std::mutex> l(mu_);
  if (error_.empty()) error_ = e;
}

std::string FirstError::get() {
  std::lock_guard<std::mutex> l(mu_);
  return error_;
}

std::unique_ptr<Background> direct_writers(const PrioConfig& cfg, int threads, uint16_t prio, uint64_t base,
                                           uint64_t span, FirstError* err) {
  return std::make_unique<DirectWriters>(cfg, threads, prio, base, span, err);
}

uint16_t ioprio_of(BgPrio p) {
  switch (p) {
    case BgPrio::kBe7: return IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 7);
    case BgPrio::kIdle: return IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 0);
    default: return 0;
  }
}

std::string set_thread_ioprio(uint16_t v) {
  if (syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, static_cast<int>(v)) != 0)
    return fmt::format("ioprio_set({:#x}): {}", v, std::strerror(errno));
  return "";
}

int thread_ioprio() { return static_cast<int>(syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, 0)); }

std::string data_file_path(const PrioConfig& cfg) { return cfg.dir + "/data.fdb"; }

std::string prepare_data_file(const PrioConfig& cfg) {
  std::error_code ec;
  std::filesystem::create_directories(cfg.dir, ec);
  if (ec) return fmt::format("mkdir {}: {}", cfg.dir, ec.message());
  const std::string path = data_file_path(cfg);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT | O_CLOEXEC, 0644);
  if (fd < 0) return sys_error("open O_DIRECT", path, errno);
  AlignedBuffer buf = filled(cfg.chunk, 0x33);
  std::string err;
  for (uint64_t off = 0; off < cfg.data_bytes && err.empty(); off += cfg.chunk) {
    if (cfg.stop && cfg.stop()) err = "interrupted";
    else if (::pwrite(fd, buf.data(), cfg.chunk, static_cast<off_t>(off)) != static_cast<ssize_t>(cfg.chunk))
      err = sys_error("pwrite O_DIRECT", path, errno);
  }
  if (err.empty() && ::fdatasync(fd) != 0) err = sys_error("fdatasync", path, errno);
  ::close(fd);
  return err;
}

JournalCell run_journal_cell(const PrioConfig& cfg, BgPrio prio, const BackgroundFactory& background) {
  JournalCell c;
  FirstError err;
  std::unique_ptr<Background> bg;
  auto bg_bytes = [&] { return bg ? bg->bytes() : 0; };
  if (prio != BgPrio::kNone) {
    bg = background ? background(cfg, ioprio_of(prio), &err)
                    : direct_writers(cfg, cfg.depth, ioprio_of(prio), 0, cfg.data_bytes, &err);
    sleep_for(cfg.warmup);  // the device saturated before the first commit
  }
  // The journal on a thread of its own, so its priority is a fresh task's
  // default whatever the caller's: the journal side is never changed.
  std::thread journal([&] {
    const std::string path = cfg.dir + "/journal.log";
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return err.set(sys_error("open", path, errno));
    std::vector<uint8_t> rec(cfg.record, 0x4a);
    const uint64_t bg0 = bg_bytes();
    const auto t0 = Clock::now();
    const auto end = t0 + std::chrono::duration<double>(cfg.seconds);
    uint64_t off = 0;
    while (Clock::now() < end && !(cfg.stop && cfg.stop())) {
      if (::pwrite(fd, rec.data(), rec.size(), static_cast<off_t>(off)) != static_cast<ssize_t>(rec.size())) {
        err.set(sys_error("pwrite", path, errno));
        break;
      }
      off += rec.size();
      const auto s0 = Clock::now();
      if (::fdatasync(fd) != 0) {
        err.set(sys_error("fdatasync", path, errno));
        break;
      }
      c.sync_ns.Record(static_cast<uint64_t>(std::chrono::nanoseconds(Clock::now() - s0).count()));
      ++c.commits;
    }
    c.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    c.bg_bytes = bg_bytes() - bg0;
    ::close(fd);
    ::unlink(path.c_str());
  });
  journal.join();
  if (bg) bg->Stop();
  c.error = err.get();
  return c;
}

ControlCell run_control_cell(const PrioConfig& cfg, bool idle) {
  ControlCell c;
  FirstError err;
  const uint64_t half = cfg.data_bytes / 2;
  DirectWriters normal(cfg, cfg.depth, 0, 0, half, &err);
  DirectWriters low(cfg, cfg.depth, idle ? ioprio_of(BgPrio::kIdle) : 0, half, half, &err);
  sleep_for(cfg.warmup);
  const uint64_t n0 = normal.bytes(), l0 = low.bytes();
  const auto t0 = Clock::now();
  const auto end = t0 + std::chrono::duration<double>(cfg.seconds);
  while (Clock::now() < end && !(cfg.stop && cfg.stop())) sleep_for(0.01);
  c.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  c.normal_bytes = normal.bytes() - n0;
  c.low_bytes = low.bytes() - l0;
  normal.Stop();
  low.Stop();
  c.error = err.get();
  return c;
}

}  // namespace fenec::iobench::prio
