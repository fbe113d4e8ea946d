#include "scenarios/requests/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "iobench/kit/interrupt.h"
#include "iobench/kit/console.h"
#include "iobench/kit/proc.h"
#include "scenarios/pg/pq.h"
#include "scenarios/pg/pg_cluster.h"
#include "scenarios/procs/metrics.h"
#include "scenarios/procs/server_process.h"
#include "scenarios/engines/store.h"
#include "scenarios/engines/workload.h"
#include "scenarios/requests/cell.h"
#include "scenarios/requests/check.h"
#include "scenarios/requests/floor.h"
#include "scenarios/requests/report.h"
#include "scenarios/requests/wrk.h"

namespace fenec::scenarios::requests {
namespace {

namespace fs = std::filesystem;
using procs::Placement;
using procs::PromValue;
using Pool = std::vector<std::unique_ptr<Conn>>;

bool Stop() { return kit::stop_requested(); }

// The processes' CPU so far, seconds; -1 if one is unreadable (or none given).
double CpuOf(const std::vector<int>& pids) {
  double s = 0;
  for (int pid : pids) {
    const double one = kit::process_cpu_seconds(pid);
    if (one < 0) return -1;
    s += one;
  }
  return pids.empty() ? -1 : s;
}

// pg_stat_wal's wal_sync: the WAL fsyncs so far (a backend's own, once it
// has published them; Conn::FlushStats), or -1.
double WalSyncs(PGconn* mon) {
  PGresult* r = nullptr;
  if (mon == nullptr || !pg::Exec(mon, "SELECT wal_sync FROM pg_stat_wal", PGRES_TUPLES_OK, &r).empty()) return -1;
  const double v = PQntuples(r) == 1 ? std::strtod(PQgetvalue(r, 0, 0), nullptr) : -1;
  PQclear(r);
  return v;
}

const auto kStart = std::chrono::steady_clock::now();
// Seconds since the bench started, for the progress lines.
double Elapsed() { return std::chrono::duration<double>(std::chrono::steady_clock::now() - kStart).count(); }

// The /metrics series fenec-server files a request kind's handling under.
std::string Series(Kind k) {
  switch (k) {
    case Kind::kEmpty:
      return R"(endpoint="health",kind="")";
    case Kind::kGetById:
      return R"(endpoint="query",kind="get")";
    case Kind::kPut:
      return R"(endpoint="query",kind="put")";
    case Kind::kMixed:
      return "";  // three kinds in one cell: no one series is its
    default:
      return R"(endpoint="query",kind="find")";  // a filter and a near are both FIND
  }
}

double Prom(const std::string& m, const std::string& name, const std::string& labels) {
  return PromValue(m, name + "{" + labels + "}");
}

class Bench {
 public:
  Bench(kit::Harness& h, const Flags& f, const Dataset& d) : h_(h), f_(f), d_(d) {}

