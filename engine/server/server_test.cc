// fenec-server over real loopback sockets on an ephemeral port: endpoints,
// keep-alive, many clients at once, each bad input's status one by one,
// and SIGTERM finishing what is in flight (the real binary, as a child).
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <regex>
#include <thread>

#include "fenec/database.h"
#include "engine/server/server.h"
#include "engine/src/base/testing.h"
#include "engine/src/query/answer_check.h"

extern char** environ;

namespace fenec::server {
namespace server_test {

// A server closing a connection while a client still sends (the 413 case)
// is an EPIPE on the client's write, not a reason to kill the test.
const bool kSigpipeIgnored = [] {
  signal(SIGPIPE, SIG_IGN);
  return true;
}();

// A metric's value from Prometheus text ("name{labels} value"), -1 when absent.
double MetricValue(const std::string& text, const std::string& series) {
  size_t at = text.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + series.size() + 2));
}

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(""); }
  void Open(const std::string& token, size_t max_body = 1u << 20) {
    Options o;
    o.durability = Durability::kBuffered;
    auto db = Database::Open(dir_.path() + "/db", o);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    FenecServer::Config c;
    c.http.port = 0;
    c.http.max_body = max_body;
    c.token = token;
    server_ = std::make_unique<FenecServer>(db_.get(), c);
    ASSERT_TRUE(server_->Start().ok());
    client_ = MakeClient();
  }
  void TearDown() override {
    client_.reset();
    if (server_) server_->Stop();
    if (db_) {
      EXPECT_TRUE(db_->Check().ok());
      EXPECT_TRUE(db_->Close().ok());
    }
  }
  std::unique_ptr<httplib::Client> MakeClient() {
    auto c = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
    c->set_keep_alive(true);
    c->set_tcp_nodelay(true);
    c->set_read_timeout(20, 0);
    return c;
  }
  httplib::Result Query(const std::string& body) { return client_->Post("/query", body, "application/json"); }
  void ExpectStatus(const httplib::Result& r, int status, const std::string& code) {
    ASSERT_TRUE(r) << httplib::to_string(r.error());
    EXPECT_EQ(r->status, status) << r->body;
    if (!code.empty()) {
      EXPECT_NE(r->body.find("\"code\":\"" + code + "\""), std::string::npos) << r->body;
    }
  }
  std::string Metrics() {
    auto r = client_->Get("/metrics");
    EXPECT_TRUE(r && r->status == 200);
    return r ? "\n" + r->body : "";
  }
  void CreateUsers() {
    ExpectStatus(Query(R"j({"statement": "CREATE COLLECTION users (email TEXT @unique, age INT, emb VECTOR(2))"})j"),
                 200, "");
  }

  base::ScratchDir dir_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<FenecServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(ServerTest, EndpointsAnswerAndMetricsCountThem) {
  auto h = client_->Get("/health");
  ExpectStatus(h, 200, "");
  EXPECT_EQ(h->body, R"j({"status":"ok"})j");
  CreateUsers();
  auto put = client_->Post("/docs/users", R"j([{"email": "a", "age": 1, "emb": [0.5, 1]}, {"email": "b"}])j", "application/json");
  ExpectStatus(put, 200, "");
  EXPECT_EQ(put->body, R"j({"ids":[1,2]})j");
  auto batch = client_->Post("/batch", R"j({"statements": [{"statement": "PUT users {email: $1}", "params": ["c"]},
                                                          {"statement": "PUT users {email: $1}", "params": ["d"]}]})j",
                             "application/json");
  ExpectStatus(batch, 200, "");
  EXPECT_EQ(batch->body, R"j({"ids":[[3],[4]]})j");
  for (int i = 0; i < 20; ++i) {
    auto g = client_->Get("/docs/users/1");
    ExpectStatus(g, 200, "");
    EXPECT_EQ(g->body, R"j({"id":1,"doc":{"email":"a","age":1,"emb":[0.5,1]}})j");
  }
  auto q = Query(R"j({"statement": "AGGREGATE users COUNT(*)"})j");
  ExpectStatus(q, 200, "");
  EXPECT_EQ(q->body, R"j({"columns":["count(*)"],"rows":[[4]]})j");

  std::string m = Metrics();
  EXPECT_EQ(MetricValue(m, R"j(fenec_requests_total{endpoint="docs_get",kind="get",code="200"})j"), 20);
  EXPECT_EQ(MetricValue(m, R"j(fenec_request_handle_seconds_count{endpoint="docs_get",kind="get"})j"), 20);
  EXPECT_EQ(MetricValue(m, R"j(fenec_requests_total{endpoint="batch",kind="batch",code="200"})j"), 1);
  EXPECT_EQ(MetricValue(m, "fenec_commits_total"), static_cast<double>(db_->GetStats().commits));
  // Planned once each: CREATE, "PUT users $docs", the batch's PUT (its second
  // use a hit), "GET users $1" (19 hits), the AGGREGATE.
  EXPECT_EQ(MetricValue(m, "fenec_plan_cache_misses_total"), 5);
  EXPECT_EQ(MetricValue(m, "fenec_plan_cache_hits_total"), 20);
  EXPECT_GT(MetricValue(m, "fenec_process_rss_bytes"), 0);
  // Every request above went over one kept-alive connection.
  EXPECT_EQ(MetricValue(m, "fenec_http_connections_total"), 1);
}

