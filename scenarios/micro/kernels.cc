#include "scenarios/micro/kernels.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <random>

namespace fenec::scenarios::micro {

Graph make_graph(size_t nodes, uint64_t seed, size_t hub_every, size_t hub_degree) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<uint32_t> any(0, static_cast<uint32_t>(nodes - 1));
  std::uniform_int_distribution<size_t> degree(10, 20);
  Graph g;
  g.offsets.reserve(nodes + 1);
  g.offsets.push_back(0);
  for (size_t i = 0; i < nodes; ++i) {
    const size_t d = (hub_every > 0 && i % hub_every == 0) ? hub_degree : degree(rng);
    for (size_t k = 0; k < d; ++k) g.edges.push_back(any(rng));
    g.offsets.push_back(static_cast<uint32_t>(g.edges.size()));
  }
  return g;
}

void register_per_item(std::span<const uint64_t> items, std::vector<uint64_t>& queue,
                       std::atomic<int64_t>& count) {
  for (uint64_t item : items) {
    queue.push_back(item);
    count.fetch_add(1);
  }
}

void register_per_batch(std::span<const uint64_t> items, std::vector<uint64_t>& queue,
                        std::atomic<int64_t>& count) {
  int64_t n = 0;
  for (uint64_t item : items) {
    queue.push_back(item);
    ++n;
  }
  count.fetch_add(n);
}

namespace {
constexpr size_t kLineCapacity = 256;

bool search(const std::regex& re, std::string_view line, MatchScratch& s) {
  s.folded.clear();
  for (char c : line) s.folded.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  const char* text = s.folded.data();
  return std::regex_search(text, text + s.folded.size(), s.m, re);
}
}  // namespace

MatchScratch::MatchScratch() { folded.reserve(kLineCapacity); }

SharedMatcher::SharedMatcher(const std::string& pattern)
    : re_(pattern, std::regex::ECMAScript | std::regex::optimize) {}

SharedMatcher::~SharedMatcher() { delete cached_.load(); }

bool SharedMatcher::match(std::string_view line) {
  MatchScratch* s = cached_.exchange(nullptr, std::memory_order_acquire);
  if (s == nullptr) {
    s = new MatchScratch();
    fresh_.fetch_add(1, std::memory_order_relaxed);
  }
  const bool hit = search(re_, line, *s);
  MatchScratch* expected = nullptr;
  if (!cached_.compare_exchange_strong(expected, s, std::memory_order_release)) delete s;
  return hit;
}

LocalMatcher::LocalMatcher(const std::string& pattern)
    : re_(pattern, std::regex::ECMAScript | std::regex::optimize) {}

bool LocalMatcher::match(std::string_view line) { return search(re_, line, scratch_); }

std::vector<std::string> make_lines(size_t count, uint64_t seed) {
  static const char* kWords[] = {"GET", "POST", "request", "from", "session", "Username", "IDs",
                                 "token", "ok", "latency", "shard", "index", "commit"};
  std::mt19937_64 rng(seed);
  std::vector<std::string> lines;
  lines.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    std::string line = fmt::format("2025-01-{:02} {:06} ", 1 + rng() % 28, rng() % 1000000);
    const size_t words = 6 + rng() % 8;
    const size_t user_at = rng() % 10 == 0 ? rng() % words : words;
    for (size_t w = 0; w < words; ++w) {
      line += w == user_at ? "  User Id " : kWords[rng() % std::size(kWords)];
      line += ' ';
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

std::string make_string_file(const std::string& path, size_t count, uint64_t seed, StringFile* out) {
  std::mt19937_64 rng(seed);
  std::string data;
  out->offsets.clear();
  for (size_t i = 0; i < count; ++i) {
    const size_t len = 4 + rng() % 29;
    out->offsets.push_back(data.size());
    data.push_back(static_cast<char>(len));
    for (size_t k = 0; k < len; ++k) data.push_back(static_cast<char>('a' + rng() % 26));
  }
  std::shuffle(out->offsets.begin(), out->offsets.end(), rng);
  const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0) return fmt::format("open {}: {}", path, std::strerror(errno));
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      return fmt::format("write {}: {}", path, std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    return fmt::format("fsync {}: {}", path, std::strerror(err));
  }
  ::close(fd);
  out->path = path;
  out->bytes = data.size();
  return "";
}

namespace {

constexpr size_t kMaxRecord = 33;

std::string_view record_at(const char* base, uint64_t off) {
  return {base + off + 1, static_cast<size_t>(static_cast<unsigned char>(base[off]))};
}

// Sorts by the string each offset points to; ties by offset so every arm ends
// in the same order (the tests compare them).
template <class Get>
void sort_offsets(std::vector<uint64_t>& offsets, Get get) {
  std::sort(offsets.begin(), offsets.end(), [&](uint64_t a, uint64_t b) {
    const auto sa = get(a), sb = get(b);
    return sa != sb ? sa < sb : a < b;
  });
}

}  // namespace

std::string sort_by_pread(int fd, std::vector<uint64_t>& offsets, uint64_t* preads) {
  std::string error;
  uint64_t calls = 0;
  // Two buffers: both sides of a comparison must outlive each other's read.
  char buf[2][kMaxRecord];
  int which = 0;
  sort_offsets(offsets, [&](uint64_t off) -> std::string_view {
    char* b = buf[which ^= 1];
    ++calls;
    const ssize_t n = ::pread(fd, b, kMaxRecord, static_cast<off_t>(off));
    if (n <= 0) {
      if (error.empty()) error = fmt::format("pread at {}: {}", off, n < 0 ? std::strerror(errno) : "EOF");
      return {};
    }
    const size_t len = std::min<size_t>(static_cast<unsigned char>(b[0]), static_cast<size_t>(n) - 1);
    return {b + 1, len};
  });
  if (preads != nullptr) *preads += calls;
  return error;
}

std::string sort_by_read(int fd, uint64_t bytes, std::vector<uint64_t>& offsets) {
  std::string data(bytes, '\0');
  size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::pread(fd, data.data() + done, bytes - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fmt::format("read: {}", n < 0 ? std::strerror(errno) : "short file");
    done += static_cast<size_t>(n);
  }
  sort_offsets(offsets, [&](uint64_t off) { return record_at(data.data(), off); });
  return "";
}

std::string sort_by_mmap(int fd, uint64_t bytes, std::vector<uint64_t>& offsets) {
  void* p = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) return fmt::format("mmap: {}", std::strerror(errno));
  const char* base = static_cast<const char*>(p);
  sort_offsets(offsets, [&](uint64_t off) { return record_at(base, off); });
  ::munmap(p, bytes);
  return "";
}

}  // namespace fenec::scenarios::micro
