#include "scenarios/requests/targets.h"

#include <simdjson.h>

#include <charconv>
#include <cstdlib>
#include <iterator>

#include <fmt/format.h>

namespace fenec::scenarios::requests {
namespace {

uint64_t Mix(uint64_t x) {  // splitmix64's finalizer: draws that differ by one land far apart
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// How many rows an answer must hold: one by id, kLimit for a filter and a
// near (the data's shape guarantees that many matches), none otherwise.
size_t RowsWanted(Kind k) {
  switch (k) {
    case Kind::kGetById: return 1;
    case Kind::kFilter:
    case Kind::kNear: return kLimit;
    default: return 0;
  }
}

std::vector<float> ParsePgVector(const char* text) {
  std::vector<float> v;
  for (const char* p = text + 1; *p != '\0' && *p != '}';) {
    char* end = nullptr;
    v.push_back(std::strtof(p, &end));
    p = *end == ',' ? end + 1 : end;
  }
  return v;
}

std::string ParseFenecRow(simdjson::dom::element row, AnswerRow* out) {
  simdjson::dom::element doc;
  std::string_view name;
  simdjson::dom::array vec;
  if (row["id"].get(out->id) || row["doc"].get(doc) || doc["name"].get(name) || doc["n"].get(out->n) ||
      doc["vec"].get(vec)) {
    return "a row without id, name, n or vec";
  }
  out->name = name;
  for (auto x : vec) out->vec.push_back(static_cast<float>(x.get_double().value_unsafe()));
  return "";
}

class FenecConn : public Conn {
 public:
  explicit FenecConn(const Dataset& d) : d_(d) {
    for (const auto& q : d.queries) {
      near_.push_back(fmt::format(R"({{"statement":"FIND items NEAR vec $1 LIMIT {}","params":[{}]}})", kLimit,
                                  VectorJson(q)));
    }
    for (const auto& r : d.puts) {
      put_.push_back(fmt::format(R"({{"statement":"PUT puts {{name: $1, n: $2, vec: $3}}","params":["{}",{},{}]}})",
                                 r.name, r.n, VectorJson(r.vec)));
    }
  }
  HttpClient& http() { return http_; }

  std::string Do(Kind k, uint64_t draw, std::vector<AnswerRow>* rows) override {
    int status = 0;
    std::string err;
    if (k == Kind::kEmpty) {
      err = http_.Send("GET", "/health", "", &status, &answer_);
    } else {
      const std::string* body = &body_;
      body_.clear();
      switch (k) {
        case Kind::kGetById:
          fmt::format_to(std::back_inserter(body_), R"({{"statement":"GET items $1","params":[{}]}})", DrawId(d_, draw));
          break;
        case Kind::kFilter:
          fmt::format_to(std::back_inserter(body_), R"({{"statement":"FIND items WHERE n >= $1 LIMIT {}","params":[{}]}})",
                         kLimit, DrawBound(d_, draw));
          break;
        case Kind::kNear: body = &near_[DrawQuery(d_, draw)]; break;
        default: body = &put_[DrawPut(d_, draw)]; break;
      }
      err = http_.Send("POST", "/query", *body, &status, &answer_);
    }
    if (!err.empty()) return err;
    if (status != 200) return fmt::format("{} answered {}: {}", KindName(k), status, answer_.substr(0, 200));
    if (const size_t want = RowsWanted(k); want > 1) {
      // Cheap enough for the timed path: the answer ends with "count":N}.
      const size_t at = answer_.rfind("\"count\":");
      size_t n = 0;
      if (at != std::string::npos) std::from_chars(answer_.data() + at + 8, answer_.data() + answer_.size(), n);
      if (n != want) return fmt::format("{} answered {} rows, not {}", KindName(k), n, want);
    }
    return rows != nullptr ? Read(k, rows) : "";
  }

 private:
  std::string Read(Kind k, std::vector<AnswerRow>* rows) {
    rows->clear();
    simdjson::dom::element e;
    if (parser_.parse(answer_).get(e)) return "an answer that is not JSON: " + answer_.substr(0, 200);
    if (k == Kind::kGetById) {
      rows->emplace_back();
      return ParseFenecRow(e, &rows->back());
    }
    simdjson::dom::array list;
    if (k != Kind::kFilter && k != Kind::kNear) return "";
    if (e["rows"].get(list)) return "an answer without rows";
    for (auto r : list) {
      rows->emplace_back();
      if (std::string err = ParseFenecRow(r, &rows->back()); !err.empty()) return err;
    }
    return "";
  }

  const Dataset& d_;
  HttpClient http_;
  std::vector<std::string> near_, put_;
  std::string body_, answer_;
  simdjson::dom::parser parser_;
};

class PgConn : public Conn {
 public:
  explicit PgConn(const Dataset& d) : d_(d) {
    for (const auto& q : d.queries) near_.push_back(VectorPg(q));
    for (const auto& r : d.puts) put_vec_.push_back(VectorPg(r.vec));
  }

  std::string Open(const std::string& conninfo, bool durable, int commit_delay_us) {
    std::string err;
    c_.reset(pg::Connect(conninfo, &err));
    if (!c_) return err;
    if (err = pg::Exec(c_.get(), fmt::format("SET synchronous_commit = {}", durable ? "on" : "off")); !err.empty()) {
      return err;
    }
    // The cluster's user is its superuser, who may set commit_delay.
    if (durable && commit_delay_us > 0) {
      err = pg::Exec(c_.get(), fmt::format("SET commit_delay = {}", commit_delay_us));
      if (!err.empty()) return err;
    }
    const std::pair<const char*, std::string> statements[] = {
        {"get", "SELECT id, name, n, vec FROM items WHERE id = $1"},
        {"filter", fmt::format("SELECT id, name, n, vec FROM items WHERE n >= $1 ORDER BY id LIMIT {}", kLimit)},
        {"near", fmt::format("SELECT id, name, n, vec, (SELECT sum((a - b) * (a - b)) FROM unnest(vec, $1::float4[]) "
                             "AS t(a, b)) AS distance FROM items ORDER BY distance LIMIT {}",
                             kLimit)},
        {"put", "INSERT INTO puts (name, n, vec) VALUES ($1, $2, $3) RETURNING id"}};
    for (const auto& [name, sql] : statements) {
      std::unique_ptr<PGresult, decltype(&PQclear)> r(PQprepare(c_.get(), name, sql.c_str(), 0, nullptr), PQclear);
      if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) return pg::Error(c_.get(), std::string("prepare ") + name);
    }
    return "";
  }

  int ServerPid() const override { return PQbackendPID(c_.get()); }
  // Published as the backend goes idle after this statement, before its answer.
  std::string FlushStats() override {
    return pg::Exec(c_.get(), "SELECT pg_stat_force_next_flush()", PGRES_TUPLES_OK);
  }

  std::string Do(Kind k, uint64_t draw, std::vector<AnswerRow>* rows) override {
    PGresult* r = nullptr;
    ExecStatusType want = PGRES_TUPLES_OK;
    if (k == Kind::kEmpty) {
      r = PQexec(c_.get(), ";");
      want = PGRES_EMPTY_QUERY;
    } else if (k == Kind::kGetById || k == Kind::kFilter) {
      auto res = std::to_chars(num_, num_ + sizeof(num_) - 1, k == Kind::kGetById ? DrawId(d_, draw) : DrawBound(d_, draw));
      *res.ptr = '\0';
      const char* values[] = {num_};
      r = PQexecPrepared(c_.get(), k == Kind::kGetById ? "get" : "filter", 1, values, nullptr, nullptr, 0);
    } else if (k == Kind::kNear) {
      const char* values[] = {near_[DrawQuery(d_, draw)].c_str()};
      r = PQexecPrepared(c_.get(), "near", 1, values, nullptr, nullptr, 0);
    } else {
      const size_t i = DrawPut(d_, draw);
      auto res = std::to_chars(num_, num_ + sizeof(num_) - 1, d_.puts[i].n);
      *res.ptr = '\0';
      const char* values[] = {d_.puts[i].name.c_str(), num_, put_vec_[i].c_str()};
      r = PQexecPrepared(c_.get(), "put", 3, values, nullptr, nullptr, 0);
    }
    std::unique_ptr<PGresult, decltype(&PQclear)> keep(r, PQclear);
    if (PQresultStatus(r) != want) return pg::Error(c_.get(), KindName(k));
    const size_t n = static_cast<size_t>(PQntuples(r));
    if (const size_t need = RowsWanted(k); need > 0 && n != need) {
      return fmt::format("{} answered {} rows, not {}", KindName(k), n, need);
    }
    if (rows != nullptr) {
      rows->clear();
      for (int i = 0; i < static_cast<int>(n) && PQnfields(r) >= 4; ++i) {
        rows->push_back({std::strtoll(PQgetvalue(r, i, 0), nullptr, 10), PQgetvalue(r, i, 1),
                         std::strtoll(PQgetvalue(r, i, 2), nullptr, 10), ParsePgVector(PQgetvalue(r, i, 3))});
      }
    }
    return "";
  }

 private:
  const Dataset& d_;
  pg::PqConn c_;
  std::vector<std::string> near_, put_vec_;
  char num_[32] = {};
};

}  // namespace

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kEmpty: return "empty";
    case Kind::kGetById: return "get-by-id";
    case Kind::kFilter: return "filter";
    case Kind::kNear: return "near";
    case Kind::kPut: return "put";
    case Kind::kMixed: return "mixed";
  }
  return "?";
}

