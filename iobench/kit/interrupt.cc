#include "iobench/kit/interrupt.h"

#include <unistd.h>

#include <atomic>
#include <csignal>

namespace fenec::kit {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void OnStopSignal(int sig) {
  if (g_stop.exchange(true)) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  static constexpr char kMsg[] =
      "\ninterrupted: finishing the current step and writing partial results (again to abort)\n";
  ssize_t ignored = write(STDERR_FILENO, kMsg, sizeof kMsg - 1);  // async-signal-safe, unlike stdio
  (void)ignored;
}

}  // namespace

bool stop_requested() { return g_stop.load(std::memory_order_relaxed); }
void request_stop() { g_stop.store(true); }
void clear_stop_request() { g_stop.store(false); }

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = OnStopSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

}  // namespace fenec::kit
