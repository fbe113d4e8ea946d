// load-bench's input: see data.h.
#include "scenarios/load/data.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <random>

#include <fmt/format.h>

namespace fenec::scenarios::load {
namespace {

constexpr size_t kReadBlock = 4u << 20;
constexpr const char* kWords[] = {"alpha", "bravo", "charlie", "delta",  "echo", "foxtrot", "golf",     "hotel",
                                  "india", "juliett", "kilo",  "lima",   "mike", "november", "oscar", "papa"};

// Writes all of `s` to fd; "" or why not.
std::string write_all(int fd, const std::string& s, const std::string& path) {
  size_t at = 0;
  while (at < s.size()) {
    const ssize_t w = ::write(fd, s.data() + at, s.size() - at);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return fmt::format("write {}: {}", path, std::strerror(errno));
    at += static_cast<size_t>(w);
  }
  return "";
}

}  // namespace

const char* format_name(Format f) { return f == Format::kCsv ? "csv" : "jsonl"; }

std::string write_rows(const DataSpec& spec, Format format, const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return fmt::format("open {}: {}", path, std::strerror(errno));
  std::mt19937_64 rng(spec.seed);
  std::normal_distribution<float> unit(0.0f, 1.0f), noise(0.0f, spec.spread);
  const size_t clusters = std::max<size_t>(spec.clusters, 1);
  std::vector<float> centers(clusters * spec.dim);
  for (float& c : centers) c = unit(rng);
  std::uniform_int_distribution<size_t> pick(0, clusters - 1), word(0, std::size(kWords) - 1);
  std::uniform_int_distribution<int64_t> number(0, (int64_t{1} << 40) - 1);

  const bool csv = format == Format::kCsv;
  std::string out = csv ? "body,n,vec\n" : "";
  std::string err;
  for (size_t i = 0; i < spec.rows && err.empty(); ++i) {
    const char *a = kWords[word(rng)], *b = kWords[word(rng)], *c = kWords[word(rng)], *d = kWords[word(rng)];
    // The quoted word's quotes in each format's own escaping.
    if (csv) {
      fmt::format_to(std::back_inserter(out), "\"item {}: {} {}, \"\"{}\"\" {}\",{},\"[", i + 1, a, b, c, d,
                     number(rng));
    } else {
      fmt::format_to(std::back_inserter(out), "{{\"body\":\"item {}: {} {}, \\\"{}\\\" {}\",\"n\":{},\"vec\":[", i + 1,
                     a, b, c, d, number(rng));
    }
    const float* center = &centers[pick(rng) * spec.dim];
    for (uint32_t j = 0; j < spec.dim; ++j) {
      if (j) out.push_back(',');
      fmt::format_to(std::back_inserter(out), "{}", center[j] + noise(rng));
    }
    out += csv ? "]\"\n" : "]}\n";
    if (out.size() >= kReadBlock) {
      err = write_all(fd, out, path);
      out.clear();
    }
  }
  if (err.empty()) err = write_all(fd, out, path);
  if (::close(fd) != 0 && err.empty()) err = fmt::format("close {}: {}", path, std::strerror(errno));
  return err;
}

LineReader::LineReader(const std::string& path, Format format) : format_(format) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) error_ = fmt::format("open {}: {}", path, std::strerror(errno));
  buf_.resize(kReadBlock + kPad);
}

LineReader::~LineReader() {
  if (fd_ >= 0) ::close(fd_);
}

bool LineReader::Fill() {
  if (eof_ || fd_ < 0) return false;
  // Unread bytes move to the front; the buffer doubles when a line outgrows it.
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (buf_.size() - kPad - end_ < kReadBlock / 2) buf_.resize(std::max(buf_.size() * 2, end_ + kReadBlock + kPad));
  for (;;) {
    const ssize_t r = ::read(fd_, buf_.data() + end_, buf_.size() - kPad - end_);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      error_ = fmt::format("read: {}", std::strerror(errno));
      return false;
    }
    if (r == 0) {
      eof_ = true;
      return false;
    }
    end_ += static_cast<size_t>(r);
    std::memset(buf_.data() + end_, ' ', kPad);  // what simdjson may read past a document
    return true;
  }
}

bool LineReader::Next(size_t n, std::vector<std::string_view>* lines) {
  lines->clear();
  if (!error_.empty()) return false;
  // Lines already handed out are done with: from here on their bytes may move.
  while (lines->size() < n && handed_ < limit_) {
    const char* from = buf_.data() + begin_;
    const void* nl = std::memchr(from, '\n', end_ - begin_);
    if (nl == nullptr) {
      if (!lines->empty()) break;  // hand out what is whole; the rest next call
      if (Fill()) continue;
      if (!error_.empty()) return false;
      if (begin_ == end_) break;
      nl = buf_.data() + end_;  // a last line without '\n'
    }
    const size_t len = static_cast<size_t>(static_cast<const char*>(nl) - from);
    begin_ = std::min(end_, begin_ + len + 1);
    if (!header_done_ && format_ == Format::kCsv) {
      header_done_ = true;
      continue;
    }
    header_done_ = true;
    if (len == 0) continue;
    lines->emplace_back(from, len);
    ++handed_;
  }
  return !lines->empty();
}

int64_t count_rows(const std::string& path, Format format) {
  LineReader r(path, format);
  std::vector<std::string_view> lines;
  int64_t n = 0;
  while (r.Next(4096, &lines)) n += static_cast<int64_t>(lines.size());
  return r.error().empty() ? n : -1;
}

}  // namespace fenec::scenarios::load
