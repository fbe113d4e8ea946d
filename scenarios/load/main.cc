// load-bench: LD-1, loading rows (text, int, 128-d vector) from a file into
// an empty collection, every way a client can send them, 1 000 rows a request,
// against PostgreSQL's COPY and multi-row INSERTs (loaders.h says what each
// arm sends and how the time is split).
//
// The files (data.h: JSON lines, and CSV) are generated once, seeded, into
// the scratch folder. Cells are (arm, index case, format):
//   index=none             every arm, from JSON lines; also from CSV (--csv-arms)
//   index=hnsw-row|-batch  the --hnsw-arms (fenec only: PostgreSQL's vector
//                          index, pgvector, is not packaged for Debian 12, so
//                          those cells are recorded as skipped with that reason)
// Each load is a fresh server or database (or table), so every cell starts
// from an empty collection; all cells run once a repetition, in turn, so a
// shared machine's drift hits every arm alike. Every load's rows are counted
// back afterwards and must equal the rows sent (else the bench fails).
// PostgreSQL is our own scratch cluster (scenarios/pg), stopped at the end,
// on a failure and on Ctrl-C. main.cc is the command line; the run is bench.h.
#include "iobench/kit/harness.h"
#include "scenarios/load/bench.h"
#include "scenarios/load/loaders.h"

namespace fl = fenec::scenarios::load;

int main(int argc, char** argv) {
  fenec::kit::Harness h(
      "load", "LD-1: load rows (text, int, 128-d vector) from a JSON-lines or CSV file into an empty collection, "
              "1 000 rows a request, every way a client sends them (fenec-server's POST /docs, /query and /batch, "
              "and the embedded API) against PostgreSQL 15's COPY and multi-row INSERTs; without a vector index, "
              "and with the HNSW graph linked a row at a time or 512 at a time on every core. Rows/s per arm with "
              "95% intervals over interleaved repetitions, and where the time goes. Quick mode loads fewer rows "
              "and links graphs on fenec-docs only (PostgreSQL's start included, well under a minute); the loads "
              "with a graph run at least 8 times.");
  fl::Flags f;
  const std::vector<std::string> arms = {fl::kDocs, fl::kQuery, fl::kBatch, fl::kEmbedded, fl::kPgCopy, fl::kPgInsert},
                                 indexes = {"none", "hnsw-row", "hnsw-batch"};
  h.flag("--server", &f.server, "the fenec-server binary", "").default_text("the one in this build tree");
  h.flag("--rows", &f.rows, "rows a load without a vector index", 100000, 20000).range(1, 10000000);
  h.flag("--hnsw-rows", &f.hnsw_rows,
         "rows a load with the HNSW graph (the graph's linking is what the time goes to, so quick mode loads "
         "fewer; the no-index/graph ratio then compares different sizes, and a smaller graph links faster)",
         100000, 10000).range(1, 10000000);
  h.flag("--per-request", &f.per_request, "rows a request, COPY or INSERT", 1000).range(1, 20000);
  h.flag("--dim", &f.dim, "the vectors' dimension", 128).range(1, 4096);
  h.flag("--arms", &f.arms, "arms to run", arms).one_of(arms);
  h.flag("--hnsw-arms", &f.hnsw_arms,
         "fenec arms that also load with the HNSW graph (the verdicts use fenec-docs when it ran them)",
         {fl::kDocs, fl::kEmbedded}, {fl::kDocs}).one_of({fl::kDocs, fl::kQuery, fl::kBatch, fl::kEmbedded});
  h.flag("--csv-arms", &f.csv_arms,
         "arms that also load the CSV file without an index (the format changes only the client's work, and the "
         "server's JSON)", {fl::kDocs, fl::kEmbedded, fl::kPgCopy}).one_of(arms);
  h.flag("--indexes", &f.indexes, "index cases", indexes).one_of(indexes);
  if (const int rc = h.parse(argc, argv); rc >= 0) return rc;
  return fl::run_bench(h, f);
}
