// The header's screening (http_guard.h): what a web page may send
// a local server without asking (a text/plain POST, a foreign Origin, a
// rebound Host) is refused before its body is read, what our own clients
// send passes, and a wrong token is answered 401 at its header with nothing
// of its body read or reserved. Statuses and counts, never times.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <httplib.h>
#include <signal.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "fenec/database.h"
#include "engine/server/http_answer.h"
#include "engine/server/http_guard.h"
#include "engine/server/server.h"
#include "engine/server/test_client.h"
#include "engine/src/base/testing.h"

namespace fenec::server {
namespace guard_test {

const bool kSigpipeIgnored = [] {
  signal(SIGPIPE, SIG_IGN);
  return true;
}();

// The answer's head, byte for byte: the connection's fate as each HTTP
// version says it, Retry-After only when set.
TEST(HttpAnswer, HeadSaysStatusTypeConnectionAndLength) {
  std::string out;
  AppendAnswerHead(out, 11, 404, "application/json", /*keep=*/true, 0, 104);
  EXPECT_EQ(out, "HTTP/1.1 404 Not Found\r\nServer: fenec-server\r\nContent-Type: application/json\r\n"
                 "Content-Length: 104\r\n\r\n");
  out.clear();
  AppendAnswerHead(out, 11, 503, "application/json", /*keep=*/false, 1, 0);
  EXPECT_EQ(out, "HTTP/1.1 503 Service Unavailable\r\nServer: fenec-server\r\nContent-Type: application/json\r\n"
                 "Connection: close\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n");
  out.clear();
  AppendAnswerHead(out, 10, 200, "text/plain", /*keep=*/true, 0, 15);
  EXPECT_EQ(out, "HTTP/1.0 200 OK\r\nServer: fenec-server\r\nContent-Type: text/plain\r\n"
                 "Connection: keep-alive\r\nContent-Length: 15\r\n\r\n");
}

TEST(HttpGuard, HostNamesTheListenAddressLocalhostOrAnAllowedName) {
  const auto names = AllowedHostNames("127.0.0.1", {"db.internal", "Box:8080"});
  for (const char* ok : {"127.0.0.1", "127.0.0.1:8080", "localhost", "LOCALHOST:1", "db.internal", "box:9"}) {
    EXPECT_TRUE(HostAllowed(ok, names)) << ok;
  }
  for (const char* bad : {"evil.example", "evil.example:8080", "127.0.0.2", "localhost.evil.example", "", "127.0.0.1:",
                          "127.0.0.1:x", "[::1]", "local host", "127.0.0.1@evil.example"}) {
    EXPECT_FALSE(HostAllowed(bad, names)) << bad;
  }
  const auto v6 = AllowedHostNames("::1", {});
  EXPECT_TRUE(HostAllowed("[::1]:8080", v6));
  EXPECT_FALSE(HostAllowed("127.0.0.1", v6));
  // A wildcard listener is reached on loopback too.
  const auto any = AllowedHostNames("0.0.0.0", {});
  EXPECT_TRUE(HostAllowed("127.0.0.1:80", any));
  EXPECT_TRUE(HostAllowed("[::1]", any));
  EXPECT_FALSE(HostAllowed("10.1.2.3", any));
}

TEST(HttpGuard, OriginMustBeThisServersOwn) {
  const auto names = AllowedHostNames("127.0.0.1", {"db.internal"});
  EXPECT_TRUE(OriginAllowed("http://127.0.0.1:8080", "127.0.0.1:8080", names));
  EXPECT_TRUE(OriginAllowed("http://localhost:8080", "127.0.0.1:8080", names));
  EXPECT_TRUE(OriginAllowed("https://db.internal", "db.internal", names));
  EXPECT_TRUE(OriginAllowed("http://db.internal", "db.internal:80", names));
  EXPECT_FALSE(OriginAllowed("http://evil.example", "127.0.0.1:8080", names));
  EXPECT_FALSE(OriginAllowed("http://evil.example:8080", "127.0.0.1:8080", names));
  EXPECT_FALSE(OriginAllowed("http://localhost:3000", "127.0.0.1:8080", names));  // another local page
  EXPECT_FALSE(OriginAllowed("null", "127.0.0.1:8080", names));
  EXPECT_FALSE(OriginAllowed("file://", "127.0.0.1:8080", names));
  EXPECT_FALSE(OriginAllowed("http://127.0.0.1:8080/x", "127.0.0.1:8080", names));
}

TEST(HttpGuard, ContentTypeAndBearer) {
  EXPECT_TRUE(IsJsonContentType("application/json"));
  EXPECT_TRUE(IsJsonContentType("Application/JSON; charset=utf-8"));
  EXPECT_TRUE(IsJsonContentType(" application/json ;charset=UTF-8"));
  for (const char* bad : {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                          "application/json-seq", "", "application/jsonx"}) {
    EXPECT_FALSE(IsJsonContentType(bad)) << bad;
  }
  EXPECT_TRUE(BearerMatches("Bearer s3cret", "s3cret"));
  EXPECT_FALSE(BearerMatches("Bearer s3cre", "s3cret"));
  EXPECT_FALSE(BearerMatches("Bearer s3cret!", "s3cret"));
  EXPECT_FALSE(BearerMatches("Basic s3cret", "s3cret"));
  EXPECT_FALSE(BearerMatches("", "s3cret"));
  EXPECT_FALSE(BearerMatches("Bearer ", ""));
}

class GuardTest : public ::testing::Test {
 protected:
  void Open(const std::string& token = "", std::vector<std::string> allow = {}) {
    Options o;
    o.durability = Durability::kBuffered;
    auto db = Database::Open(dir_.path() + "/db", o);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    FenecServer::Config c;
    c.http.port = 0;
    c.http.allowed_hosts = std::move(allow);
    c.token = token;
    server_ = std::make_unique<FenecServer>(db_.get(), c);
    ASSERT_TRUE(server_->Start().ok());
  }
  void TearDown() override {
    if (server_) server_->Stop();
    if (db_) {
      EXPECT_EQ(*db_->Count(*db_->FindCollection("t")), 0u);  // nothing refused was written
      EXPECT_TRUE(db_->Close().ok());
    }
  }
  // One request on a fresh connection: the answer, read to the server's close.
  std::string Send(const std::string& head, const std::string& body = "") {
    RawConn conn(server_->port());
    EXPECT_TRUE(conn.ok());
    conn.Send(head + fmt::format("Content-Length: {}\r\nConnection: close\r\n\r\n", body.size()) + body);
    return conn.ReadToClose().bytes;
  }
  std::string Metrics() {
    httplib::Client c("127.0.0.1", server_->port());
    auto r = c.Get("/metrics");
    EXPECT_TRUE(r && r->status == 200);
    return r ? "\n" + r->body : "";
  }
  static std::string Rejected(const char* reason) { return fmt::format("fenec_http_rejected_total{{reason=\"{}\"}}", reason); }

