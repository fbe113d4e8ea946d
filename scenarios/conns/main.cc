// conns-bench: does a crowd of idle and slow-drip connections slow a new
// client of fenec-server down?
//
// One fenec-server (a child process) serves a prefilled collection. Each
// repetition, in turn:
//   unloaded  a new client gets documents by id (one kept-alive connection)
//   held      conns-holder, a second child process, opens --idle silent
//             connections and --slow ones dripping a header byte a second,
//             the bench waits until the server's own gauge counts them all,
//             the same client run repeats, and the holder lets them go.
// The server's deadlines are set past the run (--idle-timeout and
// --header-timeout 900 s), so every held connection is still open, inside its
// timeout, while the held client measures: the gauge is read over the
// client's own connection just before and just after its gets.
// Verdict (report.h): the paired held/unloaded p50 ratio's 95% interval at
// most 2x, the gauge >= idle + slow + 1 at every held measurement, nothing
// closed or refused; and the server's RSS per held connection.
// main.cc is the command line; the run is run.h.
#include "iobench/kit/harness.h"
#include "scenarios/conns/run.h"
#include "scenarios/procs/pin.h"

namespace procs = fenec::scenarios::procs;

int main(int argc, char** argv) {
  fenec::kit::Harness h("conns", "A new client's get-by-id p50 with 10 000 idle and 100 slow-drip connections held "
                                 "open by another process, against the same server unloaded, in turns; the "
                                 "server's RSS per held connection.");
  h.set_default_reps(5, 8);
  fenec::scenarios::conns::Flags f;
  h.flag("--server", &f.server, "the fenec-server binary", "").default_text("the one in this build tree");
  h.flag("--holder", &f.holder, "the conns-holder binary", "").default_text("the one beside this bench");
  h.flag("--idle", &f.shape.idle, "silent connections held", 10000).range(0, 19000);
  h.flag("--slow", &f.shape.slow, "slow-drip connections held", 100).range(0, 19000);
  h.flag("--docs", &f.docs, "documents prefilled", 10000).range(1, 10000000);
  h.flag("--gets", &f.gets, "timed gets per client run", 20000, 2000).range(10, 10000000);
  h.flag("--drip-ms", &f.drip_ms, "milliseconds between a slow connection's bytes", 1000).range(1, 600000);
  h.choice("--pin", &f.pin, procs::kPinHelp, procs::PinNames(), "same");
  if (const int rc = h.parse(argc, argv); rc >= 0) return rc;
  return fenec::scenarios::conns::run(h, f);
}
