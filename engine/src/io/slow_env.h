// SlowSyncEnv: a slow disk for benches (JR-2's "far better on a slow disk").
//
// Wraps any Env and its Files; each file Sync (fdatasync) first sleeps a
// fixed number of microseconds, then syncs through the wrapped file.
// Everything else passes straight through, with no copy of the data, so a
// bench measures the engine and the delay, not the wrapper (FaultEnv, which
// keeps every unsynced write's old bytes, is far too heavy for that).
// Directory syncs are not delayed: the journal's rotations are rare.
// counters() are the wrapped Env's; delayed_syncs() counts the sleeps.
#pragma once

#include <atomic>
#include <cstdint>

#include "fenec/env.h"

namespace fenec {

class SlowSyncEnv final : public EnvWrapper {
 public:
  explicit SlowSyncEnv(Env* base = Env::Default(), uint32_t sync_delay_us = 0)
      : EnvWrapper(base), delay_us_(sync_delay_us) {}

  void SetSyncDelay(uint32_t micros) { delay_us_.store(micros, std::memory_order_relaxed); }
  uint32_t sync_delay_us() const { return delay_us_.load(std::memory_order_relaxed); }
  // File syncs that slept the delay first (a delay of 0 sleeps none).
  uint64_t delayed_syncs() const { return delayed_.load(std::memory_order_relaxed); }
  // What those sleeps asked for, in microseconds (requested, not measured).
  uint64_t delayed_us() const { return delayed_us_.load(std::memory_order_relaxed); }

  Status Open(const std::string& path, OpenMode mode, std::unique_ptr<File>* out) override;

  // Used by its Files: sleeps the delay (if any) and counts it.
  void BeforeSync();

 private:
  std::atomic<uint32_t> delay_us_;
  std::atomic<uint64_t> delayed_{0}, delayed_us_{0};
};

}  // namespace fenec
