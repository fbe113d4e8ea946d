// What /proc says about the machine a run shares: read beside results,
// because on a shared machine the load explains much of a latency figure.
#pragma once

#include <cstdint>
#include <string>

namespace fenec::kit {

// /proc/loadavg's three averages as it prints them ("0.52 0.61 0.70"), or
// "unknown" where /proc is not readable.
std::string load_average();

// The machine's CPU time so far, all CPUs together, in clock ticks
// (/proc/stat's "cpu" line). Steal is time the hypervisor ran someone else
// while this guest wanted the CPU. ok is false where /proc is not readable.
struct CpuTimes {
  uint64_t total = 0, idle = 0, steal = 0;  // idle includes iowait
  bool ok = false;
};
CpuTimes read_cpu_times();

// The CPU time a process's threads have run so far, seconds, from each
// thread's /proc/PID/task/TID/schedstat (nanoseconds, not clock ticks: a
// short cell's few milliseconds are resolved). -1 where it is not readable.
// A thread that exited before the call is not counted.
double process_cpu_seconds(int pid);

// Kills pid, its process group and every process descended from it, as a
// host's crash would. A group kill alone is not that: fio's job processes
// start sessions of their own, so they outlive their server, keep writing
// and hold its connection open. The tree is stopped before it is killed, so
// none of it forks past the walk. Returns how many processes were sent
// SIGKILL (0 where pid was already gone).
int kill_process_tree(int pid);

}  // namespace fenec::kit
