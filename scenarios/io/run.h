// io-bench's run (main.cc holds only its flags): the probe, the cell blocks
// of IO-1, IO-2, IO-3 and IO-7, IO-4 and IO-5, their rows, plots, tables and
// verdicts (verdicts.h).
//
//   IO-1  sizes x modes at 1 job            (throughput vs size)
//   IO-2  8 KiB durable writes at 1..16 jobs (total and per-job throughput, latency CDF)
//   IO-3  one long buffered 1 MiB cell       (throughput over time: the page cache draining; full mode only)
//   IO-4  iobench lies                       (durable vs buffered latency ratio)
//   IO-5  iobench coherence                  (stale reads after direct writes)
//   IO-7  N x 4 KiB per op: N pwrites vs one pwritev vs one ring writev
//
// Each block's cells run --reps times, interleaved (every cell once, then
// every cell again, ...), so repetition r of two cells saw the same state of
// a shared machine and their ratio can be paired; each verdict checks such
// ratios' 95% intervals. Rows of one repetition carry ";rep=N" in their
// case; the plain case carries the geometric mean over the repetitions with
// its interval, and the latency percentiles of all their ops together.
#pragma once

#include "iobench/kit/harness.h"

namespace fenec::scenarios::io {

// Everything after h.parse(); returns h.finish() (1 if the probe failed).
int run(kit::Harness& h);

}  // namespace fenec::scenarios::io
