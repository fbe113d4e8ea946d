// The server's bounds on what clients can make it hold or wait for:
// bodies in flight against --max-inflight-bytes, the worker queue
// against --max-queue, io threads that never wait for the engine's lock,
// and exceptions on io threads that close one connection, not the process.
// Counts and orderings, never times; every loop is bounded.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <httplib.h>
#include <signal.h>

#include <atomic>
#include <condition_variable>
#include <fstream>
#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fenec/database.h"
#include "fenec/env.h"
#include "engine/server/server.h"
#include "engine/server/test_client.h"
#include "engine/src/base/testing.h"

namespace fenec::server {
namespace limits_test {

const bool kSigpipeIgnored = [] {
  signal(SIGPIPE, SIG_IGN);
  return true;
}();

// The process's peak RSS since ResetPeakRss(), in KiB (VmHWM), 0 if unreadable.
void ResetPeakRss() { std::ofstream("/proc/self/clear_refs") << "5"; }
uint64_t PeakRssKb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6));
  }
  return 0;
}

template <class F>
bool WaitFor(F done) {
  for (int i = 0; i < 4000 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return done();
}

std::unique_ptr<Database> OpenDb(const std::string& dir, Env* env = nullptr) {
  Options o;
  o.durability = Durability::kBuffered;
  o.env = env;
  auto db = Database::Open(dir, o);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  return db.ok() ? std::move(db).value() : nullptr;
}

// Many clients start an 8 MiB body at once against a 16 MiB budget: the
// first two are read, every other one is refused 503 with Retry-After at
// its header and its bytes dropped as they come, so the process's peak RSS
// stays far below what the bodies would need together. One worker: each
// worker's JSON parser keeps room for the largest body it parsed (several
// times its size), which is not what this test counts.
TEST(InflightBudget, BodiesPastTheBudgetAre503AndNeverHeld) {
  base::ScratchDir dir;
  auto db = OpenDb(dir.path() + "/db");
  ASSERT_TRUE(db->CreateCollection("t", Schema{{Field::Text("k")}}).ok());
  constexpr size_t kBody = 8u << 20;
  constexpr int kClients = 48, kFit = 2;
  FenecServer::Config c;
  c.http.port = 0;
  c.http.max_body = kBody;
  c.http.max_inflight_bytes = kFit * kBody;
  c.http.workers = 1;
  c.http.body_timeout = std::chrono::milliseconds(60'000);
  FenecServer server(db.get(), c);
  ASSERT_TRUE(server.Start().ok());

  // One body, sent by every client: valid JSON padded with spaces to 8 MiB.
  std::string body = R"j({"statement": "AGGREGATE t COUNT(*)"})j";
  body.resize(kBody, ' ');
  const std::string head = fmt::format(
      "POST /query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n"
      "Content-Length: {}\r\n\r\n",
      kBody);
  ResetPeakRss();
  const uint64_t rss_before = PeakRssKb();
  std::vector<std::unique_ptr<RawConn>> conns;
  std::vector<std::future<RawConn::Read>> answers;
  std::atomic<int> answered{0};
  for (int i = 0; i < kClients; ++i) {
    conns.push_back(std::make_unique<RawConn>(server.port()));
    ASSERT_TRUE(conns.back()->ok());
    ASSERT_TRUE(conns.back()->Send(head + body.substr(0, 1024)));
    RawConn* conn = conns.back().get();
    answers.push_back(std::async(std::launch::async, [conn, &answered] {
      auto r = conn->ReadAnswer(30'000);
      answered.fetch_add(1);
      return r;
    }));
  }
  ASSERT_TRUE(WaitFor([&] { return server.connection_stats().over_inflight == kClients - kFit; }));
  ASSERT_TRUE(WaitFor([&] { return answered.load() == kClients - kFit; }));
  EXPECT_EQ(server.connection_stats().inflight_bytes, kFit * kBody);
  // Every client now sends the rest: the refused ones' bytes are read and
  // dropped (or their sends fail once the server has closed), the two
  // reserved bodies are read and answered.
  for (auto& conn : conns) (void)conn->Send(std::string_view(body).substr(1024));
  int refused = 0, ok = 0;
  for (auto& a : answers) {
    RawConn::Read r = a.get();
    const int status = StatusOf(r.bytes);
    if (status == 503) {
      ++refused;
      EXPECT_NE(r.bytes.find("\r\nRetry-After: 1\r\n"), std::string::npos) << r.bytes;
      EXPECT_NE(r.bytes.find(R"("code":"busy")"), std::string::npos) << r.bytes;
    } else {
      EXPECT_EQ(status, 200) << r.bytes.substr(0, 300);
      ok += status == 200;
    }
  }
  EXPECT_EQ(refused, kClients - kFit);
  EXPECT_EQ(ok, kFit);
  EXPECT_TRUE(WaitFor([&] { return server.connection_stats().inflight_bytes == 0; }));
  // The bodies together are 384 MiB; what was held at once is two of them
  // and the one parser's room (all of it touched under MALLOC_PERTURB_).
  const uint64_t peak = PeakRssKb();
  if (rss_before > 0 && peak > 0) {
    RecordProperty("peak_rss_growth_kib", std::to_string(peak - rss_before));
    EXPECT_LT(peak - rss_before, uint64_t{128} << 10) << "peak RSS grew by " << (peak - rss_before) << " KiB";
  }
  // Once the budget is free, a body is read again.
  httplib::Client cli("127.0.0.1", server.port());
  auto again = cli.Post("/query", R"j({"statement": "AGGREGATE t COUNT(*)"})j", "application/json");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200);
  EXPECT_EQ(server.connection_stats().over_inflight, static_cast<uint64_t>(kClients - kFit));
  conns.clear();
  server.Stop();
  EXPECT_TRUE(db->Close().ok());
}

// One worker, a queue of one: with the worker busy and one request queued,
// the next is answered 503 with Retry-After, at once and kept alive; the
// two before it are answered once the worker is let go.
TEST(WorkerQueue, AFullQueueIs503) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> posts_in{0};
  HttpServer::Config c;
  c.port = 0;
  c.workers = 1;
  c.max_queue = 1;
  HttpServer http(
      c,
      [&](HttpRequest& req, HttpResponse& res) {
        if (req.target == "/wait") {
          posts_in.fetch_add(1);
          (void)released.wait_for(std::chrono::seconds(20));
        }
        res.body = "{}";
      },
      nullptr, nullptr, nullptr);
  ASSERT_TRUE(http.Start().ok());
  auto post = [&] {
    return std::async(std::launch::async, [&] {
      httplib::Client cli("127.0.0.1", http.port());
      cli.set_read_timeout(30, 0);
      auto r = cli.Post("/wait", "{}", "application/json");
      return r ? r->status : -1;
    });
  };
  auto running = post();
  ASSERT_TRUE(WaitFor([&] { return posts_in.load() == 1; }));
  auto queued = post();
  ASSERT_TRUE(WaitFor([&] { return http.stats().queued == 1; }));
  RawConn over(http.port());
  ASSERT_TRUE(over.Send("POST /now HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        "Content-Length: 2\r\n\r\n{}"));
  auto r = over.ReadAnswer();
  EXPECT_EQ(StatusOf(r.bytes), 503) << r.bytes;
  EXPECT_NE(r.bytes.find("\r\nRetry-After: 1\r\n"), std::string::npos) << r.bytes;
  EXPECT_NE(r.bytes.find("--max-queue"), std::string::npos) << r.bytes;
  EXPECT_FALSE(r.eof);  // the request was read whole: the connection stays
  EXPECT_EQ(http.stats().over_queue, 1u);
  release.set_value();
  EXPECT_EQ(running.get(), 200);
  EXPECT_EQ(queued.get(), 200);
  // The same connection, the queue empty again: served.
  ASSERT_TRUE(over.Send("POST /now HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        "Connection: close\r\nContent-Length: 2\r\n\r\n{}"));
  EXPECT_EQ(StatusOf(over.ReadAnswer().bytes), 200);
  http.Stop();
}

// An exception on an io thread (here from the Done hook, which runs there
// for a GET) closes that connection unanswered and is counted; one after a
// worker's handler too; a handler's own, of any type, is a 500. The server
// serves on.
TEST(IoThreads, AnExceptionClosesItsConnectionNotTheProcess) {
  HttpServer::Config c;
  c.port = 0;
  c.io_threads = 1;
  HttpServer http(
      c,
      [](HttpRequest& req, HttpResponse& res) {
        if (req.target == "/odd") throw 7;
        res.body = req.target == "/boom" ? "boom" : "{}";
      },
      [](const HttpResponse& res, uint64_t) {
        if (res.body == "boom") throw std::runtime_error("done hook");
      },
      nullptr, nullptr);
  ASSERT_TRUE(http.Start().ok());
  for (const char* method : {"GET", "POST"}) {
    RawConn conn(http.port());
    ASSERT_TRUE(conn.Send(fmt::format("{} /boom HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                      "Content-Length: 0\r\n\r\n",
                                      method)));
    auto r = conn.ReadToClose();
    EXPECT_TRUE(r.eof) << method;
    EXPECT_EQ(r.bytes, "") << method;
  }
  EXPECT_EQ(http.stats().exceptions, 2u);
  httplib::Client cli("127.0.0.1", http.port());
  auto odd = cli.Get("/odd");
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->status, 500);
  auto fine = cli.Get("/fine");
  ASSERT_TRUE(fine);
  EXPECT_EQ(fine->status, 200);
  EXPECT_EQ(http.stats().exceptions, 2u);
  http.Stop();
}

// Holds the engine's write lock on demand: armed, the next creation of the
// Indexes/ folder (a @unique collection's first branch, made under the
// write lock) waits until Release(); bounded, so a broken test fails.
class HoldingEnv : public EnvWrapper {
 public:
  HoldingEnv() : EnvWrapper(Env::Default()) {}
  void Arm() {
    std::lock_guard<std::mutex> l(mu_);
    armed_ = true;
  }
  bool WaitEntered() {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, std::chrono::seconds(20), [&] { return entered_; });
  }
  void Release() {
    std::lock_guard<std::mutex> l(mu_);
    released_ = true;
    cv_.notify_all();
  }
  Status CreateDir(const std::string& path) override {
    {
      std::unique_lock<std::mutex> l(mu_);
      if (armed_ && path.ends_with("/Indexes")) {
        armed_ = false;
        entered_ = true;
        cv_.notify_all();
        cv_.wait_for(l, std::chrono::seconds(20), [&] { return released_; });
      }
    }
    return EnvWrapper::CreateDir(path);
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool armed_ = false, entered_ = false, released_ = false;
};

// While a writer holds the engine's lock, one io thread still answers
// /health (before the hold ends), and the gets by id it would have answered
// go to a worker (counted) and are answered after it ends.
TEST(IoThreads, HealthIsAnsweredWhileAWriterHoldsTheLock) {
  base::ScratchDir dir;
  HoldingEnv env;
  auto db = OpenDb(dir.path() + "/db", &env);
  auto users = db->CreateCollection("users", Schema{{Field::Text("email")}});
  ASSERT_TRUE(users.ok());
  ASSERT_TRUE(db->Put(*users, {Value("a")}).ok());
  FenecServer::Config c;
  c.http.port = 0;
  c.http.io_threads = 1;
  FenecServer server(db.get(), c);
  ASSERT_TRUE(server.Start().ok());
  httplib::Client warm("127.0.0.1", server.port());
  // Plans cached, so the held reads below reach the engine's Get itself.
  ASSERT_EQ(warm.Get("/docs/users/1")->status, 200);
  ASSERT_EQ(warm.Post("/query", R"j({"statement": "GET users $1", "params": [1]})j", "application/json")->status, 200);

  env.Arm();
  std::atomic<bool> released{false};
  std::thread writer([&] { EXPECT_TRUE(db->CreateCollection("held", Schema{{Field::Text("k").Unique()}}).ok()); });
  ASSERT_TRUE(env.WaitEntered());
  auto get_after = [&](std::function<httplib::Result(httplib::Client&)> send) {
    return std::async(std::launch::async, [&, send] {
      httplib::Client cli("127.0.0.1", server.port());
      cli.set_read_timeout(30, 0);
      auto r = send(cli);
      return std::make_pair(r ? r->status : -1, released.load());
    });
  };
  auto doc = get_after([](httplib::Client& cli) { return cli.Get("/docs/users/1"); });
  auto point = get_after([](httplib::Client& cli) {
    return cli.Post("/query", R"j({"statement": "GET users $1", "params": [1]})j", "application/json");
  });
  ASSERT_TRUE(WaitFor([&] { return server.reads_deferred() == 2; }));
  httplib::Client health("127.0.0.1", server.port());
  health.set_read_timeout(30, 0);
  auto h = health.Get("/health");
  const bool answered_during_hold = !released.load();
  ASSERT_TRUE(h);
  EXPECT_EQ(h->status, 200);
  EXPECT_TRUE(answered_during_hold);
  released = true;
  env.Release();
  writer.join();
  // The deferred gets were answered by a worker, after the hold.
  EXPECT_EQ(doc.get(), std::make_pair(200, true));
  EXPECT_EQ(point.get(), std::make_pair(200, true));
  auto m = warm.Get("/metrics");
  ASSERT_TRUE(m);
  EXPECT_EQ(MetricValue("\n" + m->body, "fenec_http_reads_deferred_total"), 2);
  EXPECT_EQ(MetricValue("\n" + m->body, R"(fenec_requests_total{endpoint="docs_get",kind="get",code="200"})"), 2);
  server.Stop();
  EXPECT_TRUE(db->Close().ok());
}

}  // namespace limits_test
}  // namespace fenec::server