Kind MixedPick(uint64_t draw) {
  const uint64_t r = Mix(draw ^ 0x6d69786564ULL) % 8;  // not the draw's own Mix: the id it asks is independent
  return r < 5 ? Kind::kGetById : r < 7 ? Kind::kFilter : Kind::kPut;
}

int64_t DrawId(const Dataset& d, uint64_t draw) {
  return 1 + static_cast<int64_t>(Mix(draw) % std::max<size_t>(d.rows.size(), 1));
}
int64_t DrawBound(const Dataset& d, uint64_t draw) {
  return static_cast<int64_t>(Mix(draw ^ 0x5bd1e995) % static_cast<uint64_t>(d.bound_max + 1));
}
size_t DrawQuery(const Dataset& d, uint64_t draw) { return Mix(draw ^ 0x27d4eb2f) % d.queries.size(); }
size_t DrawPut(const Dataset& d, uint64_t draw) { return Mix(draw ^ 0x165667b1) % d.puts.size(); }

std::string ConnectFenec(int port, const Dataset& d, std::unique_ptr<Conn>* out) {
  auto c = std::make_unique<FenecConn>(d);
  if (std::string err = c->http().Connect(port); !err.empty()) return err;
  *out = std::move(c);
  return "";
}

std::string ConnectPg(const std::string& conninfo, const Dataset& d, bool durable, std::unique_ptr<Conn>* out,
                      int commit_delay_us) {
  auto c = std::make_unique<PgConn>(d);
  if (std::string err = c->Open(conninfo, durable, commit_delay_us); !err.empty()) return err;
  *out = std::move(c);
  return "";
}

}  // namespace fenec::scenarios::requests
