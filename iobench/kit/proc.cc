#include "iobench/kit/proc.h"

#include <signal.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

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

namespace {

// pid and its descendants now, by /proc/PID/stat's parent field (after the
// command's closing parenthesis: a command may hold spaces and parentheses).
std::set<int> process_tree(int root) {
  std::map<int, std::vector<int>> children;
  std::error_code ec;
  for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(it->path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    std::string state;
    int ppid = 0;
    if (rest >> state >> ppid) children[ppid].push_back(std::atoi(name.c_str()));
  }
  std::set<int> tree;
  std::vector<int> todo{root};
  while (!todo.empty()) {
    const int p = todo.back();
    todo.pop_back();
    if (!tree.insert(p).second) continue;
    for (int c : children[p]) todo.push_back(c);
  }
  return tree;
}

}  // namespace

int kill_process_tree(int pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return 0;
  ::kill(-pid, SIGSTOP);
  // Stopped processes cannot fork; walk again until the tree stops growing.
  std::set<int> tree;
  for (int round = 0; round < 8; ++round) {
    std::set<int> now = process_tree(pid);
    for (int p : now) ::kill(p, SIGSTOP);
    if (now == tree) break;
    tree = std::move(now);
  }
  int killed = 0;
  ::kill(-pid, SIGKILL);
  for (int p : tree) killed += ::kill(p, SIGKILL) == 0;
  return killed;
}

}  // namespace fenec::kit
