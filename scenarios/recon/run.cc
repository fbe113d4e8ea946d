#include "scenarios/recon/run.h"

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "iobench/kit/console.h"

namespace fenec::scenarios::recon {
namespace {

using Clock = std::chrono::steady_clock;

std::unique_ptr<httplib::Client> Connect(int port) {
  auto c = std::make_unique<httplib::Client>("127.0.0.1", port);
  c->set_keep_alive(true);
  // The request goes out whole at once; without this, Nagle could hold its tail for an ACK.
  c->set_tcp_nodelay(true);
  c->set_connection_timeout(10, 0);
  c->set_read_timeout(60, 0);
  c->set_write_timeout(60, 0);
  return c;
}

std::string Check(httplib::Client& cli, const LedgerShape& shape, const std::vector<std::unique_ptr<Books>>& books) {
  auto r = cli.Post("/query", kReconcile, "application/json");
  if (!r) return fmt::format("reconciliation request failed: {}", httplib::to_string(r.error()));
  if (r->status != 200) return fmt::format("reconciliation answered {}: {}", r->status, r->body.substr(0, 300));
  std::vector<AccountTotals> rows;
  if (std::string err = ParseTotals(r->body, &rows); !err.empty()) return err;
  std::vector<const Books*> view;
  for (const auto& b : books) view.push_back(b.get());
  return CheckInvariant(shape, rows, view);
}

struct ClientOut {
  base::Histogram ns;
  std::vector<TransferPoint> points;
  uint64_t over_50ms = 0, errors = 0, retries_rejected = 0, retries_applied = 0;
  std::string first_error;
};

void Client(int c, int port, const LedgerShape& shape, Books& books, const RunConfig& cfg, Clock::time_point start,
            Clock::time_point end, ClientOut* out) {
  auto cli = Connect(port);
  std::mt19937_64 rng(cfg.seed * 1000003 + static_cast<uint64_t>(c));
  const auto period = cfg.rate_per_client > 0 ? std::chrono::nanoseconds(1000000000LL / cfg.rate_per_client)
                                              : std::chrono::nanoseconds(0);
  auto next = start;
  const int first = shape.first_account(c), per = shape.accounts_per_client;
  while (!cfg.stop()) {
    if (period.count() > 0) {
      std::this_thread::sleep_until(next);
      next += period;
    }
    auto t0 = Clock::now();
    if (t0 >= end) break;
    Transfer t;
    t.from = static_cast<uint16_t>(first + static_cast<int>(rng() % per));
    t.to = static_cast<uint16_t>(first + static_cast<int>((t.from - first + 1 + rng() % (per - 1)) % per));
    t.amount = 1 + static_cast<int32_t>(rng() % 100);
    if (!books.Append(t)) break;
    const uint64_t seq = books.size();
    const std::string body = TransferBody(c, seq, t);
    t0 = Clock::now();
    auto r = cli->Post("/batch", body, "application/json");
    const auto ns = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
    if (!r || r->status != 200) {
      // The books hold a transfer the database does not: every later check
      // would fail on it, so this client stops and the run is marked invalid.
      ++out->errors;
      out->first_error = r ? fmt::format("transfer answered {}: {}", r->status, r->body.substr(0, 300))
                           : fmt::format("transfer request failed: {}", httplib::to_string(r.error()));
      return;
    }
    out->ns.Record(ns);
    if (ns > 50000000) ++out->over_50ms;
    out->points.push_back({static_cast<float>(std::chrono::duration<double>(t0 - start).count()),
                           static_cast<float>(ns / 1e6)});
    if (cfg.retry_every > 0 && seq % static_cast<uint64_t>(cfg.retry_every) == 0) {
      auto again = cli->Post("/batch", body, "application/json");
      if (again && again->status == 409) {
        ++out->retries_rejected;
      } else {
        ++out->retries_applied;
        if (out->first_error.empty()) {
          out->first_error = fmt::format("a re-sent transfer was answered {}, not 409", again ? again->status : 0);
        }
      }
    }
  }
}

}  // namespace

std::string ReconcileOnce(int port, const LedgerShape& shape, const std::vector<std::unique_ptr<Books>>& books) {
  auto cli = Connect(port);
  return Check(*cli, shape, books);
}

std::string Prefill(int port, const LedgerShape& shape, int prefill, uint64_t seed, const std::function<bool()>& stop,
                    std::vector<std::vector<Transfer>>* logs) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_keep_alive(true);
  cli.set_read_timeout(120, 0);
  for (const char* body : {kCreateAccounts, kCreateEntries}) {
    auto r = cli.Post("/query", body, "application/json");
    if (!r || r->status != 200) return fmt::format("create: {}", r ? r->body : httplib::to_string(r.error()));
  }
  auto r = cli.Post("/docs/accounts", AccountsDocs(shape), "application/json");
  if (!r || r->status != 200) return fmt::format("accounts: {}", r ? r->body : httplib::to_string(r.error()));
  std::mt19937_64 rng(seed);
  logs->assign(static_cast<size_t>(shape.clients), {});
  fenec::kit::Progress progress("recon prefill", static_cast<uint64_t>(shape.clients) * prefill);
  constexpr int kPerRequest = 500;
  for (int c = 0; c < shape.clients; ++c) {
    const int first = shape.first_account(c), per = shape.accounts_per_client;
    for (int done = 0; done < prefill && !stop(); done += kPerRequest) {
      std::vector<Transfer> ts;
      for (int i = 0; i < std::min(kPerRequest, prefill - done); ++i) {
        Transfer t;
        t.from = static_cast<uint16_t>(first + static_cast<int>(rng() % per));
        t.to = static_cast<uint16_t>(first + static_cast<int>((t.from - first + 1 + rng() % (per - 1)) % per));
        t.amount = 1 + static_cast<int32_t>(rng() % 100);
        ts.push_back(t);
      }
      auto put = cli.Post("/docs/entries", EntriesDocs(c, (*logs)[c].size() + 1, ts), "application/json");
      if (!put || put->status != 200) return fmt::format("prefill: {}", put ? put->body.substr(0, 300) : httplib::to_string(put.error()));
      (*logs)[c].insert((*logs)[c].end(), ts.begin(), ts.end());
      progress.update(static_cast<uint64_t>(c) * prefill + done + ts.size());
    }
  }
  progress.finish();
  return "";
}

