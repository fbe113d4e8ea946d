// requests-bench's run, flags aside (main.cc): PostgreSQL's scratch
// cluster and fenec-server started, both loaded with the same rows, every
// cell of both systems a repetition (the default pair, then the durable
// one), wrk's check, the rows, plot and verdicts (report.h).
#pragma once

#include <string>

#include "iobench/kit/harness.h"
#include "scenarios/procs/pin.h"

namespace fenec::scenarios::requests {

struct Flags {
  std::string server;  // empty: this build tree's fenec-server
  int rows = 0;
  int clients = 0;
  int put_clients = 0;  // the durable pair's third client count, and the embedded engine's writers beside it
  int mixed_clients = 0;  // the durable pair's mixed get / put / filter load
  double seconds = 0;
  int wrk_seconds = 0;  // 0: no wrk
  int sync_ms = 0;
  std::string commit_window = "adaptive";  // the durable pair's fenec-server --commit-window-us, and its embedded run's
  int pg_commit_delay_us = 0;  // the durable pair's PostgreSQL commit_delay
  procs::Pin pin = procs::Pin::kSame;
};

// Everything after h.parse(); returns h.finish() (2 if --pin cannot be had here).
int run(kit::Harness& h, Flags& f);

}  // namespace fenec::scenarios::requests