  // One cell of one arm, its rows added; false if a request failed (then the run is broken).
  // cpu_pids: the processes that answer it (their CPU a request); pg_syncs:
  // PostgreSQL's WAL syncs so far (durable cells; fenec's come from /metrics).
  bool Cell(const std::string& arm, Pool& pool, Kind k, int clients, bool durable, int rep, int fenec_port,
            const std::vector<int>& cpu_pids, const std::function<double()>& pg_syncs = nullptr) {
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
    const std::string before = fenec_port > 0 ? procs::FetchMetrics(fenec_port) : "";
    auto syncs = [&](const std::string& metrics) {
      if (!durable || k != Kind::kPut) return -1.0;
      return fenec_port > 0 ? PromValue(metrics, "fenec_journal_fsyncs_total") : pg_syncs ? pg_syncs() : -1.0;
    };
    const double syncs0 = syncs(before), cpu0 = CpuOf(cpu_pids);
    CellResult r = RunCell(pool, cfg);
    const double cpu1 = CpuOf(cpu_pids);
    const std::string after = fenec_port > 0 ? procs::FetchMetrics(fenec_port) : "";
    const double syncs1 = syncs(after);
    const std::string case_ = CaseName(k, clients, durable);
    if (!r.error.empty() || r.requests == 0) {
      if (!Stop()) {
        const std::string why = r.error.empty() ? "no request answered" : r.error;
        h_.results().skip(arm, fmt::format("{};rep={}", case_, rep), why);
        h_.fail(fmt::format("{} {}: {}", arm, case_, why));
      }
      return false;
    }
    Figures fig;
    fig.p50_us = static_cast<double>(r.ns.Percentile(50)) / 1e3;
    fig.p99_us = static_cast<double>(r.ns.Percentile(99)) / 1e3;
    fig.per_s = r.per_s();
    fig.cpu_us_per_request = r.client_cpu_s * 1e6 / static_cast<double>(r.requests);
    fig.cpu_cores = r.wall_s > 0 ? r.client_cpu_s / r.wall_s : 0;
    // Both counters run over the warm-up too: divided by every request asked.
    const double asked = static_cast<double>(r.requests) + static_cast<double>(clients) * cfg.warmup_per_client;
    if (cpu0 >= 0 && cpu1 >= cpu0) fig.server_cpu_us_per_request = (cpu1 - cpu0) * 1e6 / asked;
    if (syncs0 >= 0 && syncs1 > syncs0) fig.commits_per_sync = asked / (syncs1 - syncs0);
    if (fenec_port > 0 && !Series(k).empty()) {
      // The summary is over the server's life: this cell's share is the
      // difference of its sum and count (its warm-up included), a mean; its
      // p50 only where the series held next to nothing before this cell (the
      // load check's few requests: at most 5% of the cell's).
      const std::string name = "fenec_request_handle_seconds";
      const double n0 = std::max(0.0, Prom(before, name + "_count", Series(k)));
      const double s0 = std::max(0.0, Prom(before, name + "_sum", Series(k)));
      const double n1 = Prom(after, name + "_count", Series(k)), s1 = Prom(after, name + "_sum", Series(k));
      if (n1 > n0) fig.handle_mean_us = (s1 - s0) / (n1 - n0) * 1e6;
      if (n1 > n0 && n0 <= 0.05 * (n1 - n0))
        fig.handle_p50_us = Prom(after, name, Series(k) + ",quantile=\"0.5\"") * 1e6;
    }
    AddRep(h_.results(), cells_, arm, case_, rep, fig);
    fmt::print(
        "rep {} {:>9} {:>2} client(s){} {:>14}: p50 {:>9} p99 {:>9} {:>8} req/s{}; CPU a request: client {:.1f} us, "
        "server {:.1f} us{}\n",
        rep, KindName(k), clients, durable ? " durable" : "", arm, kit::format_us(fig.p50_us),
        kit::format_us(fig.p99_us), kit::format_count(fig.per_s),
        fig.handle_mean_us >= 0 ? fmt::format(", server handling {}", kit::format_us(fig.handle_mean_us)) : "",
        fig.cpu_us_per_request, fig.server_cpu_us_per_request,
        fig.commits_per_sync > 0 ? fmt::format("; {:.1f} commits a sync", fig.commits_per_sync) : "");
    std::fflush(stdout);
    return true;
  }

