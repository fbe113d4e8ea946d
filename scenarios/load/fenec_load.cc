// The fenec arms' loads: through fenec-server, and in process. See loaders.h.
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <charconv>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "fenec/database.h"
#include "scenarios/procs/metrics.h"
#include "scenarios/procs/server_process.h"
#include "scenarios/load/loaders.h"
#include "scenarios/load/rows.h"

namespace fenec::scenarios::load {
namespace {

constexpr const char* kCollection = "load";

// The sum of every series whose line starts with `prefix` (a metric and the
// first of its labels), or 0.
double SumSeries(const std::string& text, const std::string& prefix) {
  double sum = 0;
  for (size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at + 1)) {
    if (at > 0 && text[at - 1] != '\n') continue;
    const size_t sp = text.find(' ', at);
    const size_t eol = text.find('\n', at);
    if (sp == std::string::npos || sp > eol) continue;
    try {
      sum += std::stod(text.substr(sp + 1, eol - sp - 1));
    } catch (const std::exception&) {
    }
  }
  return sum;
}

Path PathOf(const std::string& arm) {
  if (arm == kQuery) return Path::kQuery;
  if (arm == kBatch) return Path::kBatch;
  return Path::kDocs;
}

// The metrics endpoint label each path's requests are counted under.
const char* EndpointOf(Path p) {
  switch (p) {
    case Path::kDocs: return "docs_put";
    case Path::kQuery: return "query";
    case Path::kBatch: return "batch";
  }
  return "";
}

class Http {
 public:
  explicit Http(int port) : cli_("127.0.0.1", port) {
    cli_.set_keep_alive(true);
    cli_.set_tcp_nodelay(true);
    cli_.set_connection_timeout(10, 0);
    // A request of a graph's load may wait for room in the linker's queue.
    cli_.set_read_timeout(600, 0);
    cli_.set_write_timeout(600, 0);
  }
  // The answer's body on 200; else "" and *err.
  std::string Post(const std::string& target, const std::string& body, std::string* err) {
    auto r = cli_.Post(target, body, "application/json");
    if (!r) {
      *err = fmt::format("POST {}: {}", target, httplib::to_string(r.error()));
      return "";
    }
    if (r->status != 200) {
      *err = fmt::format("POST {} answered {}: {}", target, r->status, r->body.substr(0, 300));
      return "";
    }
    return r->body;
  }
  std::string Metrics() {
    auto r = cli_.Get("/metrics");
    return r && r->status == 200 ? r->body : "";
  }

 private:
  httplib::Client cli_;
};

// The count an `AGGREGATE load COUNT(*)` answer holds ({"columns":[..],"rows":[[N]]}), or -1.
int64_t CountOf(const std::string& answer) {
  const size_t at = answer.find("[[");
  if (at == std::string::npos) return -1;
  int64_t n = -1;
  std::from_chars(answer.data() + at + 2, answer.data() + answer.size(), n);
  return n;
}

std::string CreateStatement(const LoadSpec& s) {
  return fmt::format(R"j({{"statement":"CREATE COLLECTION {} (body TEXT, n INT, vec VECTOR({}){})"}})j", kCollection, s.dim,
                     s.index == Index::kNone ? "" : " @hnsw");
}

}  // namespace

const char* index_name(Index i) {
  switch (i) {
    case Index::kNone: return "none";
    case Index::kHnswRow: return "hnsw-row";
    case Index::kHnswBatch: return "hnsw-batch";
  }
  return "";
}

bool is_postgres(const std::string& arm) { return arm == kPgCopy || arm == kPgInsert; }

std::string ForEachChunk(const LoadSpec& s, LoadFigures* f, const ChunkFn& chunk) {
  LineReader file(s.file, s.format);
  file.set_limit(s.rows);
  std::vector<std::string_view> lines;
  for (;;) {
    if (s.stop()) return "interrupted";
    const auto read_at = Clock::now();
    if (!file.Next(s.per_request, &lines)) break;
    if (std::string err = chunk(lines, file, read_at); !err.empty()) return err;
    f->rows_sent += lines.size();
    ++f->requests;
  }
  return file.error();
}

