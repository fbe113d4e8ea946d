// A scratch PostgreSQL 15 cluster that a scenario owns for its run: its own
// data folder under the scenario's scratch dir (or beside it, where the
// `postgres` user cannot reach that: cluster_folder.h), its own port on
// 127.0.0.1 and no unix socket (our clients use TCP, as fenec-server's do),
// started through scripts/postgres.sh (which handles initdb and running as
// the `postgres` user when we are root) and stopped when the object goes
// away: at the end of the run, on an error, and on Ctrl-C (the harness turns
// SIGINT into a stop request, so scopes unwind). A user's own PostgreSQL, or
// `make postgres-up`'s on port 54329, is never touched.
//
// Where PostgreSQL is not installed, Start() says so (missing()) and the
// caller records its arms as skipped with that reason; nothing is faked. Any
// other failure is the run's failure, not a skip.
#pragma once

#include <string>

namespace fenec::scenarios::pg {

class PgCluster {
 public:
  PgCluster() = default;
  PgCluster(const PgCluster&) = delete;
  PgCluster& operator=(const PgCluster&) = delete;
  ~PgCluster() { (void)Stop(); }

  // Creates and starts a cluster in `dir` (created), or in a folder of its
  // own on the same file system where the server's user cannot reach `dir`
  // (place_cluster), on a free loopback port. "" when up, else why not:
  // "PostgreSQL 15 is not installed here (...)", or what failed with the
  // tail of the script's log.
  std::string Start(const std::string& dir);
  // Stops the cluster (fast shutdown) if this object started it, and removes
  // the folder Start made for it; "" or why not.
  std::string Stop();

  bool up() const { return up_; }
  // The last Start() failed because PostgreSQL 15 is not installed here.
  bool missing() const { return missing_; }
  // The cluster's data folder (postmaster.pid, server.log).
  const std::string& dir() const { return dir_; }
  // libpq connection string for database `fenec` over TCP loopback.
  const std::string& conninfo() const { return conninfo_; }
  int port() const { return port_; }
  // The server's version() string, or why it could not be read.
  std::string Version() const;

 private:
  std::string Run(const char* command, std::string* output);
  void RemoveMadeFolder();

  std::string dir_, conninfo_;
  int port_ = 0;
  bool up_ = false, missing_ = false;
  bool made_ = false;  // dir_ was made by Start, outside the folder asked for
};

// scripts/postgres.sh of the source tree this binary was built from
// (FENEC_PG_SCRIPT overrides it).
std::string postgres_script();

}  // namespace fenec::scenarios::pg
