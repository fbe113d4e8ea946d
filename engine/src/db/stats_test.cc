// The counter registry (fenec/stats.h): every declared counter is a Stats
// field reachable by its Stat, its declaration is well formed, and
// ResetStats does to each what its kind says: zeroes kCounter and kMaximum,
// keeps kPeak and kGauge. The /metrics side is checked in
// engine/server/server_test.cc, the bench rows in scenarios/soak/soak_test.cc.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "engine/src/io/stat_counters.h"
#include "engine/src/base/testing.h"
#include "fenec/database.h"
#include "fenec/stats.h"

namespace fenec {
namespace stats_test {

uint64_t Distinct(Stat s) { return Info(s).unit == StatUnit::kBool ? 1 : 1000 + static_cast<uint64_t>(s); }

TEST(StatsRegistry, EveryDeclaredCounterIsAFieldOfItsOwn) {
  Stats st;
  for (Stat s : kAllStats) EXPECT_EQ(st.get(s), 0u) << Info(s).name << " starts at 0";
  for (Stat s : kAllStats) st.set(s, Distinct(s));
  for (Stat s : kAllStats) EXPECT_EQ(st.get(s), Distinct(s)) << Info(s).name;
  // The named field is the one the Stat reaches.
  st.set(Stat::journal_links, 7);
  EXPECT_EQ(st.journal_links, 7u);
  st.set(Stat::fail_stopped, 1);
  EXPECT_TRUE(st.fail_stopped);
}

TEST(StatsRegistry, DeclarationsAreWellFormed) {
  std::set<std::string> names, metrics;
  const std::regex finding("([A-Z]{2}-[0-9]+)?");
  const std::regex metric("fenec_[a-z0-9_]+");
  for (Stat s : kAllStats) {
    const StatInfo& i = Info(s);
    EXPECT_TRUE(names.insert(i.name).second) << i.name << " declared twice";
    EXPECT_TRUE(std::regex_match(i.finding, finding)) << i.name << ": finding '" << i.finding << "'";
    EXPECT_GT(std::string(i.help).size(), 5u) << i.name << " has no help";
    const std::string m = MetricName(s);
    EXPECT_TRUE(metrics.insert(m).second) << m << " named twice";
    EXPECT_TRUE(std::regex_match(m, metric)) << m;
    EXPECT_EQ(m.ends_with("_total"), i.kind == StatKind::kCounter) << m;
    if (i.unit == StatUnit::kNs) {
      EXPECT_NE(m.find("_seconds"), std::string::npos) << m;
    }
    if (i.unit == StatUnit::kBool) {
      EXPECT_EQ(i.kind, StatKind::kGauge) << i.name;
    }
  }
  EXPECT_EQ(MetricName(Stat::write_lock_hold_ns), "fenec_write_lock_hold_seconds_total");
  EXPECT_EQ(MetricName(Stat::write_lock_wait_max_ns), "fenec_write_lock_wait_max_seconds");
  EXPECT_DOUBLE_EQ(MetricValue(Stat::pin_max_ns, 2'500'000'000), 2.5);
}

TEST(StatsRegistry, AccumulateSumsCountersKeepsTheLargerMaximumAndTheLaterGauge) {
  Stats a, b;
  a.commits = 3, b.commits = 4;
  a.write_lock_hold_max_ns = 9, b.write_lock_hold_max_ns = 5;
  a.vector_round_distances_max = 1, b.vector_round_distances_max = 2;
  a.last_lsn = 30, b.last_lsn = 12;  // a restarted server's LSNs are its own
  a.fail_stopped = true;
  a.Accumulate(b);
  EXPECT_EQ(a.commits, 7u);
  EXPECT_EQ(a.write_lock_hold_max_ns, 9u);
  EXPECT_EQ(a.vector_round_distances_max, 2u);
  EXPECT_EQ(a.last_lsn, 12u);
  EXPECT_FALSE(a.fail_stopped);
}

TEST(StatCounters, ResetZeroesWhatItsKindSaysAndAddToMergesParts) {
  StatCounters c;
  for (Stat s : kAllStats) c.Set(s, Distinct(s));
  Stats before = c.Snapshot();
  c.Reset();
  for (Stat s : kAllStats) {
    const uint64_t want = ZeroedByReset(Info(s).kind) ? 0 : before.get(s);
    EXPECT_EQ(c.Load(s), want) << Info(s).name << " (" << KindName(Info(s).kind) << ")";
  }
  StatCounters p, q;
  p.Add(Stat::journal_writes, 2);
  q.Add(Stat::journal_writes, 3);
  p.Max(Stat::pin_max_ns, 10);
  q.Max(Stat::pin_max_ns, 4);
  q.Max(Stat::pin_max_ns, 2);  // never lowers
  Stats st;
  p.AddTo(&st);
  q.AddTo(&st);
  EXPECT_EQ(st.journal_writes, 5u);
  EXPECT_EQ(st.pin_max_ns, 10u);
}

// A database that did a little of everything: puts into a @unique and a
// @hnsw field (shared journals: hard links), a pin, a NEAR, a delete, a
// checkpoint; then ResetStats, with nothing running.
TEST(StatsRegistry, ResetStatsZeroesCountersAndMaximaKeepsPeaksAndGauges) {
  base::ScratchDir dir;
  auto opened = Database::Open(dir.path(), Options{});
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::unique_ptr<Database> db = std::move(opened).value();
  auto c = db->CreateCollection("c", Schema{{Field::Text("email").Unique(), Field::Int("n"),
                                             Field::Vector("v", 4).Hnsw()}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  std::vector<DocId> ids;
  for (int i = 0; i < 200; ++i) {
    const float f = static_cast<float>(i);
    auto id = db->Put(*c, {Value("u" + std::to_string(i) + "@x"), Value(int64_t{i}),
                           Value(std::vector<float>{f, f / 2, 1, -f})});
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    ids.push_back(*id);
  }
  ASSERT_TRUE(db->WaitForIndexes().ok());
  auto pin = db->Pin();
  ASSERT_TRUE(pin.ok());
  const std::vector<float> q{3, 1.5, 1, -3};
  ASSERT_TRUE(db->Near(*c, "v", q).ok());
  ASSERT_TRUE(db->Delete(*c, ids[5]).ok());
  ASSERT_TRUE(db->Checkpoint().ok());
  ASSERT_TRUE(db->WaitForIndexes().ok());

  const Stats before = db->GetStats();
  // The work reached the counters the registry must get right (journal_links
  // was reset but not reported before the registry).
  EXPECT_GE(before.commits, 201u);
  EXPECT_GT(before.journal_links, 0u);
  EXPECT_GT(before.group_leads, 0u);
  EXPECT_GT(before.pins, 0u);
  EXPECT_GT(before.checkpoints, 0u);
  EXPECT_GT(before.write_lock_hold_max_ns, 0u);
  EXPECT_GT(before.vector_linked, 0u);
  EXPECT_GT(before.vector_nodes, 0u);
  EXPECT_GT(before.durable_lsn, 0u);
  EXPECT_EQ(before.branches, 2u);  // the @unique field's and the @hnsw field's
  EXPECT_TRUE(before.journals_shared);

  db->ResetStats();
  const Stats after = db->GetStats();
  for (Stat s : kAllStats) {
    const StatInfo& i = Info(s);
    if (ZeroedByReset(i.kind))
      EXPECT_EQ(after.get(s), 0u) << i.name << " (" << KindName(i.kind) << ") survived ResetStats";
    else
      EXPECT_EQ(after.get(s), before.get(s)) << i.name << " (" << KindName(i.kind) << ") changed by ResetStats";
  }
  pin->reset();
  ASSERT_TRUE(db->Close().ok());
}

}  // namespace stats_test
}  // namespace fenec
