// What a scenario asks of an engine arm: one table of small documents (a
// text and an int), a row a write, a row by id a read, batches, and one long
// aggregate. fenecdb, SQLite, RocksDB and PostgreSQL each implement it; the
// workloads in workload.h drive any of them the same way, so the arms differ
// only in the engine under test. Shared by every scenario that runs engines
// (concurrency-bench first), so none includes another scenario's files.
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fenec/options.h"

namespace fenec::scenarios::engines {

struct Doc {
  std::string body;
  int64_t n = 0;
};

// count(*) and sum(n) over the whole table: the long read (CC-5).
struct Aggregate {
  uint64_t count = 0;
  int64_t sum = 0;
};

// What the arm did since the last reset_counters(). fsyncs are what the
// arm can observe honestly: fenecdb's own Stats; for SQLite, the xSync
// calls the counting VFS saw (sync_vfs.h); RocksDB's WAL_FILE_SYNCED ticker;
// PostgreSQL's pg_stat_wal.wal_sync.
struct Counters {
  uint64_t commits = 0;
  uint64_t fsyncs = 0;
  // Arm-specific extras, written as metrics as they are (name -> value, unit).
  std::map<std::string, std::pair<double, std::string>> extra;
};

// One thread's handle. SQLite and PostgreSQL: a connection of its own;
// fenecdb and RocksDB: the shared database. Every call returns "" on success, else what went wrong.
class Session {
 public:
  virtual ~Session() = default;
  // One commit: acknowledged as durable as the arm's mode says.
  virtual std::string put(const Doc& doc) = 0;
  // All of docs in one commit.
  virtual std::string put_batch(const std::vector<Doc>& docs) = 0;
  // id counts from 1 in insertion order; *found says whether it exists.
  virtual std::string get(uint64_t id, Doc* out, bool* found) = 0;
  virtual std::string aggregate(Aggregate* out) = 0;
};

class Store {
 public:
  virtual ~Store() = default;
  virtual std::unique_ptr<Session> session(std::string* err) = 0;
  virtual void reset_counters() = 0;
  virtual Counters counters() const = 0;
  // Total time the engine's write lock has been held, if the engine says
  // (fenecdb's Stats); read around each batch to get a hold per batch (CC-3).
  virtual bool write_lock_hold_ns(uint64_t*) const { return false; }
  // Flushes and closes; "" or the first error.
  virtual std::string close() = 0;
};

// The arms. Each part of the bench uses a subset; "-naive" flips only the
// switch of the finding that part measures (see main.cc --help).
struct ArmSpec {
  std::string name;  // "fenecdb-durable", "sqlite-full", ...
  enum class Engine { kFenecdb, kSqlite, kRocksdb, kPostgres } engine = Engine::kFenecdb;
  // fenecdb: Durability::kDurable; SQLite: synchronous=FULL; RocksDB:
  // WriteOptions::sync; PostgreSQL: synchronous_commit=on.
  bool durable = true;
  bool naive = false;
  // fenecdb: Options::journal_zero_ahead = 0, the journal only appended (its
  // fdatasyncs commit the file's new size each time): what zero ahead buys.
  bool append_journal = false;
  // fenecdb: Options::commit_window_us, a durable round's leader waiting for
  // the commits in flight (the engine's default: adaptive; 0: none).
  uint32_t commit_window_us = kCommitWindowAdaptive;
  // Engine settings by the engine's own names, applied by the arm on top of
  // the above (a name the arm cannot apply fails the open, saying so):
  // fenecdb Options fields (journal_zero_ahead, data_flush, commit_window_us); SQLite pragmas,
  // journal_mode at creation and the rest on every connection; RocksDB
  // option strings (GetOptionsFromString); PostgreSQL GUCs, SET on every
  // session, or ALTER SYSTEM + reload for sighup ones (reset at close).
  // Initialized, so an arm listed without settings is complete (-Wextra's
  // missing-field-initializers counts a member without one as forgotten).
  std::map<std::string, std::string> settings = {};
};

// The folder (fenecdb) or file (SQLite) the store lives in is under dir.
std::unique_ptr<Store> open_sqlite(const ArmSpec& arm, const std::string& dir, std::string* err);
// nullptr with *err set when the engine is not built into this tree.
// `part` says which naive switch applies: "writers", "readers", "batches", "long-read".
std::unique_ptr<Store> open_fenecdb(const ArmSpec& arm, const std::string& part, const std::string& dir,
                                    std::string* err);

// A RocksDB DB in dir (rocksdb_store.cc), and the library's version.
std::string rocksdb_version();
std::unique_ptr<Store> open_rocksdb(const ArmSpec& arm, const std::string& dir, std::string* err);
// A fresh table in the run's PostgreSQL cluster (postgres_store.cc); "" conninfo:
// no cluster (not installed, or it failed to start), an error.
std::unique_ptr<Store> open_postgres(const ArmSpec& arm, const std::string& conninfo, std::string* err);

// pg_stat_wal's counts, for our PostgreSQL arms and for pgbench's check
// alike. sync_ms is wal_sync_time: counted only by backends that run with
// track_wal_io_timing on (both set it), so the mean sync a commit waited for
// can be set beside the commit's whole time.
struct PgWalStats {
  uint64_t syncs = 0, writes = 0;
  double sync_ms = 0;
  bool ok = false;
};
// With settle, first waits (at most 5 s) for the database's other client
// backends to be gone: a backend adds its WAL counts to pg_stat_wal when its
// stats are flushed, at the latest as it exits.
PgWalStats read_pg_wal_stats(PGconn* admin, bool settle);

inline std::unique_ptr<Store> open_store(const ArmSpec& arm, const std::string& part, const std::string& dir,
                                         const std::string& pg_conninfo, std::string* err) {
  switch (arm.engine) {
    case ArmSpec::Engine::kSqlite: return open_sqlite(arm, dir, err);
    case ArmSpec::Engine::kRocksdb: return open_rocksdb(arm, dir, err);
    case ArmSpec::Engine::kPostgres: return open_postgres(arm, pg_conninfo, err);
    case ArmSpec::Engine::kFenecdb: break;
  }
  return open_fenecdb(arm, part, dir, err);
}

}  // namespace fenec::scenarios::engines
