// The SQLite arms: WAL, a connection per thread, 30 s busy timeout, as the
// source set it up; synchronous=FULL (sqlite-full: the WAL is synced at
// every commit, while the write lock is held) or NORMAL (sqlite-normal: the
// WAL is synced only at checkpoints, so a commit reaches the OS, not the disk).
#include <fmt/format.h>
#include <sqlite3.h>

#include <atomic>
#include <filesystem>

#include "scenarios/engines/store.h"
#include "scenarios/engines/sync_vfs.h"

namespace fenec::scenarios::engines {
namespace {

constexpr int kBusyTimeoutMs = 30000;

std::string sqlite_error(sqlite3* db, const std::string& what) {
  return fmt::format("sqlite {}: {} (code {})", what, db ? sqlite3_errmsg(db) : "no connection",
                     db ? sqlite3_extended_errcode(db) : 0);
}

class Stmt {
 public:
  Stmt() = default;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  ~Stmt() { sqlite3_finalize(s_); }
  std::string prepare(sqlite3* db, const char* sql) {
    return sqlite3_prepare_v2(db, sql, -1, &s_, nullptr) == SQLITE_OK ? "" : sqlite_error(db, "prepare");
  }
  sqlite3_stmt* get() const { return s_; }

 private:
  sqlite3_stmt* s_ = nullptr;
};

// Opens one connection with the arm's settings. The journal mode is a
// property of the database file (set once at creation); synchronous and
// the busy timeout are per connection.
std::string open_connection(const std::string& path, bool full, const std::string& extra_pragmas, sqlite3** out) {
  const char* vfs = counting_vfs_name();
  if (!vfs) return "sqlite: cannot register the sync-counting VFS";
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db, flags, vfs) != SQLITE_OK) {
    std::string err = sqlite_error(db, "open " + path);
    sqlite3_close(db);
    return err;
  }
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  const std::string pragmas = fmt::format("PRAGMA synchronous={};", full ? "FULL" : "NORMAL") + extra_pragmas;
  if (sqlite3_exec(db, pragmas.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    std::string err = sqlite_error(db, "pragma");
    sqlite3_close(db);
    return err;
  }
  *out = db;
  return "";
}

class SqliteStore;

class SqliteSession : public Session {
 public:
  SqliteSession(SqliteStore* store, sqlite3* db) : store_(store), db_(db) {}
  // close_v2 defers the close until the members' statements are finalized
  // (after this body), so the order of destruction needs no care.
  ~SqliteSession() override { sqlite3_close_v2(db_); }

  std::string prepare() {
    for (auto [stmt, sql] : {std::pair{&insert_, "INSERT INTO docs(body, n) VALUES (?1, ?2)"},
                             std::pair{&select_, "SELECT body, n FROM docs WHERE id = ?1"},
                             std::pair{&aggregate_, "SELECT count(*), coalesce(sum(n), 0) FROM docs"},
                             std::pair{&begin_, "BEGIN IMMEDIATE"}, std::pair{&commit_, "COMMIT"}}) {
      if (auto err = stmt->prepare(db_, sql); !err.empty()) return err;
    }
    return "";
  }

  std::string put(const Doc& doc) override;
  std::string put_batch(const std::vector<Doc>& docs) override;
  std::string get(uint64_t id, Doc* out, bool* found) override;
  std::string aggregate(Aggregate* out) override;

 private:
  std::string step_insert(const Doc& doc);
  std::string step_done(Stmt& s, const char* what);

  SqliteStore* store_;
  sqlite3* db_;
  Stmt insert_, select_, aggregate_, begin_, commit_;
};

class SqliteStore : public Store {
 public:
  // settings: journal_mode is the file's, set at creation (WAL unless given);
  // every other one a pragma each connection runs after synchronous.
  SqliteStore(std::string path, bool full, const std::map<std::string, std::string>& settings)
      : path_(std::move(path)), full_(full) {
    for (const auto& [name, value] : settings) {
      if (name == "journal_mode") journal_mode_ = value;
      else pragmas_ += fmt::format("PRAGMA {}={};", name, value);
    }
  }

