// recon-bench: RC-1, a ledger reconciled every second over HTTP.
//
// fenec-server runs as a child process on loopback. A ledger (ledger.h) is
// prefilled once into a template folder; every run starts a fresh server on
// a copy of it, so every run of every arm starts from the same entries.
// Arms, --reps times (3 quick, 5 full) in turns (run 1 of each arm, then
// run 2 ...), so a shared machine's drift hits them alike:
//   no-recon      four clients sending transfers, nothing else
//   recon-pinned  the same, plus a reconciliation every second, server --long-reads pinned (CC-5)
//   recon-locked  the same, server --long-reads locked: the aggregate holds the shared lock throughout
// A reconciliation whose invariant fails fails the run (and the bench's exit code).
// The verdict (report.h): each arm's longest wait over its runs, with its 95%
// interval, against the source's 50 ms line: locked above it, pinned below.
// main.cc is the command line; the run is bench.h.
#include "iobench/kit/harness.h"
#include "scenarios/recon/bench.h"
#include "scenarios/recon/report.h"

namespace fr = fenec::scenarios::recon;

int main(int argc, char** argv) {
  fenec::kit::Harness h("recon", "RC-1: a ledger's reconciliation every second beside four HTTP clients sending transfers, "
                     "with the server's long reads pinned or held under the shared lock; every arm --reps times, "
                     "in turns. Verdict: the transfers' longest wait over the runs (95% interval) against the "
                     "source's 50 ms line, recon-locked above it and recon-pinned below it; p99.9 and p99 beside it.");
  fr::Flags f;
  const std::vector<std::string> arms = {fr::kNoRecon, fr::kPinned, fr::kLocked};
  h.flag("--server", &f.server, "the fenec-server binary", "").default_text("the one in this build tree");
  h.flag("--seconds", &f.seconds, "length of a run", 20, 4).range(1, 3600);
  // The recon-locked arm's stall is the reconciliation's hold of the shared
  // lock, which grows with the entries it aggregates (the source's ledger
  // had passed 1.8 M). Quick: enough entries that every reconciliation, not
  // just a run's cold first one, holds transfers past the 50 ms line, as in
  // the source; full: more, while a reconciliation still fits in its second.
  h.flag("--prefill", &f.prefill, "transfers per client landed before the runs, two entries each", 150000, 100000)
      .range(0, 10000000);
  // Paced, not closed-loop: closed-loop clients saturate a two-core box, and
  // then every long computation (a pinned scan too) delays transfers by
  // taking their CPU, so the run would measure the scheduler rather than
  // the locks RC-1 is about. The source's clients had cores to spare.
  h.flag("--rate", &f.rate, "transfers a second per client; 0: closed loop", 1000).range(0, 1000000);
  h.flag("--durable", &f.durable, "server --durability durable (else buffered, --sync MS)");
  h.flag("--sync-ms", &f.sync_ms, "server --durability buffered --sync MS when not --durable", 250).range(1, 60000);
  h.flag("--arms", &f.arms, "arms to run", arms).one_of(arms);
  if (const int rc = h.parse(argc, argv); rc >= 0) return rc;
  return fr::run_bench(h, f);
}
