// growth-bench's GR-5 part: writes made while the periodic fsync runs.
//
// fenecdb in kBuffered mode, one writer putting small documents for a
// while, with the periodic journal fsync every --gr5-sync-ms and each
// fdatasync made slow (SyncSpanEnv sleeps --gr5-sync-delay-us first, as a
// slow disk's flush, the source's 52 ms F_FULLFSYNC) and timed: each
// journal fsync's span, and each put's start and end on the same clock.
// A put "arrived during a sync" if it started inside a span.
//
// Arms: "fenecdb" (CommitMode::kGroup: a journal write due while the
// periodic fsync runs is put off until it is done, GR-5's rule) and "naive"
// (CommitMode::kNaive: each put writes its record under the write lock,
// and waits there for the fsync that holds the journal).
//
// Judged: at the end of each fsync, the put then running (begun before the
// end, ended after it) and its time over the fsync's span. A put that
// waited for the fsync ran for most of the span; one that did not is a
// put's usual microseconds. The median over a run's fsyncs is the
// repetition's figure: below the line for fenecdb (no put waits for a
// span), at or above it for the naive arm (the control: the measure sees a
// wait where there is one). Not the longest put during a sync against the
// longest away from one: on a shared 2-core machine a preemption makes
// either longest (tens of ms away from any fsync), so they are shown, with
// their p99.9, not judged.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <fenec/stats.h>

#include "iobench/kit/results.h"
#include "iobench/kit/verdict.h"

namespace fenec::scenarios::growth {

struct Gr5Config {
  std::string arm = "fenecdb";  // "fenecdb" or "naive"
  std::string dir;              // a folder that does not exist yet; removed afterwards
  double seconds = 1;           // putting time
  uint32_t sync_ms = 20;        // the periodic fsync's period (Options::sync_ms)
  uint32_t sync_delay_us = 20000;  // each journal fdatasync sleeps this long first
};

struct Gr5Run {
  std::string error;
  uint64_t puts = 0, puts_during_sync = 0, spans = 0;
  double longest_during_us = 0;  // the longest put that started inside a span
  double longest_away_us = 0;    // the longest put whose whole time met no span
  double p999_during_us = 0, p999_away_us = 0;
  double span_median_us = 0, span_max_us = 0;
  // The put running at each span's end, its time over the span's: the
  // median over the spans that had one (the repetition's figure), and how
  // many of them lasted half a span or more (waited for it).
  double end_put_share = 0;
  uint64_t spans_with_end_put = 0, spans_waited = 0;
  Stats stats;  // periodic_syncs, writes_deferred_for_sync, ...
};

Gr5Run run_gr5(const Gr5Config& cfg);

// Puts (start, end) and spans (start, end), ns on one clock: the figures
// above (tested on synthetic ones).
void classify_puts(const std::vector<std::pair<int64_t, int64_t>>& puts,
                   const std::vector<std::pair<int64_t, int64_t>>& spans, Gr5Run* out);

// GR-5's checks over the repetitions in w: fenecdb's end_put_share below
// the line, the naive arm's at or above it.
std::vector<kit::Check> gr5_checks(const std::vector<Gr5Run>& fenecdb, const std::vector<Gr5Run>& naive,
                                   const kit::Window& w);
void add_gr5_rows(kit::Results& r, const std::string& arm, const Gr5Config& cfg, const std::vector<Gr5Run>& runs);
kit::Verdict gr5_verdict(const std::vector<Gr5Run>& fenecdb, const std::vector<Gr5Run>& naive,
                         const std::vector<kit::Check>& checks, const Gr5Config& cfg);

}  // namespace fenec::scenarios::growth
