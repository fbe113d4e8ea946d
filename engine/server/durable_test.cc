// fenec-server's durable writes: answered from the engine's callback once
// durable (Database::PutBatchAsync), so no worker waits for an fsync and one
// round carries every connection's puts. Every answer is checked, what was
// answered 200 is read back after a reopen, and a failed fsync is never
// answered 200. Counts, never times.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <httplib.h>
#include <signal.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

#include "engine/server/server.h"
#include "engine/server/test_client.h"
#include "engine/src/base/testing.h"
#include "fenec/database.h"
#include "fenec/env.h"

namespace fenec::server {
namespace durable_test {

const bool kSigpipeIgnored = [] {
  signal(SIGPIPE, SIG_IGN);
  return true;
}();

// A disk whose fdatasync takes delay_us, and fails (EIO, from then on) on
// the journal once failing is set: on the public Env seam, as the server
// layer sees the engine.
class TestEnv final : public EnvWrapper {
 public:
  explicit TestEnv(uint32_t delay_us = 0) : EnvWrapper(Env::Default()), delay_us_(delay_us) {}
  void FailJournalSyncs() { failing_.store(true); }
  Status Open(const std::string& path, OpenMode mode, std::unique_ptr<File>* out) override {
    std::unique_ptr<File> f;
    if (Status s = target()->Open(path, mode, &f); !s.ok()) return s;
    *out = std::make_unique<SyncFile>(std::move(f), this, path.find("Journals") != std::string::npos);
    return Status::OK();
  }

 private:
  class SyncFile final : public FileWrapper {
   public:
    SyncFile(std::unique_ptr<File> f, TestEnv* env, bool journal)
        : FileWrapper(std::move(f)), env_(env), journal_(journal) {}
    Status Sync() override {
      if (env_->delay_us_ > 0) std::this_thread::sleep_for(std::chrono::microseconds(env_->delay_us_));
      if (journal_ && env_->failing_.load()) return Status::IOError("fdatasync", path(), EIO);
      return FileWrapper::Sync();
    }

   private:
    TestEnv* env_;
    bool journal_;
  };
  const uint32_t delay_us_;
  std::atomic<bool> failing_{false};
};

std::unique_ptr<httplib::Client> Client(uint16_t port) {
  auto c = std::make_unique<httplib::Client>("127.0.0.1", port);
  c->set_keep_alive(true);
  c->set_tcp_nodelay(true);
  c->set_read_timeout(30, 0);
  return c;
}

const char* kCreate = R"j({"statement": "CREATE COLLECTION log (w INT, seq INT, tag TEXT @unique)"})j";

// The ids in an answer's body, in order.
std::vector<uint64_t> Ids(const std::string& body) {
  std::vector<uint64_t> ids;
  static const std::regex num(R"(\d+)");
  for (auto it = std::sregex_iterator(body.begin(), body.end(), num); it != std::sregex_iterator(); ++it)
    ids.push_back(std::stoull(it->str()));
  return ids;
}

// Eight clients put through one worker on a disk whose fsync takes 2 ms: a
// worker held per put would make every put its own round (fsyncs == puts);
// answered from the callback, rounds carry several.
TEST(DurableWrites, ManyClientsThroughOneWorkerShareRounds) {
  base::ScratchDir dir;
  TestEnv env(2000);
  Options o;
  o.env = &env;
  auto db = Database::Open(dir.path() + "/db", o);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  FenecServer::Config c;
  c.http.port = 0;
  c.http.workers = 1;
  auto server = std::make_unique<FenecServer>(db->get(), c);
  ASSERT_TRUE(server->Start().ok());
  auto admin = Client(server->port());
  auto created = admin->Post("/query", kCreate, "application/json");
  ASSERT_TRUE(created && created->status == 200);
  (*db)->ResetStats();

  constexpr int kClients = 8, kEach = 6;  // each round: a /query PUT, a /docs of two, a /batch of two
  std::mutex mu;
  std::set<uint64_t> ids;
  std::atomic<int> bad{0}, docs{0};
  std::vector<std::thread> ts;
  for (int w = 0; w < kClients; ++w) {
    ts.emplace_back([&, w] {
      auto cl = Client(server->port());
      for (int i = 0; i < kEach; ++i) {
        int n = i % 3 == 0 ? 1 : 2;
        const std::string tag = fmt::format("w{}i{}", w, i);
        auto post = [&]() -> httplib::Result {
          if (i % 3 == 0) {
            return cl->Post(
                "/query",
                fmt::format(R"j({{"statement": "PUT log {{w: $1, seq: $2, tag: $3}}", "params": [{}, {}, "{}"]}})j",
                            w, i, tag),
                "application/json");
          }
          if (i % 3 == 1) {
            return cl->Post(
                "/docs/log",
                fmt::format(R"j([{{"w": {0}, "seq": {1}, "tag": "{2}a"}}, {{"w": {0}, "seq": {1}, "tag": "{2}b"}}])j",
                            w, i, tag),
                "application/json");
          }
          return cl->Post("/batch",
                          fmt::format(R"j({{"statements": [{{"statement": "PUT log {{w: $1, tag: $2}}", "params": [{0}, "{1}a"]}},
                                         {{"statement": "PUT log {{w: $1, tag: $2}}", "params": [{0}, "{1}b"]}}]}})j",
                                      w, tag),
                          "application/json");
        };
        httplib::Result r = post();
        if (!r || r->status != 200) {
          bad.fetch_add(1);
          ADD_FAILURE() << (r ? r->body : httplib::to_string(r.error()));
          continue;
        }
        std::vector<uint64_t> got = Ids(r->body);
        EXPECT_EQ(got.size(), static_cast<size_t>(n)) << r->body;
        docs.fetch_add(n);
        std::lock_guard lock(mu);
        for (uint64_t id : got) EXPECT_TRUE(ids.insert(id).second) << "id " << id << " answered twice";
      }
    });
  }
  for (auto& t : ts) t.join();
  EXPECT_EQ(bad.load(), 0);
  const uint64_t puts = kClients * kEach;
  auto m = admin->Get("/metrics");
  ASSERT_TRUE(m && m->status == 200);
  const std::string text = "\n" + m->body;
  EXPECT_EQ(MetricValue(text, "fenec_async_puts_total"), static_cast<double>(puts));
  EXPECT_EQ(MetricValue(text, "fenec_async_acks_total"), static_cast<double>(puts));
  EXPECT_EQ(MetricValue(text, "fenec_async_acks_before_durable_total"), 0);
  // A /query PUT whose plan is cached lands on the io thread (no worker),
  // unless the write lock was taken at that moment.
  const double no_wait = MetricValue(text, "fenec_async_puts_no_wait_total");
  EXPECT_GT(no_wait, 0) << "no /query PUT landed on an io thread";
  EXPECT_EQ(MetricValue(text, "fenec_http_requests_inline_total"), no_wait);
  EXPECT_EQ(MetricValue(text, R"j(fenec_requests_total{endpoint="docs_put",kind="put",code="200"})j"),
            static_cast<double>(kClients * (kEach / 3)));
  EXPECT_EQ(MetricValue(text, R"j(fenec_requests_total{endpoint="batch",kind="batch",code="200"})j"),
            static_cast<double>(kClients * (kEach / 3)));
  const Stats st = (*db)->GetStats();
  EXPECT_EQ(st.commits, puts);
  EXPECT_LT(st.journal_fsyncs, puts) << "every put had a round of its own";
  fmt::print(stderr, "{} puts through 1 worker: {} fsyncs, {} waiter rounds\n", puts, st.journal_fsyncs,
             st.async_rounds);
  admin.reset();
  server->Stop();
  ASSERT_TRUE((*db)->Close().ok());
  db->reset();
  auto again = Database::Open(dir.path() + "/db", Options{});
  ASSERT_TRUE(again.ok());
  auto coll = (*again)->FindCollection("log");
  ASSERT_TRUE(coll.ok());
  EXPECT_EQ(*(*again)->Count(*coll), static_cast<uint64_t>(docs.load()));
  for (uint64_t id : ids) EXPECT_TRUE((*again)->Get(*coll, id).ok()) << "answered id " << id << " lost";
}

