// requests-bench: RQ-1, what one request costs a client on loopback,
// fenec-server against PostgreSQL 15, both started by the bench.
//
// Both systems hold the same N rows (text, int, 128-dim vector; dataset.h)
// and are asked the same requests (targets.h: empty, get by id, filter with
// a limit, near top-10, put) by the same client loop (cell.h): one client
// at a time, then --clients at once, each on its own kept-alive connection.
// Each repetition runs every cell of both systems in turn (fenec-server,
// then PostgreSQL, for each request kind and client count), so a shared
// machine's drift hits both alike and the ratios pair by repetition.
//   the default pair: fenec-server --sync 250 against synchronous_commit off
//                     (both reach the disk within a bound), every request;
//   the durable pair: fenec-server --durable against synchronous_commit on,
//                     puts, after the default pair's repetitions (the
//                     server restarted on the same folder).
// Beside each fenec-server cell, the server's own handling time from its
// /metrics; beside every cell, the client threads' own CPU. wrk on get by id,
// after our client's get-by-id cells, checks our HTTP client (wrk.h).
// PostgreSQL runs as a scratch cluster under the scratch dir (pg_cluster.h),
// stopped at the end, on failure and on Ctrl-C; where it is not installed
// its arms are skipped with the reason. The verdicts: report.h.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "engine/src/base/interrupt.h"
#include "iobench/kit/console.h"
#include "iobench/kit/harness.h"
#include "scenarios/pg/pg_cluster.h"
#include "scenarios/procs/metrics.h"
#include "scenarios/procs/pin.h"
#include "scenarios/procs/server_process.h"
#include "scenarios/requests/cell.h"
#include "scenarios/requests/check.h"
#include "scenarios/requests/report.h"
#include "scenarios/requests/wrk.h"

namespace {

namespace fs = std::filesystem;
using namespace fenec::scenarios::requests;
using fenec::scenarios::procs::PromValue;
namespace procs = fenec::scenarios::procs;
using procs::Pin;
using procs::Placement;
using Pool = std::vector<std::unique_ptr<Conn>>;

struct Flags {
  std::string server;
  int rows = 10000;
  int clients = 8;
  double seconds = 0;
  int wrk_seconds = -1;
  int sync_ms = 250;
  Pin pin = Pin::kSame;
};

bool Stop() { return fenec::base::StopRequested(); }

const auto kStart = std::chrono::steady_clock::now();
// Seconds since the bench started, for the progress lines.
double Elapsed() { return std::chrono::duration<double>(std::chrono::steady_clock::now() - kStart).count(); }

// The /metrics series fenec-server files a request kind's handling under.
std::string Series(Kind k) {
  switch (k) {
    case Kind::kEmpty: return R"(endpoint="health",kind="")";
    case Kind::kGetById: return R"(endpoint="query",kind="get")";
    case Kind::kPut: return R"(endpoint="query",kind="put")";
    default: return R"(endpoint="query",kind="find")";  // a filter and a near are both FIND
  }
}

double Prom(const std::string& m, const std::string& name, const std::string& labels) {
  return PromValue(m, name + "{" + labels + "}");
}

class Bench {
 public:
  Bench(fenec::kit::Harness& h, const Flags& f, const Dataset& d) : h_(h), f_(f), d_(d) {}

