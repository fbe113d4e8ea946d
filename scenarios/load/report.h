// load-bench's results: each cell's rows and figures, the plot of rows/s
// per load arm, and LD-1's two verdicts.
//
//   LD-1 (our targets)        fenec-docs without a vector index >= PostgreSQL
//                             COPY's rows/s; HNSW batch-linked >= 1.5x HNSW
//                             row at a time (same arm, same rows)
//   LD-1 (where the time goes) the source's two claims: without an index the
//                             rows' text is the cost (fenec-embedded: reading
//                             the text into rows takes longer than landing
//                             them), and with the graph the graph is the cost
//                             (the load without an index is >= 2x as fast as
//                             with the batch-linked graph: linking takes more
//                             than half the time)
// Every ratio is paired by repetition (cells run interleaved) with its 95%
// interval (iobench/kit/stats.h).
#pragma once

#include <string>
#include <vector>

#include "iobench/kit/harness.h"
#include "scenarios/load/loaders.h"

namespace fenec::scenarios::load {

struct Cell {
  std::string arm;
  Index index = Index::kNone;
  Format format = Format::kJsonl;
  size_t rows = 0;
  std::vector<LoadFigures> reps;  // successful loads only, in repetition order
  std::vector<int> rep_numbers;   // their repetitions (1-based)
  std::string case_name() const;  // "index=none", "index=none;format=csv"
};

// Every cell's rows: per repetition, the rows/s summary with its interval,
// and the medians of where the time goes.
void AddCellRows(kit::Results& results, const std::vector<Cell>& cells);
// The console table of every cell.
std::string CellTable(const std::vector<Cell>& cells);
// plots/load/rows_per_s: rows/s per load arm and index case. The plot's path
// (no extension), or "" if it could not be drawn.
std::string WritePlot(kit::Harness& h, const std::vector<Cell>& cells);
// The arm whose HNSW cells the verdicts use: fenec-docs if it ran them, else
// the first fenec arm that did; "" if none.
std::string HnswArm(const std::vector<Cell>& cells);
// LD-1's two verdicts (added to h's results).
void Judge(kit::Harness& h, const std::vector<Cell>& cells, const std::string& plot, double vec_text_share);

}  // namespace fenec::scenarios::load
