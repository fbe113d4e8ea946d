// sqlite-client PATH THREADS SECONDS [WARMUP_S] [count]: the plain client
// of sqlite_client.h on its own, to set beside the SQLite arm by hand.
#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "scenarios/engines/sqlite_client.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    fmt::print(stderr, "usage: sqlite-client PATH THREADS SECONDS [WARMUP_S] [count]\n");
    return 2;
  }
  const int threads = std::atoi(argv[2]);
  const double seconds = std::atof(argv[3]), warmup = argc > 4 ? std::atof(argv[4]) : 0;
  if (threads < 1 || threads > 256 || seconds <= 0 || warmup < 0) {
    fmt::print(stderr, "sqlite-client: THREADS 1..256, SECONDS > 0, WARMUP_S >= 0\n");
    return 2;
  }
  const bool count = argc > 5 && std::string(argv[5]) == "count";
  const auto r = fenec::scenarios::engines::run_sqlite_client(argv[1], threads, seconds, warmup, count);
  if (!r.error.empty()) {
    fmt::print(stderr, "sqlite-client: {}\n", r.error);
    return 1;
  }
  fmt::print("inserts/s = {:.0f}\ncommits = {}\noverrun_s = {:.3f}\nwal_syncs = {}\ndb_syncs = {}\nwal_bytes = {}\n",
             r.ops_per_s, r.commits, r.overrun_s, r.syncs.wal, r.syncs.main_db, r.wal_bytes);
  return 0;
}
