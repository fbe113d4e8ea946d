#include "iobench/kit/machine.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace fenec::kit {
namespace {

// Other work above this share of the CPUs, or steal above this, makes a run
// "busy": a quarter of a 2-CPU box is a whole core's worth of scheduling
// delay for this run's threads half the time.
constexpr double kBusyPct = 25, kStealPct = 2;

double pct(uint64_t part, uint64_t whole) { return whole ? 100.0 * static_cast<double>(part) / whole : 0; }

std::string get(const Metadata& m, const std::string& key) {
  auto it = m.kv.find(key);
  return it == m.kv.end() ? "" : it->second;
}

}  // namespace

MachineSample sample_machine(double seconds) {
  MachineSample s;
  s.loadavg = kit::load_average();
  const kit::CpuTimes a = kit::read_cpu_times();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  s.cpu = kit::read_cpu_times();
  if (a.ok && s.cpu.ok && s.cpu.total > a.total)
    s.others_busy_pct = pct((s.cpu.total - a.total) - (s.cpu.idle - a.idle), s.cpu.total - a.total);
  return s;
}

void record_machine(Metadata& meta, const MachineSample& start, const MachineSample& end) {
  meta.set("loadavg_start", start.loadavg);
  meta.set("loadavg_end", end.loadavg);
  meta.set("cpu_others_busy_pct_start", fmt::format("{:.1f}", start.others_busy_pct));
  meta.set("cpu_others_busy_pct_end", fmt::format("{:.1f}", end.others_busy_pct));
  double steal = 0;
  if (start.cpu.ok && end.cpu.ok && end.cpu.total > start.cpu.total)
    steal = pct(end.cpu.steal - start.cpu.steal, end.cpu.total - start.cpu.total);
  meta.set("cpu_steal_pct", fmt::format("{:.2f}", steal));
  std::string why;
  if (start.others_busy_pct >= kBusyPct)
    why += fmt::format("{}other work held {:.0f}% of the CPUs when the run began", why.empty() ? "" : "; ",
                       start.others_busy_pct);
  if (end.others_busy_pct >= kBusyPct)
    why += fmt::format("{}other work held {:.0f}% of the CPUs when it ended", why.empty() ? "" : "; ",
                       end.others_busy_pct);
  if (steal >= kStealPct)
    why += fmt::format("{}the hypervisor stole {:.1f}% of the CPU time", why.empty() ? "" : "; ", steal);
  meta.set("machine_state", why.empty() ? "quiet" : "busy: " + why);
}

std::string machine_note(const Metadata& meta) {
  const std::string state = get(meta, "machine_state");
  if (state.empty()) return "";
  const std::string cpus = get(meta, "cpus");
  std::string note = fmt::format(
      "Machine: loadavg {} at the start, {} at the end{}; other work {}% / {}% of the CPUs; steal {}%.",
      get(meta, "loadavg_start"), get(meta, "loadavg_end"), cpus.empty() ? "" : " on " + cpus + " CPUs",
      get(meta, "cpu_others_busy_pct_start"), get(meta, "cpu_others_busy_pct_end"), get(meta, "cpu_steal_pct"));
  if (state == "quiet") return note + " Quiet: the figures are this run's own.";
  return note + " **Busy** (" + state.substr(6) + "): figures from this run may be skewed; rerun on a quiet machine.";
}

}  // namespace fenec::kit
