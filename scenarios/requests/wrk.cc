#include "scenarios/requests/wrk.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <vector>

#include <fmt/format.h>

extern char** environ;

namespace fenec::scenarios::requests {
namespace {

// "40.12us", "1.02ms", "1.00s" -> microseconds; -1 if none of these.
double ToUs(double v, const std::string& unit) {
  if (unit == "us") return v;
  if (unit == "ms") return v * 1e3;
  if (unit == "s") return v * 1e6;
  return -1;
}

}  // namespace

std::string FindWrk() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  for (std::string d; std::getline(dirs, d, ':');) {
    const std::string bin = d + "/wrk";
    if (access(bin.c_str(), X_OK) == 0) return bin;
  }
  return "";
}

WrkResult ParseWrk(const std::string& text) {
  WrkResult r;
  std::smatch m;
  static const std::regex p50(R"(\n\s*50%\s+([0-9.]+)(us|ms|s)\b)"), p99(R"(\n\s*99%\s+([0-9.]+)(us|ms|s)\b)"),
      rate(R"(Requests/sec:\s+([0-9.]+))"), non2xx(R"(Non-2xx or 3xx responses:\s+([0-9]+))"),
      errors(R"(Socket errors:[^\n]*)");
  if (std::regex_search(text, m, p50)) r.p50_us = ToUs(std::stod(m[1]), m[2]);
  if (std::regex_search(text, m, p99)) r.p99_us = ToUs(std::stod(m[1]), m[2]);
  if (std::regex_search(text, m, rate)) r.per_s = std::stod(m[1]);
  if (std::regex_search(text, m, non2xx)) {
    r.error = fmt::format("wrk saw {} answers that were not 2xx", m[1].str());
  } else if (std::regex_search(text, m, errors)) {
    r.error = "wrk: " + m[0].str();
  } else if (r.p50_us <= 0 || r.per_s <= 0) {
    r.error = "wrk's report could not be read: " + text.substr(0, 300);
  }
  return r;
}

WrkResult RunWrk(const std::string& wrk, int port, int64_t id, int connections, int threads, int seconds,
                 const std::string& dir) {
  const std::string script = dir + "/wrk-get-by-id.lua", out = dir + "/wrk.out";
  std::ofstream(script) << "wrk.method = \"POST\"\n"
                        << "wrk.headers[\"Content-Type\"] = \"application/json\"\n"
                        << fmt::format("wrk.body = '{{\"statement\":\"GET items $1\",\"params\":[{}]}}'\n", id);
  std::vector<std::string> args = {wrk,
                                   "-t",
                                   std::to_string(threads),
                                   "-c",
                                   std::to_string(connections),
                                   "-d",
                                   fmt::format("{}s", seconds),
                                   "--latency",
                                   "-s",
                                   script,
                                   fmt::format("http://127.0.0.1:{}/query", port)};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, wrk.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  WrkResult r;
  if (rc != 0) {
    r.error = fmt::format("spawn {}: {}", wrk, std::strerror(rc));
    return r;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::stringstream text;
  text << std::ifstream(out).rdbuf();
  r = ParseWrk(text.str());
  if (r.error.empty() && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    r.error = "wrk failed: " + text.str().substr(0, 300);
  }
  return r;
}

}  // namespace fenec::scenarios::requests
