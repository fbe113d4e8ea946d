// The PostgreSQL arms: PostgreSQL 15 from Debian, a scratch cluster the
// bench starts on loopback (scenarios/pg/pg_cluster.h), libpq over TCP with
// prepared statements, a connection per thread, a row a transaction.
// postgres-durable sets synchronous_commit = on (a commit waits for its WAL
// fsync; concurrent commits share one, PostgreSQL's group commit);
// postgres-buffered sets it off (the commit returns once its WAL is written
// to the OS; the WAL writer syncs it within ~3 x wal_writer_delay). Each store
// is a fresh table in database `fenec`, dropped at close. fsyncs are the WAL
// syncs pg_stat_wal counts (backends' and the WAL writer's).
#include <fmt/format.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "scenarios/engines/store.h"
#include "scenarios/pg/pq.h"

namespace fenec::scenarios::engines {
namespace {

std::atomic<uint64_t> g_tables{0};  // a fresh table per store, in one database

class PgStore;

class PgSession : public Session {
 public:
  PgSession(PgStore* store, PGconn* c) : store_(store), c_(c) {}
  ~PgSession() override { PQfinish(c_); }
  std::string prepare(const std::string& table, bool durable);
  std::string put(const Doc& doc) override;
  std::string put_batch(const std::vector<Doc>& docs) override;
  std::string get(uint64_t id, Doc* out, bool* found) override;
  std::string aggregate(Aggregate* out) override;

 private:
  std::string insert(const Doc& doc);

  PgStore* store_;
  PGconn* c_;
};

class PgStore : public Store {
 public:
  PgStore(std::string conninfo, bool durable, std::map<std::string, std::string> settings)
      : conninfo_(std::move(conninfo)), durable_(durable), settings_(std::move(settings)) {}
  ~PgStore() override { (void)close(); }

  std::string create() {
    std::string err;
    admin_ = pg::Connect(conninfo_, &err);
    if (admin_ == nullptr) return err;
    table_ = fmt::format("docs_{}_{}", getpid(), g_tables.fetch_add(1));
    if (auto e = apply_settings(); !e.empty()) return e;
    return pg::Exec(admin_, fmt::format("CREATE TABLE {} (id bigserial PRIMARY KEY, body text NOT NULL, n bigint NOT NULL)",
                                    table_));
  }

  std::unique_ptr<Session> session(std::string* err) override {
    PGconn* c = pg::Connect(conninfo_, err);
    if (c == nullptr) return nullptr;
    auto s = std::make_unique<PgSession>(this, c);
    if (*err = s->prepare(table_, durable_); !err->empty()) return nullptr;
    for (const auto& [name, value] : session_settings_)
      if (*err = pg::Exec(c, fmt::format("SET {} = {}", name, literal(value))); !err->empty()) return nullptr;
    return s;
  }

  void reset_counters() override {
    commits_.store(0);
    base_ = read_pg_wal_stats(admin_, false);
  }

  Counters counters() const override {
    const PgWalStats now = read_pg_wal_stats(admin_, true);
    Counters c;
    c.commits = commits_.load();
    c.fsyncs = now.syncs - base_.syncs;
    c.extra["wal_writes"] = {static_cast<double>(now.writes - base_.writes), "count"};
    c.extra["wal_sync_ms"] = {now.sync_ms - base_.sync_ms, "ms"};
    return c;
  }

  std::string close() override {
    if (admin_ == nullptr) return "";
    std::string err = table_.empty() ? "" : pg::Exec(admin_, "DROP TABLE IF EXISTS " + table_);
    // The cluster's own settings back as they were, for the next store.
    for (const std::string& name : altered_) {
      if (auto e = pg::Exec(admin_, "ALTER SYSTEM RESET " + name); !e.empty() && err.empty()) err = e;
    }
    if (!altered_.empty()) (void)reload();
    PQfinish(admin_);
    admin_ = nullptr;
    return err;
  }

  void count_commit() { commits_.fetch_add(1, std::memory_order_relaxed); }

 private:
  static std::string literal(const std::string& v) {
    std::string q = "'";
    for (char ch : v) q += ch == '\'' ? std::string("''") : std::string(1, ch);
    return q + "'";
  }

  std::string reload() {
    PGresult* r = nullptr;
    std::string e = pg::Exec(admin_, "SELECT pg_reload_conf()", PGRES_TUPLES_OK, &r);
    if (r) PQclear(r);
    // The postmaster rereads the file on the signal; backends started after it inherit the values.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    return e;
  }

  // Each setting by its context (pg_settings): user and superuser ones SET on
  // every session; sighup ones ALTER SYSTEM + reload; a restart is refused.
  std::string apply_settings() {
    for (const auto& [name, value] : settings_) {
      PGresult* r = nullptr;
      if (auto e = pg::Exec(admin_, fmt::format("SELECT context FROM pg_settings WHERE name = {}", literal(name)),
                            PGRES_TUPLES_OK, &r);
          !e.empty())
        return e;
      const std::string context = PQntuples(r) == 1 ? PQgetvalue(r, 0, 0) : "";
      PQclear(r);
      if (context.empty()) return "postgres: no setting " + name;
      if (context == "postmaster" || context == "internal")
        return fmt::format("postgres: {} needs a server restart ({})", name, context);
      if (context == "sighup") {
        if (auto e = pg::Exec(admin_, fmt::format("ALTER SYSTEM SET {} = {}", name, literal(value))); !e.empty())
          return e;
        altered_.push_back(name);
      } else {
        session_settings_.emplace_back(name, value);
      }
    }
    return altered_.empty() ? "" : reload();
  }

