#include "scenarios/pg/pq.h"

#include <fmt/format.h>

namespace fenec::scenarios::pg {

std::string pq_error(PGconn* c, const std::string& what) {
  std::string m = c != nullptr ? PQerrorMessage(c) : "no connection";
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
  return fmt::format("postgres {}: {}", what, m);
}

std::string exec(PGconn* c, const std::string& sql, ExecStatusType ok, PGresult** keep) {
  PGresult* r = PQexec(c, sql.c_str());
  const bool good = PQresultStatus(r) == ok;
  std::string err = good ? "" : pq_error(c, sql.substr(0, 60));
  if (keep != nullptr && good) {
    *keep = r;
  } else {
    PQclear(r);
  }
  return err;
}

PGconn* connect(const std::string& conninfo, std::string* err) {
  PGconn* c = PQconnectdb(conninfo.c_str());
  if (PQstatus(c) != CONNECTION_OK) {
    *err = pq_error(c, "connect");
    PQfinish(c);
    return nullptr;
  }
  return c;
}

}  // namespace fenec::scenarios::pg