// RQ-1: a POST /query get by id whose plan is cached is answered on the io
// thread (no hand-off to a worker); everything else still goes to a worker,
// and the answers and the counts are what they were.
// Every counter fenec/stats.h declares is a series with its # HELP and
// # TYPE, at the value GetStats had around the scrape (the periodic sync
// may move a counter meanwhile, never back).
TEST_F(ServerTest, MetricsCarryEveryDeclaredStat) {
  CreateUsers();
  ExpectStatus(client_->Post("/docs/users", R"j([{"email": "a", "age": 1}, {"email": "b"}])j", "application/json"),
               200, "");
  const Stats before = db_->GetStats();
  const std::string m = Metrics();
  const Stats after = db_->GetStats();
  EXPECT_GT(after.commits, 0u);
  for (Stat s : kAllStats) {
    const std::string name = MetricName(s);
    const char* type = Info(s).kind == StatKind::kCounter ? "counter" : "gauge";
    EXPECT_NE(m.find(fmt::format("\n# HELP {0} {1}\n# TYPE {0} {2}\n{0} ", name, Info(s).help, type)),
              std::string::npos)
        << name;
    const double v = MetricValue(m, name);
    const double lo = MetricValue(s, std::min(before.get(s), after.get(s)));
    const double hi = MetricValue(s, std::max(before.get(s), after.get(s)));
    EXPECT_TRUE(v >= lo && v <= hi) << name << " = " << v << ", GetStats " << lo << " .. " << hi;
  }
}

TEST_F(ServerTest, PostQueryGetByIdIsAnsweredInlineOnceItsPlanIsCached) {
  CreateUsers();
  ExpectStatus(client_->Post("/docs/users", R"j([{"email": "a", "age": 1, "emb": [0.5, 1]}])j", "application/json"), 200,
               "");
  const std::string get = R"j({"statement": "GET users $1", "params": [1]})j";
  for (int i = 0; i < 10; ++i) {
    auto g = Query(get);
    ExpectStatus(g, 200, "");
    EXPECT_EQ(g->body, R"j({"id":1,"doc":{"email":"a","age":1,"emb":[0.5,1]}})j");
  }
  // Declined on the io thread, answered by a worker as before: a missing id,
  // a parameter of the wrong type, a write, a text never planned, a bad body.
  ExpectStatus(Query(R"j({"statement": "GET users $1", "params": [99]})j"), 404, "");
  ExpectStatus(Query(R"j({"statement": "GET users $1", "params": ["x"]})j"), 400, "");
  ExpectStatus(Query(R"j({"statement": "PUT users {email: $1}", "params": ["b"]})j"), 200, "");
  ExpectStatus(Query(R"j({"statement": "GET nobody $1", "params": [1]})j"), 404, "unknown_collection");
  ExpectStatus(Query(R"j({"statement": "GET users $1", "params": [1]} {})j"), 400, "json");

  std::string m = Metrics();
  // The first GET planned it on a worker; the other 9, and the 404 (a
  // plan's answer, not a declined one), were answered inline.
  EXPECT_EQ(MetricValue(m, "fenec_http_requests_inline_total"), 10);
  EXPECT_EQ(MetricValue(m, R"j(fenec_requests_total{endpoint="query",kind="get",code="200"})j"), 10);
  // The 10 and the 404 are gets; the bad parameter's 400 is counted as an error.
  EXPECT_EQ(MetricValue(m, R"j(fenec_request_handle_seconds_count{endpoint="query",kind="get"})j"), 11);
  // Planned once each: CREATE, "PUT users $docs", "GET users $1", the PUT;
  // "GET nobody $1" fails to plan. Hits: 9 + the 404 + the bad parameter
  // (counted once, by the worker), never twice for a declined request.
  EXPECT_EQ(MetricValue(m, "fenec_plan_cache_misses_total"), 5);
  EXPECT_EQ(MetricValue(m, "fenec_plan_cache_hits_total"), 11);
  // A collection created later plans afresh (a failed plan is not cached).
  ExpectStatus(Query(R"j({"statement": "CREATE COLLECTION nobody (email TEXT)"})j"), 200, "");
  ExpectStatus(Query(R"j({"statement": "GET nobody $1", "params": [1]})j"), 404, "");
}

