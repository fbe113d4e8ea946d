// One load: a file's first `rows` rows into an empty collection (or table),
// `per_request` rows a request, one client, timed from the file's first
// read to the last row acknowledged and, with an @hnsw field, linked into
// the graph (a load is not done while its index is still being built).
//
// The arms, each a way a client can send rows:
//   fenec-docs       POST /docs/load, a JSON array of the rows (fenec-server)
//   fenec-query      POST /query, {"statement": "PUT load $1", "params": [[rows]]}
//   fenec-batch      POST /batch, a PUT of one row a statement, all landed as one commit
//   fenec-embedded   in process: Database::PutBatch of Documents the client read
//   postgres-copy    COPY load FROM STDIN (FORMAT csv), a COPY a request
//   postgres-insert  a prepared INSERT of `per_request` rows (3 text parameters a row)
// Every arm acknowledges at the same durability: fenec-server's --durability buffered --sync 250
// (the embedded database's kBuffered, sync_ms 250) against PostgreSQL's
// synchronous_commit = off, both on the disk within a bound (LD-1's
// pairing). fenec-server is a child process on loopback as recon-bench runs
// it (scenarios/procs/server_process.h), one kept-alive connection;
// PostgreSQL is the bench's scratch cluster (scenarios/pg), libpq over TCP.
//
// Where the time goes (each a sum over the load, seconds):
//   client_s         building what is sent from the file's lines (all arms)
//   parse_s          fenec-embedded: the rows' text read into Documents
//   land_s           fenec-embedded: inside PutBatch (landing, the journal, and
//                    with a graph any wait for room in the linker's queue)
//   server_handle_s  fenec-server: its own handling of the load's requests
//                    (fenec_request_handle_seconds_sum: JSON read, bind, land, answer)
//   lock_hold_s      fenec: the engine's write-lock hold (landing rows)
//   link_tail_s      fenec with a graph: from the last acknowledgement to the last vector linked
//   queue_waits      fenec with a graph: writers that waited for room in the linker's queue
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/load/data.h"

namespace fenec::scenarios::load {

inline constexpr const char* kDocs = "fenec-docs";
inline constexpr const char* kQuery = "fenec-query";
inline constexpr const char* kBatch = "fenec-batch";
inline constexpr const char* kEmbedded = "fenec-embedded";
inline constexpr const char* kPgCopy = "postgres-copy";
inline constexpr const char* kPgInsert = "postgres-insert";

enum class Index { kNone, kHnswRow, kHnswBatch };
const char* index_name(Index i);  // "none", "hnsw-row", "hnsw-batch"
bool is_postgres(const std::string& arm);

struct LoadSpec {
  std::string arm;
  Index index = Index::kNone;
  Format format = Format::kJsonl;
  std::string file;
  size_t rows = 0;  // the file's first rows
  size_t per_request = 1000;
  uint32_t dim = 128;
  std::function<bool()> stop = [] { return false; };
};

struct LoadFigures {
  std::string error;  // non-empty: the load failed; nothing else holds
  uint64_t rows_sent = 0, rows_counted = 0, requests = 0;
  double wall_s = 0, client_s = 0;
  double parse_s = -1, land_s = -1, server_handle_s = -1, lock_hold_s = -1, link_tail_s = -1, queue_waits = -1;
  double rows_per_s() const { return wall_s > 0 ? static_cast<double>(rows_sent) / wall_s : 0; }
};

using Clock = std::chrono::steady_clock;
inline double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Every loader's read loop: the spec's file, `per_request` lines a chunk and
// at most `rows`, until its end, an error, or spec.stop(). `chunk` gets each
// chunk's lines, the file (for capacity_from) and the time before the chunk
// was read (a load's client time counts the read); it returns "" or why
// not. Counts rows_sent and requests in *f. "" or the first error.
using Lines = std::vector<std::string_view>;
using ChunkFn = std::function<std::string(const Lines& lines, const LineReader& file, Clock::time_point read_at)>;
std::string ForEachChunk(const LoadSpec& spec, LoadFigures* f, const ChunkFn& chunk);

// fenec-docs, fenec-query, fenec-batch: a fresh fenec-server (`server_bin`)
// on a fresh folder under `dir`, stopped and removed after the count.
LoadFigures LoadThroughServer(const LoadSpec& spec, const std::string& server_bin, const std::string& dir);
// fenec-embedded: a fresh database under `dir`, closed and removed after.
LoadFigures LoadEmbedded(const LoadSpec& spec, const std::string& dir);
// postgres-copy, postgres-insert: a fresh table in the cluster at
// `conninfo`, dropped after the count.
LoadFigures LoadPostgres(const LoadSpec& spec, const std::string& conninfo);

// The arm's loader.
LoadFigures Load(const LoadSpec& spec, const std::string& server_bin, const std::string& dir,
                 const std::string& conninfo);

}  // namespace fenec::scenarios::load
