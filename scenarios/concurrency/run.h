// concurrency-bench's run, flags aside (main.cc): PostgreSQL's scratch
// cluster where its arms run, the parts (parts.h), the peers' check against
// their own tools, plots and verdicts (report.h).
#pragma once

#include "iobench/kit/harness.h"
#include "scenarios/concurrency/parts.h"

namespace fenec::scenarios::concurrency {

// --help's closing paragraph: how cells repeat, what each verdict judges,
// what the run writes.
extern const char* const kHelpFooter;

// Everything after h.parse(); peer_check_given: --peer-check-seconds was on
// the command line (quick mode's skip says how to run the check otherwise).
// Returns h.finish().
int run(kit::Harness& h, Config& c, bool peer_check_given);

}  // namespace fenec::scenarios::concurrency
