// conns-holder: holds connections open against a server, in a process of its
// own (child.h says why), until its stdin closes, SIGTERM, or --max-seconds.
//
//   idle  connected, silent: a kept-alive client between requests
//   slow  a request header begun, then one more byte every --drip-ms, never
//         finished: a slow-drip client (slowloris)
//
// Prints "holding N idle M slow in S s" once every connection is open; on
// exit prints on stderr how many the server closed meanwhile.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "scenarios/procs/loopback.h"

using fenec::scenarios::procs::ClosedByPeer;
using fenec::scenarios::procs::SendAll;

int main(int argc, char** argv) {
  CLI::App app{"conns-holder: holds idle and slow-drip connections open against a server on 127.0.0.1", "conns-holder"};
  int port = 0, idle = 0, slow = 0, drip_ms = 1000;
  double max_seconds = 900;
  app.add_option("--port", port, "the server's port on 127.0.0.1")->required()->check(CLI::Range(1, 65535));
  app.add_option("--idle", idle, "connections opened and left silent")->check(CLI::Range(0, 1000000));
  app.add_option("--slow", slow, "connections sending a header one byte every --drip-ms")->check(CLI::Range(0, 1000000));
  app.add_option("--drip-ms", drip_ms, "milliseconds between a slow connection's bytes")->capture_default_str()
      ->check(CLI::Range(1, 3600000));
  app.add_option("--max-seconds", max_seconds, "exit after this long even if nobody says so")->capture_default_str()
      ->check(CLI::Range(1.0, 86400.0));
  CLI11_PARSE(app, argc, argv);
  signal(SIGPIPE, SIG_IGN);
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<int> idle_fds, slow_fds;
  idle_fds.reserve(static_cast<size_t>(idle));
  slow_fds.reserve(static_cast<size_t>(slow));
  static constexpr char kBegin[] = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Drip: ";
  for (int i = 0; i < idle + slow; ++i) {
    int fd = fenec::scenarios::procs::ConnectLoopback(static_cast<uint16_t>(port));
    if (fd < 0) {
      fmt::print(stderr, "conns-holder: connection {} of {}: {}\n", i + 1, idle + slow, std::strerror(-fd));
      return 1;
    }
    if (i < idle) {
      idle_fds.push_back(fd);
    } else {
      if (!SendAll(fd, kBegin, sizeof(kBegin) - 1)) {
        fmt::print(stderr, "conns-holder: slow connection {}: the server closed it at once\n", i + 1 - idle);
        return 1;
      }
      slow_fds.push_back(fd);
    }
  }
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("holding {} idle {} slow in {:.2f} s\n", idle, slow, took);
  std::fflush(stdout);

  // Drip until stdin closes (the bench is done, or gone) or the time bound.
  const auto end = t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(max_seconds));
  size_t drips = 0, slow_lost = 0;
  std::vector<bool> lost(slow_fds.size(), false);
  while (std::chrono::steady_clock::now() < end) {
    pollfd in{STDIN_FILENO, POLLIN, 0};
    if (::poll(&in, 1, drip_ms) > 0) {
      char c;
      if (::read(STDIN_FILENO, &c, 1) <= 0) break;
    }
    for (size_t i = 0; i < slow_fds.size(); ++i) {
      if (!lost[i] && !SendAll(slow_fds[i], "a", 1)) {
        lost[i] = true;
        ++slow_lost;
      }
    }
    ++drips;
  }
  size_t idle_lost = 0;
  for (int fd : idle_fds) idle_lost += ClosedByPeer(fd) ? 1 : 0;
  for (size_t i = 0; i < slow_fds.size(); ++i) slow_lost += !lost[i] && ClosedByPeer(slow_fds[i]) ? 1 : 0;
  fmt::print(stderr, "conns-holder: {} drips; the server closed {} of {} idle, {} of {} slow\n", drips, idle_lost,
             idle, slow_lost, slow);
  for (int fd : idle_fds) ::close(fd);
  for (int fd : slow_fds) ::close(fd);
  return 0;
}
