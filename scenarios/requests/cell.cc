#include "scenarios/requests/cell.h"

#include <time.h>

#include <chrono>
#include <latch>
#include <thread>

namespace fenec::scenarios::requests {
namespace {

using Clock = std::chrono::steady_clock;

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

struct ClientOut {
  base::Histogram ns;
  Clock::time_point end;
  double cpu_s = 0;
  std::string error;
};

}  // namespace

CellResult RunCell(std::vector<std::unique_ptr<Conn>>& conns, const CellConfig& cfg) {
  CellResult res;
  const int clients = std::min<int>(cfg.clients, static_cast<int>(conns.size()));
  std::vector<ClientOut> outs(static_cast<size_t>(clients));
  // Latches, not spinning: on two cores a spinning main thread would take a core from the warm-up.
  std::latch ready(clients), go(1);
  Clock::time_point start;
  const auto length = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(cfg.seconds));
  auto client = [&](int c) {
    ClientOut& out = outs[static_cast<size_t>(c)];
    Conn& conn = *conns[static_cast<size_t>(c)];
    const uint64_t base = cfg.seed * 0x100000001b3ULL + (static_cast<uint64_t>(c) << 40);
    uint64_t i = 0;
    auto kind = [&](uint64_t draw) { return cfg.kind == Kind::kMixed ? MixedPick(draw) : cfg.kind; };
    for (; i < static_cast<uint64_t>(cfg.warmup_per_client) && out.error.empty(); ++i)
      out.error = conn.Do(kind(base + i), base + i);
    ready.count_down();
    go.wait();
    const double cpu0 = ThreadCpuSeconds();
    const auto end = start + length;
    for (int n = 0; out.error.empty() && !cfg.stop() && n < cfg.max_per_client; ++n, ++i) {
      const auto t0 = Clock::now();
      if (n >= cfg.min_per_client && t0 >= end) break;
      out.error = conn.Do(kind(base + i), base + i);
      out.ns.Record(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count()));
    }
    out.cpu_s = ThreadCpuSeconds() - cpu0;
    out.end = Clock::now();
  };
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) threads.emplace_back(client, c);
  ready.wait();
  start = Clock::now();
  go.count_down();
  for (auto& t : threads) t.join();
  Clock::time_point last = start;
  for (auto& o : outs) {
    res.ns.Merge(o.ns);
    res.client_cpu_s += o.cpu_s;
    last = std::max(last, o.end);
    if (res.error.empty()) res.error = o.error;
  }
  res.requests = res.ns.count();
  res.wall_s = std::chrono::duration<double>(last - start).count();
  return res;
}

}  // namespace fenec::scenarios::requests
