// vector-bench's memory part (VS-3) reported: rows, console lines, the
// time-against-memory plot with the source's three points, the verdict.
#pragma once

#include <string>

#include "iobench/kit/harness.h"
#include "iobench/kit/results.h"
#include "iobench/kit/verdict.h"
#include "scenarios/vector/memory.h"
#include "scenarios/vector/workload.h"

namespace fenec::scenarios::vector {

// The source's three points (FINDINGS.md VS-3): ~300 GB of 768-d vectors
// indexed at 192, 64 and 32 GB of memory in 2 h 20 min, 14 h 8 min and
// 37 h 40 min. As (memory / data, time / the time at 192 GB).
struct SourcePoint {
  double fraction, relative_time;
};
inline constexpr double kVs3SourceData = 300;  // GB
inline constexpr SourcePoint kVs3Source[] = {
    {192 / kVs3SourceData, 1.0}, {64 / kVs3SourceData, 848.0 / 140.0}, {32 / kVs3SourceData, 2260.0 / 140.0}};

void set_memory_meta(kit::Results& r, const MemoryRun& m, const DataSpec& spec);
void add_memory_rows(kit::Results& r, const MemoryRun& m, const DataSpec& spec);
void print_memory(const MemoryRun& m, const DataSpec& spec);
void write_memory_plot(kit::Harness& h, const MemoryRun& m, const DataSpec& spec);
// not_run: why the part did not run ("" if it did: m is then set).
kit::Verdict memory_verdict(const kit::Harness& h, const MemoryRun* m, const DataSpec& spec,
                            const std::string& not_run);

}  // namespace fenec::scenarios::vector
