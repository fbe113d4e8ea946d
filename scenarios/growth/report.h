// growth-bench reporting: CSV rows, console tables, plots and the GR-1/GR-2
// verdicts, from what workload.h and lookup.h measured.
//
// Every put arm runs once a repetition (kit::Harness::reps()), interleaved
// with the other arms of its cell, so each arm has one figure a repetition:
// rows with ";rep=N" in the case hold one repetition's figure, rows without
// it the geometric mean over the repetitions with its 95% interval
// (<metric>_ci95_lo/_hi, kit::Results::add_ratio).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "iobench/kit/harness.h"
#include "iobench/kit/results.h"
#include "iobench/kit/verdict.h"
#include "scenarios/growth/fenecdb_arm.h"
#include "scenarios/growth/lookup.h"
#include "scenarios/growth/vector_arm.h"
#include "scenarios/growth/workload.h"

namespace fenec::scenarios::growth {

using kit::ExactPart;

// "unique-sharded", "unique-naive", "text-sharded", "text-naive".
std::string arm_of(Kind kind, index::Arm arm);

struct Summary {
  uint64_t keys = 0, terms = 0;
  size_t plot_points = 2000;
  // One run a repetition, in the order they ran.
  std::vector<PutRun> unique_sharded, unique_naive, text_sharded, text_naive;
  std::vector<DbRun> db;
  std::vector<LookupResult> lookups;
  std::vector<MemResult> memory;
  std::vector<RebuildResult> rebuilds;
  // GR-3 and GR-4 (vector_arm.h): one run a repetition.
  uint64_t vectors = 0;
  std::vector<VectorPutRun> vec_naive, vec_sharded;
  VectorBase vec_base;
  std::vector<ReopenRun> reopen_naive, reopen_kept;
};

// One repetition's figures of a put run, in microseconds.
struct PutFigures {
  double max_us = 0, p99_us = 0, p999_us = 0;
  double plain_max_us = 0;       // longest put that grew nothing: the machine's noise floor
  double growth_cpu_max_us = 0;  // longest growth in the putting thread's CPU time
  double growth_wall_max_us = 0;
  std::vector<double> band_max_us;         // longest put of each doubling band (bands_up_to(n))
  std::vector<double> band_growth_cpu_us;  // longest growth of each band, CPU time (0: none)
};
PutFigures figures_of(const PutRun& run, uint64_t n);

void add_put_rows(kit::Results& r, Kind kind, index::Arm arm, uint64_t n, const std::vector<PutRun>& runs);
void add_lookup_rows(kit::Results& r, const std::vector<LookupResult>& lookups);
void add_memory_rows(kit::Results& r, const MemResult& m);
void add_rebuild_rows(kit::Results& r, const RebuildResult& rb);
// Arm "fenecdb-unique"; a failed run becomes a skip with its reason.
void add_db_rows(kit::Results& r, const std::vector<DbRun>& runs, uint64_t n);

// GR-3 and GR-4 (vector_report.cc): finding "GR-3", arms vector-naive /
// vector-sharded, case vectors=all (;rep=N); "GR-4", arms vector-naive /
// vector-kept, case vectors=<n> (;rep=N); the headline ratios under arms
// "vector-naive/vector-sharded" and "vector-naive/vector-kept". Every growth
// of every repetition goes to the JSON sidecar (gr3_growths).
void add_vector_put_rows(kit::Results& r, index::vec::TableArm arm, uint64_t n, const std::vector<VectorPutRun>& runs);
void attach_vector_growths(kit::Results& r, const Summary& s);
void add_vector_base_rows(kit::Results& r, const VectorBase& base);
void add_reopen_rows(kit::Results& r, index::vec::OpenArm arm, const VectorBase& base, const std::vector<ReopenRun>& runs);
void add_vector_ratio_rows(kit::Results& r, const Summary& s);
void print_vector_summary(const Summary& s);
void write_vector_plots(kit::Harness& h, const Summary& s);
std::vector<kit::Verdict> vector_verdicts(const kit::Harness& h, const Summary& s);
// GR-3's exact part: every sharded growth past the split moved at most
// index::vec::ShardGrowthBound(entries) slots, and none read a vector.
ExactPart shard_growths_bounded(const Summary& s);
// GR-4's exact part: vectors read to build the table, kept 0 at open and at
// the first write, naive all of them at the first write; none relinked.
ExactPart reads_as_designed(const Summary& s);

void print_summary(const Summary& s);
void write_plots(kit::Harness& h, const Summary& s);
std::vector<kit::Verdict> verdicts(const kit::Harness& h, const Summary& s);

// The source's longest put at each doubling band of the naive @unique arm
// (findings/CATALOGUE.md GR-1), "" where it gave none.
std::string source_band_figure(const Band& b);

// The finding's line for the stall check, naive stall / sharded longest
// growth, at the doubling that starts at `band_lo` keys; nullopt where the
// source gives no figure to draw it from. Derivations beside the definitions.
std::optional<double> gr1_stall_line(uint64_t band_lo);
std::optional<double> gr2_stall_line(uint64_t band_lo);

// The stall check: repetition i's naive growth at the last doubling the run
// reached (the first key count of the last band of bands_up_to(n)) over
// repetition i's longest sharded growth in that band (over the same keys),
// both in the thread's CPU time.
// `unit`: what the index holds, "keys" or "terms".
kit::Check stall_check(const std::vector<PutRun>& naive, const std::vector<PutRun>& sharded, uint64_t n,
                       double line, const std::string& line_source, const std::string& unit = "keys");

// GR-1's exact part: in every run of both @unique arms, hash computations ==
// puts + the side thread's operations (one hash each; none in any growth).
ExactPart one_hash_a_key(const Summary& s);

}  // namespace fenec::scenarios::growth
