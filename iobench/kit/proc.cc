#include "iobench/kit/proc.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fenec::kit {

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  if (!(in >> a >> b >> c)) return "unknown";
  return a + " " + b + " " + c;
}

CpuTimes read_cpu_times() {
  CpuTimes t;
  std::ifstream in("/proc/stat");
  std::string line;
  if (!std::getline(in, line) || line.rfind("cpu ", 0) != 0) return t;
  std::istringstream fields(line.substr(4));
  // user nice system idle iowait irq softirq steal (guest time is inside user)
  uint64_t v[8] = {};
  for (uint64_t& x : v)
    if (!(fields >> x)) return t;
  for (uint64_t x : v) t.total += x;
  t.idle = v[3] + v[4];
  t.steal = v[7];
  t.ok = true;
  return t;
}

double process_cpu_seconds(int pid) {
  std::error_code ec;
  std::filesystem::directory_iterator it("/proc/" + std::to_string(pid) + "/task", ec), end;
  if (ec) return -1;
  uint64_t ns = 0;
  bool any = false;
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    std::ifstream in(it->path() / "schedstat");
    uint64_t run = 0;
    if (in >> run) {
      ns += run;
      any = true;
    }
  }
  return any ? static_cast<double>(ns) / 1e9 : -1;
}

}  // namespace fenec::kit