RunResult RunLedger(int port, const LedgerShape& shape, std::vector<std::unique_ptr<Books>>& books,
                    const RunConfig& cfg) {
  RunResult res;
  std::vector<ClientOut> outs(static_cast<size_t>(shape.clients));
  const auto start = Clock::now();
  const auto end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(cfg.seconds));
  std::vector<std::thread> threads;
  for (int c = 0; c < shape.clients; ++c) {
    threads.emplace_back(Client, c, port, std::cref(shape), std::ref(*books[c]), std::cref(cfg), start, end, &outs[c]);
  }
  if (cfg.reconcile) {
    // The reconciliation runs at every whole second of the run; one that
    // overruns its second is followed at once by the next.
    auto cli = Connect(port);
    for (int k = 1;; ++k) {
      auto at = start + std::chrono::seconds(k);
      if (at >= end || cfg.stop()) break;
      std::this_thread::sleep_until(at);
      auto t0 = Clock::now();
      std::string err = Check(*cli, shape, books);
      auto t1 = Clock::now();
      res.recons.push_back({std::chrono::duration<double>(t0 - start).count(),
                            std::chrono::duration<double, std::milli>(t1 - t0).count()});
      if (!err.empty()) {
        ++res.violations;
        if (res.first_violation.empty()) res.first_violation = err;
      }
      k = std::max(k, static_cast<int>(std::chrono::duration<double>(t1 - start).count()));
    }
  }
  for (auto& t : threads) t.join();
  res.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (auto& o : outs) {
    res.transfer_ns.Merge(o.ns);
    res.over_50ms += o.over_50ms;
    res.errors += o.errors;
    res.retries_rejected += o.retries_rejected;
    res.retries_applied += o.retries_applied;
    if (res.first_error.empty()) res.first_error = o.first_error;
    res.points.insert(res.points.end(), o.points.begin(), o.points.end());
  }
  res.transfers = res.transfer_ns.count();
  return res;
}

}  // namespace fenec::scenarios::recon
