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

}  // namespace fenec::kit
