// A SQLite VFS shim that counts the sync requests SQLite makes (CC-1).
//
// SQLite does not report how many times it synced, and an strace-style count
// would cost more than the commits it watches. This shim sits in front of the
// platform's default VFS ("unix" here), forwards every call unchanged, and
// counts xSync calls per file kind. It is the honest figure for "fsyncs" in
// the SQLite arms: each xSync becomes one fsync/fdatasync in the unix VFS
// (plus, once per newly created file, one fsync of its directory, which this
// count does not see: the figure is a lower bound on the device's syncs).
#pragma once

#include <cstdint>

namespace fenec::scenarios::engines {

struct SyncCounts {
  uint64_t main_db = 0;  // xSync on the database file (WAL checkpoints)
  uint64_t wal = 0;      // xSync on the -wal file (commits at synchronous=FULL, checkpoints)
  uint64_t other = 0;    // rollback journals, temp files
  uint64_t total() const { return main_db + wal + other; }
};

// The name to pass to sqlite3_open_v2 as zVfs. Registers the shim (not as the
// default) on first call; thread-safe. Returns nullptr if SQLite has no
// default VFS to wrap.
const char* counting_vfs_name();

// Counts since the process started, over every connection opened through the
// shim. Callers take a snapshot before and after and subtract.
SyncCounts sync_counts();

inline SyncCounts operator-(const SyncCounts& a, const SyncCounts& b) {
  return {a.main_db - b.main_db, a.wal - b.wal, a.other - b.other};
}

}  // namespace fenec::scenarios::engines
