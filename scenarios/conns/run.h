// conns-bench's run, flags aside (main.cc): fenec-server started and
// prefilled, a warm-up client run, then --reps repetitions of an unloaded
// client run and one beside the crowd conns-holder holds, the verdict
// (report.h).
#pragma once

#include <string>

#include "iobench/kit/harness.h"
#include "scenarios/conns/report.h"
#include "scenarios/procs/pin.h"

namespace fenec::scenarios::conns {

struct Flags {
  std::string server, holder;  // empty: the ones in this build tree
  Shape shape;
  int docs = 0;
  int gets = 0;  // timed gets per client run
  int drip_ms = 0;
  procs::Pin pin = procs::Pin::kSame;
};

// Everything after h.parse(); a broken repetition or a server that exits
// non-zero is h.fail()ed. Returns h.finish() (2 if --pin cannot be had here).
int run(kit::Harness& h, Flags& f);

}  // namespace fenec::scenarios::conns
