// A scratch PostgreSQL 15 cluster that a scenario owns for its run: its own
// data folder under the scenario's scratch dir, its own port on 127.0.0.1
// and no unix socket (our clients use TCP, as fenec-server's do), started through scripts/postgres.sh (which handles initdb and
// running as the `postgres` user when we are root) and stopped when the
// object goes away: at the end of the run, on an error, and on Ctrl-C (the
// harness turns SIGINT into a stop request, so scopes unwind). A user's own
// PostgreSQL, or `make postgres-up`'s on port 54329, is never touched.
//
// Where PostgreSQL is not installed, Start() says so and the caller records
// its arms as skipped with that reason; nothing is faked.
#pragma once

#include <string>

namespace fenec::scenarios::pg {

class PgCluster {
 public:
  PgCluster() = default;
  PgCluster(const PgCluster&) = delete;
  PgCluster& operator=(const PgCluster&) = delete;
  ~PgCluster() { (void)Stop(); }

  // Creates and starts a cluster in `dir` (created; must be reachable by the
  // `postgres` user when run as root) on a free loopback port. "" when up,
  // else why not: "PostgreSQL 15 is not installed here (...)", or what failed
  // with the tail of the script's log.
  std::string Start(const std::string& dir);
  // Stops the cluster (fast shutdown) if this object started it; "" or why not.
  std::string Stop();

  bool up() const { return up_; }
  // libpq connection string for database `fenec` over TCP loopback.
  const std::string& conninfo() const { return conninfo_; }
  int port() const { return port_; }
  // The server's version() string, or why it could not be read.
  std::string Version() const;

 private:
  std::string Run(const char* command, std::string* output) const;

  std::string dir_, conninfo_;
  int port_ = 0;
  bool up_ = false;
};

// scripts/postgres.sh of the source tree this binary was built from
// (FENEC_PG_SCRIPT overrides it).
std::string postgres_script();

}  // namespace fenec::scenarios::pg
