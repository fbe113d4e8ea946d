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
//   the default pair: fenec-server --durability buffered --sync 250 against synchronous_commit off
//                     (both reach the disk within a bound), every request;
//   the durable pair: fenec-server --durable against synchronous_commit on
//                     (each with its own group-commit wait: its default),
//                     puts, after the default pair's repetitions (the
//                     server restarted on the same folder);
//   write-through:    a second fenec-server, --durability write-through
//                     --sync 250 (a kill -9 loses nothing), asked the
//                     default pair's put cells beside the buffered one's in
//                     every repetition: what that promise costs a put.
// Beside each fenec-server cell, the server's own handling time from its
// /metrics; beside every cell, the client threads' own CPU. wrk on get by id,
// after our client's get-by-id cells, checks our HTTP client (wrk.h). The
// loopback's floor (floor.h) answers the one-client empty request too: what
// any server over this loopback pays before its own work.
// PostgreSQL runs as a scratch cluster under the scratch dir (pg_cluster.h),
// stopped at the end, on failure and on Ctrl-C; where it is not installed
// its arms are skipped with the reason. The verdicts: report.h.
#include "fenec/options.h"
#include "iobench/kit/harness.h"
#include "scenarios/procs/pin.h"
#include "scenarios/requests/run.h"
#include "scenarios/requests/targets.h"

namespace procs = fenec::scenarios::procs;

int main(int argc, char** argv) {
  fenec::kit::Harness h("requests",
                        "RQ-1: what a request costs a client on loopback: fenec-server (HTTP, POST /query) against "
                        "PostgreSQL 15 (libpq, prepared), both started here, the same rows and requests, one client "
                        "loop of ours for both; one client and eight; the server's own handling beside; the "
                        "loopback's floor (a server that only reads and writes) beside the empty request; wrk as a "
                        "check of our HTTP client.");
  fenec::scenarios::requests::Flags f;
  h.flag("--server", &f.server, "the fenec-server binary", "").default_text("the one in this build tree");
  h.flag("--rows", &f.rows, "rows in both systems", 10000).range(100, 10000000);
  h.flag("--clients", &f.clients, "clients of the many-clients cells", 8).range(2, 256);
  h.flag("--put-clients", &f.put_clients, "clients of the durable pair's third cell (puts a sync round)", 32)
      .range(2, 90);
  h.flag("--mixed-clients", &f.mixed_clients, "clients of the durable pair's mixed get / put / filter cell", 64)
      .range(2, 90);
  h.flag("--seconds", &f.seconds, "seconds a cell", 1.5, 0.15).range(0.01, 600);
  h.flag("--wrk-seconds", &f.wrk_seconds, "seconds a wrk run, whole; 0: no wrk", 2, 1).range(0, 600);
  h.flag("--sync-ms", &f.sync_ms,
         "fenec-server --sync MS of the default pair (--durability buffered) and of the write-through server", 250)
      .range(1, 60000);
  h.flag("--commit-window-us", &f.commit_window,
         "the durable pair's fenec-server --commit-window-us, and the embedded engine's beside it: 'adaptive' (the "
         "default of both) or microseconds (0: no wait)",
         std::string("adaptive"))
      .check([](const std::string& v) -> std::string {
        uint32_t us = 0;
        return fenec::ParseCommitWindow(v, &us) ? "" : "'adaptive' or 0..1000000 microseconds";
      });
  h.flag("--pg-commit-delay-us", &f.pg_commit_delay_us,
         "the durable pair's PostgreSQL commit_delay, its own group-commit wait (default PostgreSQL's own, 0)", 0)
      .range(0, fenec::scenarios::requests::kPgMaxCommitDelayUs);
  h.choice("--pin", &f.pin, procs::kPinHelp, procs::PinNames(), "same");
  // --reps auto: the two pairs' main experiments share this (a repetition of
  // the buffered pair is every cell of both systems, seconds in quick mode).
  h.set_default_budget(40, 300);
  if (const int rc = h.parse(argc, argv); rc >= 0) return rc;
  return fenec::scenarios::requests::run(h, f);
}
