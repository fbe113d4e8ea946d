// soak-bench's parts, by counts: the checker finds a missing or altered row;
// every malformed request is refused 4xx with a JSON message by a live
// server and leaves `edge` as it was; a fill's window tells an expected 507
// from a problem; a short soak with a durable and a write-through cycle,
// the disk filled and freed in the second, loses no acknowledged write, sees
// the full disk's refusals and its writes resume; a stop in the middle of a
// fill leaves no mount, loop device or filler behind. The disk parts need
// root and loop devices; without them the soak runs on and says why.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include <fmt/format.h>

#include "engine/src/base/scratch.h"
#include "engine/src/base/seed.h"
#include "iobench/kit/loopfs.h"
#include "iobench/kit/results.h"
#include "scenarios/procs/engine_stats.h"
#include "scenarios/procs/metrics.h"
#include "scenarios/procs/server_process.h"
#include "scenarios/soak/acked.h"
#include "scenarios/soak/disk.h"
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
  // A fat document (the full disk's puts) rebuilds from its key alone, as a lean one does.
  const SoakDoc fat = MakeDoc(kFatKeys + 7, 1);
  EXPECT_GE(fat.s.size(), kFatPadBytes);
  EXPECT_EQ(Differs(fat, DocJson(MakeDoc(kFatKeys + 7, 1))), "");
  SoakDoc thin = fat;
  thin.s.pop_back();
  EXPECT_NE(Differs(fat, DocJson(thin)), "");
}

TEST(SoakMalformed, JudgeWantsA4xxWithAJsonMessage) {
  EXPECT_EQ(JudgeRefusal({400, R"j({"error":{"code":"json","message":"bad"}})j", ""}), "");
  EXPECT_NE(JudgeRefusal({200, R"j({"ids":[1]})j", ""}), "");
  EXPECT_NE(JudgeRefusal({500, R"j({"error":{"message":"x"}})j", ""}), "");
  EXPECT_NE(JudgeRefusal({400, "not json", ""}), "");
  EXPECT_NE(JudgeRefusal({404, R"j({"error":{"code":"x"}})j", ""}), "");
  EXPECT_NE(JudgeRefusal({0, "", "closed without a (whole) answer"}), "");
}