LoadFigures LoadThroughServer(const LoadSpec& s, const std::string& server_bin, const std::string& dir) {
  LoadFigures f;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  procs::ServerProcess server;
  // The embedded arm's mode (LoadEmbedded), named: the server's default is durable.
  const std::vector<std::string> args = {"--data", dir + "/db", "--durability", "buffered", "--sync", "250",
                                         "--vector-insert", s.index == Index::kHnswRow ? "row" : "batch"};
  if (std::string err = server.Start(server_bin, args, dir + "/server.log"); !err.empty()) {
    f.error = err;
    return f;
  }
  Http http(server.port());
  std::string err;
  http.Post("/query", CreateStatement(s), &err);
  const std::string before = http.Metrics();
  const Path path = PathOf(s.arm);
  BodyBuilder builder(path, kCollection);
  RowReader reader;
  Fields fields;
  std::string body;

  const auto t0 = Clock::now();
  if (err.empty()) {
    err = ForEachChunk(s, &f, [&](const Lines& lines, const LineReader& file, Clock::time_point c0) {
      std::string why;
      body.clear();
      builder.Begin(&body);
      for (std::string_view line : lines) {
        if (s.format == Format::kCsv) {
          if (why = reader.Split(s.format, line, file.capacity_from(line.data()), &fields); !why.empty()) return why;
        }
        builder.BeforeDoc(&body);
        AppendJsonDoc(s.format, line, fields, &body);
        builder.AfterDoc(&body);
      }
      builder.End(&body);
      f.client_s += since(c0);
      http.Post(builder.Target(), body, &why);
      return why;
    });
  }
  const auto acked = Clock::now();
  // A graph's load is done once its last vector is linked: the server's
  // pending gauge is polled (each /metrics read costs it ~0.1 ms).
  while (err.empty() && s.index != Index::kNone) {
    const double pending = procs::PromValue(http.Metrics(), "fenec_vector_pending");
    if (pending == 0) break;
    if (pending < 0) err = "fenec_vector_pending missing from /metrics";
    if (s.stop()) err = "interrupted";
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const auto done = Clock::now();
  f.wall_s = std::chrono::duration<double>(done - t0).count();
  if (s.index != Index::kNone) f.link_tail_s = std::chrono::duration<double>(done - acked).count();
  if (err.empty()) {
    const std::string after = http.Metrics();
    const std::string handle = fmt::format("fenec_request_handle_seconds_sum{{endpoint=\"{}\"", EndpointOf(path));
    f.server_handle_s = SumSeries(after, handle) - SumSeries(before, handle);
    f.lock_hold_s = procs::PromValue(after, "fenec_write_lock_hold_seconds_total") -
                    procs::PromValue(before, "fenec_write_lock_hold_seconds_total");
    if (s.index != Index::kNone) {
      f.queue_waits = procs::PromValue(after, "fenec_vector_queue_waits_total") -
                      procs::PromValue(before, "fenec_vector_queue_waits_total");
    }
    const std::string answer =
        http.Post("/query", fmt::format(R"j({{"statement":"AGGREGATE {} COUNT(*)"}})j", kCollection), &err);
    f.rows_counted = static_cast<uint64_t>(std::max<int64_t>(0, CountOf(answer)));
  }
  if (const int code = server.Stop(); code != 0 && err.empty()) err = fmt::format("fenec-server exited {}", code);
  std::filesystem::remove_all(dir, ec);
  f.error = err;
  return f;
}

LoadFigures LoadEmbedded(const LoadSpec& s, const std::string& dir) {
  LoadFigures f;
  Options o;
  o.durability = Durability::kBuffered;  // sync_ms 250, as the server arm's --durability buffered --sync 250
  o.hnsw.insert = s.index == Index::kHnswRow ? VectorInsert::kRow : VectorInsert::kBatch;
  auto opened = Database::Open(dir, o);
  if (!opened.ok()) {
    f.error = "Database::Open: " + opened.status().ToString();
    return f;
  }
  std::unique_ptr<Database> db = std::move(opened).value();
  Field vec = Field::Vector("vec", s.dim);
  if (s.index != Index::kNone) vec.Hnsw();
  const Schema schema{{Field::Text("body"), Field::Int("n"), vec}};
  auto c = db->CreateCollection(kCollection, schema);
  std::string err = c.ok() ? "" : "CreateCollection: " + c.status().ToString();
  db->ResetStats();
  RowReader reader;
  f.parse_s = f.land_s = 0;

  const auto t0 = Clock::now();
  if (err.empty()) {
    err = ForEachChunk(s, &f, [&](const Lines& lines, const LineReader& file, Clock::time_point p0) {
      std::vector<Document> docs(lines.size());
      std::string why;
      for (size_t i = 0; i < lines.size() && why.empty(); ++i) {
        why = reader.ToDocument(s.format, lines[i], file.capacity_from(lines[i].data()), schema, &docs[i]);
      }
      const auto l0 = Clock::now();
      f.parse_s += std::chrono::duration<double>(l0 - p0).count();
      if (!why.empty()) return why;
      auto ids = db->PutBatch(*c, std::move(docs));
      f.land_s += since(l0);
      return ids.ok() ? std::string() : "PutBatch: " + ids.status().ToString();
    });
  }
  const auto acked = Clock::now();
  if (err.empty() && s.index != Index::kNone) {
    if (Status st = db->WaitForIndexes(); !st.ok()) err = "WaitForIndexes: " + st.ToString();
    f.link_tail_s = since(acked);
  }
  f.wall_s = since(t0);
  f.client_s = f.parse_s;
  const Stats st = db->GetStats();
  f.lock_hold_s = static_cast<double>(st.write_lock_hold_ns) / 1e9;
  if (s.index != Index::kNone) f.queue_waits = static_cast<double>(st.vector_queue_waits);
  if (err.empty()) {
    auto n = db->Count(*c);
    if (n.ok()) f.rows_counted = *n;
    else err = "Count: " + n.status().ToString();
  }
  if (Status closed = db->Close(); !closed.ok() && err.empty()) err = "Close: " + closed.ToString();
  db.reset();
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  f.error = err;
  return f;
}

LoadFigures Load(const LoadSpec& spec, const std::string& server_bin, const std::string& dir,
                 const std::string& conninfo) {
  if (is_postgres(spec.arm)) return LoadPostgres(spec, conninfo);
  if (spec.arm == kEmbedded) return LoadEmbedded(spec, dir);
  return LoadThroughServer(spec, server_bin, dir);
}

}  // namespace fenec::scenarios::load
