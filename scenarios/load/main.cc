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
// on a failure and on Ctrl-C.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "engine/src/base/interrupt.h"
#include "iobench/kit/console.h"
#include "iobench/kit/harness.h"
#include "scenarios/procs/server_process.h"
#include "scenarios/load/report.h"
#include "scenarios/load/rows.h"
#include "scenarios/pg/pg_cluster.h"

namespace {

constexpr int kHnswMinReps = 8;

namespace fs = std::filesystem;
using namespace fenec::scenarios::load;

struct Flags {
  std::string server;
  size_t rows = 0, hnsw_rows = 0, per_request = 1000;
  uint32_t dim = 128;
  std::vector<std::string> arms{kDocs, kQuery, kBatch, kEmbedded, kPgCopy, kPgInsert};
  std::vector<std::string> hnsw_arms, csv_arms, indexes{"none", "hnsw-row", "hnsw-batch"};
  bool csv_given = false;
};

bool Has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

std::vector<Cell> PlanCells(const Flags& f) {
  std::vector<Cell> cells;
  auto add = [&](const std::string& arm, Index index, Format format, size_t rows) {
    Cell c;
    c.arm = arm;
    c.index = index;
    c.format = format;
    c.rows = rows;
    cells.push_back(c);
  };
  if (Has(f.indexes, "none")) {
    for (const auto& arm : f.arms) add(arm, Index::kNone, Format::kJsonl, f.rows);
    for (const auto& arm : f.arms) {
      if (Has(f.csv_arms, arm)) add(arm, Index::kNone, Format::kCsv, f.rows);
    }
  }
  for (const auto& arm : f.hnsw_arms) {
    if (!Has(f.arms, arm)) continue;
    if (Has(f.indexes, "hnsw-row")) add(arm, Index::kHnswRow, Format::kJsonl, f.hnsw_rows);
    if (Has(f.indexes, "hnsw-batch")) add(arm, Index::kHnswBatch, Format::kJsonl, f.hnsw_rows);
  }
  return cells;
}

// The share of a JSON line's bytes that are the vector's text (for the verdict's "why").
double VectorTextShare(const std::string& file) {
  LineReader r(file, Format::kJsonl);
  std::vector<std::string_view> lines;
  RowReader reader;
  Fields fields;
  if (!r.Next(1, &lines) || !reader.Split(Format::kJsonl, lines[0], r.capacity_from(lines[0].data()), &fields).empty()) {
    return 0;
  }
  return static_cast<double>(fields.vec.size()) / static_cast<double>(lines[0].size());
}

}  // namespace

