// vector-bench's MM-2 part: the visited set judged inside fenecdb's own
// searches ("MM-2 in its home").
//
// One built graph (the batch arm's first repetition, or one built for the
// part), the VectorIndex called directly, the same query set at the
// headline ef, searched with each visited set in turn (VectorIndex::
// SearchWith, vector_types.h's VisitedSet): the versioned bitmap the engine
// ships, an open-addressing hash set kept a thread and cleared before each
// search, and a new one a search. The hash set is scenarios/micro's MM-2
// "flat" set (VisitedHash started at 16 slots: one flat array, doubled at
// half full, a clear zeroing the whole table), the shape of the source's
// .NET HashSet<int>; hnswlib already uses versioned visited lists, so it is
// not the comparison. Repetitions interleave the three, the order rotated
// each repetition (bitmap, cleared, new; cleared, new, bitmap; ...); a cell searches whole passes of the query set on one
// thread until `cell_seconds` have gone by, timed on the thread's CPU clock
// (CPU a search) and the monotonic one (searches/s). Every pass's answers
// are the same ids whichever set walked (checked on the first pass).
//
// Verdict (MM-2, micro's lines: the source gives no figure, so each line is
// the direction it states, 1): a cleared set / a new one per search, CPU,
// >= 1 ("allocating a new HashSet per walk beat Clear()"); the cleared set
// / the versioned bitmap >= 1 and the new set / the bitmap >= 1 ("the
// versioned bitmap was fastest").
#pragma once

#include <string>
#include <vector>

#include "engine/src/index/vector/vector_index.h"
#include "iobench/kit/harness.h"
#include "iobench/kit/verdict.h"
#include "scenarios/vector/arm.h"

namespace fenec::scenarios::vector {

// One visited set's figures, one a repetition.
struct Mm2Arm {
  index::vec::VisitedSet set = index::vec::VisitedSet::kBitmap;
  std::vector<double> cpu_ns_per_search, searches_per_s;
  uint64_t searches = 0;          // over every repetition
  uint64_t visited_zeroings = 0;  // clears that zeroed memory (Stats::visited_zeroings), over them
  bool same_answers = true;       // the first pass's ids equal the bitmap's
};

struct Mm2Run {
  std::string error;  // non-empty: the part did not run
  size_t nodes = 0, ef = 0, k = 0;
  double distances_per_search = 0;  // ~ nodes a search marks visited
  double wall_s = 0;                // the part's own time (what it adds to a run)
  std::vector<Mm2Arm> arms;         // bitmap, hash-cleared, hash-new
  const Mm2Arm* arm(index::vec::VisitedSet v) const;
};

// Runs the part on `index` (built over d's rows).
Mm2Run run_mm2(const index::vec::VectorIndex& index, const Dataset& d, size_t k, size_t ef, int reps,
               double cell_seconds);

// The judgement from figures alone (the tests feed it synthetic ones):
// paired CPU a search, cleared/new, cleared/bitmap, new/bitmap, each >= 1.
kit::Judgement judge_mm2(const std::vector<double>& cleared_ns, const std::vector<double>& new_ns,
                         const std::vector<double>& bitmap_ns);

void add_mm2_rows(kit::Results& r, const Mm2Run& m);
void print_mm2(const Mm2Run& m);
void write_mm2_plot(kit::Harness& h, const Mm2Run& m);
// `why_not`: non-empty when the part was not asked for (the verdict is then
// skipped); `plot`: the plot's path (write_mm2_plot's, with ".png").
kit::Verdict mm2_verdict(const Mm2Run* m, const std::string& why_not, const std::string& plot);

}  // namespace fenec::scenarios::vector
