#include "scenarios/load/bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>

#include "iobench/kit/interrupt.h"
#include "iobench/kit/console.h"
#include "scenarios/load/report.h"
#include "scenarios/load/rows.h"
#include "scenarios/pg/pg_cluster.h"
#include "scenarios/procs/server_process.h"

namespace fenec::scenarios::load {
namespace {

constexpr int kHnswMinReps = 8;

namespace fs = std::filesystem;

bool Has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

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
  if (!r.Next(1, &lines) ||
      !reader.Split(Format::kJsonl, lines[0], r.capacity_from(lines[0].data()), &fields).empty()) {
    return 0;
  }
  return static_cast<double>(fields.vec.size()) / static_cast<double>(lines[0].size());
}

}  // namespace

int run_bench(kit::Harness& h, Flags& f) {
  if (f.server.empty()) f.server = procs::DefaultServerBinary();
  auto& meta = h.results().meta();
  meta.set("rows", std::to_string(f.rows));
  meta.set("hnsw_rows", std::to_string(f.hnsw_rows));
  meta.set("per_request", std::to_string(f.per_request));
  meta.set("durability",
           "fenec-server --durability buffered --sync 250 (embedded: kBuffered, sync_ms 250); PostgreSQL "
           "synchronous_commit=off");

  std::vector<Cell> cells = PlanCells(f);
  const bool any_pg = std::any_of(cells.begin(), cells.end(), [](const Cell& c) { return is_postgres(c.arm); });
  const bool any_server =
      std::any_of(cells.begin(), cells.end(), [](const Cell& c) { return !is_postgres(c.arm) && c.arm != kEmbedded; });
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

  pg::PgCluster pg;
  std::string pg_skip;
  if (any_pg) {
    if (std::string err = pg.Start(h.data_dir() + "/pg"); !err.empty()) {
      pg_skip = err;
      if (!pg.missing()) h.fail("postgres: " + err);  // installed but not started: not a mere skip
    } else {
      meta.set("postgres", pg.Version() + " (scratch cluster on 127.0.0.1, fsync on, synchronous_commit off)");
      fmt::print("postgres: cluster in {}\n", pg.dir());
      std::fflush(stdout);
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

  // LD-1's batch/row pair (the cells with a graph) runs at least
  // kHnswMinReps times, the extra repetitions interleaved among those cells
  // only: the row and batch loads vary from run to run, and 3 runs'
  // interval held the line of 1.5 where 8 runs' cleared it.
  std::vector<size_t> graphs;
  for (size_t i = 0; i < cells.size(); ++i)
    if (cells[i].index != Index::kNone) graphs.push_back(i);
  const int extra = std::max(0, kHnswMinReps - h.reps());
  kit::Progress progress("load cells",
                         static_cast<uint64_t>(h.reps()) * cells.size() + static_cast<uint64_t>(extra) * graphs.size());
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
    s.stop = [] { return kit::stop_requested(); };
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
      if (!kit::stop_requested())
        h.fail(fmt::format("{} {} rep {} FAILED: {}", c.arm, c.case_name(), rep + 1, r.error));
      return;
    }
    fmt::print(
        "{:>15} {:<22} rep {}: {} rows in {:.2f} s, {:8.0f} rows/s (client {:.2f} s{})\n", c.arm, c.case_name(),
        rep + 1, r.rows_sent, r.wall_s, r.rows_per_s(), r.client_s,
        r.link_tail_s >= 0 ? fmt::format(", last vector linked {:.2f} s after the last ack", r.link_tail_s) : "");
    c.reps.push_back(r);
    c.rep_numbers.push_back(rep + 1);
  };
  kit::run_interleaved(h.reps(), cells.size(), run_cell);
  if (!kit::stop_requested()) {
    kit::run_interleaved(extra, graphs.size(), [&](size_t j, int rep) { run_cell(graphs[j], h.reps() + rep); });
  }
  progress.finish();
  // Stopped before the harness removes the scratch folder that holds the cluster.
  if (std::string err = pg.Stop(); !err.empty()) fmt::print(stderr, "load-bench: {}\n", err);

  fmt::print("\n{}", CellTable(cells));
  AddCellRows(h.results(), cells);
  const std::string plot = WritePlot(h, cells);
  const auto json = files.find(Format::kJsonl);
  Judge(h, cells, plot, json == files.end() ? 0 : VectorTextShare(json->second));
  return h.finish();
}

}  // namespace fenec::scenarios::load