TEST_F(ServerTest, ManyKeptAliveClientsAtOnce) {
  CreateUsers();
  constexpr int kClients = 12, kEach = 40;
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kClients; ++t) {
    threads.emplace_back([&, t] {
      auto c = MakeClient();
      for (int i = 0; i < kEach; ++i) {
        std::string body = fmt::format(R"j({{"statement": "PUT users {{email: $1, age: $2}}", "params": ["u{}-{}", {}]}})j", t, i, i);
        auto r = c->Post("/query", body, "application/json");
        if (r && r->status == 200) ok.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), kClients * kEach);
  EXPECT_EQ(*db_->Count(*db_->FindCollection("users")), uint64_t{kClients * kEach});
  std::string m = Metrics();
  EXPECT_EQ(MetricValue(m, "fenec_http_connections_total"), kClients + 1);
  EXPECT_EQ(MetricValue(m, R"j(fenec_requests_total{endpoint="query",kind="put",code="200"})j"), kClients * kEach);
}

TEST_F(ServerTest, BadInputOneByOneLeavesDataAlone) {
  CreateUsers();
  ExpectStatus(client_->Post("/docs/users", R"j([{"email": "taken", "age": 7}])j", "application/json"), 200, "");

  ExpectStatus(Query(R"j({"statement": "GET users 1", "params": [)j"), 400, "json");
  ExpectStatus(Query(R"j({"statement": "GET nobody 1"})j"), 404, "unknown_collection");
  ExpectStatus(client_->Get("/docs/nobody/1"), 404, "unknown_collection");
  ExpectStatus(client_->Post("/docs/nobody", "[{}]", "application/json"), 404, "unknown_collection");
  ExpectStatus(Query(R"j({"statement": "FIND users WHERE height = 1"})j"), 400, "unknown_field");
  ExpectStatus(client_->Post("/docs/users", R"j([{"email": "x", "height": 1}])j", "application/json"), 400, "unknown_field");
  ExpectStatus(Query(R"j({"statement": "PUT users {email: $1, age: $2}", "params": ["x", "old"]})j"), 400, "type");
  ExpectStatus(client_->Post("/docs/users", R"j([{"email": "x", "emb": [1, 2, 3]}])j", "application/json"), 400, "dim");
  ExpectStatus(Query(R"j({"statement": "PUT users {email: 'taken'}"})j"), 409, "unique");
  ExpectStatus(client_->Post("/docs/users", R"j([{"email": "new"}, {"email": "taken"}])j", "application/json"), 409, "unique");
  ExpectStatus(Query(R"j({"statement": "MERGE users"})j"), 400, "parse");
  ExpectStatus(client_->Get("/docs/users/abc"), 400, "type");
  ExpectStatus(client_->Get("/docs/users/99"), 404, "not_found");
  ExpectStatus(client_->Get("/nowhere"), 404, "no_route");
  ExpectStatus(client_->Get("/query"), 405, "method");
  // Over --max-body (1 MiB here): refused before the body is read, and the connection closed.
  std::string big = R"j({"statement": "PUT users {email: $1}", "params": [")j" + std::string(2u << 20, 'x') + "\"]}";
  ExpectStatus(Query(big), 413, "too_large");
  // The client reconnects: the server is still serving.
  auto after = client_->Get("/docs/users/1");
  ExpectStatus(after, 200, "");
  EXPECT_EQ(after->body, R"j({"id":1,"doc":{"email":"taken","age":7,"emb":null}})j");
  EXPECT_EQ(*db_->Count(*db_->FindCollection("users")), 1u);
  std::string m = Metrics();
  EXPECT_EQ(MetricValue(m, R"j(fenec_requests_total{endpoint="refused",kind="",code="413"})j"), 1);
}

