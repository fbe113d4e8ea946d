// A plain SQLite client, as its users write one: WAL, synchronous=FULL, a
// connection a thread (SQLITE_OPEN_FULLMUTEX, the library's default), a
// 30 s busy timeout, a prepared autocommit INSERT a write, the rate the
// inserts done by the deadline over the seconds asked for. None of the
// arm's code (sqlite_store.cc, workload.cc): it is what the SQLite arm is
// checked against, so a gap between them is the arm's, not SQLite's.
#pragma once

#include <cstdint>
#include <string>

#include "scenarios/engines/sync_vfs.h"

namespace fenec::scenarios::engines {

struct SqliteClientRun {
  std::string error;         // "" when it ran
  double ops_per_s = 0;      // inserts acknowledged by the deadline / seconds
  uint64_t commits = 0;      // those inserts
  double overrun_s = 0;      // how long past the deadline the last thread took to return
  SyncCounts syncs;          // xSync calls over the timed part (counting VFS; zero with vfs_counting false)
  uint64_t wal_bytes = 0;    // the -wal file's size at the end
};

// threads connections on the database file `path` (created if missing, the
// table too), inserting for `seconds`. warmup_s > 0 first inserts that long
// with the same threads, untimed: a live database, its WAL grown and
// reused after checkpoints. counting_vfs: open through sync_vfs.h's shim
// (to count the syncs; it forwards every call), else SQLite's default VFS.
SqliteClientRun run_sqlite_client(const std::string& path, int threads, double seconds, double warmup_s,
                                  bool counting_vfs);

}  // namespace fenec::scenarios::engines
