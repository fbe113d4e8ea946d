// A futex word: sleep until it changes, wake every sleeper. std::atomic's
// wait() in libstdc++ spins and calls sched_yield before it sleeps, which on
// a machine with more threads than cores costs each waiter several context
// switches; these go straight to the kernel.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>

namespace fenec::base {

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t), "a futex is a 32-bit word");

// Returns once *word is not `old` (at once if it is not now); may return
// early (a signal), so callers recheck what they wait for.
inline void FutexWait(std::atomic<uint32_t>* word, uint32_t old) {
  if (word->load(std::memory_order_acquire) != old) return;
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, old, nullptr, nullptr, 0);
}

inline void FutexWakeAll(std::atomic<uint32_t>* word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

}  // namespace fenec::base
