#include "scenarios/journals/priority.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <future>
#include <memory>
#include <thread>

#include "engine/src/ring/global_ring.h"
#include "iobench/src/files.h"

namespace fenec::scenarios::journals {
namespace {

// The engine's ring (its own instance, so the arm picks the sqe priority;
// GlobalRing() is this class with the default, BE/7) fed `depth` flush
// requests at a time by one producer thread, as DbImpl::FlushBuffer hands it
// full write buffers.
class RingWriter : public iobench::prio::Background {
 public:
  RingWriter(const PrioConfig& cfg, uint16_t prio, iobench::prio::FirstError* err) : ring_(options(prio)) {
    if (!ring_.status().ok()) {
      err->set("engine ring: " + ring_.status().ToString());
      return;
    }
    producer_ = std::thread([this, &cfg, err] { Run(cfg, err); });
  }
  ~RingWriter() override { Stop(); }
  void Stop() override {
    stop_.store(true);
    if (producer_.joinable()) producer_.join();
  }
  uint64_t bytes() const override { return bytes_.load(); }

 private:
  static ring::RingOptions options(uint16_t prio) {
    ring::RingOptions o;
    o.ioprio = prio;
    return o;
  }
  void Run(const PrioConfig& cfg, iobench::prio::FirstError* err) {
    const std::string path = data_file_path(cfg);
    const int fd = ::open(path.c_str(), O_WRONLY | O_DIRECT | O_CLOEXEC);
    if (fd < 0) return err->set(fmt::format("open O_DIRECT {}: {}", path, std::strerror(errno)));
    iobench::AlignedBuffer buf(cfg.chunk);
    std::memset(buf.data(), 0x52, cfg.chunk);
    const uint64_t slots = std::max<uint64_t>(1, cfg.data_bytes / cfg.chunk);
    std::deque<std::future<ring::FlushResult>> inflight;
    uint64_t i = 0;
    while (true) {
      while (!stop_.load(std::memory_order_relaxed) && inflight.size() < static_cast<size_t>(cfg.depth)) {
        const uint64_t off = (i++ % slots) * cfg.chunk;
        inflight.push_back(ring_.Flush(fd, {ring::Page{off, buf.data(), cfg.chunk}}));
      }
      if (inflight.empty()) break;
      const ring::FlushResult r = inflight.front().get();
      inflight.pop_front();
      if (r.error != 0) {
        err->set(fmt::format("ring write {}: {}", path, std::strerror(-r.error)));
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


JournalCell run_journal_cell(const PrioConfig& cfg, BgPrio prio, Flusher flusher) {
  if (flusher == Flusher::kThreads) return iobench::prio::run_journal_cell(cfg, prio);
  return iobench::prio::run_journal_cell(
      cfg, prio, [](const PrioConfig& c, uint16_t p, iobench::prio::FirstError* err) {
        return std::unique_ptr<iobench::prio::Background>(std::make_unique<RingWriter>(c, p, err));
      });
}

}  // namespace fenec::scenarios::journals
