#include "scenarios/recon/bench.h"

#include <fmt/format.h>
#include <httplib.h>

#include <chrono>
#include <filesystem>
#include <map>

#include "engine/src/base/histogram.h"
#include "iobench/kit/interrupt.h"
#include "iobench/kit/console.h"
#include "scenarios/procs/server_process.h"
#include "scenarios/recon/ledger.h"
#include "scenarios/recon/report.h"
#include "scenarios/recon/run.h"

namespace fenec::scenarios::recon {
namespace {

namespace fs = std::filesystem;
using procs::DefaultServerBinary;
using procs::ServerProcess;

std::vector<std::string> ServerArgs(const Flags& f, const std::string& data, bool locked) {
  std::vector<std::string> a = {"--data", data, "--long-reads", locked ? "locked" : "pinned"};
  if (f.durable) {
    a.insert(a.end(), {"--durability", "durable"});
  } else {
    a.insert(a.end(), {"--durability", "buffered", "--sync", std::to_string(f.sync_ms)});
  }
  return a;
}

std::string Metrics(int port) {
  httplib::Client cli("127.0.0.1", port);
  auto r = cli.Get("/metrics");
  return r && r->status == 200 ? r->body : "";
}

// RQ-1's server-side figure: 2000 gets by id on one kept-alive connection,
// the server's own handling time read back from its /metrics.
void ProbeGets(kit::Harness& h, int port, const LedgerShape& shape) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_keep_alive(true);
  cli.set_tcp_nodelay(true);
  base::Histogram rt;
  for (int i = 0; i < 2000; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = cli.Get(fmt::format("/docs/accounts/{}", 1 + i % shape.accounts()));
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
    if (!r || r->status != 200) {
      h.results().skip("fenec-server", "get-by-id", "a get by id failed");
      return;
    }
    rt.Record(static_cast<uint64_t>(ns));
  }
  std::string m = Metrics(port);
  const std::string labels = R"j(endpoint="docs_get",kind="get")j";
  double p50 = PromValue(m, "fenec_request_handle_seconds{" + labels + ",quantile=\"0.5\"}");
  double p99 = PromValue(m, "fenec_request_handle_seconds{" + labels + ",quantile=\"0.99\"}");
  double w50 = PromValue(m, "fenec_request_write_seconds{" + labels + ",quantile=\"0.5\"}");
  auto add = [&](const char* metric, double v) {
    h.results().add("RQ-1", "fenec-server", "get-by-id", metric, v, "us");
  };
  if (p50 >= 0) add("server_handle_p50_us", p50 * 1e6);
  if (p99 >= 0) add("server_handle_p99_us", p99 * 1e6);
  if (w50 >= 0) add("server_write_p50_us", w50 * 1e6);
  add("roundtrip_p50_us", rt.Percentile(50) / 1e3);
  add("roundtrip_p99_us", rt.Percentile(99) / 1e3);
  fmt::print(
      "get by id: the server's own work p50 {:.1f} us (p99 {:.1f}), its write {:.1f} us; round trip p50 {:.1f} us\n",
      p50 * 1e6, p99 * 1e6, w50 * 1e6, rt.Percentile(50) / 1e3);
}

}  // namespace