  base::ScratchDir dir_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<FenecServer> server_;
};

constexpr char kPut[] = R"j({"statement": "PUT t {k: 'x'}"})j";

TEST_F(GuardTest, WhatAWebPageMaySendIsRefusedAndOurClientsPass) {
  Open("", {"db.internal"});
  {
    httplib::Client c("127.0.0.1", server_->port());
    ASSERT_EQ(c.Post("/query", R"j({"statement": "CREATE COLLECTION t (k TEXT)"})j", "application/json")->status, 200);
  }
  const std::string port = std::to_string(server_->port());
  const std::string post = "POST /query HTTP/1.1\r\n";
  // A page's preflight-free POST (text/plain, a form), then none at all.
  for (const char* type : {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=b"}) {
    std::string a = Send(post + "Host: 127.0.0.1:" + port + "\r\nContent-Type: " + type + "\r\n", kPut);
    EXPECT_EQ(StatusOf(a), 415) << a;
    EXPECT_NE(a.find(R"("code":"content_type")"), std::string::npos) << a;
  }
  EXPECT_EQ(StatusOf(Send(post + "Host: 127.0.0.1\r\n", kPut)), 415);
  // JSON from another site's page, and a rebound name.
  std::string a = Send(post + "Host: 127.0.0.1:" + port +
                       "\r\nContent-Type: application/json\r\nOrigin: http://evil.example\r\n", kPut);
  EXPECT_EQ(StatusOf(a), 403) << a;
  EXPECT_NE(a.find(R"("code":"origin")"), std::string::npos) << a;
  a = Send(post + "Host: evil.example:" + port + "\r\nContent-Type: application/json\r\n", kPut);
  EXPECT_EQ(StatusOf(a), 421) << a;
  EXPECT_NE(a.find(R"("code":"host")"), std::string::npos) << a;
  EXPECT_EQ(StatusOf(Send(post + "Host: evil.example:" + port + "\r\nOrigin: http://evil.example:" + port +
                          "\r\nContent-Type: application/json\r\n", kPut)), 421);
  EXPECT_EQ(StatusOf(Send("GET /docs/t/1 HTTP/1.1\r\nHost: evil.example\r\n")), 421);
  EXPECT_EQ(StatusOf(Send("GET /health HTTP/1.1\r\n")), 421);  // no Host at all
  EXPECT_EQ(StatusOf(Send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n")), 421);

  // What our own clients send passes: any allowed name, with or without a
  // port, our own Origin, JSON with a charset.
  const std::string get = R"j({"statement": "AGGREGATE t COUNT(*)"})j";
  for (const std::string& host : {"127.0.0.1:" + port, std::string("127.0.0.1"), "localhost:" + port,
                                   std::string("db.internal")}) {
    a = Send(post + "Host: " + host + "\r\nContent-Type: application/json; charset=utf-8\r\n", get);
    EXPECT_EQ(StatusOf(a), 200) << host << ": " << a;
  }
  a = Send(post + "Host: localhost:" + port + "\r\nOrigin: http://localhost:" + port +
           "\r\nContent-Type: application/json\r\n", get);
  EXPECT_EQ(StatusOf(a), 200) << a;
  EXPECT_EQ(StatusOf(Send("GET /health HTTP/1.1\r\nHost: localhost\r\n")), 200);

  std::string m = Metrics();
  EXPECT_EQ(MetricValue(m, Rejected("content_type")), 4);
  EXPECT_EQ(MetricValue(m, Rejected("origin")), 1);
  EXPECT_EQ(MetricValue(m, Rejected("host")), 5);
  EXPECT_EQ(MetricValue(m, R"(fenec_requests_total{endpoint="refused",kind="",code="421"})"), 5);
  EXPECT_EQ(MetricValue(m, R"(fenec_requests_total{endpoint="query",kind="aggregate",code="200"})"), 5);
  EXPECT_EQ(MetricValue(m, "fenec_http_inflight_bytes"), 0);
}

// A wrong token with a huge declared body and no body sent: the 401 comes
// at once, with nothing reserved (the budget's gauge never moved) and the
// body never awaited; the right token with the same header is read.
TEST_F(GuardTest, AWrongTokenIsRefusedAtItsHeader) {
  Open("s3cret");
  const std::string head = fmt::format(
      "POST /query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Content-Length: {}\r\n",
      uint64_t{200} << 20);
  for (const char* auth : {"", "Authorization: Bearer wrong!\r\n", "Authorization: Basic s3cret\r\n"}) {
    RawConn conn(server_->port());
    ASSERT_TRUE(conn.Send(head + auth + "\r\n"));
    auto r = conn.ReadToClose();
    EXPECT_EQ(StatusOf(r.bytes), 401) << r.bytes;
    EXPECT_NE(r.bytes.find(R"("code":"unauthorized")"), std::string::npos) << r.bytes;
    EXPECT_TRUE(r.eof);
  }
  ConnectionStats st = server_->connection_stats();
  EXPECT_EQ(st.unauthorized, 3u);
  EXPECT_EQ(st.inflight_bytes, 0u);
  EXPECT_EQ(st.over_body, 0u);
  EXPECT_EQ(st.body_timeouts, 0u);
  // The right token: past the screening, its body is awaited (and reserved).
  RawConn good(server_->port());
  ASSERT_TRUE(good.Send("POST /query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        "Authorization: Bearer s3cret\r\nContent-Length: 1000\r\n\r\n{"));
  for (int i = 0; i < 2000 && server_->connection_stats().inflight_bytes != 1000; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(server_->connection_stats().inflight_bytes, 1000u);
  httplib::Client c("127.0.0.1", server_->port());
  c.set_bearer_token_auth("s3cret");
  EXPECT_EQ(c.Post("/query", R"j({"statement": "CREATE COLLECTION t (k TEXT)"})j", "application/json")->status, 200);
}

}  // namespace guard_test
}  // namespace fenec::server
