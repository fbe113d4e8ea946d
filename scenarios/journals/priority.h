// journals-bench's JR-3 workload: a journal writer's fdatasync latency while
// background data-file flushes saturate the device, the flushes at the
// journal's own I/O priority, at best-effort level 7, or in the IDLE class.
//
// The journal: one thread appending 4 KiB records to a fresh file with
// buffered pwrite + fdatasync, one at a time, as fenecdb's journal does
// (no preallocation, so each fdatasync also commits the new size).
// The flushes: O_DIRECT writes of --jr3-chunk bytes over a data file written
// once before the cell, --jr3-depth in flight, by one of
//   threads  depth threads of pwrite, each thread's priority set with
//            ioprio_set(2) as `ionice` does;
//   ring     the engine's own ring (engine/src/ring/global_ring.h, the
//            DataFlush::kGlobalRing path), each sqe carrying the priority
//            (RingOptions::ioprio; BE/7 is the engine's default).
// Direct I/O because a priority reaches the disk only with the submitter's
// request: buffered writes go out later through writeback threads at theirs.
//
// The positive control: two plain O_DIRECT writers of depth threads each,
// the second at the first's priority or in the IDLE class (`ionice -c3`),
// each one's MB/s: if the IDLE writer's share does not fall, this device and
// scheduler cannot show priority at all, and JR-3 cannot be judged on it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/src/base/histogram.h"

namespace fenec::scenarios::journals {

// The background's priority, relative to the journal's (the task default, BE/4).
enum class BgPrio { kNone, kEqual, kBe7, kIdle };  // kNone: no background (journal alone)
const std::vector<std::string>& bg_prio_names();   // "alone", "equal", "be7", "idle"
bool parse_bg_prio(const std::string& name, BgPrio* out);
const char* bg_prio_name(BgPrio p);
// The ioprio value a flusher puts on its I/O: 0 (the task's own) for
// kEqual, IOPRIO_PRIO_VALUE(BE, 7) for kBe7, IOPRIO_PRIO_VALUE(IDLE, 0) for kIdle.
uint16_t ioprio_of(BgPrio p);
// ioprio_set(IOPRIO_WHO_PROCESS, 0, v) on the calling thread ("" or why not).
std::string set_thread_ioprio(uint16_t v);
// The calling thread's ioprio_get value.
int thread_ioprio();

enum class Flusher { kThreads, kRing };
const std::vector<std::string>& flusher_names();  // "threads", "ring"
bool parse_flusher(const std::string& name, Flusher* out);

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

struct JournalCell {
  std::string error;
  base::Histogram sync_ns;  // each journal fdatasync
  uint64_t commits = 0;
  double seconds = 0;       // the window
  uint64_t bg_bytes = 0;    // background bytes completed in the window
  double bg_mb_per_s() const { return seconds > 0 ? static_cast<double>(bg_bytes) / seconds / 1e6 : 0; }
};
JournalCell run_journal_cell(const PrioConfig& cfg, BgPrio prio, Flusher flusher);

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

}  // namespace fenec::scenarios::journals
