#include "engine/src/base/smaps.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace fenec::base {
namespace {

std::string proc_path(pid_t pid, const char* file) {
  return pid == 0 ? std::string("/proc/self/") + file
                  : "/proc/" + std::to_string(pid) + "/" + file;
}

// read(2) straight into a string: no iostream locale machinery on a path the
// MM-1 bench times, and one open/read/close per sample.
bool slurp(const std::string& path, std::string* out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  out->clear();
  char buf[16384];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      return n == 0;
    }
    out->append(buf, static_cast<size_t>(n));
  }
}

// Adds every "Rss:", "Pss:", "Anonymous:", "Swap:" line (kB) into s; the exact
// key with its colon, so Pss_Anon or SwapPss never count twice.
void sum_fields(const std::string& text, MemSample* s) {
  static constexpr struct {
    const char* key;
    size_t len;
    uint64_t MemSample::*field;
  } kFields[] = {{"Rss:", 4, &MemSample::rss_kb},
                 {"Pss:", 4, &MemSample::pss_kb},
                 {"Anonymous:", 10, &MemSample::anon_kb},
                 {"Swap:", 5, &MemSample::swap_kb}};
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    for (const auto& f : kFields) {
      if (end - pos > f.len && text.compare(pos, f.len, f.key) == 0) {
        s->*f.field += std::strtoull(text.c_str() + pos + f.len, nullptr, 10);
        break;
      }
    }
    pos = end + 1;
  }
}

MemSample read_and_sum(const std::string& path, bool* ok) {
  MemSample s;
  std::string text;
  const bool good = slurp(path, &text);
  if (good) sum_fields(text, &s);
  if (ok) *ok = good && !text.empty();
  return s;
}

}  // namespace

MemSample ReadSmapsRollup(pid_t pid, bool* ok) {
  return read_and_sum(proc_path(pid, "smaps_rollup"), ok);
}

MemSample ReadSmapsFull(pid_t pid, bool* ok) {
  return read_and_sum(proc_path(pid, "smaps"), ok);
}

SmapsRollupSampler::SmapsRollupSampler(pid_t pid, std::chrono::milliseconds interval,
                                       size_t max_samples)
    : pid_(pid),
      interval_(interval.count() > 0 ? interval : std::chrono::milliseconds(1)),
      max_samples_(max_samples < 2 ? 2 : max_samples),
      start_(std::chrono::steady_clock::now()) {
  // One read up front, so latest() is a real sample from the first call on.
  SampleOnce();
  thread_ = std::thread([this] { Run(); });
}

SmapsRollupSampler::~SmapsRollupSampler() { Stop(); }

void SmapsRollupSampler::SampleOnce() {
  bool ok = false;
  MemSample s = ReadSmapsRollup(pid_, &ok);
  reads_.fetch_add(1);
  s.t_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  MutexLock lock(&mu_);
  if (!ok) {
    ++failed_reads_;
    return;
  }
  latest_ = s;
  peak_rss_kb_ = std::max(peak_rss_kb_, s.rss_kb);
  // Bounded memory for arbitrarily long runs: when full, keep every other
  // sample and from then on record only every stride-th one.
  if (tick_++ % stride_ != 0) return;
  if (series_.size() >= max_samples_) {
    size_t w = 0;
    for (size_t r = 0; r < series_.size(); r += 2) series_[w++] = series_[r];
    series_.resize(w);
    stride_ *= 2;
  }
  series_.push_back(s);
}

void SmapsRollupSampler::Run() {
  MutexLock lock(&mu_);
  while (!stop_) {
    // wait_until a fixed deadline, so a spurious wakeup cannot shorten the interval.
    const auto deadline = std::chrono::steady_clock::now() + interval_;
    while (!stop_ && cv_.WaitUntil(&mu_, deadline) != std::cv_status::timeout) {
    }
    if (stop_) break;
    lock.Unlock();
    SampleOnce();
    lock.Lock();
  }
}

MemSample SmapsRollupSampler::latest() const {
  MutexLock lock(&mu_);
  return latest_;
}

std::vector<MemSample> SmapsRollupSampler::series() const {
  MutexLock lock(&mu_);
  return series_;
}

uint64_t SmapsRollupSampler::peak_rss_kb() const {
  MutexLock lock(&mu_);
  return peak_rss_kb_;
}

uint64_t SmapsRollupSampler::failed_reads() const {
  MutexLock lock(&mu_);
  return failed_reads_;
}

void SmapsRollupSampler::Stop() {
  {
    MutexLock lock(&mu_);
    stop_ = true;
  }
  cv_.SignalAll();
  if (thread_.joinable()) thread_.join();
}

}  // namespace fenec::base
