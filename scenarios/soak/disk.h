// The soak's disk that fills and frees: the server's folder on a file
// system of its own (kit::LoopFs, ext4), which a filler fills to ENOSPC in
// some cycles' loaded phase, while the clients write, and removes a few
// seconds later.
//
// A full disk refuses writes with 507 `no_space` before they land (reads go
// on, /health says no_space) and they resume by themselves once space
// returns (engine/doc/journal.md, "A full disk"). So the clients take a 507
// no_space as an expected refusal only inside a fill's window (DiskWindow):
// answered after the filler began taking space, sent before its removal +
// kResumeGrace. Any other 5xx, or a 507 outside the window, stays a problem.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

namespace fenec::scenarios::soak {

using TimePoint = std::chrono::steady_clock::time_point;

// How long after the space returns a refused put is still the full disk's:
// the server retries room at most every 100 ms, so a put refused a second
// after the filler went means writes did not resume.
inline constexpr auto kResumeGrace = std::chrono::seconds(1);

// One fill's figures.
struct FillFigures {
  bool ran = false;             // the filler filled the disk (else `error` says why not)
  uint64_t filler_bytes = 0;    // what it wrote before ENOSPC
  double fill_s = 0;            // from its first byte to ENOSPC and its fsync
  double full_s = 0;            // from filled to its removal
  uint64_t refused = 0;         // puts refused 507 no_space inside the window
  uint64_t accepted_full = 0;   // puts accepted while full (room the server had ahead)
  uint64_t accepted_after_free = 0;  // puts accepted once the filler went (writes resumed)
  uint64_t health_checks = 0;   // /health asked between the fill and the removal
  uint64_t health_no_space = 0; // ... that answered 503 no_space
  uint64_t health_other = 0;    // ... that answered neither 200 nor 503 no_space (a problem)
  // From the filler's removal to the first put accepted after it, on the
  // clients' clock (their answer's time); -1 when no put was accepted after it.
  double resume_ms = -1;
  std::string error;            // the filler could not fill (or was cut short)
  void Add(const FillFigures& o);
};

// The clients' view of the current fill: which 507s are expected, and the
// puts' counts and times the fill's figures take.
class DiskWindow {
 public:
  // A fill begins: space is being taken from `from` on.
  void Open(TimePoint from);
  // The filler met ENOSPC: the disk is full until Freed.
  void Filled();
  // Full now: the clients' puts go fat (acked.h's kFatKeys).
  bool Full() const { return full_.load(std::memory_order_relaxed); }
  // The filler is gone, at `at`.
  void Freed(TimePoint at);
  // A put sent at `sent`, answered at `answered`: accepted (2xx), or refused
  // 507 with code no_space. Returns whether the refusal was expected (inside
  // the window); an accepted put returns true.
  bool Put(TimePoint sent, TimePoint answered, bool accepted);
  // The fill's counts so far (refused, accepted_full, resume_ms), and closes
  // the window: a 507 after this is a problem.
  FillFigures Close();

 private:
  std::mutex mu_;
  std::atomic<bool> full_{false};
  bool open_ = false;
  TimePoint from_{}, freed_ = TimePoint::max();
  FillFigures f_;
  TimePoint first_after_free_ = TimePoint::max();
};

struct FillPlan {
  std::string path;                 // the filler file, on the server's file system
  TimePoint start, free_by; // fill from `start`; removed by `free_by` at the latest
  double hold_s = 2;                // full at least this long once filled
  int port = 0;                     // the server, for /health
};

// Fills plan.path to ENOSPC (1 MiB writes, then 4 KiB ones, fsync'ed),
// polls /health while full, keeps the disk full hold_s and until /health
// said no_space (or free_by comes), then removes the file. The file is
// removed on every way out (free_by, stop, an error). Opens and frees the
// window; the clients' counts are the caller's to take (DiskWindow::Close).
FillFigures Fill(const FillPlan& plan, DiskWindow* window, const std::function<bool()>& stop);

// /health's answer: 200, 503 with status no_space, anything else.
enum class Health { kOk, kNoSpace, kOther };
Health AskHealth(int port);

}  // namespace fenec::scenarios::soak
