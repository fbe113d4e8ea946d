// The machine's state around a run. The figures of a run taken while other
// work shared the CPUs, or while the hypervisor stole them, are not the
// disk's or the engine's alone: each run records the load and the CPU steal
// at its start and its end, and its report says plainly when it was busy.
#pragma once

#include <string>

#include "iobench/kit/proc.h"
#include "iobench/kit/results.h"

namespace fenec::kit {

struct MachineSample {
  std::string loadavg;        // /proc/loadavg's three averages
  double others_busy_pct = 0; // share of all CPUs busy during a short idle wait of this run's
  kit::CpuTimes cpu;         // for the steal over the run
};

// Waits `seconds` doing nothing and measures how busy the CPUs were meanwhile:
// with the run itself idle, that is everybody else.
MachineSample sample_machine(double seconds = 0.2);

// Writes loadavg_start/_end, cpu_others_busy_pct_start/_end and
// cpu_steal_pct (over the whole run) into the metadata, and machine_state:
// "quiet" or "busy: <why>".
void record_machine(Metadata& meta, const MachineSample& start, const MachineSample& end);

// One line for the report from those keys; "" if they are absent.
std::string machine_note(const Metadata& meta);

}  // namespace fenec::kit
