// RQ-1's rows, table, plot and verdicts from every cell's repetitions.
//
// A cell is (arm, case): arm fenec-server, postgres (postgres-exact for
// near), wrk, or fenec-server-write-through (a second server,
// --durability write-through --sync 250, asked the default pair's put
// cells beside the buffered server's); case "request=<kind>;clients=<n>", with ";commit=durable"
// for the durable pair (fenec-server --durability durable against
// synchronous_commit on; without it, --durability buffered --sync 250
// against synchronous_commit off). Rows with ";rep=R" hold one repetition; rows without it the geometric mean over the
// repetitions with its 95% interval (kit::of_reps), and the fenec-server /
// PostgreSQL and ours / wrk ratios paired by repetition.
//
// Verdict rows, each a ratio's 95% interval against its line:
//   the finding: a get by id's server handling / its round trip p50 < 0.5
//     (most of the round trip is the loopback);
//   RQ-1's targets (ours): fenec-server's get-by-id one-client p50 <= 0.7x
//     PostgreSQL's; eight clients' get-by-id requests/s >= 1.5x; durable puts
//     with eight clients >= 2x; fenec-server's CPU a request below
//     PostgreSQL's backend's for each request kind at one client (RQ-1/cpu,
//     commits a sync round beside); durable puts at put_clients clients
//     gathered into sync rounds within 1.5x of the embedded engine's at as
//     many writers (RQ-1/rounds); and our client against wrk on get by id
//     (p50 at most 1.15x wrk's, requests/s at least 0.85x); the
//     write-through server's puts/s at `clients` clients at least 0.8x the
//     buffered server's (RQ-1/write_through; one client's shown beside).
// The durable pair's mixed cell (mixed_clients of gets, filters and puts)
// is shown beside PostgreSQL's, p50 and p99, not judged.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "findings/catalogue.h"
#include "iobench/kit/harness.h"
#include "iobench/kit/verdict.h"
#include "scenarios/requests/targets.h"

namespace fenec::scenarios::requests {

inline constexpr const char* kFinding = "RQ-1";
inline constexpr const char* kFenec = "fenec-server";
inline constexpr const char* kPostgres = "postgres";
inline constexpr const char* kPostgresExact = "postgres-exact";
inline constexpr const char* kWrk = "wrk";
// The loopback's floor (floor.h): the empty request, one client.
inline constexpr const char* kFloor = "loopback-floor";
// The engine itself, no server: scenarios/engines' fenecdb-durable arm, its writers' loop.
inline constexpr const char* kEmbedded = "fenecdb-embedded";
// fenec-server --durability write-through: the default pair's puts on a server of its own.
inline constexpr const char* kFenecWriteThrough = "fenec-server-write-through";

// The source's PostgreSQL figures (pgvector, in Docker's VM on an M1), us.
inline constexpr double kSourceEmptyUs = 127, kSourceByIdUs = 142, kSourceNearUs = 653;

struct Figures {
  double p50_us = 0, p99_us = 0, per_s = 0;
  double handle_mean_us = -1;  // fenec-server's own handling, from /metrics; -1 where none
  double handle_p50_us = -1;   // only where the server's summary held (almost) only this cell's requests
  double cpu_us_per_request = -1, cpu_cores = -1;  // the client threads' own CPU; -1 for wrk
  // The server's CPU a request (warm-up included in both): fenec-server's
  // every thread, PostgreSQL's backends of the cell's connections (its WAL
  // writer and checkpointer not counted). -1 where /proc was not readable.
  double server_cpu_us_per_request = -1;
  // Commits a sync round (durable puts): fenec's commits / journal fsyncs
  // (/metrics), PostgreSQL's puts / pg_stat_wal's wal_sync. -1: not a durable cell.
  double commits_per_sync = -1;
};

// Every cell's figures, one a repetition, in order.
using Cells = std::map<std::pair<std::string, std::string>, std::vector<Figures>>;

const char* PgArm(Kind k);  // postgres-exact for near, postgres otherwise
std::string CaseName(Kind k, int clients, bool durable);

// The repetition's rows, and the figures kept for the summary.
void AddRep(kit::Results& results, Cells& cells, const std::string& arm, const std::string& case_, int rep,
            const Figures& f);
// Summary rows, ratio rows, the console table.
void AddSummary(kit::Results& results, const Cells& cells, int clients, int put_clients, int mixed_clients);
// plots/requests/latency: round-trip p50 per request kind and system, 1 and
// `clients` clients, the server's handling and the source's figures beside.
std::string WritePlot(kit::Harness& h, const Cells& cells, int clients);
// pg_skip / wrk_skip / wt_skip: why that arm did not run ("" when it did);
// wrk_unjudged: why the wrk check is shown but not judged ("" to judge it).
// judged: the checks as the run's sequences judged them (--reps auto), by name.
std::vector<kit::Verdict> MakeVerdicts(const Cells& cells, int clients, int put_clients, const std::string& plot,
                                       const std::string& pg_skip, const std::string& wrk_skip,
                                       const std::string& wrk_unjudged = "", const std::string& wt_skip = "",
                                       const std::vector<kit::Check>* judged = nullptr);
// The verdicts' timed checks over the repetitions in w (a sequential run's
// pilot or main experiment): those the buffered pair's cells feed, or the
// durable pair's; the wrk check only if judged.
std::vector<kit::Check> RequestChecks(const Cells& cells, int clients, int put_clients, bool durable,
                                      bool wrk_judged, const kit::Window& w);

}  // namespace fenec::scenarios::requests
