// The transport under idle, slow and oversized clients, over real
// loopback sockets: each deadline closes its connection and is counted once,
// each header limit answers 431 and is counted, thousands of idle
// connections leave a new client served, and a request waiting in the
// engine does not stall the io thread. Every wait is bounded; every
// assertion is a count or a status, never a time.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <string_view>
#include <thread>
#include <vector>

#include "fenec/database.h"
#include "engine/server/idle_read.h"
#include "engine/server/server.h"
#include "engine/server/test_client.h"
#include "engine/src/base/testing.h"

namespace fenec::server {
namespace connections_test {

const bool kSigpipeIgnored = [] {
  signal(SIGPIPE, SIG_IGN);
  return true;
}();

class ConnectionsTest : public ::testing::Test {
 protected:
  void Open(HttpServer::Config http) {
    Options o;
    o.durability = Durability::kBuffered;
    auto db = Database::Open(dir_.path() + "/db", o);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    FenecServer::Config c;
    c.http = std::move(http);
    c.http.port = 0;
    server_ = std::make_unique<FenecServer>(db_.get(), c);
    ASSERT_TRUE(server_->Start().ok());
  }
  void TearDown() override {
    if (server_) server_->Stop();
    if (db_) {
      EXPECT_TRUE(db_->Close().ok());
    }
  }
  std::unique_ptr<httplib::Client> Client() {
    auto c = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
    c->set_keep_alive(true);
    c->set_read_timeout(20, 0);
    return c;
  }
  // /metrics over a fresh connection (so a deadline cannot have closed it first).
  std::string Metrics() {
    auto r = Client()->Get("/metrics");
    EXPECT_TRUE(r && r->status == 200);
    return r ? "\n" + r->body : "";
  }
  static std::string Closed(const char* reason) {
    return fmt::format("fenec_http_connections_closed_total{{reason=\"{}\"}}", reason);
  }
  static std::string Rejected(const char* reason) { return fmt::format("fenec_http_rejected_total{{reason=\"{}\"}}", reason); }