  std::string conninfo_;
  bool durable_;
  std::map<std::string, std::string> settings_;
  std::vector<std::pair<std::string, std::string>> session_settings_;
  std::vector<std::string> altered_;
  PGconn* admin_ = nullptr;
  std::string table_;
  std::atomic<uint64_t> commits_{0};
  PgWalStats base_;
};

std::string PgSession::prepare(const std::string& table, bool durable) {
  if (auto e = pg::Exec(c_, fmt::format("SET synchronous_commit = {}", durable ? "on" : "off")); !e.empty()) return e;
  // The time of this backend's WAL syncs, in pg_stat_wal.wal_sync_time (a
  // clock read either side of each sync; pgbench's check sets it too).
  if (auto e = pg::Exec(c_, "SET track_wal_io_timing = on"); !e.empty()) return e;
  const std::pair<const char*, std::string> stmts[] = {
      {"ins", fmt::format("INSERT INTO {} (body, n) VALUES ($1, $2::bigint)", table)},
      {"get", fmt::format("SELECT body, n FROM {} WHERE id = $1::bigint", table)},
      {"agg", fmt::format("SELECT count(*), coalesce(sum(n), 0) FROM {}", table)},
  };
  for (const auto& [name, sql] : stmts) {
    PGresult* r = PQprepare(c_, name, sql.c_str(), 0, nullptr);
    const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    if (!ok) return pg::Error(c_, std::string("prepare ") + name);
  }
  return "";
}

std::string PgSession::insert(const Doc& doc) {
  const std::string n = std::to_string(doc.n);
  const char* values[] = {doc.body.c_str(), n.c_str()};
  PGresult* r = PQexecPrepared(c_, "ins", 2, values, nullptr, nullptr, 0);
  const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  PQclear(r);
  return ok ? "" : pg::Error(c_, "insert");
}

// Autocommit: the INSERT is its own transaction, as a row a write is.
std::string PgSession::put(const Doc& doc) {
  if (auto e = insert(doc); !e.empty()) return e;
  store_->count_commit();
  return "";
}

std::string PgSession::put_batch(const std::vector<Doc>& docs) {
  if (auto e = pg::Exec(c_, "BEGIN"); !e.empty()) return e;
  for (const Doc& d : docs) {
    if (auto e = insert(d); !e.empty()) {
      (void)pg::Exec(c_, "ROLLBACK");
      return e;
    }
  }
  if (auto e = pg::Exec(c_, "COMMIT"); !e.empty()) return e;
  store_->count_commit();
  return "";
}

std::string PgSession::get(uint64_t id, Doc* out, bool* found) {
  const std::string s = std::to_string(id);
  const char* values[] = {s.c_str()};
  PGresult* r = PQexecPrepared(c_, "get", 1, values, nullptr, nullptr, 0);
  std::string err;
  *found = false;
  if (PQresultStatus(r) != PGRES_TUPLES_OK) {
    err = pg::Error(c_, "get");
  } else if (PQntuples(r) == 1) {
    *found = true;
    out->body.assign(PQgetvalue(r, 0, 0), static_cast<size_t>(PQgetlength(r, 0, 0)));
    out->n = std::stoll(PQgetvalue(r, 0, 1));
  }
  PQclear(r);
  return err;
}

std::string PgSession::aggregate(Aggregate* out) {
  PGresult* r = PQexecPrepared(c_, "agg", 0, nullptr, nullptr, nullptr, 0);
  std::string err;
  if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
    err = pg::Error(c_, "aggregate");
  } else {
    out->count = std::stoull(PQgetvalue(r, 0, 0));
    out->sum = std::stoll(PQgetvalue(r, 0, 1));
  }
  PQclear(r);
  return err;
}

}  // namespace

PgWalStats read_pg_wal_stats(PGconn* admin, bool settle) {
  PgWalStats w;
  for (int i = 0; settle && i < 500; ++i) {
    PGresult* r = nullptr;
    if (!pg::Exec(admin,
                  "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' "
                  "AND datname = current_database() AND pid <> pg_backend_pid()",
                  PGRES_TUPLES_OK, &r)
             .empty()) {
      break;
    }
    const bool alone = std::string(PQgetvalue(r, 0, 0)) == "0";
    PQclear(r);
    if (alone) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  PGresult* r = nullptr;
  if (pg::Exec(admin, "SELECT wal_sync, wal_write, wal_sync_time FROM pg_stat_wal", PGRES_TUPLES_OK, &r).empty()) {
    w.syncs = std::stoull(PQgetvalue(r, 0, 0));
    w.writes = std::stoull(PQgetvalue(r, 0, 1));
    w.sync_ms = std::stod(PQgetvalue(r, 0, 2));
    w.ok = true;
    PQclear(r);
  }
  return w;
}

std::unique_ptr<Store> open_postgres(const ArmSpec& arm, const std::string& conninfo, std::string* err) {
  if (conninfo.empty()) {
    *err = "no PostgreSQL cluster for this run";
    return nullptr;
  }
  auto store = std::make_unique<PgStore>(conninfo, arm.durable, arm.settings);
  if (*err = store->create(); !err->empty()) return nullptr;
  store->reset_counters();
  return store;
}

}  // namespace fenec::scenarios::engines