TEST_F(ServerTest, NearAnswersAndRefusesBadInputOneByOne) {
  ExpectStatus(Query(R"j({"statement": "CREATE COLLECTION docs (tag TEXT, emb VECTOR(2) @hnsw, plain VECTOR(2))"})j"),
               200, "");
  ExpectStatus(client_->Post("/docs/docs", R"j([{"tag": "a", "emb": [0, 0]}, {"tag": "b", "emb": [1, 1]}])j",
                             "application/json"),
               200, "");
  auto near = Query(R"j({"statement": "FIND docs NEAR emb $1 LIMIT 1", "params": [[0.9, 1.1]]})j");
  ExpectStatus(near, 200, "");
  EXPECT_NE(near->body.find(R"j({"rows":[{"id":2,"distance":)j"), std::string::npos) << near->body;
  EXPECT_NE(near->body.find(R"j("doc":{"tag":"b","emb":[1,1],"plain":null}}],"count":1})j"), std::string::npos)
      << near->body;

  ExpectStatus(Query(R"j({"statement": "FIND docs NEAR emb [1, 2, 3]"})j"), 400, "dim");
  ExpectStatus(Query(R"j({"statement": "FIND docs NEAR emb $1", "params": [[1]]})j"), 400, "dim");
  ExpectStatus(Query(R"j({"statement": "FIND docs NEAR emb [1e400, 0]"})j"), 400, "type");
  ExpectStatus(Query(R"j({"statement": "FIND docs NEAR emb $1", "params": [[1e300, 0]]})j"), 400, "type");
  ExpectStatus(Query(R"j({"statement": "PUT docs {emb: [1e400, 0]}"})j"), 400, "type");
  ExpectStatus(Query(R"j({"statement": "FIND docs NEAR plain [1, 2]"})j"), 400, "index");
  ExpectStatus(Query(R"j({"statement": "FIND docs NEAR tag [1, 2]"})j"), 400, "type");
  ExpectStatus(Query(R"j({"statement": "FIND docs NEAR emb [1, 2] LIMIT 1001"})j"), 400, "type");
  ExpectStatus(Query(R"j({"statement": "FIND docs NEAR emb [1, 2] LIMIT $1", "params": [1001]})j"), 400, "type");

  EXPECT_EQ(*db_->Count(*db_->FindCollection("docs")), 2u);
  std::string m = Metrics();
  EXPECT_EQ(MetricValue(m, "fenec_vector_indexes"), 1);
  EXPECT_EQ(MetricValue(m, R"j(fenec_requests_total{endpoint="query",kind="find",code="200"})j"), 1);
  ASSERT_TRUE(db_->WaitForIndexes().ok());
  m = Metrics();
  EXPECT_EQ(MetricValue(m, "fenec_vector_owners"), 2);
  EXPECT_EQ(MetricValue(m, "fenec_vector_pending"), 0);
}

TEST_F(ServerTest, TokenIsRequiredWhenSet) {
  server_->Stop();
  server_.reset();
  ASSERT_TRUE(db_->Close().ok());
  db_.reset();
  Open("s3cret");
  ExpectStatus(client_->Get("/health"), 401, "unauthorized");
  client_->set_bearer_token_auth("wrong!");
  ExpectStatus(client_->Get("/health"), 401, "unauthorized");
  client_->set_bearer_token_auth("s3cret");
  ExpectStatus(client_->Get("/health"), 200, "");
}

