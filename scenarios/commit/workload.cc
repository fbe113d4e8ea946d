#include "scenarios/commit/workload.h"
#include "iobench/kit/interrupt.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "scenarios/commit/flusher.h"

namespace fenec::scenarios::commit {

namespace fs = std::filesystem;
using fenec::ring::Page;

uint64_t DirtySet::total() const {
  uint64_t n = 0;
  for (const auto& f : pages) n += f.size();
  return n;
}

uint64_t DirtySet::runs() const {
  uint64_t n = 0;
  for (const auto& f : pages) {
    for (size_t i = 0; i < f.size(); ++i) n += (i == 0 || f[i] != f[i - 1] + 1) ? 1 : 0;
  }
  return n;
}

DirtySet make_dirty_set(int files, uint64_t total_pages, uint32_t max_run, uint64_t seed) {
  DirtySet set;
  set.pages.resize(static_cast<size_t>(std::max(files, 1)));
  std::mt19937_64 rng(seed);
  for (size_t f = 0; f < set.pages.size(); ++f) {
    // The remainder goes to the first files, so the total is exact.
    uint64_t want = total_pages / set.pages.size() + (f < total_pages % set.pages.size() ? 1 : 0);
    uint64_t at = 0;
    while (want > 0) {
      at += 1 + rng() % 8;  // a clean gap first, so runs never touch
      const uint64_t len = std::min<uint64_t>(want, 1 + rng() % std::max<uint32_t>(max_run, 1));
      for (uint64_t i = 0; i < len; ++i) set.pages[f].push_back(at++);
      want -= len;
    }
    set.file_pages = std::max(set.file_pages, at + 1);
  }
  return set;
}

namespace {
std::string read_comm(const fs::path& p) {
  std::ifstream in(p / "comm");
  std::string s;
  std::getline(in, s);
  return s;
}

bool is_worker(const std::string& comm) { return comm.rfind("iou-wrk-", 0) == 0; }
}  // namespace

WorkerScan scan_workers(const std::vector<int>& arm_tids, bool system, const std::string& proc) {
  WorkerScan s;
  std::set<std::string> mine;
  for (int tid : arm_tids) mine.insert(fmt::format("iou-wrk-{}", tid));
  std::error_code ec;
  // Tasks come and go while we read: every failure just means "not there any more".
  for (const auto& t : fs::directory_iterator(fs::path(proc) / "self" / "task", ec)) {
    const std::string comm = read_comm(t.path());
    if (!is_worker(comm)) continue;
    ++s.self;
    if (mine.count(comm) > 0) ++s.arm;
  }
  if (!system) return s;
  s.system = 0;
  for (const auto& p : fs::directory_iterator(proc, ec)) {
    const std::string name = p.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code ec2;
    for (const auto& t : fs::directory_iterator(p.path() / "task", ec2)) {
      if (is_worker(read_comm(t.path()))) ++s.system;
    }
  }
  return s;
}

std::string prepare_files(const std::string& dir, const DirtySet& set, uint32_t page_size,
                          bool direct, std::vector<int>* fds) {
  const std::vector<char> zeros(1 << 20, 0);
  const uint64_t size = set.file_pages * page_size;
  for (size_t i = 0; i < set.pages.size(); ++i) {
    const std::string path = fmt::format("{}/data-{}", dir, i);
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return fmt::format("open {}: {}", path, std::strerror(errno));
    fds->push_back(fd);
    for (uint64_t at = 0; at < size;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(zeros.size(), size - at));
      const ssize_t w = pwrite(fd, zeros.data(), n, static_cast<off_t>(at));
      if (w <= 0) return fmt::format("fill {}: {}", path, std::strerror(errno));
      at += static_cast<uint64_t>(w);
    }
    // Written back once here, so the cells rewrite allocated, clean blocks.
    if (fdatasync(fd) != 0) return fmt::format("fdatasync {}: {}", path, std::strerror(errno));
    if (direct) {
      const int dfd = open(path.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
      if (dfd < 0) return fmt::format("open O_DIRECT {}: {}", path, std::strerror(errno));
      close(fd);
      fds->back() = dfd;
    }
  }
  return "";
}

void close_files(std::vector<int>* fds) {
  for (int fd : *fds) close(fd);
  fds->clear();
}

namespace {
double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto sec = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return sec(u.ru_utime) + sec(u.ru_stime);
}

// Outstanding flushes of one producer, so it can wait for its round.
struct Outstanding {
  std::mutex mu;
  std::condition_variable cv;
  int n = 0;
  int errors = 0;
};

void keep_peak(WorkerScan* peak, const WorkerScan& s) {
  peak->arm = std::max(peak->arm, s.arm);
  peak->self = std::max(peak->self, s.self);
  peak->system = std::max(peak->system, s.system);
}
}  // namespace

