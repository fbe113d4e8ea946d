#include "scenarios/conns/probe.h"

#include <httplib.h>

#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "engine/src/base/histogram.h"
#include "scenarios/procs/metrics.h"

namespace fenec::scenarios::conns {

using procs::FetchMetrics;
using procs::PromValue;

std::string Prefill(int port, int docs) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_keep_alive(true);
  auto created = cli.Post("/query", R"j({"statement": "CREATE COLLECTION items (name TEXT, n INT)"})j", "application/json");
  if (!created || created->status != 200) {
    return fmt::format("CREATE COLLECTION: {}", created ? created->body : httplib::to_string(created.error()));
  }
  constexpr int kBatch = 100;
  for (int first = 1; first <= docs; first += kBatch) {
    std::string body = "[";
    for (int i = first; i < first + kBatch && i <= docs; ++i) {
      if (i > first) body += ",";
      body += fmt::format(R"j({{"name": "item-{}", "n": {}}})j", i, i);
    }
    body += "]";
    auto put = cli.Post("/docs/items", body, "application/json");
    if (!put || put->status != 200) return fmt::format("POST /docs/items: {}", put ? put->body : httplib::to_string(put.error()));
  }
  return "";
}

GetFigures MeasureGets(int port, int docs, int warmup, int count, const std::function<bool()>& stop) {
  GetFigures f;
  httplib::Client cli("127.0.0.1", port);
  cli.set_keep_alive(true);
  cli.set_tcp_nodelay(true);
  cli.set_read_timeout(30, 0);
  base::Histogram rt;
  auto gauge = [&cli] {
    auto m = cli.Get("/metrics");
    return m && m->status == 200 ? PromValue(m->body, "fenec_http_connections") : -1.0;
  };
  for (int i = 0; i < warmup + count && !stop(); ++i) {
    if (i == warmup) f.gauge_before = gauge();
    const std::string path = fmt::format("/docs/items/{}", 1 + i % docs);
    const auto t0 = std::chrono::steady_clock::now();
    auto r = cli.Get(path);
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
    if (!r || r->status != 200) {
      f.error = fmt::format("GET {}: {}", path, r ? fmt::format("{} {}", r->status, r->body) : httplib::to_string(r.error()));
      return f;
    }
    if (i >= warmup) rt.Record(static_cast<uint64_t>(ns));
  }
  f.gauge_after = gauge();
  f.count = rt.count();
  f.p50_us = static_cast<double>(rt.Percentile(50)) / 1e3;
  f.p99_us = static_cast<double>(rt.Percentile(99)) / 1e3;
  return f;
}

double WaitForGauge(int port, const std::function<bool(double)>& ok, int bound_ms) {
  double v = -1;
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(bound_ms);
  do {
    std::string m = FetchMetrics(port);
    if (!m.empty()) v = PromValue(m, "fenec_http_connections");
    if (v >= 0 && ok(v)) return v;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  } while (std::chrono::steady_clock::now() < end);
  return v;
}

}  // namespace fenec::scenarios::conns
