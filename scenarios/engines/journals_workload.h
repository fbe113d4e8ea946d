// JR-1's workload, journals-bench's first and fs-bench's on each file
// system (hence here, shared): durable single-row puts into a collection
// with 0..16 indexed fields, each field a branch storage, under
// Options::journals = kSeparate or kShared; and a kill -9 recovery round.
//
// Every document is a pure function of (writer, seq), so a put is identified
// by its id and that pair: the recovery child reports only those, and the
// parent recomputes every field value to check the root and each index.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <fenec/database.h>

#include "engine/src/base/histogram.h"
#include "engine/src/base/kill_nine.h"

namespace fenec::scenarios::journals {

// "separate" | "shared", the arms' names in the CSV.
const std::vector<std::string>& mode_names();
// Journals::kSeparate for "separate", kShared for "shared"; false if unknown.
bool parse_mode(const std::string& name, Journals* out);

// The collection: `writer` and `seq` (plain ints), then `indexes` indexed
// fields f0..f{n-1}. Every fourth (f3, f7, ...) is a @text field, the rest
// @unique ints, so both kinds of branch are in the path.
Schema make_schema(int indexes);
bool is_text_field(int k);
// The document writer w's seq-th put holds. Each indexed value is distinct
// across puts (and across fields, so a branch mixed up with another shows).
Document make_doc(int indexes, int64_t writer, int64_t seq);

// What a cell measured between the writers' start and their join.
struct CellResult {
  std::string error;               // non-empty: the cell failed (open, put ...)
  uint64_t puts = 0;               // acknowledged puts
  double seconds = 0;
  base::Histogram put_ns;         // each put's latency, every writer merged
  EnvCounters env;                 // the private PosixEnv's counts during the timed part
  Stats stats;                     // the database's, reset at the timed part's start
};

struct CellConfig {
  Journals journals = Journals::kShared;
  int indexes = 0;
  int writers = 1;
  uint64_t max_puts = 10000;  // the cell stops at this many puts in all ...
  double seconds = 2;         // ... or after this long, whichever comes first
  bool (*stop)() = nullptr;   // polled between puts (kit::stop_requested); may be null
};

// A fresh database in `dir` (created; must not hold one), `writers` threads
// of durable single puts, closed at the end. Counts come from a PosixEnv of
// its own, so nothing else in the process is counted.
CellResult run_cell(const CellConfig& cfg, const std::string& dir);

// One acknowledged put, as the recovery child reports it through the pipe.
using Ack = base::WriteAck;

// What reopening found for a list of acknowledged puts.
struct Verification {
  std::string error;             // the reopen or a lookup failed outright
  uint64_t acked = 0;
  uint64_t missing_puts = 0;     // acks not found intact in the root or in some index
  uint64_t root_misses = 0;      // Get by id absent or with other values
  uint64_t index_misses = 0;     // (put, index) pairs the index did not answer with the put's id
  bool check_ok = false;         // Database::Check() on the reopened database
  std::string first_problem;     // the first miss, described, for the console
};

// Looks every ack up in `db`: by id in the root, then through each index
// (an equality Scan on a @unique field, a kContains Scan on a @text one;
// the engine answers both from the index, not by scanning documents).
Verification verify(Database& db, CollectionId c, int indexes, const std::vector<Ack>& acks);

struct RecoveryConfig {
  Journals journals = Journals::kShared;
  int indexes = 8;
  int writers = 4;
  uint64_t max_acks = 2000;      // kill once this many puts were acknowledged ...
  double seconds = 1;            // ... or after this long, whichever comes first
  uint32_t checkpoint_ms = 200;  // the child checkpoints this often (0: never), so kills land in checkpoints too
  uint64_t seed = 0;             // picks the kill point (ack count, then a 0-3 ms delay)
  // false: the child closes the database itself after max_acks instead of
  // being killed (the clean-close case the test checks).
  bool kill = true;
};

struct RecoveryResult {
  std::string error;             // setup, child or reopen failure
  Verification v;
  uint64_t kill_after = 0;       // the ack count the parent waited for
  bool killed = false;           // the child died of SIGKILL (else it exited)
  uint64_t recovery_ns = 0;      // Stats::recovery_ns of the reopen
  uint64_t branches = 0, branches_recovered = 0, branches_rebuilt = 0;
  uint64_t recovered_records = 0;
  bool journals_shared = false;
  double reopen_ms = 0;          // Database::Open wall time, parent side
};

// Creates the database and collection in `dir`, forks a child that puts from
// cfg.writers threads and reports every acknowledged put, kill -9's it,
// reopens with the same options and verifies. The caller must have no other
// threads running (fork).
RecoveryResult run_recovery(const RecoveryConfig& cfg, const std::string& dir);

}  // namespace fenec::scenarios::journals
