#include "scenarios/conns/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <utility>
#include <vector>

#include "iobench/kit/interrupt.h"
#include "scenarios/conns/probe.h"
#include "scenarios/procs/child.h"
#include "scenarios/procs/metrics.h"

namespace fenec::scenarios::conns {
namespace {

namespace fs = std::filesystem;
using namespace fenec::scenarios::procs;

double ClosedOrRefused(const std::string& metrics) {
  double n = 0;
  for (const char* s : {"fenec_http_connections_closed_total{reason=\"idle_timeout\"}",
                        "fenec_http_connections_closed_total{reason=\"header_timeout\"}",
                        "fenec_http_connections_closed_total{reason=\"body_timeout\"}",
                        "fenec_http_connections_closed_total{reason=\"write_timeout\"}",
                        "fenec_http_rejected_total{reason=\"max_connections\"}",
                        "fenec_http_rejected_total{reason=\"header_bytes\"}"}) {
    n += std::max(0.0, PromValue(metrics, s));
  }
  return n;
}

}  // namespace

int run(kit::Harness& h, Flags& f) {
  Placement place;
  if (std::string err = PlacementOf(f.pin, &place); !err.empty()) {
    fmt::print(stderr, "conns-bench: {}\n", err);
    return 2;
  }
  if (f.server.empty()) f.server = BuildTreeBinary("engine/server/fenec-server");
  if (f.holder.empty()) f.holder = BuildTreeBinary("scenarios/conns/conns-holder");
  auto& meta = h.results().meta();
  meta.set("idle_connections", std::to_string(f.shape.idle));
  meta.set("slow_connections", std::to_string(f.shape.slow));
  meta.set("gets_per_run", std::to_string(f.gets));
  meta.set("docs", std::to_string(f.docs));
  meta.set("client_pin", Describe(f.pin, place));
  const std::pair<std::string, std::string> binaries[] = {{"fenec-server", f.server}, {"conns-holder", f.holder}};
  for (const auto& [what, path] : binaries) {
    if (path.empty() || !fs::exists(path)) {
      h.results().skip("all", "all", fmt::format("{} not found (build it or pass --server/--holder)", what));
      return h.finish();
    }
  }

  const std::string log = h.data_dir() + "/children.log";
  Child server;
  // Deadlines past the run: the crowd must still be inside them when measured.
  // Durable writes are not measured here; buffered keeps the prefill quick.
  std::string line;
  if (std::string err = server.Start({f.server, "--listen", "127.0.0.1:0", "--data", h.data_dir() + "/db",
                                      "--durability", "buffered", "--sync", "250",
                                      "--idle-timeout", "900", "--header-timeout", "900", "--max-connections", "19500"},
                                     log, "listening on", std::chrono::seconds(30), &line);
      !err.empty()) {
    h.results().skip("all", "all", err);
    return h.finish();
  }
  const int port = std::stoi(line.substr(line.rfind(':', line.find(" (")) + 1));
  if (std::string err = Prefill(port, f.docs); !err.empty()) {
    h.results().skip("all", "all", "prefill: " + err);
    server.Stop();
    return h.finish();
  }
  fmt::print(
      "fenec-server on port {}: {} documents; each repetition: {} gets unloaded, then with {} idle + {} "
      "slow-drip connections held\n",
      port, f.docs, f.gets, f.shape.idle, f.shape.slow);

  const auto stop = [] { return kit::stop_requested(); };
  // Every client run pinned (pin.h): this thread and every server thread,
  // unpinned after, so the holder's process starts unpinned. Unpinned, the
  // ratio of two p50s measured where the scheduler woke the server, and its
  // interval straddled the line of 2.
  const auto gets = [&](int warmup) {
    GetFigures g;
    g.error = Place(f.pin, place, {server.pid()}, true);
    if (g.error.empty()) g = MeasureGets(port, f.docs, warmup, f.gets, stop);
    if (std::string back = Place(f.pin, place, {server.pid()}, false); g.error.empty()) g.error = std::move(back);
    return g;
  };
  // One run thrown away first: right after the prefill, the first client's
  // gets ran twice as slow as every later run's (the server's and the page
  // cache's warm-up), which widened the paired interval for nothing.
  if (GetFigures warm = gets(0); !warm.error.empty()) {
    h.results().skip("all", "warm-up", warm.error);
    server.Stop();
    return h.finish();
  }
  const int crowd = f.shape.idle + f.shape.slow;
  std::vector<Rep> reps;
  bool broken = false;
  Rep cur;
  kit::run_interleaved(h.reps(), 2, [&](size_t arm, int rep) {
    if (broken) return;
    if (arm == 0) {
      cur = Rep{};
      GetFigures g = gets(200);
      if (!g.error.empty()) {
        h.results().skip("unloaded", fmt::format("rep={}", rep + 1), g.error);
        h.fail("unloaded rep " + std::to_string(rep + 1) + ": " + g.error);
        broken = true;
        return;
      }
      cur.unloaded_p50_us = g.p50_us;
      cur.unloaded_p99_us = g.p99_us;
      fmt::print("rep {} unloaded: p50 {:.1f} us, p99 {:.1f} us (gauge {})\n", rep + 1, g.p50_us, g.p99_us,
                 g.gauge_after);
      return;
    }
    cur.rss_before = static_cast<double>(server.rss_bytes());
    const double closed_before = ClosedOrRefused(FetchMetrics(port));
    Child holder;
    std::string said;
    const std::string err =
        holder.Start({f.holder, "--port", std::to_string(port), "--idle", std::to_string(f.shape.idle), "--slow",
                      std::to_string(f.shape.slow), "--drip-ms", std::to_string(f.drip_ms), "--max-seconds", "600"},
                     log, "holding", std::chrono::seconds(180), &said);
    if (!err.empty()) {
      h.results().skip("held", fmt::format("rep={}", rep + 1), err);
      h.fail("held rep " + std::to_string(rep + 1) + ": " + err);
      broken = true;
      return;
    }
    cur.connect_s = std::stod(said.substr(said.rfind(" in ") + 4));
    // Every held connection accepted (plus the asking one) before the client runs.
    WaitForGauge(
        port, [&](double g) { return g >= crowd + 1; }, 60'000);
    cur.rss_held = static_cast<double>(server.rss_bytes());
    GetFigures g = gets(200);
    const double closed_after = ClosedOrRefused(FetchMetrics(port));
    const int holder_exit = holder.Stop(std::chrono::milliseconds(10'000));
    if (!g.error.empty() || holder_exit != 0) {
      const std::string why =
          g.error.empty() ? fmt::format("conns-holder exited {} (see {})", holder_exit, log) : g.error;
      h.results().skip("held", fmt::format("rep={}", rep + 1), why);
      h.fail("held rep " + std::to_string(rep + 1) + ": " + why);
      broken = true;
      return;
    }
    cur.held_p50_us = g.p50_us;
    cur.held_p99_us = g.p99_us;
    cur.held_gauge_min = std::min(g.gauge_before, g.gauge_after);
    cur.closed_or_refused = closed_after - closed_before;
    fmt::print(
        "rep {} held:     p50 {:.1f} us, p99 {:.1f} us (gauge {} .. {}; {} connections opened in {:.2f} s; "
        "server RSS {:.1f} -> {:.1f} MiB)\n",
        rep + 1, g.p50_us, g.p99_us, g.gauge_before, g.gauge_after, crowd, cur.connect_s, cur.rss_before / 1048576,
        cur.rss_held / 1048576);
    reps.push_back(cur);
    // The next unloaded run must be unloaded: wait until the server has let every held connection go.
    const double left = WaitForGauge(
        port, [](double v) { return v <= 1; }, 60'000);
    if (left > 1) {
      h.results().skip("unloaded", fmt::format("rep={}", rep + 2), fmt::format("{} connections still open", left));
      h.fail(fmt::format("{} held connections still open after the holder let them go", left));
      broken = true;
    }
  });
  const int exit_code = server.Stop();
  if (exit_code != 0) h.fail(fmt::format("fenec-server exited {} (see {})", exit_code, log));
  h.results().verdict(Judge(h, f.shape, reps));
  return h.finish();
}

}  // namespace fenec::scenarios::conns
