// The fleet's hosts as the user names them, and the local fio processes it
// starts: each in a process group of its own, so a Ctrl-C at the terminal
// reaches iobench alone and iobench winds fio down itself (SIGINT first:
// fio's client then tells its servers to stop their jobs).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

#include "iobench/src/fleet.h"

extern char** environ;

namespace fenec::iobench::fleet {
namespace {

using Clock = std::chrono::steady_clock;

bool parse_port(const std::string& text, unsigned* port) {
  if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos) return false;
  const unsigned long v = std::stoul(text);
  if (v == 0 || v > 65535) return false;
  *port = static_cast<unsigned>(v);
  return true;
}

bool parse_host(const std::string& item, Host* h, std::string* why) {
  std::string addr = item, port;
  if (!item.empty() && item.front() == '[') {  // [v6]:port
    const size_t close = item.find(']');
    if (close == std::string::npos) return *why = fmt::format("'{}': no ']' after an IPv6 address", item), false;
    addr = item.substr(1, close - 1);
    if (close + 1 < item.size()) {
      if (item[close + 1] != ':') return *why = fmt::format("'{}': want [address]:port", item), false;
      port = item.substr(close + 2);
      if (port.empty()) return *why = fmt::format("'{}': no port after ':'", item), false;
    }
  } else if (const size_t colon = item.rfind(':'); colon != std::string::npos) {
    if (item.find(':') != colon) return *why = fmt::format("'{}': write an IPv6 address as [address]:port", item), false;
    addr = item.substr(0, colon);
    port = item.substr(colon + 1);
    if (port.empty()) return *why = fmt::format("'{}': no port after ':'", item), false;
  }
  if (addr.empty()) return *why = fmt::format("'{}': no host", item), false;
  if (addr.find_first_of(", \t") != std::string::npos)
    return *why = fmt::format("'{}': a host name has no blanks or commas", item), false;
  h->addr = addr;
  if (!port.empty() && !parse_port(port, &h->port))
    return *why = fmt::format("'{}': port '{}' is not 1..65535", item, port), false;
  return true;
}

}  // namespace

std::string Host::label() const {
  return addr.find(':') != std::string::npos ? fmt::format("[{}]:{}", addr, port) : fmt::format("{}:{}", addr, port);
}

bool parse_hosts(const std::string& text, std::vector<Host>* out, std::string* why) {
  out->clear();
  for (size_t pos = 0; pos <= text.size();) {
    size_t comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(pos, comma - pos);
    while (!item.empty() && item.front() == ' ') item.erase(0, 1);
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (item.empty()) return *why = "an empty host in the list", false;
    Host h;
    if (!parse_host(item, &h, why)) return false;
    out->push_back(h);
    pos = comma + 1;
  }
  for (size_t i = 0; i < out->size(); ++i)
    for (size_t k = 0; k < i; ++k)
      if ((*out)[i].label() == (*out)[k].label()) return *why = fmt::format("{} given twice", (*out)[i].label()), false;
  return true;
}

bool read_hosts_file(const std::string& path, std::vector<Host>* out, std::string* why) {
  std::ifstream in(path);
  if (!in) return *why = fmt::format("{}: {}", path, std::strerror(errno)), false;
  out->clear();
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::vector<std::string> words;
    for (size_t pos = 0;;) {
      pos = line.find_first_not_of(" \t\r", pos);
      if (pos == std::string::npos) break;
      const size_t end = line.find_first_of(" \t\r", pos);
      words.push_back(line.substr(pos, end == std::string::npos ? std::string::npos : end - pos));
      if (end == std::string::npos) break;
      pos = end;
    }
    if (words.empty()) continue;
    if (words.size() > 2) return *why = fmt::format("{}:{}: want 'host[:port] [dir]'", path, n), false;
    Host h;
    if (!parse_host(words[0], &h, why)) return *why = fmt::format("{}:{}: {}", path, n, *why), false;
    if (words.size() == 2) h.dir = words[1];
    for (const Host& o : *out)
      if (o.label() == h.label()) return *why = fmt::format("{}:{}: {} listed twice", path, n, h.label()), false;
    out->push_back(h);
  }
  if (out->empty()) return *why = fmt::format("{}: no host in it", path), false;
  return true;
}

std::vector<ExecResult> run_all(const std::vector<Exec>& execs, bool (*stop)()) {
  std::vector<ExecResult> res(execs.size());
  std::vector<pid_t> pids(execs.size(), -1);
  const auto t0 = Clock::now();
  for (size_t i = 0; i < execs.size(); ++i) {
    const Exec& e = execs[i];
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, e.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, e.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (!e.cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, e.cwd.c_str());
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    std::vector<char*> argv;
    for (const std::string& a : e.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const int rc = posix_spawnp(&pids[i], argv[0], &fa, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
      pids[i] = -1;
      res[i].error = fmt::format("{}: {}", e.argv[0], std::strerror(rc));
    }
  }
  std::vector<Clock::time_point> interrupted(execs.size());
  for (size_t running = execs.size();;) {
    running = 0;
    const double now_s = std::chrono::duration<double>(Clock::now() - t0).count();
    for (size_t i = 0; i < execs.size(); ++i) {
      if (pids[i] <= 0) continue;
      int status = 0;
      const pid_t w = waitpid(pids[i], &status, WNOHANG);
      if (w == pids[i]) {
        res[i].exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        res[i].seconds = now_s;
        // Whatever it left in its group (fio forks helpers) goes with it.
        kill(-pids[i], SIGKILL);
        pids[i] = -1;
        continue;
      }
      ++running;
      if (now_s > execs[i].deadline_s && !res[i].timed_out) {
        res[i].timed_out = true;
        kill(-pids[i], SIGKILL);
      } else if (stop && stop() && !res[i].stopped) {
        res[i].stopped = true;
        interrupted[i] = Clock::now();
        kill(-pids[i], SIGINT);
      } else if (res[i].stopped && Clock::now() - interrupted[i] > std::chrono::seconds(10)) {
        kill(-pids[i], SIGKILL);
      }
    }
    if (running == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return res;
}

std::string local_fio_version(const std::string& fio, std::string* why) {
  char tmpl[] = "/tmp/fenec-fio-version-XXXXXX";
  const int fd = mkstemp(tmpl);
  if (fd < 0) return *why = fmt::format("mkstemp: {}", std::strerror(errno)), "";
  close(fd);
  Exec e{{fio, "--version"}, "", tmpl, "/dev/null", 30};
  const ExecResult r = run_all({e}, nullptr).front();
  std::ifstream in(tmpl);
  std::string v;
  std::getline(in, v);
  unlink(tmpl);
  if (!r.error.empty()) return *why = r.error + " (install fio: apt-get install fio)", "";
  if (r.exit_code != 0 || v.rfind("fio-", 0) != 0)
    return *why = fmt::format("{} --version answered '{}' (exit {})", fio, v, r.exit_code), "";
  return v;
}

}  // namespace fenec::iobench::fleet