  // One cell of one arm, its rows added; false if a request failed (then the run is broken).
  bool Cell(const std::string& arm, Pool& pool, Kind k, int clients, bool durable, int rep, int fenec_port) {
    CellConfig cfg;
    cfg.kind = k;
    cfg.clients = clients;
    cfg.seconds = f_.seconds;
    cfg.min_per_client = h_.quick() ? 1 : 3;
    cfg.warmup_per_client = k == Kind::kNear ? 2 : 20;
    // The same draws for both systems in a repetition: the same ids, bounds, vectors and rows.
    cfg.seed = h_.seed() + static_cast<uint64_t>(rep) * 1000003 + static_cast<uint64_t>(k) * 7919 +
               static_cast<uint64_t>(clients) * 104729 + (durable ? 17 : 0);
    cfg.stop = Stop;
    const std::string before = fenec_port > 0 ? fenec::scenarios::procs::FetchMetrics(fenec_port) : "";
    CellResult r = RunCell(pool, cfg);
    const std::string case_ = CaseName(k, clients, durable);
    if (!r.error.empty() || r.requests == 0) {
      if (!Stop()) {
        h_.results().skip(arm, fmt::format("{};rep={}", case_, rep), r.error.empty() ? "no request answered" : r.error);
        fmt::print(stderr, "requests-bench: {} {}: {}\n", arm, case_, r.error);
      }
      return false;
    }
    Figures fig;
    fig.p50_us = static_cast<double>(r.ns.Percentile(50)) / 1e3;
    fig.p99_us = static_cast<double>(r.ns.Percentile(99)) / 1e3;
    fig.per_s = r.per_s();
    fig.cpu_us_per_request = r.client_cpu_s * 1e6 / static_cast<double>(r.requests);
    fig.cpu_cores = r.wall_s > 0 ? r.client_cpu_s / r.wall_s : 0;
    if (fenec_port > 0) {
      // The summary is over the server's life: this cell's share is the
      // difference of its sum and count (its warm-up included), a mean; its
      // p50 only where the series held next to nothing before this cell (the
      // load check's few requests: at most 5% of the cell's).
      const std::string after = fenec::scenarios::procs::FetchMetrics(fenec_port), name = "fenec_request_handle_seconds";
      const double n0 = std::max(0.0, Prom(before, name + "_count", Series(k)));
      const double s0 = std::max(0.0, Prom(before, name + "_sum", Series(k)));
      const double n1 = Prom(after, name + "_count", Series(k)), s1 = Prom(after, name + "_sum", Series(k));
      if (n1 > n0) fig.handle_mean_us = (s1 - s0) / (n1 - n0) * 1e6;
      if (n1 > n0 && n0 <= 0.05 * (n1 - n0)) fig.handle_p50_us = Prom(after, name, Series(k) + ",quantile=\"0.5\"") * 1e6;
    }
    AddRep(h_.results(), cells_, arm, case_, rep, fig);
    fmt::print("rep {} {:>9} {:>2} client(s){} {:>14}: p50 {:>9} p99 {:>9} {:>8} req/s{}; client CPU {:.1f} us a request\n",
               rep, KindName(k), clients, durable ? " durable" : "", arm, fenec::kit::format_us(fig.p50_us),
               fenec::kit::format_us(fig.p99_us), fenec::kit::format_count(fig.per_s),
               fig.handle_mean_us >= 0 ? fmt::format(", server handling {}", fenec::kit::format_us(fig.handle_mean_us)) : "",
               fig.cpu_us_per_request);
    std::fflush(stdout);
    return true;
  }

  bool Wrk(const std::string& wrk, int port, int clients, int rep) {
    WrkResult w = RunWrk(wrk, port, DrawId(d_, static_cast<uint64_t>(rep)), clients, std::min(clients, 2),
                         f_.wrk_seconds, h_.data_dir());
    const std::string case_ = CaseName(Kind::kGetById, clients, false);
    if (!w.error.empty()) {
      h_.results().skip(kWrk, fmt::format("{};rep={}", case_, rep), w.error);
      fmt::print(stderr, "requests-bench: wrk: {}\n", w.error);
      return false;
    }
    Figures fig;
    fig.p50_us = w.p50_us;
    fig.p99_us = w.p99_us;
    fig.per_s = w.per_s;
    AddRep(h_.results(), cells_, kWrk, case_, rep, fig);
    fmt::print("rep {} get-by-id {:>2} client(s) {:>14}: p50 {:>9} p99 {:>9} {:>8} req/s (wrk -t{} -c{})\n", rep,
               clients, kWrk, fenec::kit::format_us(w.p50_us), fenec::kit::format_us(w.p99_us),
               fenec::kit::format_count(w.per_s), std::min(clients, 2), clients);
    std::fflush(stdout);
    return true;
  }

