#include "scenarios/procs/pin.h"

#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

namespace fenec::scenarios::procs {
namespace {

// The CPUs this process could use when it started: what "back" restores.
const cpu_set_t& StartMask() {
  static const cpu_set_t mask = [] {
    cpu_set_t m;
    CPU_ZERO(&m);
    if (sched_getaffinity(0, sizeof(m), &m) != 0) {
      for (int i = 0; i < CPU_SETSIZE; ++i) CPU_SET(i, &m);
    }
    return m;
  }();
  return mask;
}

// 0 or the errno of sched_setaffinity(tid) onto `cpu` (-1: StartMask()).
int SetMask(pid_t tid, int cpu) {
  cpu_set_t m = StartMask();
  if (cpu >= 0) {
    CPU_ZERO(&m);
    CPU_SET(cpu, &m);
  }
  return sched_setaffinity(tid, sizeof(m), &m) == 0 ? 0 : errno;
}

std::string MaskError(pid_t tid, int cpu, int err) {
  return fmt::format("sched_setaffinity({}, cpu {}): {}", tid, cpu, std::strerror(err));
}

}  // namespace

const char* PinName(Pin p) {
  switch (p) {
    case Pin::kSame: return "same";
    case Pin::kApart: return "apart";
    default: return "none";
  }
}

const std::map<std::string, Pin>& PinNames() {
  static const std::map<std::string, Pin> names = {{"same", Pin::kSame}, {"apart", Pin::kApart}, {"none", Pin::kNone}};
  return names;
}

std::string PlacementOf(Pin p, Placement* out) {
  *out = {};
  if (p == Pin::kNone) return "";
  std::vector<int> cpus;
  for (int i = 0; i < CPU_SETSIZE; ++i)
    if (CPU_ISSET(i, &StartMask())) cpus.push_back(i);
  if (cpus.empty()) return "no CPU in this process's affinity mask";
  if (p == Pin::kApart && cpus.size() < 2) return "--pin apart needs 2 CPUs; this process may use 1";
  out->client = cpus[0];
  out->server = p == Pin::kSame ? cpus[0] : cpus[1];
  return "";
}

std::string Describe(Pin p, const Placement& at) {
  if (p == Pin::kNone) return "none";
  return fmt::format("{}: client on CPU {}, server on CPU {}", PinName(p), at.client, at.server);
}

std::string PinProcess(pid_t pid, int cpu) {
  std::error_code ec;
  int pinned = 0;
  for (const auto& task : std::filesystem::directory_iterator(fmt::format("/proc/{}/task", pid), ec)) {
    const pid_t tid = static_cast<pid_t>(std::atoi(task.path().filename().c_str()));
    // A thread that ended since the listing is not an error.
    if (const int err = SetMask(tid, cpu); err != 0 && err != ESRCH) return MaskError(tid, cpu, err);
    ++pinned;
  }
  if (ec) return fmt::format("/proc/{}/task: {}", pid, ec.message());
  return pinned > 0 ? "" : fmt::format("process {} has no threads to pin", pid);
}

std::string PinSelf(int cpu) {
  (void)StartMask();  // read before the first change
  const int err = SetMask(0, cpu);
  return err == 0 ? "" : MaskError(0, cpu, err);
}

std::string Place(Pin p, const Placement& at, const std::vector<pid_t>& servers, bool pinned) {
  if (p == Pin::kNone) return "";
  std::string first = PinSelf(pinned ? at.client : -1);
  for (pid_t pid : servers) {
    std::string err = PinProcess(pid, pinned ? at.server : -1);
    if (first.empty()) first = std::move(err);
  }
  return first;
}

}  // namespace fenec::scenarios::procs
