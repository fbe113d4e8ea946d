#include "scenarios/journals/priority.h"

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
#include <deque>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

#include "engine/src/ring/global_ring.h"

namespace fenec::scenarios::journals {
namespace {

using Clock = std::chrono::steady_clock;

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using Aligned = std::unique_ptr<uint8_t, FreeDeleter>;

Aligned aligned_buffer(size_t bytes, uint8_t fill) {
  void* p = nullptr;
  if (posix_memalign(&p, 4096, bytes) != 0) return nullptr;
  std::memset(p, fill, bytes);
  return Aligned(static_cast<uint8_t*>(p));
}

std::string sys_error(const std::string& what, const std::string& path, int err) {
  return fmt::format("{} {}: {}", what, path, std::strerror(err));
}

void sleep_for(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

// The first error any worker thread met; the cell reports it.
class FirstError {
 public:
  void set(const std::string& e) {
    std::lock_guard<std::mutex> l(mu_);
    if (error_.empty()) error_ = e;
  }
  std::string get() {
    std::lock_guard<std::mutex> l(mu_);
    return error_;
  }

 private:
  std::mutex mu_;
  std::string error_;
};

// `threads` threads of O_DIRECT pwrite over [base, base + span) of the data
// file, each at ioprio `prio` (0: left as the thread starts). Stops with `stop`.
class DirectWriters {
 public:
  DirectWriters(const PrioConfig& cfg, int threads, uint16_t prio, uint64_t base, uint64_t span, FirstError* err) {
    for (int k = 0; k < threads; ++k)
      threads_.emplace_back([=, this, &cfg] { Run(cfg, k, threads, prio, base, span, err); });
  }
  ~DirectWriters() { Stop(); }
  void Stop() {
    stop_.store(true);
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }
  uint64_t bytes() const { return bytes_.load(); }

 private:
  void Run(const PrioConfig& cfg, int k, int threads, uint16_t prio, uint64_t base, uint64_t span,
           FirstError* err) {
    if (prio != 0)
      if (std::string e = set_thread_ioprio(prio); !e.empty()) return err->set(e);
    const std::string path = data_file_path(cfg);
    const int fd = ::open(path.c_str(), O_WRONLY | O_DIRECT | O_CLOEXEC);
    if (fd < 0) return err->set(sys_error("open O_DIRECT", path, errno));
    Aligned buf = aligned_buffer(cfg.chunk, static_cast<uint8_t>(0x40 + k));
    const uint64_t slots = std::max<uint64_t>(1, span / cfg.chunk);
    for (uint64_t i = static_cast<uint64_t>(k); !stop_.load(std::memory_order_relaxed); i += threads) {
      const uint64_t off = base + (i % slots) * cfg.chunk;
      const ssize_t n = ::pwrite(fd, buf.get(), cfg.chunk, static_cast<off_t>(off));
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

// The engine's ring (its own instance, so the arm picks the sqe priority;
// GlobalRing() is this class with the default, BE/7) fed `depth` flush
// requests at a time by one producer thread, as DbImpl::FlushBuffer hands it
// full write buffers.
class RingWriter {
 public:
  RingWriter(const PrioConfig& cfg, uint16_t prio, FirstError* err) : ring_(options(prio)) {
    if (!ring_.status().ok()) {
      err->set("engine ring: " + ring_.status().ToString());
      return;
    }
    producer_ = std::thread([this, &cfg, err] { Run(cfg, err); });
  }
  ~RingWriter() { Stop(); }
  void Stop() {
    stop_.store(true);
    if (producer_.joinable()) producer_.join();
  }
  uint64_t bytes() const { return bytes_.load(); }

 private:
  static ring::RingOptions options(uint16_t prio) {
    ring::RingOptions o;
    o.ioprio = prio;
    return o;
  }
  void Run(const PrioConfig& cfg, FirstError* err) {
    const std::string path = data_file_path(cfg);
    const int fd = ::open(path.c_str(), O_WRONLY | O_DIRECT | O_CLOEXEC);
    if (fd < 0) return err->set(sys_error("open O_DIRECT", path, errno));
    Aligned buf = aligned_buffer(cfg.chunk, 0x52);
    const uint64_t slots = std::max<uint64_t>(1, cfg.data_bytes / cfg.chunk);
    std::deque<std::future<ring::FlushResult>> inflight;
    uint64_t i = 0;
    while (true) {
      while (!stop_.load(std::memory_order_relaxed) && inflight.size() < static_cast<size_t>(cfg.depth)) {
        const uint64_t off = (i++ % slots) * cfg.chunk;
        inflight.push_back(ring_.Flush(fd, {ring::Page{off, buf.get(), cfg.chunk}}));
      }
      if (inflight.empty()) break;
      const ring::FlushResult r = inflight.front().get();
      inflight.pop_front();
      if (r.error != 0) {
        err->set(sys_error("ring write", path, -r.error));
        stop_.store(true);
      }
      bytes_.fetch_add(r.bytes, std::memory_order_relaxed);
    }
    ::close(fd);
  }

  ring::Ring ring_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> bytes_{0};
  std::thread producer_;
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

uint16_t ioprio_of(BgPrio p) {
  switch (p) {
    case BgPrio::kBe7: return ring::BackgroundIoprio();
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

const std::vector<std::string>& flusher_names() {
  static const std::vector<std::string> n{"threads", "ring"};
  return n;
}

bool parse_flusher(const std::string& name, Flusher* out) {
  if (name == "threads") *out = Flusher::kThreads;
  else if (name == "ring") *out = Flusher::kRing;
  else return false;
  return true;
}

std::string data_file_path(const PrioConfig& cfg) { return cfg.dir + "/data.fdb"; }

std::string prepare_data_file(const PrioConfig& cfg) {
  std::error_code ec;
  std::filesystem::create_directories(cfg.dir, ec);
  if (ec) return fmt::format("mkdir {}: {}", cfg.dir, ec.message());
  const std::string path = data_file_path(cfg);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT | O_CLOEXEC, 0644);
  if (fd < 0) return sys_error("open O_DIRECT", path, errno);
  Aligned buf = aligned_buffer(cfg.chunk, 0x33);
  std::string err;
  for (uint64_t off = 0; off < cfg.data_bytes && err.empty(); off += cfg.chunk) {
    if (cfg.stop && cfg.stop()) err = "interrupted";
    else if (::pwrite(fd, buf.get(), cfg.chunk, static_cast<off_t>(off)) != static_cast<ssize_t>(cfg.chunk))
      err = sys_error("pwrite O_DIRECT", path, errno);
  }
  if (err.empty() && ::fdatasync(fd) != 0) err = sys_error("fdatasync", path, errno);
  ::close(fd);
  return err;
}

JournalCell run_journal_cell(const PrioConfig& cfg, BgPrio prio, Flusher flusher) {
  JournalCell c;
  FirstError err;
  std::unique_ptr<DirectWriters> threads;
  std::unique_ptr<RingWriter> ring;
  auto bg_bytes = [&] { return threads ? threads->bytes() : ring ? ring->bytes() : 0; };
  if (prio != BgPrio::kNone) {
    if (flusher == Flusher::kThreads)
      threads = std::make_unique<DirectWriters>(cfg, cfg.depth, ioprio_of(prio), 0, cfg.data_bytes, &err);
    else
      ring = std::make_unique<RingWriter>(cfg, ioprio_of(prio), &err);
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
  if (threads) threads->Stop();
  if (ring) ring->Stop();
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

}  // namespace fenec::scenarios::journals
