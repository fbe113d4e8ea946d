// soak-bench's rows, plot and verdict (finding SOAK: our own target
// "Soak: 0 acknowledged writes lost over the full run").
#pragma once

#include "iobench/kit/harness.h"
#include "iobench/kit/verdict.h"
#include "scenarios/soak/run.h"

namespace fenec::scenarios::soak {

// Adds the per-cycle rows (case cycle=N;mode=M; a fill's under arm disk),
// the totals (per mode: cycles, acknowledged, lost; the disk's fills,
// refusals, /health's no_space and the slowest resumption, or its skip with
// the reason), draws plots/soak/p99.png, and judges "0 acknowledged writes
// lost" over every cycle of every mode: reproduced when every cycle's
// verification ran to its end and found none lost, not reproduced when one
// was lost, skipped when nothing could be verified.
kit::Verdict Judge(kit::Harness& h, const SoakConfig& c, const SoakReport& r);

// The run's figures in a few lines, for the console.
std::string Summary(const SoakReport& r);

}  // namespace fenec::scenarios::soak