// The real binary: started with a scratch folder on port 0, SIGTERM'ed while
// clients write durably; it must exit 0, and every acknowledged put must be
// there when the folder is opened again.
TEST(ServerProcess, SigtermFinishesInFlightAndSyncs) {
  const char* bin = std::getenv("FENEC_SERVER_BIN");
  if (!bin) GTEST_SKIP() << "FENEC_SERVER_BIN not set (meson test sets it)";
  base::ScratchDir dir;
  std::string data = dir.path() + "/db";
  int out[2];
  ASSERT_EQ(pipe(out), 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  std::vector<std::string> args = {bin, "--listen", "127.0.0.1:0", "--data", data, "--durable"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, bin, &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  close(out[1]);
  std::string line;
  char ch;
  while (read(out[0], &ch, 1) == 1 && ch != '\n') line += ch;
  close(out[0]);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(line, m, std::regex(":([0-9]+) "))) << line;
  int port = std::stoi(m[1]);

  httplib::Client admin("127.0.0.1", port);
  auto created = admin.Post("/query", R"j({"statement": "CREATE COLLECTION t (k TEXT @unique)"})j", "application/json");
  ASSERT_TRUE(created && created->status == 200);

  constexpr int kClients = 4;
  std::atomic<int> acked{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kClients; ++t) {
    threads.emplace_back([&, t] {
      httplib::Client c("127.0.0.1", port);
      c.set_keep_alive(true);
      // Bounded by count as well as by the signal.
      for (int i = 0; i < 5000 && !stop.load(); ++i) {
        auto r = c.Post("/query", fmt::format(R"j({{"statement": "PUT t {{k: $1}}", "params": ["{}-{}"]}})j", t, i),
                        "application/json");
        if (!r) break;  // the server closed: it is stopping
        if (r->status == 200) acked.fetch_add(1);
      }
    });
  }
  while (acked.load() < 200) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  stop = true;
  for (auto& t : threads) t.join();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);

  auto db = Database::Open(data, Options{});
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto n = (*db)->Count(*(*db)->FindCollection("t"));
  ASSERT_TRUE(n.ok());
  // Every acknowledged put is stored; a put answered after our count was
  // taken, or landed as the server stopped, may add to it.
  EXPECT_GE(*n, static_cast<uint64_t>(acked.load()));
  EXPECT_TRUE((*db)->Check().ok());
  EXPECT_TRUE((*db)->Close().ok());
}