  const Cells& cells() const { return cells_; }

 private:
  fenec::kit::Harness& h_;
  const Flags& f_;
  const Dataset& d_;
  Cells cells_;
};

std::string OpenPool(int n, const std::function<std::string(std::unique_ptr<Conn>*)>& open, Pool* pool) {
  pool->clear();
  for (int i = 0; i < n; ++i) {
    pool->emplace_back();
    if (std::string err = open(&pool->back()); !err.empty()) return err;
  }
  return "";
}

// --idle-timeout past the run: the pool's connections sit idle while
// PostgreSQL's cells run (an exact near with eight clients takes seconds),
// and the default 60 s closed them under a full run.
std::vector<std::string> ServerArgs(const std::string& data, bool durable, int sync_ms) {
  std::vector<std::string> a = {"--data", data, "--idle-timeout", "86400"};
  if (durable) {
    a.push_back("--durable");
  } else {
    a.insert(a.end(), {"--sync", std::to_string(sync_ms)});
  }
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  fenec::kit::Harness h("requests",
                        "RQ-1: what a request costs a client on loopback: fenec-server (HTTP, POST /query) against "
                        "PostgreSQL 15 (libpq, prepared), both started here, the same rows and requests, one client "
                        "loop of ours for both; one client and eight; the server's own handling beside; wrk as a "
                        "check of our HTTP client.");
  Flags f;
  auto& app = h.app();
  app.add_option("--server", f.server, "the fenec-server binary (default: the one in this build tree)");
  app.add_option("--rows", f.rows, "rows in both systems (default 10000)")->check(CLI::Range(100, 10000000));
  app.add_option("--clients", f.clients, "clients of the many-clients cells (default 8)")->check(CLI::Range(2, 256));
  app.add_option("--seconds", f.seconds, "seconds a cell (default 0.15 quick, 1.5 full)")->check(CLI::Range(0.01, 600.0));
  app.add_option("--wrk-seconds", f.wrk_seconds, "seconds a wrk run, whole; 0: no wrk (default 1 quick, 2 full)")
      ->check(CLI::Range(0, 600));
  app.add_option("--sync-ms", f.sync_ms, "fenec-server --sync MS of the default pair (default 250)")
      ->check(CLI::Range(1, 60000));
  app.add_option("--pin", f.pin, procs::kPinHelp)
      ->transform(CLI::CheckedTransformer(procs::PinNames()));
  if (const int rc = h.parse(argc, argv); rc >= 0) return rc;
  Placement place;
  if (std::string err = procs::PlacementOf(f.pin, &place); !err.empty()) {
    fmt::print(stderr, "requests-bench: {}\n", err);
    return 2;
  }
  // A line at a time even into a pipe: progress (and the postmaster's pid, which tests read) shows as it happens.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (f.seconds == 0) f.seconds = h.quick() ? 0.15 : 1.5;
  if (f.wrk_seconds < 0) f.wrk_seconds = h.quick() ? 1 : 2;
  if (f.server.empty()) f.server = fenec::scenarios::procs::DefaultServerBinary();
  auto& meta = h.results().meta();
  meta.set("rows", std::to_string(f.rows));
  meta.set("clients", std::to_string(f.clients));
  meta.set("cell_seconds", fmt::format("{}", f.seconds));
  meta.set("one_client_pin", procs::Describe(f.pin, place));
  meta.set("pairs", fmt::format("fenec-server --sync {} vs synchronous_commit off; --durable vs on (puts)", f.sync_ms));
  meta.set("postgres_near", "exact scan in SQL (postgres-exact); pgvector is not packaged for Debian 12");
  h.results().skip("pgvector", "request=near", "pgvector is not packaged for Debian 12; PostgreSQL's near is the "
                                               "exact scan written in SQL (arm postgres-exact)");
  if (f.server.empty() || !fs::exists(f.server)) {
    h.results().skip("all", "all", "fenec-server not found (build engine/server or pass --server)");
    return h.finish();
  }

  const Dataset d = MakeDataset(f.rows, h.seed());
  fenec::scenarios::pg::PgCluster pg;
  fmt::print("postgres: starting a scratch cluster...\n");
  std::fflush(stdout);
  std::string pg_skip = pg.Start(h.data_dir() + "/pg");
  if (pg_skip.empty()) {
    std::ifstream pidfile(h.data_dir() + "/pg/postmaster.pid");
    std::string pid;
    std::getline(pidfile, pid);
    fmt::print("postgres: up, pid {}, port {} ({:.1f} s): {}\n", pid, pg.port(), Elapsed(), pg.Version());
    meta.set("postgres_version", pg.Version());
    std::fflush(stdout);
  } else {
    fmt::print(stderr, "requests-bench: PostgreSQL's arms skipped: {}\n", pg_skip);
    for (const char* arm : {kPostgres, kPostgresExact}) h.results().skip(arm, "all", pg_skip);
  }
  bool broken = false;
  auto fail = [&](const std::string& why) {
    fmt::print(stderr, "requests-bench: {}\n", why);
    h.results().skip("all", "all", why);
    broken = true;
  };
  const std::string log = h.data_dir() + "/server.log", data = h.data_dir() + "/fenec";
  auto server = std::make_unique<fenec::scenarios::procs::ServerProcess>();
  if (std::string err = server->Start(f.server, ServerArgs(data, false, f.sync_ms), log); !err.empty()) {
    fail(err);
    // PostgreSQL is stopped before finish() removes the scratch folder that holds its cluster.
    if (std::string e = pg.Stop(); !e.empty()) fmt::print(stderr, "requests-bench: stopping postgres: {}\n", e);
    const int rc = h.finish();
    return rc != 0 ? rc : 1;
  }
  if (pg_skip.empty()) {
    fmt::print("loading {} rows into postgres (COPY)...\n", f.rows);
    std::fflush(stdout);
    if (std::string err = LoadPg(pg.conninfo(), d); !err.empty()) fail("loading postgres: " + err);
  }
  if (!broken) {
    fmt::print("loading {} rows into fenec-server (POST /docs, 1 000 a request, @hnsw linked)...\n", f.rows);
    std::fflush(stdout);
    if (std::string err = LoadFenec(server->port(), d); !err.empty()) fail("loading fenec-server: " + err);
  }
  if (!broken) {
    if (std::string err = CheckLoaded(server->port(), pg_skip.empty() ? pg.conninfo() : "", d, 20); !err.empty()) {
      fail(err);
    } else {
      fmt::print("both hold {} rows; by id and filter answered alike ({:.1f} s)\n", f.rows, Elapsed());
    }
  }
  const std::string wrk = f.wrk_seconds > 0 ? FindWrk() : "";
  const std::string wrk_skip = f.wrk_seconds == 0 ? "--wrk-seconds 0"
                               : wrk.empty()      ? "wrk is not installed here (scripts/setup.sh installs it)"
                                                  : "";
  if (!wrk_skip.empty()) h.results().skip(kWrk, "request=get-by-id", wrk_skip);

  Bench bench(h, f, d);
  Pool fenec_pool, pg_pool;
  auto open_pools = [&](bool durable) {
    const int port = server->port();
    std::string err = OpenPool(f.clients, [&](std::unique_ptr<Conn>* c) { return ConnectFenec(port, d, c); }, &fenec_pool);
    if (err.empty() && pg_skip.empty()) {
      err = OpenPool(f.clients, [&](std::unique_ptr<Conn>* c) { return ConnectPg(pg.conninfo(), d, durable, c); },
                     &pg_pool);
    }
    if (!err.empty()) fail(err);
  };
  if (!broken) open_pools(false);
  // Every cell of a repetition, both systems in turn; the default pair first.
  // The one-client cells run pinned (pin.h): this thread (the client loop's
  // threads and wrk start from it), every fenec-server thread and the
  // PostgreSQL backend of the first connection; unpinned after.
  auto place_one_client = [&](bool pinned) {
    if (broken) return;
    std::vector<pid_t> servers = {server->pid()};
    if (pg_skip.empty() && !pg_pool.empty()) servers.push_back(pg_pool[0]->ServerPid());
    if (std::string err = procs::Place(f.pin, place, servers, pinned); !err.empty()) {
      fail("pinning the one-client cells (--pin none runs them unpinned): " + err);
    }
  };
  auto rep_cells = [&](int rep, bool durable) {
    for (int clients : {1, f.clients}) {
      place_one_client(clients == 1);
      for (Kind k : kKinds) {
        if (broken || Stop() || (durable && k != Kind::kPut)) continue;
        broken = !bench.Cell(kFenec, fenec_pool, k, clients, durable, rep, server->port());
        if (!broken && pg_skip.empty()) broken = !bench.Cell(PgArm(k), pg_pool, k, clients, durable, rep, 0);
        if (!broken && !durable && k == Kind::kGetById && wrk_skip.empty()) {
          broken = !bench.Wrk(wrk, server->port(), clients, rep);
        }
      }
    }
  };
  for (int rep = 1; rep <= h.reps() && !broken && !Stop(); ++rep) rep_cells(rep, false);
  if (!broken && !Stop()) {
    fmt::print("durable pair: fenec-server --durable, postgres synchronous_commit on (puts) ({:.1f} s)\n", Elapsed());
    fenec_pool.clear();
    if (const int code = server->Stop(); code != 0) fail(fmt::format("fenec-server exited {} (see {})", code, log));
    server = std::make_unique<fenec::scenarios::procs::ServerProcess>();
    if (!broken) {
      if (std::string err = server->Start(f.server, ServerArgs(data, true, f.sync_ms), log); !err.empty()) fail(err);
    }
    if (!broken) open_pools(true);
    for (int rep = 1; rep <= h.reps() && !broken && !Stop(); ++rep) rep_cells(rep, true);
  }
  fenec_pool.clear();
  pg_pool.clear();
  if (const int code = server->Stop(); code != 0 && !Stop()) fail(fmt::format("fenec-server exited {} (see {})", code, log));
  // Before finish(), which removes the scratch folder holding the cluster: a
  // postmaster whose folder is gone cannot be stopped by pg_ctl any more.
  if (std::string err = pg.Stop(); !err.empty()) fmt::print(stderr, "requests-bench: stopping postgres: {}\n", err);

  AddSummary(h.results(), bench.cells(), f.clients);
  const std::string plot = WritePlot(h, bench.cells(), f.clients);
  // The wrk check asks for 15%; quick's few one-second wrk runs give
  // intervals of +-30% here (1.07x [0.79, 1.44]), so in quick mode it is
  // shown, not judged: a verdict that chance would flip between runs.
  const std::string wrk_unjudged =
      h.quick() && h.reps() < 5 ? fmt::format("{} wrk runs of {} s cannot resolve a 15% difference; the full run "
                                              "(`make requests-bench`) judges it",
                                              h.reps(), f.wrk_seconds)
                                : "";
  for (auto& v : MakeVerdicts(bench.cells(), f.clients, plot, pg_skip, wrk_skip, wrk_unjudged))
    h.results().verdict(std::move(v));
  const int rc = h.finish();
  return rc != 0 ? rc : (broken ? 1 : 0);
}
