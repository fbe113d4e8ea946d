// conns-bench's verdict (CONNS, our own target) and its plot.
#pragma once

#include <string>
#include <vector>

#include "findings/catalogue.h"
#include "iobench/kit/harness.h"
#include "iobench/kit/verdict.h"

namespace fenec::scenarios::conns {

// One repetition: the same server, unloaded then holding the crowd.
struct Rep {
  double unloaded_p50_us = 0, unloaded_p99_us = 0;
  double held_p50_us = 0, held_p99_us = 0;
  double held_gauge_min = -1;  // the gauge around the held gets (the lower of before and after)
  double rss_before = 0, rss_held = 0;  // the server's, bytes
  double connect_s = 0;                 // the holder's time to open every connection
  double closed_or_refused = 0;  // connections the server closed at a deadline or refused while held
};

struct Shape {
  int idle = 10000, slow = 100;
  double line = findings::conns::kHeld.value;  // held p50 at most this many times the unloaded one
};

// Adds the per-repetition and summary rows, draws plots/conns/get_p50.png,
// and judges: the held/unloaded p50 ratio (paired, with its 95% interval)
// against the line; the gauge at least idle + slow + 1 (the client) at every
// held measurement; nothing closed or refused meanwhile.
kit::Verdict Judge(kit::Harness& h, const Shape& shape, const std::vector<Rep>& reps);

}  // namespace fenec::scenarios::conns