TEST(SoakDisk, TheWindowTellsTheFullDisksRefusalsFromProblems) {
  using std::chrono::milliseconds;
  const TimePoint t{std::chrono::seconds(1000)};  // any origin: only the order of times counts
  DiskWindow w;
  EXPECT_FALSE(w.Put(t, t + milliseconds(1), false)) << "no fill: a 507 is a problem";
  EXPECT_TRUE(w.Put(t, t + milliseconds(1), true));
  w.Open(t + milliseconds(1000));
  EXPECT_FALSE(w.Put(t, t + milliseconds(500), false)) << "answered before the filler took space";
  EXPECT_TRUE(w.Put(t + milliseconds(900), t + milliseconds(1100), false)) << "sent before, answered while filling";
  EXPECT_TRUE(w.Put(t + milliseconds(1200), t + milliseconds(1300), true));  // room the server had
  EXPECT_TRUE(w.Put(t + milliseconds(2000), t + milliseconds(2100), false));
  w.Freed(t + milliseconds(3000));
  EXPECT_TRUE(w.Put(t + milliseconds(3000) + kResumeGrace, t + milliseconds(3100) + kResumeGrace, false))
      << "within the grace the server has to notice";
  EXPECT_FALSE(w.Put(t + milliseconds(3001) + kResumeGrace, t + milliseconds(3100) + kResumeGrace, false))
      << "sent with the space back past the grace";
  EXPECT_TRUE(w.Put(t + milliseconds(3200), t + milliseconds(3250), true));  // the first accepted again
  EXPECT_TRUE(w.Put(t + milliseconds(2900), t + milliseconds(3300), true));
  const FillFigures f = w.Close();
  EXPECT_EQ(f.refused, 3u);
  EXPECT_EQ(f.accepted_full, 1u);
  EXPECT_DOUBLE_EQ(f.resume_ms, 250);
  EXPECT_FALSE(w.Put(t + milliseconds(3400), t + milliseconds(3500), false)) << "closed: a 507 is a problem again";
  EXPECT_EQ(w.Close().refused, 0u);
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

// A short soak's settings: small loads, short deadlines, a 128 MiB disk.
SoakConfig ShortSoak(const std::string& dir, const char* seed_name) {
  SoakConfig c;
  c.server_bin = Env("FENEC_SERVER_BIN");
  c.holder_bin = Env("CONNS_HOLDER_BIN");
  c.data_dir = dir + "/db";
  c.log_path = dir + "/children.log";
  c.disk_dir = dir + "/disk";
  c.disk_bytes = 128ull << 20;
  c.full_s = 1;
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
  c.seed = base::SeedFromEnv(seed_name);
  return c;
}

// What a run leaves of its disk: loop devices on its backing file, its mount.
void ExpectDiskGone(const SoakConfig& c) {
  EXPECT_EQ(kit::loop_devices_backed_by(c.disk_dir + "/loop.img"), 0);
  EXPECT_FALSE(kit::is_mounted(c.disk_dir + "/mnt"));
  EXPECT_FALSE(std::filesystem::exists(c.disk_dir + "/loop.img"));
}

TEST(SoakLive, ShortSoakInBothModesWithAFullDiskLosesNoAcknowledgedWrite) {
  base::ScratchDir dir;
  SoakConfig c = ShortSoak(dir.path(), "ShortSoak");
  if (c.server_bin.empty() || c.holder_bin.empty()) GTEST_SKIP() << "FENEC_SERVER_BIN / CONNS_HOLDER_BIN not set";
  c.seconds = 14;
  c.cycles = 2;
  c.modes = {"durable", "write-through"};
  c.fills = "01";  // the write-through cycle's load meets the full disk
  const SoakReport r = RunSoak(c, [] { return false; });
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.cycles.size(), 2u);
  EXPECT_GT(r.acked, 0u);
  EXPECT_EQ(r.lost(), 0u);
  EXPECT_EQ(r.restarts, 2);
  EXPECT_EQ(r.own_crashes, 0);
  for (size_t i = 0; i < r.cycles.size(); ++i) {
    const CycleFigures& f = r.cycles[i];
    EXPECT_EQ(f.mode, c.modes[i]);
    EXPECT_EQ(f.verify.checked, f.acked);
    EXPECT_EQ(f.lost_new, 0u);
    EXPECT_TRUE(f.killed_by_us);
    EXPECT_FALSE(f.fill_planned && i == 0);
  }
  EXPECT_GT(r.cycles[1].acked, r.cycles[0].acked) << "the write-through server acknowledged writes";
  if (!r.disk_skipped.empty()) {
    std::printf("the disk part was skipped: %s\n", r.disk_skipped.c_str());
    EXPECT_EQ(r.disk, "");
    EXPECT_FALSE(r.cycles[1].fill_planned);
    EXPECT_EQ(r.valid.no_space_refused, 0u);
  } else {
    const FillFigures& fill = r.cycles[1].fill;
    std::printf("the fill: %llu bytes; %llu puts refused, %llu accepted while full; /health no_space %llu of %llu\n",
                static_cast<unsigned long long>(fill.filler_bytes), static_cast<unsigned long long>(fill.refused),
                static_cast<unsigned long long>(fill.accepted_full), static_cast<unsigned long long>(fill.health_no_space),
                static_cast<unsigned long long>(fill.health_checks));
    EXPECT_TRUE(r.cycles[1].fill_planned);
    ASSERT_TRUE(fill.ran) << fill.error;
    EXPECT_GT(fill.filler_bytes, 0u);
    EXPECT_GT(fill.refused, 0u) << "the full disk refused no put";
    EXPECT_EQ(r.valid.no_space_refused, fill.refused) << "every expected 507 was inside the fill's window";
    EXPECT_GT(fill.health_no_space, 0u);
    EXPECT_EQ(fill.health_other, 0u);
    EXPECT_GT(fill.accepted_after_free, 0u) << "no put was accepted after the filler went";
    EXPECT_EQ(r.disk_problems, 0u);
    EXPECT_GE(r.engine.no_space_episodes, 1u) << "the server's own count, read off /metrics before the kill";
    EXPECT_GE(r.engine.no_space_refusals, fill.refused);
    ExpectDiskGone(c);
  }
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

// A stop (Ctrl-C) once the filler has begun: the run winds down and takes
// its filler, mount and loop device with it.
TEST(SoakLive, AStopInAFillLeavesNoDiskBehind) {
  if (std::string why = kit::fs_unavailable_reason("ext4"); !why.empty()) GTEST_SKIP() << why;
  base::ScratchDir dir;
  SoakConfig c = ShortSoak(dir.path(), "StopInFill");
  if (c.server_bin.empty() || c.holder_bin.empty()) GTEST_SKIP() << "FENEC_SERVER_BIN / CONNS_HOLDER_BIN not set";
  c.seconds = 30;
  c.cycles = 3;
  c.fills = "1";
  const std::string filler = c.disk_dir + "/mnt/filler";
  std::atomic<bool> seen{false};  // once true, stays: the filler goes as soon as the stop is seen
  const SoakReport r = RunSoak(c, [&] {
    if (!seen && std::filesystem::exists(filler)) seen = true;
    return seen.load();
  });
  ASSERT_EQ(r.disk_skipped, "");
  EXPECT_TRUE(seen);
  ASSERT_EQ(r.cycles.size(), 1u) << "a stop ends the run after the cycle it came in";
  EXPECT_TRUE(r.cycles[0].fill_planned);
  EXPECT_EQ(r.lost(), 0u);
  EXPECT_EQ(r.own_crashes, 0);
  EXPECT_EQ(r.final_exit, 0);
  ExpectDiskGone(c);
}

}  // namespace
}  // namespace fenec::scenarios::soak
