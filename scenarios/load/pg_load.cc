// The PostgreSQL arms' loads: COPY, and prepared INSERTs of many rows. See loaders.h.
//
// The table is what a user without pgvector (not packaged for Debian 12)
// would make for these rows: `id bigserial PRIMARY KEY` (fenec's document
// ids and their index), `body text`, `n bigint`, `vec float4[]`. Each load
// gets a fresh table, dropped after its count.
#include <libpq-fe.h>

#include <atomic>
#include <chrono>
#include <map>

#include <fmt/format.h>

#include "scenarios/load/loaders.h"
#include "scenarios/load/rows.h"
#include "scenarios/pg/pq.h"

namespace fenec::scenarios::load {
namespace {

std::atomic<uint64_t> g_tables{0};

// One COPY of `csv` (CSV rows) into `table`; "" or why not.
std::string CopyChunk(PGconn* c, const std::string& table, const std::string& csv) {
  PGresult* r = PQexec(c, fmt::format("COPY {} (body, n, vec) FROM STDIN (FORMAT csv)", table).c_str());
  const bool in = PQresultStatus(r) == PGRES_COPY_IN;
  PQclear(r);
  if (!in) return pg::Error(c, "COPY");
  if (PQputCopyData(c, csv.data(), static_cast<int>(csv.size())) != 1 || PQputCopyEnd(c, nullptr) != 1) {
    return pg::Error(c, "COPY data");
  }
  std::string err;
  while ((r = PQgetResult(c)) != nullptr) {
    if (PQresultStatus(r) != PGRES_COMMAND_OK && err.empty()) err = pg::Error(c, "COPY end");
    PQclear(r);
  }
  return err;
}

// The INSERT of `rows` rows, prepared once per row count (a file's last
// chunk may be shorter) under the name ins_<rows>.
std::string PrepareInsert(PGconn* c, const std::string& table, size_t rows) {
  std::string sql = fmt::format("INSERT INTO {} (body, n, vec) VALUES ", table);
  for (size_t i = 0; i < rows; ++i) {
    fmt::format_to(std::back_inserter(sql), "{}(${}, ${}::bigint, ${}::float4[])", i ? "," : "", 3 * i + 1,
                   3 * i + 2, 3 * i + 3);
  }
  PGresult* r = PQprepare(c, fmt::format("ins_{}", rows).c_str(), sql.c_str(), 0, nullptr);
  const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  PQclear(r);
  return ok ? "" : pg::Error(c, "prepare INSERT");
}

}  // namespace

LoadFigures LoadPostgres(const LoadSpec& s, const std::string& conninfo) {
  LoadFigures f;
  if (s.index != Index::kNone) {
    f.error = "PostgreSQL has no vector index here (pgvector is not packaged for Debian 12)";
    return f;
  }
  std::string err;
  PGconn* c = pg::Connect(conninfo, &err);
  if (c == nullptr) {
    f.error = err;
    return f;
  }
  const std::string table = fmt::format("load_{}", ++g_tables);
  err = pg::Exec(c, "SET synchronous_commit = off");
  if (err.empty()) {
    err = pg::Exec(c, fmt::format("CREATE TABLE {} (id bigserial PRIMARY KEY, body text NOT NULL, n bigint NOT NULL, "
                                  "vec float4[] NOT NULL)", table));
  }
  const bool copy = s.arm == kPgCopy;
  std::map<size_t, bool> prepared;
  RowReader reader;
  std::vector<Fields> fields(s.per_request);
  std::vector<std::string> ns(s.per_request), vecs(s.per_request);
  std::vector<const char*> params;
  std::string csv;

  const auto t0 = Clock::now();
  // Each chunk's rows sent as one COPY or one INSERT; "" or why not.
  auto send = [&](const Lines& lines, const LineReader& file, Clock::time_point c0) {
    std::string why;
    csv.clear();
    params.clear();
    for (size_t i = 0; i < lines.size(); ++i) {
      why = reader.Split(s.format, lines[i], file.capacity_from(lines[i].data()), &fields[i]);
      if (!why.empty()) return why;
      if (copy) {
        AppendCopyRow(fields[i], &csv);
      } else {
        // Parameters are C strings, each in a slot of its own that stays put until sent.
        ns[i].assign(fields[i].n);
        vecs[i] = ArrayLiteral(fields[i].vec);
        params.insert(params.end(), {fields[i].body.c_str(), ns[i].c_str(), vecs[i].c_str()});
      }
    }
    f.client_s += since(c0);
    if (copy) return CopyChunk(c, table, csv);
    if (!prepared[lines.size()]) {
      why = PrepareInsert(c, table, lines.size());
      prepared[lines.size()] = why.empty();
      if (!why.empty()) return why;
    }
    PGresult* r = PQexecPrepared(c, fmt::format("ins_{}", lines.size()).c_str(), static_cast<int>(params.size()),
                                 params.data(), nullptr, nullptr, 0);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) why = pg::Error(c, "INSERT");
    PQclear(r);
    return why;
  };
  if (err.empty()) err = ForEachChunk(s, &f, send);
  f.wall_s = since(t0);
  if (err.empty()) {
    PGresult* r = nullptr;
    err = pg::Exec(c, "SELECT count(*) FROM " + table, PGRES_TUPLES_OK, &r);
    if (err.empty()) {
      f.rows_counted = std::stoull(PQgetvalue(r, 0, 0));
      PQclear(r);
    }
  }
  if (std::string dropped = pg::Exec(c, "DROP TABLE IF EXISTS " + table); !dropped.empty() && err.empty()) err = dropped;
  PQfinish(c);
  f.error = err;
  return f;
}

}  // namespace fenec::scenarios::load
