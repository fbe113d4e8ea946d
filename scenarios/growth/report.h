// growth-bench reporting: CSV rows, console tables, plots and the GR-1/GR-2
// verdicts, from what workload.h and lookup.h measured.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "iobench/kit/harness.h"
#include "iobench/kit/results.h"
#include "scenarios/growth/fenecdb_arm.h"
#include "scenarios/growth/lookup.h"
#include "scenarios/growth/workload.h"

namespace fenec::scenarios::growth {

// "unique-sharded", "unique-naive", "text-sharded", "text-naive".
std::string arm_of(Kind kind, index::Arm arm);

struct Summary {
  uint64_t keys = 0, terms = 0;
  size_t plot_points = 2000;
  std::optional<PutRun> unique_sharded, unique_naive, text_sharded, text_naive;
  std::vector<LookupResult> lookups;
  std::vector<MemResult> memory;
  std::vector<RebuildResult> rebuilds;
  std::optional<DbRun> db;
};

void add_put_rows(kit::Results& r, Kind kind, index::Arm arm, uint64_t n, const PutRun& run);
void add_lookup_rows(kit::Results& r, const std::vector<LookupResult>& lookups);
void add_memory_rows(kit::Results& r, const MemResult& m);
void add_rebuild_rows(kit::Results& r, const RebuildResult& rb);
// Arm "fenecdb-unique"; a failed run becomes a skip with its reason.
void add_db_rows(kit::Results& r, const DbRun& d, uint64_t n);

void print_summary(const Summary& s);
void write_plots(kit::Harness& h, const Summary& s);
std::vector<kit::Verdict> verdicts(const kit::Harness& h, const Summary& s);

// The source's longest put at each doubling band of the naive @unique arm
// (FINDINGS.md GR-1), "" where it gave none.
std::string source_band_figure(const Band& b);

}  // namespace fenec::scenarios::growth
