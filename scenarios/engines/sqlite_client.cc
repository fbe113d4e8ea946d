#include "scenarios/engines/sqlite_client.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

namespace fenec::scenarios::engines {
namespace {

using Clock = std::chrono::steady_clock;

std::string errmsg(sqlite3* db, const char* what) {
  return std::string("sqlite client ") + what + ": " + (db ? sqlite3_errmsg(db) : "no connection");
}

std::string open_db(const std::string& path, bool counting, sqlite3** out) {
  const char* vfs = counting ? counting_vfs_name() : nullptr;
  if (counting && !vfs) return "sqlite client: no counting VFS";
  if (sqlite3_open_v2(path.c_str(), out, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, vfs) != SQLITE_OK)
    return errmsg(*out, "open");
  sqlite3_busy_timeout(*out, 30000);
  if (sqlite3_exec(*out, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;", nullptr, nullptr, nullptr) != SQLITE_OK)
    return errmsg(*out, "pragma");
  return "";
}

// Each thread: its own connection and statement, INSERTs until stop; the
// ones that returned before the deadline are counted.
struct Phase {
  std::atomic<bool> go{false}, stop{false};
  std::atomic<uint64_t> done{0};
  Clock::time_point deadline = Clock::time_point::max();
  std::string error;
  std::atomic<bool> failed{false};
};

void insert_loop(sqlite3* db, int t, Phase* ph) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, "INSERT INTO docs(body, n) VALUES (?1, ?2)", -1, &st, nullptr) != SQLITE_OK) {
    if (!ph->failed.exchange(true)) ph->error = errmsg(db, "prepare");
    ph->stop = true;
    return;
  }
  char body[64];
  uint64_t i = 0, mine = 0;
  while (!ph->go.load(std::memory_order_acquire)) std::this_thread::yield();
  while (!ph->stop.load(std::memory_order_relaxed)) {
    const int len = std::snprintf(body, sizeof body, "doc %010llu amber basalt %d", static_cast<unsigned long long>(i++), t);
    sqlite3_bind_text(st, 1, body, len, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, t);
    const int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
      if (!ph->failed.exchange(true)) ph->error = errmsg(db, "insert");
      ph->stop = true;
      break;
    }
    if (Clock::now() <= ph->deadline) ++mine;
    else ph->stop = true;
  }
  ph->done.fetch_add(mine);
  sqlite3_finalize(st);
}

// Runs the threads for seconds; returns the time from the start to the last return.
double run_phase(const std::vector<sqlite3*>& dbs, double seconds, Phase* ph) {
  std::vector<std::thread> ts;
  for (size_t t = 0; t < dbs.size(); ++t) ts.emplace_back(insert_loop, dbs[t], static_cast<int>(t), ph);
  const auto start = Clock::now();
  ph->deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  ph->go.store(true, std::memory_order_release);
  std::this_thread::sleep_until(ph->deadline);
  ph->stop = true;
  for (auto& t : ts) t.join();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

SqliteClientRun run_sqlite_client(const std::string& path, int threads, double seconds, double warmup_s,
                                  bool counting_vfs) {
  SqliteClientRun r;
  std::vector<sqlite3*> dbs(static_cast<size_t>(threads), nullptr);
  auto close_all = [&] {
    for (sqlite3* db : dbs) sqlite3_close(db);
  };
  for (sqlite3*& db : dbs) {
    if (r.error = open_db(path, counting_vfs, &db); !r.error.empty()) return close_all(), r;
  }
  if (sqlite3_exec(dbs[0], "CREATE TABLE IF NOT EXISTS docs(id INTEGER PRIMARY KEY, body TEXT NOT NULL, n INTEGER NOT NULL)",
                   nullptr, nullptr, nullptr) != SQLITE_OK) {
    r.error = errmsg(dbs[0], "create table");
    return close_all(), r;
  }
  if (warmup_s > 0) {
    Phase warm;
    run_phase(dbs, warmup_s, &warm);
    if (warm.failed) return r.error = warm.error, close_all(), r;
  }
  Phase ph;
  const SyncCounts before = sync_counts();
  const double took = run_phase(dbs, seconds, &ph);
  r.syncs = sync_counts() - before;
  struct stat sb {};
  if (::stat((path + "-wal").c_str(), &sb) == 0) r.wal_bytes = static_cast<uint64_t>(sb.st_size);
  close_all();
  if (ph.failed) return r.error = ph.error, r;
  r.commits = ph.done.load();
  r.ops_per_s = static_cast<double>(r.commits) / seconds;
  r.overrun_s = took - seconds;
  return r;
}

}  // namespace fenec::scenarios::engines
