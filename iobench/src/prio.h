// The I/O-priority workload, shared by advise's priority control and
// journals-bench's JR-3: a journal writer's fdatasync latency while
// background O_DIRECT writes saturate the device, the background at the
// journal's own I/O priority, at best-effort level 7, or in the IDLE class.
//
// The journal: one thread appending 4 KiB records to a fresh file with
// buffered pwrite + fdatasync, one at a time, as fenecdb's journal does
// (no preallocation, so each fdatasync also commits the new size).
// The background: O_DIRECT writes of `chunk` bytes over a data file written
// once before the cells, `depth` in flight, by `depth` threads of pwrite
// (each thread's priority set with ioprio_set(2) as `ionice` does), or by a
// caller's own Background (journals-bench feeds the engine's ring).
// Direct I/O because a priority reaches the disk only with the submitter's
// request: buffered writes go out later through writeback threads at theirs.
//
// The positive control: two plain O_DIRECT writers of depth threads each,
// the second at the first's priority or in the IDLE class (`ionice -c3`),
// each one's MB/s: if the IDLE writer's share does not fall, this device and
// scheduler cannot show priority at all.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/src/base/histogram.h"

namespace fenec::iobench::prio {

// The background's priority, relative to the journal's (the task default, BE/4).
enum class BgPrio { kNone, kEqual, kBe7, kIdle };  // kNone: no background (journal alone)
const std::vector<std::string>& bg_prio_names();   // "alone", "equal", "be7", "idle"
bool parse_bg_prio(const std::string& name, BgPrio* out);
const char* bg_prio_name(BgPrio p);
// The ioprio value a background puts on its I/O: 0 (the task's own) for
// kEqual, IOPRIO_PRIO_VALUE(BE, 7) for kBe7 (the engine ring's default,
// which journals-bench's test holds it to), IOPRIO_PRIO_VALUE(IDLE, 0) for kIdle.
uint16_t ioprio_of(BgPrio p);
// ioprio_set(IOPRIO_WHO_PROCESS, 0, v) on the calling thread ("" or why not).
std::string set_thread_ioprio(uint16_t v);
// The calling thread's ioprio_get value.
int thread_ioprio();

struct PrioConfig {
  std::string dir;                  // on the device under test (created)
  double seconds = 1;               // measured window a cell
  double warmup = 0.1;              // background running before the window opens
  uint32_t chunk = 512 << 10;       // bytes a background write
  int depth = 4;                    // background writes in flight
  uint64_t data_bytes = 64ull << 20;  // the data file the background overwrites
  uint32_t record = 4096;           // bytes a journal append
  bool (*stop)() = nullptr;         // polled (kit::stop_requested); may be null
};

// Writes the data file (once per device; the cells overwrite it, so no
// cell allocates blocks or converts extents). "" or why not.
std::string prepare_data_file(const PrioConfig& cfg);
// The file the cells overwrite.
std::string data_file_path(const PrioConfig& cfg);

// The first error any worker thread met; the cell reports it.
class FirstError {
 public:
  void set(const std::string& e);
  std::string get();

 private:
  std::mutex mu_;
  std::string error_;
};

// A background writer, running from construction until Stop().
class Background {
 public:
  virtual ~Background() = default;
  virtual void Stop() = 0;
  virtual uint64_t bytes() const = 0;  // completed so far
};
// `threads` threads of O_DIRECT pwrite over [base, base + span) of the data
// file, each at ioprio `prio` (0: left as the thread starts).
std::unique_ptr<Background> direct_writers(const PrioConfig& cfg, int threads, uint16_t prio, uint64_t base,
                                           uint64_t span, FirstError* err);
// What runs the background of a journal cell at a priority; null: direct_writers, depth threads.
using BackgroundFactory = std::function<std::unique_ptr<Background>(const PrioConfig&, uint16_t prio, FirstError*)>;

struct JournalCell {
  std::string error;
  base::Histogram sync_ns;  // each journal fdatasync
  uint64_t commits = 0;
  double seconds = 0;       // the window
  uint64_t bg_bytes = 0;    // background bytes completed in the window
  double bg_mb_per_s() const { return seconds > 0 ? static_cast<double>(bg_bytes) / seconds / 1e6 : 0; }
};
JournalCell run_journal_cell(const PrioConfig& cfg, BgPrio prio, const BackgroundFactory& background = nullptr);

struct ControlCell {
  std::string error;
  double seconds = 0;
  uint64_t normal_bytes = 0, low_bytes = 0;  // the BE writer's, the other one's
  // The BE writer's share of the bytes: ~0.5 when both are equal, towards 1
  // when the other is held back. Judged on this, not on the low writer's
  // share, because that one is often exactly 0 under IDLE, and a ratio's
  // interval (taken on logs) cannot hold a 0.
  double normal_share() const {
    const double all = static_cast<double>(normal_bytes + low_bytes);
    return all > 0 ? static_cast<double>(normal_bytes) / all : 0;
  }
};
// idle=false: both writers at the task default; true: the second ionice -c3.
ControlCell run_control_cell(const PrioConfig& cfg, bool idle);

}  // namespace fenec::iobench::prio
