// libpq calls every PostgreSQL arm makes the same way (concurrency's
// stores, load-bench's loaders): errors as one line that names what failed,
// never an exception, so a failed arm is reported and the run goes on.
#pragma once

#include <libpq-fe.h>

#include <string>

namespace fenec::scenarios::pg {

// "postgres <what>: <libpq's message>", trailing newline dropped.
std::string pq_error(PGconn* c, const std::string& what);
// Runs a statement with no parameters; "" when it returned `ok`. With
// `keep`, a good result is handed over (the caller PQclear()s it).
std::string exec(PGconn* c, const std::string& sql, ExecStatusType ok = PGRES_COMMAND_OK, PGresult** keep = nullptr);
// A connection, or nullptr and *err.
PGconn* connect(const std::string& conninfo, std::string* err);

}  // namespace fenec::scenarios::pg