// The statuses a put's callback carries: a refusal before landing (400, 404,
// 409), a failed fsync (5xx, then 503 fail-stopped), never a 200 for a
// write that is not durable.
TEST(DurableWrites, ErrorsKeepTheirStatus) {
  base::ScratchDir dir;
  TestEnv env;
  Options o;
  o.env = &env;
  auto db = Database::Open(dir.path() + "/db", o);
  ASSERT_TRUE(db.ok());
  FenecServer::Config c;
  c.http.port = 0;
  auto server = std::make_unique<FenecServer>(db->get(), c);
  ASSERT_TRUE(server->Start().ok());
  auto cl = Client(server->port());
  ASSERT_EQ(cl->Post("/query", kCreate, "application/json")->status, 200);
  // One statement text throughout: after the first, its plan is cached and
  // each put lands on the io thread (Later with no_wait), whose answers
  // carry the same statuses as a worker's.
  auto put = [&](int w, const char* tag) {
    return cl->Post("/query",
                    fmt::format(R"j({{"statement": "PUT log {{w: $1, tag: $2}}", "params": [{}, "{}"]}})j", w, tag),
                    "application/json");
  };
  auto inline_puts = [&] { return (*db)->GetStats().async_puts_no_wait; };
  auto first = put(1, "x");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 200) << first->body;
  auto second = put(2, "y");
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 200) << second->body;
  EXPECT_EQ(inline_puts(), 1u);
  auto clash = put(3, "x");
  ASSERT_TRUE(clash);
  EXPECT_EQ(clash->status, 409) << clash->body;
  auto bad_type = cl->Post("/docs/log", R"j([{"w": "not an int"}])j", "application/json");
  ASSERT_TRUE(bad_type);
  EXPECT_EQ(bad_type->status, 400) << bad_type->body;
  auto no_coll = cl->Post("/docs/nope", R"j([{"w": 1}])j", "application/json");
  ASSERT_TRUE(no_coll);
  EXPECT_EQ(no_coll->status, 404) << no_coll->body;

  env.FailJournalSyncs();
  const uint64_t landed_inline = inline_puts();
  auto failed = put(4, "z");
  ASSERT_TRUE(failed);
  EXPECT_GE(failed->status, 500) << failed->body;
  EXPECT_EQ(inline_puts(), landed_inline + 1) << "the failing put did not land on the io thread";
  auto after = cl->Post("/batch", R"j({"statements": [{"statement": "PUT log {w: 4}"}]})j", "application/json");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 503) << after->body;
  auto after_inline = put(5, "v");
  ASSERT_TRUE(after_inline);
  EXPECT_EQ(after_inline->status, 503) << after_inline->body;
  auto health = cl->Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 503);
  EXPECT_EQ((*db)->GetStats().async_acks_before_durable, 0u);
  cl.reset();
  server->Stop();
  EXPECT_FALSE((*db)->Close().ok());
}

}  // namespace durable_test
}  // namespace fenec::server
