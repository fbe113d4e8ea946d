// recon-bench's run, flags aside (main.cc): the ledger prefilled once into
// a template folder, then every arm's runs --reps times in turns, each on a
// fresh server over a copy of it (run.h), the rows, plot and verdict.
#pragma once

#include <string>
#include <vector>

#include "iobench/kit/harness.h"

namespace fenec::scenarios::recon {

struct Flags {
  std::string server;  // empty: this build tree's fenec-server
  double seconds = 0;  // a run
  int prefill = 0;     // transfers per client landed before the runs
  int rate = 0;        // transfers a second per client; 0: closed loop
  bool durable = false;
  int sync_ms = 0;
  std::vector<std::string> arms;
};

// Everything after h.parse(); an invalid run (a reconciliation whose
// invariant failed) is h.fail()ed. Returns h.finish().
int run_bench(kit::Harness& h, Flags& f);

}  // namespace fenec::scenarios::recon