CellResult run_cell(const CellConfig& cfg, const DirtySet& set, const std::vector<int>& fds) {
  CellResult res;
  fenec::ring::RingOptions ro;
  ro.max_bound_workers = cfg.max_bound_workers;
  ro.force_async = cfg.force_async;
  std::unique_ptr<Flusher> f = make_flusher(cfg.arm, ro);
  if (!f) {
    res.error = "unknown arm " + cfg.arm;
    return res;
  }
  if (std::string e = f->error(); !e.empty()) {
    res.error = e;
    return res;
  }

  // Every file's pages, built once: page i of any file carries the same
  // source bytes, so the arms copy exactly the same data.
  // Page-aligned, so the same buffers also serve O_DIRECT files.
  const size_t source_size = set.file_pages * cfg.page_size;
  std::unique_ptr<char, decltype(&std::free)> source(
      static_cast<char*>(std::aligned_alloc(4096, (source_size + 4095) / 4096 * 4096)), &std::free);
  std::mt19937 rng(7);
  for (size_t b = 0; b < source_size; ++b) source.get()[b] = static_cast<char>(rng());
  std::vector<std::vector<Page>> pages(set.pages.size());
  for (size_t i = 0; i < set.pages.size(); ++i) {
    for (uint64_t p : set.pages[i]) {
      pages[i].push_back(Page{p * cfg.page_size, source.get() + p * cfg.page_size, cfg.page_size});
    }
  }

  std::atomic<bool> stop_sampling{false};
  std::mutex peak_mu;
  std::thread sampler([&] {
    for (int tick = 0; !stop_sampling.load(); ++tick) {
      // The system-wide scan reads every task on a shared machine: one in ten.
      const WorkerScan s = scan_workers(f->ring_tids(), tick % 10 == 0);
      {
        std::lock_guard lock(peak_mu);
        keep_peak(&res.peak, s);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });

  const fenec::ring::Counters before = f->counters();
  const double cpu_start = process_cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration<double>(cfg.seconds);
  std::atomic<uint64_t> rounds{0};
  std::atomic<int> errors{0};
  std::vector<std::thread> producers;
  const int np = std::max(1, std::min<int>(cfg.producers, static_cast<int>(fds.size())));
  for (int t = 0; t < np; ++t) {
    producers.emplace_back([&, t] {
      Outstanding out;
      while (std::chrono::steady_clock::now() < deadline && !kit::stop_requested()) {
        for (size_t i = static_cast<size_t>(t); i < fds.size(); i += static_cast<size_t>(np)) {
          {
            std::lock_guard lock(out.mu);
            ++out.n;
          }
          f->flush(fds[i], pages[i], [&out](const fenec::ring::FlushResult& r) {
            std::lock_guard lock(out.mu);
            if (r.error != 0) ++out.errors;
            if (--out.n == 0) out.cv.notify_one();
          });
        }
        std::unique_lock lock(out.mu);
        out.cv.wait(lock, [&] { return out.n == 0; });
        rounds.fetch_add(1);
      }
      errors.fetch_add(out.errors);
    });
  }
  for (std::thread& p : producers) p.join();
  f->drain();
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  res.cpu_seconds = process_cpu_seconds() - cpu_start;
  res.counters = f->counters() - before;
  res.rounds = rounds.load();
  stop_sampling.store(true);
  sampler.join();
  keep_peak(&res.peak, scan_workers(f->ring_tids(), true));  // workers linger briefly: count them too
  if (errors.load() > 0) res.error = fmt::format("{} flushes failed", errors.load());
  return res;
}

}  // namespace fenec::scenarios::commit