// Every answer the server writes, read back off the wire, is valid JSON in
// valid UTF-8: stored text served back, bad values refused each way a value
// arrives, and errors that echo the client's own bytes (paths, methods,
// names, keys) when those bytes are not UTF-8 or hold quotes.
TEST_F(ServerTest, EveryAnswerIsValidJsonInValidUtf8) {
  ExpectStatus(Query(R"j({"statement": "CREATE COLLECTION t (i INT, f FLOAT, s TEXT, v VECTOR(2))"})j"), 200, "");
  client_->set_url_encode(false);  // the paths below go out byte for byte
  size_t answers = 0;
  auto valid = [&](const httplib::Result& r, const std::string& what) {
    ++answers;
    EXPECT_TRUE(r) << what;
    if (!r) return 0;
    EXPECT_EQ(query::JsonProblem(r->body), "") << what;
    return r->status;
  };
  auto text_of = [](const std::string& body, const char* pointer) {
    simdjson::dom::parser p;
    simdjson::padded_string text(body);
    std::string_view s;
    return p.parse(text).at_pointer(pointer).get_string().get(s) ? std::string("<none>") : std::string(s);
  };

  // Stored text served back by GET and by FIND, exactly.
  const std::vector<std::pair<std::string, std::string>> texts = {
      {R"j("")j", ""},
      {R"j("\uD83D\uDE00 \uDBFF\uDFFF")j", "\xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF"},
      {"\"caf\xC3\xA9 \xE2\x80\xA8\"", "caf\xC3\xA9 \xE2\x80\xA8"},  // U+2028 is valid JSON
      {R"j("q\"b\\ \u0000 \u0001 \u001f \t")j", std::string("q\"b\\ \0 \x01 \x1f \t", 12)},
  };
  uint64_t stored = 0;
  for (const auto& [json, want] : texts) {
    auto put = client_->Post("/docs/t", "[{\"s\": " + json + "}]", "application/json");
    ASSERT_EQ(valid(put, "put " + json), 200);
    ++stored;
    auto got = client_->Get(fmt::format("/docs/t/{}", stored));
    ASSERT_EQ(valid(got, "get " + json), 200);
    EXPECT_EQ(text_of(got->body, "/doc/s"), want) << got->body;
    auto found = Query(fmt::format(R"j({{"statement": "FIND t WHERE s = $1", "params": [{}]}})j", json));
    ASSERT_EQ(valid(found, "find " + json), 200);
    EXPECT_EQ(text_of(found->body, "/rows/0/doc/s"), want) << found->body;
  }

  // Bad values, each way one arrives over HTTP: a 4xx naming where, nothing stored.
  struct Bad {
    std::string field, ql, json;
  };
  const std::vector<Bad> bad = {
      {"s", "'\\\\uD800'", "\"\\uD800\""},        {"s", "'\\\\uDC00\\\\uD800'", "\"\\uDC00\\uD800\""},
      {"s", "'a\xFF'", "\"a\xFF\""},                  {"f", "1e400", "1e400"},
      {"f", "NaN", "-Infinity"},                     {"i", "9223372036854775808", "-9223372036854775809"},
      {"v", "[1e39, 0]", "[0, 1e39]"},
  };
  for (const Bad& b : bad) {
    const std::string what = b.field + " = " + b.json;
    std::vector<httplib::Result> rs;
    rs.push_back(Query(R"j({"statement": "PUT t {)j" + b.field + ": " + b.ql + R"j(}"})j"));
    rs.push_back(Query(R"j({"statement": "PUT t {)j" + b.field + R"j(: $1}", "params": [)j" + b.json + "]}"));
    rs.push_back(client_->Post("/docs/t", "[{\"" + b.field + "\": " + b.json + "}]", "application/json"));
    rs.push_back(client_->Post("/batch", R"j({"statements": [{"statement": "PUT t {)j" + b.field +
                                             R"j(: $1}", "params": [)j" + b.json + "]}]}", "application/json"));
    for (auto& r : rs) {
      int status = valid(r, what);
      EXPECT_TRUE(status >= 400 && status < 500) << what << " -> " << (r ? r->body : "");
      if (r) {
        EXPECT_NE(query::ErrorWhere(r->body), "") << r->body;
      }
    }
  }
  EXPECT_EQ(*db_->Count(*db_->FindCollection("t")), stored);

  // Errors that echo what the client sent.
  std::vector<std::pair<std::string, httplib::Result>> echoes;
  echoes.emplace_back("collection not UTF-8", client_->Get("/docs/t\xFF/1"));
  echoes.emplace_back("id not UTF-8", client_->Get("/docs/t/\xFF\xFE"));
  echoes.emplace_back("an encoded surrogate", client_->Post("/docs/\xED\xA0\x80", "[{}]", "application/json"));
  echoes.emplace_back("no route, quote and backslash", client_->Get("/no\"where\\"));
  echoes.emplace_back("no route, not UTF-8", client_->Get("/\xC3"));
  echoes.emplace_back("method", client_->Put("/query\xFF", "{}", "application/json"));
  echoes.emplace_back("method on a route", client_->Delete("/query"));
  echoes.emplace_back("body not UTF-8", Query("{\"statement\": \"GET t 1\xFF\"}"));
  echoes.emplace_back("statement names a character", Query(R"j({"statement": "GET caf\u00e9 1"})j"));
  echoes.emplace_back("surrogate in a name", Query(R"j({"statement": "GET t\uD800 1"})j"));
  echoes.emplace_back("surrogate in a key", client_->Post("/docs/t", R"j([{"\uD800": 1}])j", "application/json"));
  echoes.emplace_back("control in a key", client_->Post("/docs/t", R"j([{"x\u0001\"": 1}])j", "application/json"));
  echoes.emplace_back("unknown request key", Query(R"j({"statement": "GET t 1", "\u00e9\"": 1})j"));
  for (auto& [what, r] : echoes) {
    int status = valid(r, what);
    EXPECT_TRUE(status >= 400 && status < 500) << what << " -> " << (r ? r->body : "");
  }
  EXPECT_EQ(*db_->Count(*db_->FindCollection("t")), stored);
  EXPECT_EQ(answers, texts.size() * 3 + bad.size() * 4 + echoes.size());
}

}  // namespace server_test
}  // namespace fenec::server
