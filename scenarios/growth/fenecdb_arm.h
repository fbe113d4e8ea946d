// growth-bench through fenecdb: the same single puts of @unique keys, made
// with Database::Put on a collection whose `email` field is @unique (the
// engine's FieldIndexes over engine/src/index's UniqueIndex, sharded arm),
// so the engine's own locking, journal and buffers are in the path. Then the
// database is closed and reopened, and the open is timed: the engine
// recovers the rows and rebuilds the index from them.
#pragma once

#include <cstdint>
#include <string>

#include "fenec/stats.h"
#include "scenarios/growth/workload.h"

namespace fenec::scenarios::growth {

struct DbRun {
  DbRun(uint64_t n, size_t plot_points) : run(n, plot_points) {}
  bool ok = false;
  std::string error;           // why not, when !ok (not built with fenecdb, open failed ...)
  PutRun run;                  // puts timed one by one (grew is unknown here: always false)
  Stats stats;                     // the engine's, after the puts (every counter is a result row)
  bool duplicate_rejected = false; // a put of a stored key came back kConstraint
  double open_s = 0;               // reopen: recovery + index rebuild
  uint64_t count_after_open = 0;
  bool found_after_open = false;   // a stored key still clashes after the reopen
};

// n puts of keys 0..n-1 into a fresh database in `dir` (Durability::kBuffered:
// acknowledged once landed, journal fdatasync'ed every 250 ms, so the
// figure is the write path and not the disk).
DbRun run_fenecdb(uint64_t n, KeyStyle style, const std::string& dir, size_t plot_points);

}  // namespace fenec::scenarios::growth