  // The embedded engine beside the durable pair's put_clients cell: the
  // concurrency bench's fenecdb-durable arm and its writers' loop
  // (scenarios/engines), `writers` threads a row a commit, on this run's
  // disk, in a folder of its own, for as long as a cell.
  bool Embedded(int writers, int rep) {
    engines::ArmSpec arm;
    arm.name = "fenecdb-durable";
    arm.engine = engines::ArmSpec::Engine::kFenecdb;
    arm.durable = true;
    (void)ParseCommitWindow(f_.commit_window, &arm.commit_window_us);  // the server's setting, so rounds compare alike
    const std::string dir = fmt::format("{}/embedded-{}", h_.data_dir(), rep), case_ = CaseName(Kind::kPut, writers, true);
    std::string err;
    std::unique_ptr<engines::Store> store = engines::open_fenecdb(arm, "writers", dir + "/db", &err);
    engines::WritersResult w;
    if (store) {
      store->reset_counters();
      engines::Budget budget;
      budget.seconds = f_.seconds;
      budget.max_ops = 2'000'000;
      w = engines::run_writers(*store, writers, budget, h_.seed() + static_cast<uint64_t>(rep));
      if (std::string e = store->close(); err.empty()) err = w.error.empty() ? e : w.error;
      store.reset();
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
    if (!err.empty() || w.writes == 0 || w.counters.fsyncs == 0) {
      const std::string why = !err.empty() ? err : "no write landed";
      h_.results().skip(kEmbedded, fmt::format("{};rep={}", case_, rep), why);
      if (!Stop()) h_.fail("embedded writers: " + why);
      return false;
    }
    Figures fig;
    fig.p50_us = static_cast<double>(w.write_ns.Percentile(50)) / 1e3;
    fig.p99_us = static_cast<double>(w.write_ns.Percentile(99)) / 1e3;
    fig.per_s = w.seconds > 0 ? static_cast<double>(w.writes) / w.seconds : 0;
    fig.commits_per_sync = static_cast<double>(w.counters.commits) / static_cast<double>(w.counters.fsyncs);
    AddRep(h_.results(), cells_, kEmbedded, case_, rep, fig);
    fmt::print("rep {} {:>9} {:>2} writer(s) durable {:>14}: p50 {:>9} p99 {:>9} {:>8} puts/s; {:.1f} commits a sync\n",
               rep, "put", writers, kEmbedded, kit::format_us(fig.p50_us), kit::format_us(fig.p99_us),
               kit::format_count(fig.per_s), fig.commits_per_sync);
    std::fflush(stdout);
    return true;
  }

  bool Wrk(const std::string& wrk, int port, int clients, int rep) {
    WrkResult w = RunWrk(wrk, port, DrawId(d_, static_cast<uint64_t>(rep)), clients, std::min(clients, 2),
                         f_.wrk_seconds, h_.data_dir());
    const std::string case_ = CaseName(Kind::kGetById, clients, false);
    if (!w.error.empty()) {
      h_.results().skip(kWrk, fmt::format("{};rep={}", case_, rep), w.error);
      if (!Stop()) h_.fail("wrk: " + w.error);
      return false;
    }
    Figures fig;
    fig.p50_us = w.p50_us;
    fig.p99_us = w.p99_us;
    fig.per_s = w.per_s;
    AddRep(h_.results(), cells_, kWrk, case_, rep, fig);
    fmt::print("rep {} get-by-id {:>2} client(s) {:>14}: p50 {:>9} p99 {:>9} {:>8} req/s (wrk -t{} -c{})\n", rep,
               clients, kWrk, kit::format_us(w.p50_us), kit::format_us(w.p99_us), kit::format_count(w.per_s),
               std::min(clients, 2), clients);
    std::fflush(stdout);
    return true;
  }

  const Cells& cells() const { return cells_; }

 private:
  kit::Harness& h_;
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
std::vector<std::string> ServerArgs(const std::string& data, const std::string& durability, int sync_ms,
                                    const std::string& commit_window) {
  std::vector<std::string> a = {"--data", data, "--idle-timeout", "86400", "--durability", durability};
  if (durability == "durable") {
    a.insert(a.end(), {"--commit-window-us", commit_window});
  } else {
    a.insert(a.end(), {"--sync", std::to_string(sync_ms)});
  }
  return a;
}

}  // namespace

int run(kit::Harness& h, Flags& f) {
  Placement place;
  if (std::string err = procs::PlacementOf(f.pin, &place); !err.empty()) {
    fmt::print(stderr, "requests-bench: {}\n", err);
    return 2;
  }
  // A line at a time even into a pipe: progress (and the postmaster's pid, which tests read) shows as it happens.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (f.server.empty()) f.server = procs::DefaultServerBinary();
  auto& meta = h.results().meta();
  meta.set("rows", std::to_string(f.rows));
  meta.set("clients", std::to_string(f.clients));
  meta.set("cell_seconds", fmt::format("{}", f.seconds));
  meta.set("one_client_pin", procs::Describe(f.pin, place));
  meta.set("pairs", fmt::format("fenec-server --durability buffered --sync {} vs synchronous_commit off; --durability "
                                "durable --commit-window-us {} vs "
                                "on, commit_delay {} (puts)",
                                f.sync_ms, f.commit_window, f.pg_commit_delay_us));
  meta.set("write_through_arm", fmt::format("{}: fenec-server --durability write-through --sync {}, a server of its "
                                            "own, the default pair's put cells beside the buffered server's",
                                            kFenecWriteThrough, f.sync_ms));
  meta.set("postgres_near", "exact scan in SQL (postgres-exact); pgvector is not packaged for Debian 12");
  h.results().skip("pgvector", "request=near",
                   "pgvector is not packaged for Debian 12; PostgreSQL's near is the "
                   "exact scan written in SQL (arm postgres-exact)");
  if (f.server.empty() || !fs::exists(f.server)) {
    h.results().skip("all", "all", "fenec-server not found (build engine/server or pass --server)");
    return h.finish();
  }

  // First, so the process it forks holds none of the connections opened after.
  LoopbackFloor loop_floor;
  const std::string floor_skip = loop_floor.Start();
  if (!floor_skip.empty()) h.results().skip(kFloor, CaseName(Kind::kEmpty, 1, false), floor_skip);
  const Dataset d = MakeDataset(f.rows, h.seed());
  pg::PgCluster pg;
  fmt::print("postgres: starting a scratch cluster...\n");
  std::fflush(stdout);
  std::string pg_skip = pg.Start(h.data_dir() + "/pg");
  if (pg_skip.empty()) {
    std::ifstream pidfile(pg.dir() + "/postmaster.pid");
    std::string pid;
    std::getline(pidfile, pid);
    fmt::print("postgres: up, pid {}, port {} ({:.1f} s): {}\n", pid, pg.port(), Elapsed(), pg.Version());
    meta.set("postgres_version", pg.Version());
    std::fflush(stdout);
  } else {
    fmt::print(stderr, "requests-bench: PostgreSQL's arms skipped: {}\n", pg_skip);
    for (const char* arm : {kPostgres, kPostgresExact}) h.results().skip(arm, "all", pg_skip);
    // Installed but not started is the run's failure: the report would lack its comparison.
    if (!pg.missing()) h.fail("postgres: " + pg_skip);
  }
  bool broken = false;
  auto fail = [&](const std::string& why) {
    h.results().skip("all", "all", why);
    h.fail(why);
    broken = true;
  };
  const std::string log = h.data_dir() + "/server.log", data = h.data_dir() + "/fenec";
  auto server = std::make_unique<procs::ServerProcess>();
  if (std::string err = server->Start(f.server, ServerArgs(data, "buffered", f.sync_ms, ""), log); !err.empty()) {
    fail(err);
    // PostgreSQL is stopped before finish() removes the scratch folder that holds its cluster.
    if (std::string e = pg.Stop(); !e.empty()) fmt::print(stderr, "requests-bench: stopping postgres: {}\n", e);
    return h.finish();
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
  if (!broken) {
    double recall = 0;
    if (std::string err = NearRecall(server->port(), d, &recall); !err.empty()) {
      fail("near's recall: " + err);
    } else {
      h.results().add(kFinding, kFenec, "request=near;recall=exact", "recall_at_10", recall, "fraction");
      fmt::print("near: recall@10 {:.3f} against the exact scan, {} query vectors ({:.1f} s)\n", recall,
                 d.queries.size(), Elapsed());
    }
  }
  // The write-through arm: a server of its own, asked the default pair's
  // puts alone, so it needs only their collection.
  auto wt = std::make_unique<procs::ServerProcess>();
  const std::string wt_log = h.data_dir() + "/server-write-through.log";
  if (!broken) {
    std::string err =
        wt->Start(f.server, ServerArgs(h.data_dir() + "/fenec-write-through", "write-through", f.sync_ms, ""), wt_log);
    if (err.empty()) err = CreateFenecPuts(wt->port());
    if (!err.empty()) fail("the write-through server: " + err);
  }
  const std::string wrk = f.wrk_seconds > 0 ? FindWrk() : "";
  const std::string wrk_skip = f.wrk_seconds == 0 ? "--wrk-seconds 0"
                               : wrk.empty()      ? "wrk is not installed here (scripts/setup.sh installs it)"
                                                  : "";
  if (!wrk_skip.empty()) h.results().skip(kWrk, "request=get-by-id", wrk_skip);

  Bench bench(h, f, d);
  Pool fenec_pool, pg_pool, floor_pool, wt_pool;
  if (floor_skip.empty()) {
    floor_pool.emplace_back();
    if (std::string err = ConnectFenec(loop_floor.port(), d, &floor_pool.back()); !err.empty()) fail(err);
  }
  auto open_pools = [&](bool durable) {
    const int port = server->port(), n = durable ? std::max({f.clients, f.put_clients, f.mixed_clients}) : f.clients;
    std::string err = OpenPool(
        n, [&](std::unique_ptr<Conn>* c) { return ConnectFenec(port, d, c); }, &fenec_pool);
    if (err.empty() && pg_skip.empty()) {
      err = OpenPool(
          n, [&](std::unique_ptr<Conn>* c) { return ConnectPg(pg.conninfo(), d, durable, c, f.pg_commit_delay_us); },
          &pg_pool);
    }
    if (!err.empty()) fail(err);
  };
  if (!broken) open_pools(false);
  if (!broken) {
    const int port = wt->port();
    if (std::string err = OpenPool(
            f.clients, [&](std::unique_ptr<Conn>* c) { return ConnectFenec(port, d, c); }, &wt_pool);
        !err.empty())
      fail("the write-through server: " + err);
  }
  // Every cell of a repetition, both systems in turn; the default pair first.
  // The one-client cells run pinned (pin.h): this thread (the client loop's
  // threads and wrk start from it), every fenec-server thread and the
  // PostgreSQL backend of the first connection; unpinned after.
  auto place_one_client = [&](bool pinned) {
    if (broken) return;
    std::vector<pid_t> servers = {server->pid()};
    if (wt->pid() > 0) servers.push_back(wt->pid());
    if (floor_skip.empty()) servers.push_back(loop_floor.pid());
    if (pg_skip.empty() && !pg_pool.empty()) servers.push_back(pg_pool[0]->ServerPid());
    if (std::string err = procs::Place(f.pin, place, servers, pinned); !err.empty()) {
      fail("pinning the one-client cells (--pin none runs them unpinned): " + err);
    }
  };
  pg::PqConn mon;  // reads pg_stat_wal between the durable cells
  if (pg_skip.empty() && !broken) {
    std::string err;
    mon.reset(pg::Connect(pg.conninfo(), &err));
    if (!mon) fmt::print(stderr, "requests-bench: no monitor connection, no PostgreSQL syncs: {}\n", err);
  }
  auto rep_cells = [&](int rep, bool durable) {
    std::vector<int> counts = {1, f.clients};
    if (durable && f.put_clients != f.clients) counts.push_back(f.put_clients);
    for (int clients : counts) {
      place_one_client(clients == 1);
      std::vector<int> pg_pids;
      for (int i = 0; i < clients && pg_skip.empty() && i < static_cast<int>(pg_pool.size()); ++i)
        pg_pids.push_back(pg_pool[i]->ServerPid());
      auto pg_syncs = [&]() {
        for (int i = 0; i < clients; ++i) (void)pg_pool[i]->FlushStats();
        return WalSyncs(mon.get());
      };
      for (Kind k : kKinds) {
        if (broken || Stop() || (durable && k != Kind::kPut)) continue;
        broken = !bench.Cell(kFenec, fenec_pool, k, clients, durable, rep, server->port(), {server->pid()});
        // Beside the buffered server's puts, the same cell (the same draws) on the write-through server.
        if (!broken && !durable && k == Kind::kPut) {
          broken = !bench.Cell(kFenecWriteThrough, wt_pool, k, clients, false, rep, wt->port(), {wt->pid()});
        }
        if (!broken && pg_skip.empty())
          broken = !bench.Cell(PgArm(k), pg_pool, k, clients, durable, rep, 0, pg_pids, pg_syncs);
        if (!broken && !durable && k == Kind::kEmpty && clients == 1 && floor_skip.empty()) {
          broken = !bench.Cell(kFloor, floor_pool, k, clients, false, rep, 0, {loop_floor.pid()});
        }
        if (!broken && !durable && k == Kind::kGetById && wrk_skip.empty()) {
          broken = !bench.Wrk(wrk, server->port(), clients, rep);
        }
      }
      if (!broken && !Stop() && durable && clients == f.put_clients) broken = !bench.Embedded(clients, rep);
    }
    if (!durable || broken || Stop()) return;
    // More connections than cores: gets, filters and durable puts at once.
    const int m = f.mixed_clients;
    std::vector<int> pg_pids;
    for (int i = 0; i < m && pg_skip.empty() && i < static_cast<int>(pg_pool.size()); ++i)
      pg_pids.push_back(pg_pool[i]->ServerPid());
    broken = !bench.Cell(kFenec, fenec_pool, Kind::kMixed, m, true, rep, server->port(), {server->pid()});
    if (!broken && pg_skip.empty()) broken = !bench.Cell(kPostgres, pg_pool, Kind::kMixed, m, true, rep, 0, pg_pids);
  };
  // Each pair a sequence (--reps auto): its repetitions numbered from 1.
  const bool wrk_judged = wrk_skip.empty() && !(h.quick() && h.reps() < 5);
  auto judge = [&](bool durable) {
    return [&, durable](const kit::Window& w) {
      return RequestChecks(bench.cells(), f.clients, f.put_clients, durable, wrk_judged, w);
    };
  };
  h.expect_sequences(2);
  kit::Sequence& buffered_seq = h.sequence("buffered pair");
  kit::Sequence& durable_seq = h.sequence("durable pair");
  auto run_pair = [&](kit::Sequence& seq, bool durable) {
    seq.run(1, [&](size_t, int rep) {
      if (!broken && !Stop()) rep_cells(rep + 1, durable);
    }, judge(durable));
  };
  if (!broken && !Stop()) run_pair(buffered_seq, false);
  // Done with the write-through arm: the durable pair runs as before, without it.
  auto stop_write_through = [&] {
    wt_pool.clear();
    if (wt->pid() <= 0) return;
    if (const int code = wt->Stop(); code != 0 && !Stop())
      fail(fmt::format("the write-through fenec-server exited {} (see {})", code, wt_log));
  };
  stop_write_through();
  if (!broken && !Stop()) {
    fmt::print("durable pair: fenec-server --durable, postgres synchronous_commit on (puts) ({:.1f} s)\n", Elapsed());
    fenec_pool.clear();
    if (const int code = server->Stop(); code != 0) fail(fmt::format("fenec-server exited {} (see {})", code, log));
    server = std::make_unique<procs::ServerProcess>();
    if (!broken) {
      if (std::string err = server->Start(f.server, ServerArgs(data, "durable", f.sync_ms, f.commit_window), log);
          !err.empty())
        fail(err);
    }
    if (!broken) open_pools(true);
    if (!broken) run_pair(durable_seq, true);
  }
  fenec_pool.clear();
  pg_pool.clear();
  floor_pool.clear();
  loop_floor.Stop();
  mon.reset();
  if (const int code = server->Stop(); code != 0 && !Stop())
    fail(fmt::format("fenec-server exited {} (see {})", code, log));
  // Before finish(), which removes the scratch folder holding the cluster: a
  // postmaster whose folder is gone cannot be stopped by pg_ctl any more.
  if (std::string err = pg.Stop(); !err.empty()) fmt::print(stderr, "requests-bench: stopping postgres: {}\n", err);

  AddSummary(h.results(), bench.cells(), f.clients, f.put_clients, f.mixed_clients);
  const std::string plot = WritePlot(h, bench.cells(), f.clients);
  // The wrk check asks for 15%; quick's few one-second wrk runs give
  // intervals about twice that wide, so in quick mode it is shown, not
  // judged: a verdict that chance would flip between runs.
  const std::string wrk_unjudged = h.quick() && h.reps() < 5
                                       ? fmt::format(
                                             "{} wrk runs of {} s cannot resolve a 15% difference; the full run "
                                             "(`make requests-bench`) judges it",
                                             h.reps(), f.wrk_seconds)
                                       : "";
  const bool wt_ran = bench.cells().count({kFenecWriteThrough, CaseName(Kind::kPut, f.clients, false)}) > 0;
  const std::string wt_skip = wt_ran ? "" : "the write-through server's put cells did not run";
  std::vector<kit::Check> judged = buffered_seq.checks(judge(false));
  for (kit::Check& c : durable_seq.checks(judge(true))) judged.push_back(std::move(c));
  for (auto& v : MakeVerdicts(bench.cells(), f.clients, f.put_clients, plot, pg_skip, wrk_skip, wrk_unjudged, wt_skip,
                              &judged))
    h.results().verdict(std::move(v));
  return h.finish();
}

}  // namespace fenec::scenarios::requests