  std::string create() {
    sqlite3* db = nullptr;
    if (auto err = open_connection(path_, full_, pragmas_, &db); !err.empty()) return err;
    const std::string setup = fmt::format(
        "PRAGMA journal_mode={};"
        "CREATE TABLE IF NOT EXISTS docs(id INTEGER PRIMARY KEY, body TEXT NOT NULL, n INTEGER NOT NULL);",
        journal_mode_);
    std::string err;
    if (sqlite3_exec(db, setup.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) err = sqlite_error(db, "setup");
    sqlite3_close(db);
    return err;
  }

  std::unique_ptr<Session> session(std::string* err) override {
    sqlite3* db = nullptr;
    if (*err = open_connection(path_, full_, pragmas_, &db); !err->empty()) return nullptr;
    auto s = std::make_unique<SqliteSession>(this, db);
    if (*err = s->prepare(); !err->empty()) return nullptr;
    return s;
  }

  void reset_counters() override {
    commits_.store(0);
    base_ = sync_counts();
  }

  Counters counters() const override {
    const SyncCounts d = sync_counts() - base_;
    Counters c;
    c.commits = commits_.load();
    c.fsyncs = d.total();
    c.extra["wal_syncs"] = {static_cast<double>(d.wal), "count"};
    c.extra["db_syncs"] = {static_cast<double>(d.main_db), "count"};
    return c;
  }

  std::string close() override { return ""; }  // sessions own the connections

  void count_commit() { commits_.fetch_add(1, std::memory_order_relaxed); }

 private:
  std::string path_;
  bool full_;
  std::string journal_mode_ = "WAL", pragmas_;
  std::atomic<uint64_t> commits_{0};
  SyncCounts base_{};
};

std::string SqliteSession::step_done(Stmt& s, const char* what) {
  const int rc = sqlite3_step(s.get());
  sqlite3_reset(s.get());
  return rc == SQLITE_DONE ? "" : sqlite_error(db_, what);
}

std::string SqliteSession::step_insert(const Doc& doc) {
  sqlite3_bind_text(insert_.get(), 1, doc.body.data(), static_cast<int>(doc.body.size()), SQLITE_STATIC);
  sqlite3_bind_int64(insert_.get(), 2, doc.n);
  return step_done(insert_, "insert");
}

std::string SqliteSession::put(const Doc& doc) {
  // Autocommit: the INSERT is its own transaction, as a row a write is.
  if (auto err = step_insert(doc); !err.empty()) return err;
  store_->count_commit();
  return "";
}

std::string SqliteSession::put_batch(const std::vector<Doc>& docs) {
  if (auto err = step_done(begin_, "begin"); !err.empty()) return err;
  for (const Doc& d : docs) {
    if (auto err = step_insert(d); !err.empty()) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      return err;
    }
  }
  if (auto err = step_done(commit_, "commit"); !err.empty()) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    return err;
  }
  store_->count_commit();
  return "";
}

std::string SqliteSession::get(uint64_t id, Doc* out, bool* found) {
  sqlite3_bind_int64(select_.get(), 1, static_cast<sqlite3_int64>(id));
  const int rc = sqlite3_step(select_.get());
  std::string err;
  *found = rc == SQLITE_ROW;
  if (rc == SQLITE_ROW) {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(select_.get(), 0));
    out->body.assign(text ? text : "", static_cast<size_t>(sqlite3_column_bytes(select_.get(), 0)));
    out->n = sqlite3_column_int64(select_.get(), 1);
  } else if (rc != SQLITE_DONE) {
    err = sqlite_error(db_, "select");
  }
  sqlite3_reset(select_.get());
  return err;
}

std::string SqliteSession::aggregate(Aggregate* out) {
  const int rc = sqlite3_step(aggregate_.get());
  std::string err;
  if (rc == SQLITE_ROW) {
    out->count = static_cast<uint64_t>(sqlite3_column_int64(aggregate_.get(), 0));
    out->sum = sqlite3_column_int64(aggregate_.get(), 1);
  } else {
    err = sqlite_error(db_, "aggregate");
  }
  sqlite3_reset(aggregate_.get());
  return err;
}

}  // namespace

std::unique_ptr<Store> open_sqlite(const ArmSpec& arm, const std::string& dir, std::string* err) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    *err = fmt::format("mkdir {}: {}", dir, ec.message());
    return nullptr;
  }
  auto store = std::make_unique<SqliteStore>(dir + "/bench.sqlite", arm.durable, arm.settings);
  if (*err = store->create(); !err->empty()) return nullptr;
  store->reset_counters();
  return store;
}

}  // namespace fenec::scenarios::engines