int main(int argc, char** argv) {
  fenec::kit::Harness h(
      "load", "LD-1: load rows (text, int, 128-d vector) from a JSON-lines or CSV file into an empty collection, "
              "1 000 rows a request, every way a client sends them (fenec-server's POST /docs, /query and /batch, "
              "and the embedded API) against PostgreSQL 15's COPY and multi-row INSERTs; without a vector index, "
              "and with the HNSW graph linked a row at a time or 512 at a time on every core. Rows/s per arm with "
              "95% intervals over interleaved repetitions, and where the time goes. Quick mode (about 40 s here, "
              "PostgreSQL's start included): 20 000 rows, 10 000 with a graph, on fenec-docs only, CSV on "
              "fenec-docs, fenec-embedded and postgres-copy; full: 100 000 rows everywhere, graphs on fenec-docs "
              "and fenec-embedded, CSV on every arm (a few minutes). The loads with a graph run at least 8 times.");
  Flags f;
  auto& app = h.app();
  app.add_option("--server", f.server, "the fenec-server binary (default: the one in this build tree)");
  app.add_option("--rows", f.rows, "rows a load without a vector index (default 20000 quick, 100000 full)")
      ->check(CLI::Range(size_t{1}, size_t{10000000}));
  app.add_option("--hnsw-rows", f.hnsw_rows,
                 "rows a load with the HNSW graph (default 10000 quick, 100000 full: the graph's linking is what "
                 "the time goes to, so quick mode loads fewer; the no-index/graph ratio then compares different "
                 "sizes, and a smaller graph links faster)")
      ->check(CLI::Range(size_t{1}, size_t{10000000}));
  app.add_option("--per-request", f.per_request, "rows a request, COPY or INSERT (default 1000)")
      ->check(CLI::Range(size_t{1}, size_t{20000}));
  app.add_option("--dim", f.dim, "the vectors' dimension (default 128)")->check(CLI::Range(1u, 4096u));
  const std::vector<std::string> all_arms = {kDocs, kQuery, kBatch, kEmbedded, kPgCopy, kPgInsert};
  app.add_option("--arms", f.arms, "arms to run (default all: fenec-docs,fenec-query,fenec-batch,fenec-embedded,"
                                   "postgres-copy,postgres-insert)")
      ->delimiter(',')
      ->check(CLI::IsMember(all_arms));
  app.add_option("--hnsw-arms", f.hnsw_arms,
                 "fenec arms that also load with the HNSW graph (default fenec-docs quick; fenec-docs,fenec-embedded "
                 "full; the verdicts use fenec-docs when it ran them)")
      ->delimiter(',')
      ->check(CLI::IsMember({kDocs, kQuery, kBatch, kEmbedded}));
  app.add_option("--csv-arms", f.csv_arms,
                 "arms that also load the CSV file without an index (default fenec-docs,fenec-embedded,postgres-copy: "
                 "the format changes only the client's work, and the server's JSON)")
      ->delimiter(',')
      ->check(CLI::IsMember(all_arms));
  app.add_option("--indexes", f.indexes, "index cases (default none,hnsw-row,hnsw-batch)")
      ->delimiter(',')
      ->check(CLI::IsMember({"none", "hnsw-row", "hnsw-batch"}));
  if (const int rc = h.parse(argc, argv); rc >= 0) return rc;
  if (f.rows == 0) f.rows = h.quick() ? 20000 : 100000;
  if (f.hnsw_rows == 0) f.hnsw_rows = h.quick() ? 10000 : 100000;
  if (app.count("--hnsw-arms") == 0) f.hnsw_arms = h.quick() ? std::vector<std::string>{kDocs}
                                                             : std::vector<std::string>{kDocs, kEmbedded};
  if (app.count("--csv-arms") == 0) f.csv_arms = {kDocs, kEmbedded, kPgCopy};
  if (f.server.empty()) f.server = fenec::scenarios::procs::DefaultServerBinary();
  auto& meta = h.results().meta();
  meta.set("rows", std::to_string(f.rows));
  meta.set("hnsw_rows", std::to_string(f.hnsw_rows));
  meta.set("per_request", std::to_string(f.per_request));
  meta.set("durability", "fenec-server --sync 250 (embedded: kBuffered, sync_ms 250); PostgreSQL synchronous_commit=off");

  std::vector<Cell> cells = PlanCells(f);
  const bool any_pg = std::any_of(cells.begin(), cells.end(), [](const Cell& c) { return is_postgres(c.arm); });
  const bool any_server = std::any_of(cells.begin(), cells.end(), [](const Cell& c) {
    return !is_postgres(c.arm) && c.arm != kEmbedded;
  });
  for (const auto& arm : f.arms) {
    if (!is_postgres(arm)) continue;
    for (const char* idx : {"hnsw-row", "hnsw-batch"}) {
      if (Has(f.indexes, idx)) {
        h.results().skip(arm, fmt::format("index={}", idx), "pgvector is not packaged for Debian 12 (no vector index)");
      }
    }
  }

  // The files: the most rows any cell loads, in each format a cell reads.
  const auto g0 = std::chrono::steady_clock::now();
  DataSpec spec;
  spec.rows = std::max(f.rows, f.hnsw_rows);
  spec.dim = f.dim;
  spec.seed = h.seed();
  std::map<Format, std::string> files;
  for (const auto& c : cells) files[c.format] = fmt::format("{}/rows.{}", h.data_dir(), format_name(c.format));
  for (const auto& [format, path] : files) {
    if (std::string err = write_rows(spec, format, path); !err.empty()) {
      fmt::print(stderr, "load-bench: {}\n", err);
      return 1;
    }
  }
  fmt::print("generated {} rows ({}-d) in {:.1f} s:", spec.rows, f.dim,
             std::chrono::duration<double>(std::chrono::steady_clock::now() - g0).count());
  for (const auto& [format, path] : files) fmt::print(" {} {:.0f} MB", format_name(format), fs::file_size(path) / 1e6);
  fmt::print("\n");

  fenec::scenarios::pg::PgCluster pg;
  std::string pg_skip;
  if (any_pg) {
    if (std::string err = pg.Start(h.data_dir() + "/pg"); !err.empty()) {
      pg_skip = err;
    } else {
      meta.set("postgres", pg.Version() + " (scratch cluster on 127.0.0.1, fsync on, synchronous_commit off)");
    }
  }
  std::string server_skip;
  if (any_server && (f.server.empty() || !fs::exists(f.server))) {
    server_skip = "fenec-server not found (build engine/server or pass --server)";
  }
  std::vector<Cell> runnable;
  for (auto& c : cells) {
    const std::string& why = is_postgres(c.arm) ? pg_skip : (c.arm == kEmbedded ? std::string() : server_skip);
    if (why.empty()) {
      runnable.push_back(c);
    } else {
      h.results().skip(c.arm, c.case_name(), why);
    }
  }
  cells = std::move(runnable);

  bool broken = false;
  // LD-1's batch/row pair (the cells with a graph) runs at least
  // kHnswMinReps times, the extra repetitions interleaved among those cells
  // only: batch-linked over row-at-a-time is 1.27x [1.15, 1.40] over 8
  // quick runs here, while 3 runs' interval (1.28x [0.92, 1.78]) held the
  // line of 1.5, and the row and batch loads vary 10-15% run to run.
  std::vector<size_t> graphs;
  for (size_t i = 0; i < cells.size(); ++i)
    if (cells[i].index != Index::kNone) graphs.push_back(i);
  const int extra = std::max(0, kHnswMinReps - h.reps());
  fenec::kit::Progress progress("load cells", static_cast<uint64_t>(h.reps()) * cells.size() +
                                                  static_cast<uint64_t>(extra) * graphs.size());
  uint64_t done = 0;
  auto run_cell = [&](size_t i, int rep) {
    Cell& c = cells[i];
    LoadSpec s;
    s.arm = c.arm;
    s.index = c.index;
    s.format = c.format;
    s.file = files[c.format];
    s.rows = c.rows;
    s.per_request = f.per_request;
    s.dim = f.dim;
    s.stop = [] { return fenec::base::StopRequested(); };
    LoadFigures r;
    try {  // nothing may skip the cluster's stop below
      r = Load(s, f.server, fmt::format("{}/cell-{}", h.data_dir(), i), pg.conninfo());
    } catch (const std::exception& e) {
      r.error = e.what();
    }
    if (r.error.empty() && (r.rows_sent != c.rows || r.rows_counted != c.rows)) {
      r.error = fmt::format("the file's {} rows: {} sent, {} counted back", c.rows, r.rows_sent, r.rows_counted);
    }
    progress.update(++done, fmt::format("{} {} rep {}", c.arm, c.case_name(), rep + 1));
    if (!r.error.empty()) {
      if (!fenec::base::StopRequested()) {
        broken = true;
        fmt::print(stderr, "load-bench: {} {} rep {} FAILED: {}\n", c.arm, c.case_name(), rep + 1, r.error);
      }
      return;
    }
    fmt::print("{:>15} {:<22} rep {}: {} rows in {:.2f} s, {:8.0f} rows/s (client {:.2f} s{})\n", c.arm,
               c.case_name(), rep + 1, r.rows_sent, r.wall_s, r.rows_per_s(), r.client_s,
               r.link_tail_s >= 0 ? fmt::format(", last vector linked {:.2f} s after the last ack", r.link_tail_s) : "");
    c.reps.push_back(r);
    c.rep_numbers.push_back(rep + 1);
  };
  fenec::kit::run_interleaved(h.reps(), cells.size(), run_cell);
  if (!fenec::base::StopRequested()) {
    fenec::kit::run_interleaved(extra, graphs.size(), [&](size_t j, int rep) { run_cell(graphs[j], h.reps() + rep); });
  }
  progress.finish();
  // Stopped before the harness removes the scratch folder that holds the cluster.
  if (std::string err = pg.Stop(); !err.empty()) fmt::print(stderr, "load-bench: {}\n", err);

  fmt::print("\n{}", CellTable(cells));
  AddCellRows(h.results(), cells);
  const std::string plot = WritePlot(h, cells);
  const auto json = files.find(Format::kJsonl);
  Judge(h, cells, plot, json == files.end() ? 0 : VectorTextShare(json->second));
  const int rc = h.finish();
  return rc != 0 ? rc : (broken ? 1 : 0);
}
