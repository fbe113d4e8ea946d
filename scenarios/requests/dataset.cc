#include "scenarios/requests/dataset.h"

#include <libpq-fe.h>
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <iterator>
#include <memory>
#include <random>
#include <string_view>
#include <thread>

#include <fmt/format.h>

#include "scenarios/pg/pq.h"
#include "scenarios/procs/metrics.h"
#include "scenarios/requests/http_client.h"

namespace fenec::scenarios::requests {
namespace {

std::vector<float> RandomVector(std::mt19937_64& rng) {
  // Four decimals: short to send, and exact to compare once read back as a float.
  std::vector<float> v(kDim);
  for (float& x : v) x = static_cast<float>(static_cast<int>(rng() % 20001) - 10000) / 10000.0f;
  return v;
}

Row RandomRow(std::mt19937_64& rng, const std::string& name) {
  Row r;
  r.name = name;
  r.n = static_cast<int64_t>(rng() % static_cast<uint64_t>(kMaxN));
  r.vec = RandomVector(rng);
  return r;
}

std::string Post(HttpClient& c, const std::string& path, const std::string& body, std::string* answer) {
  int status = 0;
  if (std::string err = c.Send("POST", path, body, &status, answer); !err.empty()) return err;
  if (status != 200) return fmt::format("{} answered {}: {}", path, status, answer->substr(0, 300));
  return "";
}

}  // namespace

Dataset MakeDataset(int rows, uint64_t seed, int queries, int puts) {
  Dataset d;
  d.seed = seed;
  std::mt19937_64 rng(seed);
  d.rows.reserve(static_cast<size_t>(rows));
  for (int i = 1; i <= rows; ++i) d.rows.push_back(RandomRow(rng, fmt::format("item-{}-{:x}", i, rng() % 65536)));
  for (int i = 0; i < queries; ++i) d.queries.push_back(RandomVector(rng));
  for (int i = 0; i < puts; ++i) d.puts.push_back(RandomRow(rng, fmt::format("put-{}", i)));
  std::vector<int64_t> ns;
  for (const Row& r : d.rows) ns.push_back(r.n);
  std::sort(ns.begin(), ns.end(), std::greater<>());
  d.bound_max = std::min<int64_t>(kMaxN / 10 * 9, ns.size() >= 10 ? ns[9] : 0);
  return d;
}

std::string VectorJson(const std::vector<float>& v) {
  return fmt::format("[{}]", fmt::join(v, ","));
}

std::string VectorPg(const std::vector<float>& v) {
  return fmt::format("{{{}}}", fmt::join(v, ","));
}

std::string DocJson(const Row& r) {
  return fmt::format(R"({{"name":"{}","n":{},"vec":{}}})", r.name, r.n, VectorJson(r.vec));
}


namespace {

// items answers near through its graph; puts has no vector index, as
// PostgreSQL's puts table has none, so a put costs both sides the same work.
std::string CreateCollection(HttpClient& c, const char* name) {
  const std::string create =
      fmt::format(R"j({{"statement":"CREATE COLLECTION {} (name TEXT, n INT, vec VECTOR({}){})"}})j", name, kDim,
                  name == std::string_view(kItems) ? " @hnsw" : "");
  std::string answer;
  return Post(c, "/query", create, &answer);
}

}  // namespace

std::string CreateFenecPuts(int port) {
  HttpClient c;
  if (std::string err = c.Connect(port); !err.empty()) return err;
  return CreateCollection(c, kPuts);
}

std::string LoadFenec(int port, const Dataset& d) {
  HttpClient c;
  if (std::string err = c.Connect(port); !err.empty()) return err;
  std::string answer;
  for (const char* name : {kItems, kPuts}) {
    if (std::string err = CreateCollection(c, name); !err.empty()) return err;
  }
  constexpr size_t kPerRequest = 1000;
  for (size_t first = 0; first < d.rows.size(); first += kPerRequest) {
    std::string body = "[";
    for (size_t i = first; i < std::min(d.rows.size(), first + kPerRequest); ++i) {
      if (i > first) body += ',';
      body += DocJson(d.rows[i]);
    }
    body += ']';
    if (std::string err = Post(c, "/docs/items", body, &answer); !err.empty()) return err;
  }
  // The linker runs behind the puts; a near timed while it links would time the linking too.
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(300);
  while (std::chrono::steady_clock::now() < end) {
    const double pending = procs::PromValue(procs::FetchMetrics(port), "fenec_vector_pending");
    if (pending == 0) return "";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return "the @hnsw linker had not caught up after 300 s";
}

std::string CountFenec(int port, const std::string& collection, uint64_t* count) {
  HttpClient c;
  if (std::string err = c.Connect(port); !err.empty()) return err;
  std::string answer;
  const std::string count_all = fmt::format(R"j({{"statement":"AGGREGATE {} COUNT(*)"}})j", collection);
  if (std::string err = Post(c, "/query", count_all, &answer); !err.empty()) return err;
  simdjson::dom::parser p;
  simdjson::dom::element e;
  int64_t n = 0;
  if (p.parse(answer).get(e) != simdjson::SUCCESS || e["rows"].at(0).at(0).get(n) != simdjson::SUCCESS) {
    return "COUNT(*) answered " + answer.substr(0, 200);
  }
  *count = static_cast<uint64_t>(n);
  return "";
}

std::string LoadPg(const std::string& conninfo, const Dataset& d) {
  std::string err;
  pg::PqConn c(pg::Connect(conninfo, &err));
  if (!c) return err;
  for (const char* table : {kItems, kPuts}) {
    for (const std::string& sql :
         {fmt::format("DROP TABLE IF EXISTS {}", table),
          fmt::format("CREATE TABLE {} (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, name text NOT NULL, "
                      "n bigint NOT NULL, vec float4[] NOT NULL)",
                      table)}) {
      if (err = pg::Exec(c.get(), sql); !err.empty()) return err;
    }
  }
  if (err = pg::Exec(c.get(), "COPY items (id, name, n, vec) FROM STDIN", PGRES_COPY_IN); !err.empty()) return err;
  std::string chunk;
  for (size_t i = 0; i < d.rows.size(); ++i) {
    const Row& r = d.rows[i];
    fmt::format_to(std::back_inserter(chunk), "{}\t{}\t{}\t{}\n", i + 1, r.name, r.n, VectorPg(r.vec));
    if (chunk.size() > (1 << 20) || i + 1 == d.rows.size()) {
      if (PQputCopyData(c.get(), chunk.data(), static_cast<int>(chunk.size())) != 1) return pg::Error(c.get(), "COPY");
      chunk.clear();
    }
  }
  if (PQputCopyEnd(c.get(), nullptr) != 1) return pg::Error(c.get(), "COPY end");
  std::unique_ptr<PGresult, decltype(&PQclear)> r(PQgetResult(c.get()), PQclear);
  if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) return pg::Error(c.get(), "COPY");
  while (PGresult* more = PQgetResult(c.get())) PQclear(more);
  return pg::Exec(c.get(), "ANALYZE items");
}

std::string CountPg(const std::string& conninfo, const std::string& table, uint64_t* count) {
  std::string err;
  pg::PqConn c(pg::Connect(conninfo, &err));
  if (!c) return err;
  std::unique_ptr<PGresult, decltype(&PQclear)> r(PQexec(c.get(), fmt::format("SELECT count(*) FROM {}", table).c_str()),
                                                   PQclear);
  if (PQresultStatus(r.get()) != PGRES_TUPLES_OK || PQntuples(r.get()) != 1) return pg::Error(c.get(), "count");
  *count = std::strtoull(PQgetvalue(r.get(), 0, 0), nullptr, 10);
  return "";
}

}  // namespace fenec::scenarios::requests
