// The io scenario's judgements: for each finding, the source's figure (from
// FINDINGS.md), ours from this run, and reproduced / not reproduced / not
// applicable, computed from the cells alone so the rules are in one place.
#pragma once

#include <string>
#include <vector>

#include "iobench/kit/results.h"
#include "iobench/src/coherence.h"
#include "iobench/src/lies.h"
#include "iobench/src/sweep.h"

namespace fenec::scenarios::io {

using iobench::CellResult;

// A cell that ran, by its axes; null if absent, skipped or failed.
const CellResult* find_cell(const std::vector<CellResult>& cells, iobench::Mode mode, uint64_t size, unsigned jobs,
                            iobench::Layout layout = iobench::Layout::kShared,
                            iobench::SubmitKind submit = iobench::SubmitKind::kPwrite, unsigned batch = 1);

// `durable` is the O_DIRECT|O_DSYNC mode, or O_DSYNC where O_DIRECT cannot run.
kit::Verdict io1_verdict(const std::vector<CellResult>& sizes, iobench::Mode durable, const std::string& plot);
kit::Verdict io2_verdict(const std::vector<CellResult>& jobs, const std::vector<CellResult>& sizes,
                           iobench::Mode durable, uint64_t size, const std::string& plot);
// dirty_bytes: how much the kernel lets be dirty before writeback starts
// (vm.dirty_background_*); a fall before that much was written is not IO-3.
kit::Verdict io3_verdict(const CellResult* drain, uint64_t dirty_bytes, const std::string& plot);
// vm.dirty_background_bytes, else dirty_background_ratio of MemAvailable; 0 if unknown.
uint64_t dirty_background_bytes();
kit::Verdict io4_verdict(const iobench::LiesResult& lies);
kit::Verdict io5_verdict(const iobench::CoherenceResult& c, const iobench::ProbeResult& p);
kit::Verdict io7_verdict(const std::vector<CellResult>& merged, iobench::Mode durable, unsigned batch,
                           const std::string& plot);

}  // namespace fenec::scenarios::io
