// libpq's few calls every PostgreSQL arm makes, with its errors turned into
// the "" or why-not strings the scenarios use: one copy, shared by the
// concurrency arms and requests-bench.
#pragma once

#include <libpq-fe.h>

#include <memory>
#include <string>

namespace fenec::scenarios::pg {

struct PqFinish {
  void operator()(PGconn* c) const { PQfinish(c); }
};
// A connection closed when it goes out of scope.
using PqConn = std::unique_ptr<PGconn, PqFinish>;

// "postgres <what>: <libpq's last message>", trailing newline dropped.
std::string Error(PGconn* c, const std::string& what);
// Runs `sql` with no parameters; "" when its status is `ok`. With `keep`,
// a good result is handed over there (the caller PQclears it).
std::string Exec(PGconn* c, const std::string& sql, ExecStatusType ok = PGRES_COMMAND_OK, PGresult** keep = nullptr);
// A connection, or nullptr with *err saying why.
PGconn* Connect(const std::string& conninfo, std::string* err);

}  // namespace fenec::scenarios::pg