int run_bench(kit::Harness& h, Flags& f) {
  const int runs = h.reps();
  if (f.server.empty()) f.server = DefaultServerBinary();
  auto& meta = h.results().meta();
  meta.set("run_seconds", fmt::format("{}", f.seconds));
  meta.set("prefill_transfers_per_client", std::to_string(f.prefill));
  meta.set("rate_per_client", std::to_string(f.rate));
  meta.set("server_durability", f.durable ? "durable" : fmt::format("sync {} ms", f.sync_ms));

  if (f.server.empty() || !fs::exists(f.server)) {
    for (const auto& arm : f.arms)
      h.results().skip(arm, "all", "fenec-server not found (build engine/server or pass --server)");
    return h.finish();
  }
  const LedgerShape shape;
  const std::string tmpl = h.data_dir() + "/template";
  const std::string log = h.data_dir() + "/server.log";
  std::vector<std::vector<Transfer>> logs;
  {
    ServerProcess server;
    if (std::string err = server.Start(f.server, ServerArgs(f, tmpl, false), log); !err.empty()) {
      for (const auto& arm : f.arms) h.results().skip(arm, "all", err);
      return h.finish();
    }
    if (std::string err = Prefill(
            server.port(), shape, f.prefill, h.seed(), [] { return kit::stop_requested(); }, &logs);
        !err.empty()) {
      fmt::print(stderr, "recon-bench: {}\n", err);
      for (const auto& arm : f.arms) h.results().skip(arm, "all", err);
      server.Stop();
      return h.finish();
    }
    if (int code = server.Stop(); code != 0) fmt::print(stderr, "recon-bench: prefill server exited {}\n", code);
  }
  fmt::print("prefilled {} transfers ({} entries) over {} accounts\n", f.prefill * shape.clients,
             2ull * f.prefill * shape.clients, shape.accounts());

  std::map<std::string, std::vector<RunFigures>> figures;
  std::map<std::string, RunResult> first_runs;
  kit::Progress progress("recon runs", static_cast<uint64_t>(runs) * f.arms.size());
  uint64_t done = 0;
  h.interleave(f.arms.size(), [&](size_t k, int rep) {
    const std::string& arm = f.arms[k];
    const int run = rep + 1;
    const std::string data = fmt::format("{}/run-{}-{}", h.data_dir(), run, arm);
    std::error_code ec;
    fs::copy(tmpl, data, fs::copy_options::recursive, ec);
    if (ec) {
      h.results().skip(arm, fmt::format("run={}", run), "copy of the prefilled folder: " + ec.message());
      return;
    }
    std::vector<std::unique_ptr<Books>> books;
    for (int c = 0; c < shape.clients; ++c) {
      books.push_back(std::make_unique<Books>());
      for (const auto& t : logs[c]) books.back()->Append(t);
    }
    ServerProcess server;
    if (std::string err = server.Start(f.server, ServerArgs(f, data, arm == kLocked), log); !err.empty()) {
      h.results().skip(arm, fmt::format("run={}", run), err);
      return;
    }
    RunConfig cfg;
    cfg.reconcile = arm != kNoRecon;
    cfg.seconds = f.seconds;
    cfg.rate_per_client = f.rate;
    cfg.seed = h.seed(static_cast<uint64_t>(run) * 7919);
    cfg.stop = [] { return kit::stop_requested(); };
    RunResult r = RunLedger(server.port(), shape, books, cfg);
    // Once the clients have stopped, one more check over everything they landed, in every arm.
    if (std::string err = ReconcileOnce(server.port(), shape, books); !err.empty()) {
      ++r.violations;
      if (r.first_violation.empty()) r.first_violation = "final check: " + err;
    }
    if (arm == kNoRecon && run == runs) ProbeGets(h, server.port(), shape);
    const std::string metrics = Metrics(server.port());
    const int exit_code = server.Stop();
    fs::remove_all(data, ec);
    RunFigures fig = AddRunRows(h.results(), arm, run, r, metrics, exit_code);
    if (!fig.valid) {
      h.fail(fmt::format("{} run {} INVALID: {} {} (server exit {})", arm, run, r.first_violation, r.first_error,
                         exit_code));
    }
    fmt::print(
        "{:>13} run {}: longest wait {:7.1f} ms, {:4} past 50 ms, p99.9 {:6.2f} ms, p99 {:6.2f} ms, "
        "{:6.0f} transfers/s, {} reconciliations (longest {:.0f} ms)\n",
        arm, run, fig.wait_max_ms, fig.over_50ms, fig.p999_ms, fig.p99_ms, fig.per_s, fig.reconciliations,
        fig.recon_max_ms);
    figures[arm].push_back(fig);
    if (run == 1) first_runs[arm] = std::move(r);
    progress.update(++done, fmt::format("{} run {}", arm, run));
  });
  progress.finish();
  std::string plot = WritePlots(h, first_runs, figures);
  AddSummaryRows(h.results(), figures);
  h.results().verdict(MakeVerdict(figures, plot));
  return h.finish();
}

}  // namespace fenec::scenarios::recon
