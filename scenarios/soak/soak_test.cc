// soak-bench's parts, by counts: the checker finds a missing or altered row;
// every malformed request is refused 4xx with a JSON message by a live
// server and leaves `edge` as it was; a short soak with one kill -9 loses
// no acknowledged write.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>

#include <fmt/format.h>

#include "engine/src/base/scratch.h"
#include "engine/src/base/seed.h"
#include "iobench/kit/results.h"
#include "scenarios/procs/engine_stats.h"
#include "scenarios/procs/metrics.h"
#include "scenarios/procs/server_process.h"
#include "scenarios/soak/acked.h"
#include "scenarios/soak/malformed.h"
#include "scenarios/soak/run.h"

namespace fenec::scenarios::soak {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// A fake server's FIND: the documents by id, answered for a key range.
struct FakeCollection {
  std::map<int64_t, std::string> docs;  // id -> document JSON
  std::map<int64_t, int64_t> key_of;    // id -> key
  int fetches = 0;
  std::string Find(int64_t lo, int64_t hi) {
    ++fetches;
    std::string rows;
    for (const auto& [id, doc] : docs) {
      if (key_of[id] < lo || key_of[id] >= hi) continue;
      rows += fmt::format("{}{{\"id\":{},\"doc\":{}}}", rows.empty() ? "" : ",", id, doc);
    }
    return "{\"rows\":[" + rows + "]}";
  }
};

TEST(SoakChecker, FindsEveryAckAndCatchesAMissingAndAnAlteredRow) {
  constexpr uint64_t kSeed = 42;
  FakeCollection fake;
  std::vector<Ack> acks;
  for (int64_t key = 1; key <= 100; ++key) {
    const int64_t id = 1000 + key * 3;  // ids need not follow keys
    acks.push_back({id, key});
    fake.key_of[id] = key;
    fake.docs[id] = DocJson(MakeDoc(key, kSeed));
  }
  fake.key_of[5] = 50;  // a document landed but never acknowledged: not a loss
  fake.docs[5] = DocJson(MakeDoc(50, kSeed));
  auto fetch = [&fake](int64_t lo, int64_t hi, std::string*) { return fake.Find(lo, hi); };

  VerifyResult all = Verify(acks, kSeed, fetch, 7);
  EXPECT_EQ(all.checked, 100u);
  EXPECT_EQ(all.lost(), 0u) << (all.problems.empty() ? "" : all.problems[0]);
  EXPECT_EQ(all.fetches, 15u);  // keys 1..100, 7 at a time
  EXPECT_EQ(all.error, "");

  fake.docs.erase(1000 + 17 * 3);  // a deliberately missing row
  SoakDoc changed = MakeDoc(60, kSeed);
  changed.s += "!";
  fake.docs[1000 + 60 * 3] = DocJson(changed);  // and one whose text changed
  VerifyResult bad = Verify(acks, kSeed, fetch, 7);
  EXPECT_EQ(bad.checked, 100u);
  EXPECT_EQ(bad.missing, 1u);
  EXPECT_EQ(bad.altered, 1u);
  ASSERT_EQ(bad.problems.size(), 2u);
  EXPECT_NE(bad.problems[0].find("id 1051 (key 17)"), std::string::npos) << bad.problems[0];

  // A seed other than the writer's makes every document differ.
  EXPECT_EQ(Verify(acks, kSeed + 1, fetch, 1000).altered, 99u);
  // A failed fetch says so instead of counting losses.
  VerifyResult failed = Verify(acks, kSeed, [](int64_t, int64_t, std::string* e) {
    *e = "connection refused";
    return std::string();
  }, 7);
  EXPECT_NE(failed.error, "");
  EXPECT_EQ(failed.lost(), 0u);
}

TEST(SoakChecker, EveryFieldDifferenceIsCaught) {
  const SoakDoc d = MakeDoc(7, 1);
  EXPECT_EQ(Differs(d, DocJson(d)), "");
  int caught = 0;
  for (int field = 0; field < 6; ++field) {
    SoakDoc e = d;
    switch (field) {
      case 0: e.key += 1; break;
      case 1: e.n += 1; break;
      case 2: e.x += 0.125; break;
      case 3: e.s.pop_back(); break;
      case 4: e.b = !e.b; break;
      case 5: e.v[3] += 0.25f; break;
    }
    caught += Differs(d, DocJson(e)).empty() ? 0 : 1;
  }
  EXPECT_EQ(caught, 6);
  EXPECT_NE(Differs(d, R"j({"key": 7})j"), "");
}

TEST(SoakMalformed, JudgeWantsA4xxWithAJsonMessage) {
  EXPECT_EQ(JudgeRefusal({400, R"j({"error":{"code":"json","message":"bad"}})j", ""}), "");
  EXPECT_NE(JudgeRefusal({200, R"j({"ids":[1]})j", ""}), "");
  EXPECT_NE(JudgeRefusal({500, R"j({"error":{"message":"x"}})j", ""}), "");
  EXPECT_NE(JudgeRefusal({400, "not json", ""}), "");
  EXPECT_NE(JudgeRefusal({404, R"j({"error":{"code":"x"}})j", ""}), "");
  EXPECT_NE(JudgeRefusal({0, "", "closed without a (whole) answer"}), "");
}

TEST(SoakLive, EveryMalformedRequestIsRefusedAndEdgeIsUnchanged) {
  const std::string bin = Env("FENEC_SERVER_BIN");
  if (bin.empty()) GTEST_SKIP() << "FENEC_SERVER_BIN not set";
  base::ScratchDir dir;
  procs::ServerProcess server;
  ASSERT_EQ(server.Start(bin, {"--data", dir.path() + "/db", "--durable"}, dir.path() + "/server.log"), "");
  ASSERT_EQ(CreateCollections(server.port()), "");
  std::map<std::string, int> per_kind;
  int refused = 0;
  for (const BadRequest& b : BadRequests()) {
    const RawAnswer a = RawExchange(server.port(), b.bytes, 10'000);
    const std::string why = JudgeRefusal(a);
    EXPECT_EQ(why, "") << b.kind << " '" << b.name << "'";
    refused += why.empty() ? 1 : 0;
    ++per_kind[b.kind];
  }
  // 41 defects of values_test.cc: 41 literals, 40 with a JSON form sent twice.
  EXPECT_EQ(per_kind["value"], 41 + 40 * 2);
  EXPECT_EQ(per_kind["header"], 2);
  EXPECT_EQ(per_kind["http"], 4);
  EXPECT_EQ(refused, static_cast<int>(BadRequests().size()));
  EXPECT_TRUE(EdgeAsSeeded(server.port()));
  EXPECT_EQ(server.Stop(), 0);
}

// Every counter fenec/stats.h declares reaches the bench rows, read back
// from a live server's /metrics: one row each, named as its Stats field,
// in its unit, under its finding (else the bench's).
TEST(SoakLive, EngineRowsCarryEveryDeclaredStat) {
  const std::string bin = Env("FENEC_SERVER_BIN");
  if (bin.empty()) GTEST_SKIP() << "FENEC_SERVER_BIN not set";
  base::ScratchDir dir;
  procs::ServerProcess server;
  ASSERT_EQ(server.Start(bin, {"--data", dir.path() + "/db", "--durable"}, dir.path() + "/server.log"), "");
  ASSERT_EQ(CreateCollections(server.port()), "");
  const std::string m = procs::FetchMetrics(server.port());
  EXPECT_EQ(server.Stop(), 0);
  for (Stat s : kAllStats) EXPECT_GE(procs::PromValue(m, MetricName(s)), 0) << MetricName(s) << " not served";
  const Stats st = procs::StatsFromMetrics(m);
  EXPECT_GT(st.commits, 0u) << "the seed document's put";
  EXPECT_GT(st.journal_fsyncs, 0u);

  kit::Results rows("soak", kit::Metadata{});
  procs::AddStatRows(rows, "SOAK", "engine", "c", st);
  std::map<std::string, const kit::Row*> by_metric;
  for (const kit::Row& r : rows.rows()) EXPECT_TRUE(by_metric.emplace(r.metric, &r).second) << r.metric << " twice";
  EXPECT_EQ(by_metric.size(), kStatCount);
  for (Stat s : kAllStats) {
    const StatInfo& i = Info(s);
    auto it = by_metric.find(i.name);
    ASSERT_NE(it, by_metric.end()) << i.name << " has no row";
    EXPECT_EQ(it->second->unit, UnitName(i.unit)) << i.name;
    EXPECT_EQ(it->second->finding, i.finding[0] ? i.finding : "SOAK") << i.name;
    EXPECT_EQ(it->second->value, static_cast<double>(st.get(s))) << i.name;
  }
}

TEST(SoakLive, ShortSoakWithOneKillLosesNoAcknowledgedWrite) {
  SoakConfig c;
  c.server_bin = Env("FENEC_SERVER_BIN");
  c.holder_bin = Env("CONNS_HOLDER_BIN");
  if (c.server_bin.empty() || c.holder_bin.empty()) GTEST_SKIP() << "FENEC_SERVER_BIN / CONNS_HOLDER_BIN not set";
  base::ScratchDir dir;
  c.data_dir = dir.path() + "/db";
  c.log_path = dir.path() + "/children.log";
  c.seconds = 6;
  c.cycles = 1;
  c.unloaded_s = 1;
  c.clients = 2;
  c.rate = 150;
  c.malformed_rate = 50;
  c.idle = 50;
  c.slow = 5;
  c.slow_body = 2;
  c.idle_timeout_s = 1;
  c.header_timeout_s = 1;
  c.body_timeout_s = 1;
  c.seed = base::SeedFromEnv("ShortSoak");
  const SoakReport r = RunSoak(c, [] { return false; });
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.cycles.size(), 1u);
  EXPECT_GT(r.acked, 0u);
  EXPECT_EQ(r.cycles[0].verify.checked, r.cycles[0].acked);
  EXPECT_EQ(r.lost(), 0u);
  EXPECT_EQ(r.restarts, 1);
  EXPECT_EQ(r.own_crashes, 0);
  EXPECT_TRUE(r.cycles[0].killed_by_us);
  EXPECT_GT(r.malformed.sent, 0u);
  EXPECT_EQ(r.malformed.wrong, 0u);
  EXPECT_EQ(r.malformed.refused_right, r.malformed.sent);
  EXPECT_EQ(r.valid.classes.c4xx + r.valid.classes.c5xx + r.valid.classes.conn_errors, 0u);
  EXPECT_EQ(r.valid.get_mismatches + r.valid.bad_answers, 0u);
  EXPECT_EQ(r.edge_changed, 0u);
  // Each wave is held past the deadlines: the server closed every held connection itself.
  EXPECT_GE(r.waves, 1u);
  EXPECT_EQ(r.held_idle, 50u * r.waves);
  EXPECT_GE(r.closed_idle, static_cast<double>(r.held_idle));
  EXPECT_GE(r.closed_header, static_cast<double>(r.held_slow));
  EXPECT_GE(r.closed_body, static_cast<double>(r.slow_body_sent));
  EXPECT_EQ(r.slow_body_closed, r.slow_body_sent);
  EXPECT_EQ(r.final_exit, 0);
  EXPECT_GE(r.engine.commits, 1u) << "the engine's counters, read off /metrics before the kill";
  EXPECT_FALSE(r.failed());
  for (const auto& p : r.problems) ADD_FAILURE() << p;
}

}  // namespace
}  // namespace fenec::scenarios::soak