  base::ScratchDir dir_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<FenecServer> server_;
};

constexpr char kHealth[] = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

TEST_F(ConnectionsTest, IdleConnectionsAreClosedAtTheIdleTimeout) {
  HttpServer::Config c;
  c.idle_timeout = std::chrono::milliseconds(500);
  Open(c);
  RawConn silent(server_->port());
  ASSERT_TRUE(silent.ok());
  auto r = silent.ReadToClose();
  EXPECT_TRUE(r.eof);
  EXPECT_EQ(r.bytes, "");
  // A kept-alive connection, once answered, is idle too.
  RawConn answered(server_->port());
  ASSERT_TRUE(answered.Send(kHealth));
  r = answered.ReadToClose();
  EXPECT_TRUE(r.eof);
  EXPECT_EQ(r.bytes.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << r.bytes;
  std::string m = Metrics();
  EXPECT_EQ(MetricValue(m, Closed("idle_timeout")), 2);
  EXPECT_EQ(MetricValue(m, Closed("header_timeout")), 0);
}

TEST_F(ConnectionsTest, SlowDripHeaderAndBodyAreClosedAtTheirDeadlines) {
  HttpServer::Config c;
  c.header_timeout = std::chrono::milliseconds(300);
  c.body_timeout = std::chrono::milliseconds(300);
  Open(c);
  // A byte every 50 ms: each arrives, none finishes the header, the deadline is from the first.
  RawConn header(server_->port());
  ASSERT_TRUE(header.Send("GET /health HTTP/1.1\r\nX-Drip: "));
  auto r = header.ReadToClose(20'000, std::string(400, 'a'));
  EXPECT_TRUE(r.eof);
  EXPECT_EQ(r.bytes, "");
  RawConn body(server_->port());
  ASSERT_TRUE(body.Send("POST /query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"));
  r = body.ReadToClose(20'000, std::string(400, ' '));
  EXPECT_TRUE(r.eof);
  EXPECT_EQ(r.bytes, "");
  std::string m = Metrics();
  EXPECT_EQ(MetricValue(m, Closed("header_timeout")), 1);
  EXPECT_EQ(MetricValue(m, Closed("body_timeout")), 1);
  EXPECT_EQ(MetricValue(m, Closed("idle_timeout")), 0);
}

// What a read brings is parsed at once, without another pass through the
// reactor; a request whose bytes are not all there yet waits for the rest.
// Each request here meets a different split: after another whole request,
// its header cut mid-line, its body sent after its header, a body longer
// than the first read's buffer, one longer than the reads made without
// waiting take at once (ReadAvailable), and requests behind it in the same
// send. Every one is answered, in order.
TEST_F(ConnectionsTest, ARequestIsReadWhereverItsBytesFall) {
  Open(HttpServer::Config{});
  auto c = Client();
  auto made = c->Post("/query", R"j({"statement": "CREATE COLLECTION t (n INT)"})j", "application/json");
  ASSERT_TRUE(made && made->status == 200);
  auto put = c->Post("/query", R"({"statement": "PUT t {n: 7}"})", "application/json");
  ASSERT_TRUE(put && put->status == 200) << (put ? put->body : "");
  const std::string get = R"({"statement":"GET t 1"})";
  const std::string long_get = R"({"statement":"GET t 1")" + std::string(700, ' ') + "}";
  const std::string huge_get = R"({"statement":"GET t 1")" + std::string(3u << 19, ' ') + "}";  // 1.5 MiB
  auto post = [](const std::string& body, const char* extra = "") {
    return fmt::format("POST /query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                       "Content-Length: {}\r\n{}\r\n{}",
                       body.size(), extra, body);
  };
  const std::string second = post(get);
  const size_t header_end = second.find("\r\n\r\n") + 4;
  const std::vector<std::string> pieces = {
      std::string(kHealth) + second.substr(0, 20),      // a whole request, then a header cut mid-line
      second.substr(20, header_end - 20),               // the rest of that header
      second.substr(header_end),                        // its body, after its header
      post(long_get) + post(huge_get) + post(long_get) + post(get, "Connection: close\r\n"),
  };
  RawConn raw(server_->port());
  ASSERT_TRUE(raw.ok());
  for (const std::string& p : pieces) {
    ASSERT_TRUE(raw.Send(p));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // apart, most likely (nothing depends on it)
  }
  auto r = raw.ReadToClose();
  EXPECT_TRUE(r.eof);
  size_t answers = 0, rows = 0;
  for (size_t at = r.bytes.find("HTTP/1.1 200 OK\r\n"); at != std::string::npos;
       at = r.bytes.find("HTTP/1.1 200 OK\r\n", at + 1))
    ++answers;
  for (size_t at = r.bytes.find(R"("n":7)"); at != std::string::npos; at = r.bytes.find(R"("n":7)", at + 1)) ++rows;
  EXPECT_EQ(answers, 6u) << r.bytes.substr(0, 2000);
  EXPECT_EQ(rows, 5u) << r.bytes.substr(0, 2000);
  EXPECT_EQ(r.bytes.find("HTTP/1.1 4"), std::string::npos) << r.bytes.substr(0, 2000);
}

// The wait for a request reads with one recv a request (idle_read.h): a
// short read marks the socket drained, so the next wait tries no recv
// before the reactor's event. Every piece sent later must still wake it:
// requests of sizes around the wait's read (kIdleReadMax), sent whole or cut
// in two at lengths around it, the rest sent apart, on one connection, each
// after the last answer, are all answered.
TEST_F(ConnectionsTest, AnIdleWaitWakesForEveryPieceOfARequest) {
  HttpServer::Config c;
  c.max_header_bytes = 4 * kIdleReadMax;  // the requests below are all header
  Open(c);
  RawConn raw(server_->port());
  ASSERT_TRUE(raw.ok());
  auto request_of = [](size_t size) {
    const std::string head = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ", tail = "\r\n\r\n";
    return head + std::string(size - head.size() - tail.size(), 'p') + tail;
  };
  const size_t m = kIdleReadMax;
  for (size_t size : {size_t{300}, m - 1, m, m + 1, 3 * m + 5}) {
    const std::string request = request_of(size);
    ASSERT_EQ(request.size(), size);
    for (size_t cut : {size_t{0}, size_t{1}, size_t{255}, size_t{256}, m - 1, m, m + 1, size - 1}) {
      if (cut >= size) continue;
      if (cut > 0) {
        ASSERT_TRUE(raw.Send(request.substr(0, cut)));
        std::this_thread::sleep_for(std::chrono::milliseconds(20));  // apart, most likely (nothing depends on it)
      }
      ASSERT_TRUE(raw.Send(request.substr(cut)));
      auto r = raw.ReadAnswer();
      EXPECT_EQ(StatusOf(r.bytes), 200) << size << " bytes cut at " << cut << ": " << r.bytes.substr(0, 200);
    }
  }
  // And whole requests one after another, each sent once the last is answered.
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(raw.Send(kHealth));
    EXPECT_EQ(StatusOf(raw.ReadAnswer().bytes), 200) << i;
  }
}

TEST_F(ConnectionsTest, OversizeHeadersAre431AndCounted) {
  HttpServer::Config c;
  c.max_header_bytes = 4096;
  c.max_header_fields = 20;
  Open(c);
  RawConn big(server_->port());
  ASSERT_TRUE(big.Send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + std::string(8000, 'a') + "\r\n\r\n"));
  auto r = big.ReadToClose();
  EXPECT_TRUE(r.eof);
  EXPECT_EQ(r.bytes.rfind("HTTP/1.1 431 ", 0), 0u) << r.bytes;
  EXPECT_NE(r.bytes.find(R"("code":"headers_too_large")"), std::string::npos) << r.bytes;

  std::string many = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (int i = 0; i < 21; ++i) many += fmt::format("X-F{}: v\r\n", i);
  RawConn fields(server_->port());
  ASSERT_TRUE(fields.Send(many + "\r\n"));
  r = fields.ReadToClose();
  EXPECT_TRUE(r.eof);
  EXPECT_EQ(r.bytes.rfind("HTTP/1.1 431 ", 0), 0u) << r.bytes;
  EXPECT_NE(r.bytes.find("over --max-header-fields (20)"), std::string::npos) << r.bytes;

  // Twenty fields exactly are served.
  std::string twenty = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  for (int i = 0; i < 18; ++i) twenty += fmt::format("X-F{}: v\r\n", i);
  RawConn ok(server_->port());
  ASSERT_TRUE(ok.Send(twenty + "\r\n"));
  r = ok.ReadToClose();
  EXPECT_EQ(r.bytes.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << r.bytes;

  std::string m = Metrics();
  EXPECT_EQ(MetricValue(m, Rejected("header_bytes")), 1);
  EXPECT_EQ(MetricValue(m, Rejected("header_fields")), 1);
  EXPECT_EQ(MetricValue(m, R"(fenec_requests_total{endpoint="refused",kind="",code="431"})"), 2);
  EXPECT_EQ(MetricValue(m, R"(fenec_requests_total{endpoint="health",kind="",code="200"})"), 1);
}

// Far more idle connections than the old thread-per-connection server's
// default limit (256): a new client is still answered, and the gauge counts
// every one of them; Stop() then closes them all.
TEST_F(ConnectionsTest, ThousandsOfIdleConnectionsLeaveNewClientsServed) {
  constexpr int kIdle = 2000;
  Open(HttpServer::Config{});
  std::vector<std::unique_ptr<RawConn>> idle;
  for (int i = 0; i < kIdle; ++i) {
    idle.push_back(std::make_unique<RawConn>(server_->port()));
    ASSERT_TRUE(idle.back()->ok()) << "connection " << i;
  }
  auto client = Client();
  auto health = client->Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  double open = -1;
  // Accepts are in order, so every idle one is in by now; the loop only bounds a slow box.
  for (int i = 0; i < 1000 && open != kIdle + 1; ++i) {
    auto m = client->Get("/metrics");
    ASSERT_TRUE(m && m->status == 200);
    open = MetricValue("\n" + m->body, "fenec_http_connections");
    if (open != kIdle + 1) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(open, kIdle + 1);
  std::string m = Metrics();
  EXPECT_EQ(MetricValue(m, Rejected("max_connections")), 0);
  EXPECT_EQ(MetricValue(m, Closed("idle_timeout")), 0);

  client.reset();
  server_->Stop();
  int closed = 0;
  for (auto& conn : idle) closed += conn->ReadToClose(5'000).eof ? 1 : 0;
  EXPECT_EQ(closed, kIdle);
}

TEST_F(ConnectionsTest, OverMaxConnectionsIs503) {
  HttpServer::Config c;
  c.max_connections = 3;
  Open(c);
  RawConn a(server_->port()), b(server_->port());
  ASSERT_TRUE(a.ok() && b.ok());
  auto client = Client();  // the third, accepted after a and b
  ASSERT_TRUE(client->Get("/health"));
  RawConn over(server_->port());
  ASSERT_TRUE(over.ok());
  auto r = over.ReadToClose();
  EXPECT_TRUE(r.eof);
  EXPECT_EQ(r.bytes.rfind("HTTP/1.1 503 ", 0), 0u) << r.bytes;
  EXPECT_NE(r.bytes.find(R"("code":"busy")"), std::string::npos) << r.bytes;
  auto m = client->Get("/metrics");
  ASSERT_TRUE(m && m->status == 200);
  EXPECT_EQ(MetricValue("\n" + m->body, Rejected("max_connections")), 1);
  EXPECT_EQ(MetricValue("\n" + m->body, "fenec_http_connections"), 3);
}

// One io thread, and a POST whose handler waits: a GET on another connection
// is still answered, because the POST waits on a worker, not the io thread.
TEST(HttpServerTest, ABlockedRequestDoesNotStallTheIoThread) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> posts_in{0}, gets{0};
  HttpServer::Config c;
  c.port = 0;
  c.io_threads = 1;
  c.workers = 2;
  HttpServer http(
      c,
      [&](HttpRequest& req, HttpResponse& res) {
        if (req.method == "POST") {
          posts_in.fetch_add(1);
          (void)released.wait_for(std::chrono::seconds(20));  // bounded: a broken server fails, it does not hang
        } else {
          gets.fetch_add(1);
        }
        res.body = "{}";
      },
      nullptr, nullptr, nullptr);
  ASSERT_TRUE(http.Start().ok());
  auto post = std::async(std::launch::async, [&] {
    httplib::Client cli("127.0.0.1", http.port());
    cli.set_read_timeout(30, 0);
    auto r = cli.Post("/w", "{}", "application/json");
    return r ? r->status : -1;
  });
  for (int i = 0; i < 2000 && posts_in.load() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(posts_in.load(), 1);
  httplib::Client reader("127.0.0.1", http.port());
  reader.set_read_timeout(10, 0);
  auto got = reader.Get("/r");
  ASSERT_TRUE(got) << "the GET was not answered while the POST waited";
  EXPECT_EQ(got->status, 200);
  EXPECT_EQ(gets.load(), 1);
  EXPECT_EQ(posts_in.load(), 1);
  EXPECT_EQ(post.wait_for(std::chrono::seconds(0)), std::future_status::timeout);  // still waiting in its handler
  release.set_value();
  EXPECT_EQ(post.get(), 200);
  http.Stop();
  EXPECT_EQ(http.stats().open, 0u);
}

}  // namespace connections_test
}  // namespace fenec::server
