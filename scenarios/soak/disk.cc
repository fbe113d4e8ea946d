#include "scenarios/soak/disk.h"

#include <fcntl.h>
#include <httplib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <simdjson.h>

namespace fenec::scenarios::soak {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// Writes `size`-byte chunks of zeros until the file system refuses one (or
// `cut`); returns the errno that ended it, 0 when cut. A short write is the
// last blocks: the next one is refused.
int WriteUntilRefused(int fd, size_t size, const std::function<bool()>& cut, uint64_t* bytes) {
  static const std::vector<char> zeros(size_t{1} << 20, 0);
  size = std::min(size, zeros.size());
  while (!cut()) {
    const ssize_t n = ::write(fd, zeros.data(), size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    *bytes += static_cast<uint64_t>(n);
  }
  return 0;
}

}  // namespace

void FillFigures::Add(const FillFigures& o) {
  ran = ran || o.ran;
  filler_bytes += o.filler_bytes;
  fill_s += o.fill_s;
  full_s += o.full_s;
  refused += o.refused;
  accepted_full += o.accepted_full;
  accepted_after_free += o.accepted_after_free;
  health_checks += o.health_checks;
  health_no_space += o.health_no_space;
  health_other += o.health_other;
  resume_ms = std::max(resume_ms, o.resume_ms);  // the slowest resumption
  if (error.empty()) error = o.error;
}

void DiskWindow::Open(TimePoint from) {
  std::lock_guard<std::mutex> lock(mu_);
  open_ = true;
  from_ = from;
  freed_ = TimePoint::max();
  first_after_free_ = TimePoint::max();
  f_ = FillFigures{};
}

void DiskWindow::Filled() { full_ = true; }

void DiskWindow::Freed(TimePoint at) {
  std::lock_guard<std::mutex> lock(mu_);
  full_ = false;
  freed_ = at;
}

bool DiskWindow::Put(TimePoint sent, TimePoint answered, bool accepted) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!open_) return accepted;
  if (accepted) {
    if (answered >= freed_) {
      ++f_.accepted_after_free;
      first_after_free_ = std::min(first_after_free_, answered);
    } else if (answered >= from_) {
      ++f_.accepted_full;
    }
    return true;
  }
  // Answered once space was being taken, sent before the space had been back for kResumeGrace.
  const bool expected = answered >= from_ && (freed_ == TimePoint::max() || sent <= freed_ + kResumeGrace);
  if (expected) ++f_.refused;
  return expected;
}

FillFigures DiskWindow::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  FillFigures out = f_;
  if (freed_ != TimePoint::max() && first_after_free_ != TimePoint::max()) {
    out.resume_ms = Seconds(first_after_free_ - freed_) * 1e3;
  }
  open_ = false;
  full_ = false;
  f_ = FillFigures{};
  return out;
}

Health AskHealth(int port) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_connection_timeout(2, 0);
  cli.set_read_timeout(5, 0);
  auto r = cli.Get("/health");
  if (!r) return Health::kOther;
  if (r->status == 200) return Health::kOk;
  if (r->status != 503) return Health::kOther;
  simdjson::dom::parser parser;
  simdjson::padded_string text(r->body);
  std::string_view status;
  if (parser.parse(text)["status"].get(status) || status != "no_space") return Health::kOther;
  return Health::kNoSpace;
}

FillFigures Fill(const FillPlan& p, DiskWindow* window, const std::function<bool()>& stop) {
  FillFigures f;
  auto cut = [&] { return stop() || Clock::now() >= p.free_by; };
  while (Clock::now() < p.start && !cut()) {
    std::this_thread::sleep_until(std::min(p.start, Clock::now() + std::chrono::milliseconds(100)));
  }
  if (cut()) {
    f.error = "the run ended before the fill's time";
    return f;
  }
  const auto t0 = Clock::now();
  window->Open(t0);
  const int fd = ::open(p.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    f.error = fmt::format("create {}: {}", p.path, std::strerror(errno));
    window->Freed(Clock::now());
    return f;
  }
  // Big writes, then small ones for the last blocks the big ones left.
  int err = WriteUntilRefused(fd, size_t{1} << 20, cut, &f.filler_bytes);
  if (err == ENOSPC || err == EDQUOT) err = WriteUntilRefused(fd, 4096, cut, &f.filler_bytes);
  const bool full = err == ENOSPC || err == EDQUOT;
  // Its blocks on the device: a full disk the server cannot talk its way past
  // (ext4 counts delayed allocations against free space already).
  if (full && ::fsync(fd) != 0 && errno != ENOSPC) f.error = fmt::format("fsync the filler: {}", std::strerror(errno));
  ::close(fd);
  const auto filled = Clock::now();
  f.fill_s = Seconds(filled - t0);
  if (!full) {
    f.error = err != 0 ? fmt::format("the filler's write failed: {}", std::strerror(err))
                       : "cut short before the disk was full (the fill's time ran out, or a stop)";
  } else {
    f.ran = true;
    window->Filled();
    // Full until hold_s has passed and the server has said so (it does once a
    // write needed room it could not make), or free_by.
    const auto held = filled + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(p.hold_s));
    bool said = false;
    while (!stop() && Clock::now() < p.free_by && !(said && Clock::now() >= held)) {
      const Health h = AskHealth(p.port);
      ++f.health_checks;
      f.health_no_space += h == Health::kNoSpace ? 1 : 0;
      f.health_other += h == Health::kOther ? 1 : 0;
      said = said || h == Health::kNoSpace;
      std::this_thread::sleep_until(std::min(p.free_by, Clock::now() + std::chrono::milliseconds(50)));
    }
  }
  if (::unlink(p.path.c_str()) != 0 && f.error.empty()) {
    f.error = fmt::format("remove {}: {}", p.path, std::strerror(errno));
  }
  const auto freed = Clock::now();
  window->Freed(freed);
  f.full_s = f.ran ? Seconds(freed - filled) : 0;
  return f;
}

}  // namespace fenec::scenarios::soak
