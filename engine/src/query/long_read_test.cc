// Long reads bounded by what is set, not by the collection: AGGREGATE's
// GROUP BY folds rows as the engine streams them (what it holds is its
// groups, at most kMaxGroups); a FIND answers pages (Limits::find_page,
// max_find_rows) with the AFTER that asks for the next; CancelReads stops
// every long read (503 timeout).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "fenec/database.h"
#include "engine/src/query/aggregate.h"
#include "engine/src/query/service.h"
#include "engine/src/base/testing.h"

namespace fenec::query {
namespace long_read_test {

class LongReads : public ::testing::Test {
 protected:
  void SetUp() override {
    Options o;
    o.durability = Durability::kBuffered;
    auto db = Database::Open(dir_.path() + "/db", o);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    svc_ = std::make_unique<Service>(db_.get());
    auto c = db_->CreateCollection("t", Schema{{Field::Int("g"), Field::Int("n")}});
    ASSERT_TRUE(c.ok());
    c_ = *c;
  }
  // Documents with g = 0..groups-1, each twice.
  void Fill(size_t groups) {
    std::vector<Document> docs;
    for (size_t i = 0; i < 2 * groups; ++i)
      docs.push_back({Value(static_cast<int64_t>(i % groups)), Value(static_cast<int64_t>(i))});
    ASSERT_TRUE(db_->PutBatch(c_, std::move(docs)).ok());
  }
  Answer Q(const std::string& statement) {
    std::string body = R"j({"statement": ")j" + statement + "\"}";
    return svc_->Query(body);
  }

  base::ScratchDir dir_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<Service> svc_;
  CollectionId c_;
};

TEST_F(LongReads, GroupByUpToTheCapAnswersEveryGroup) {
  Fill(kMaxGroups);
  Answer a = Q("AGGREGATE t COUNT(*), SUM(n) GROUP BY g");
  ASSERT_EQ(a.http, 200) << a.body.substr(0, 200);
  EXPECT_NE(a.body.find("[0,2,"), std::string::npos);
  EXPECT_NE(a.body.find(fmt::format("[{},2,", kMaxGroups - 1)), std::string::npos);
}

TEST_F(LongReads, OneGroupPastTheCapIsRefusedNamingIt) {
  Fill(kMaxGroups + 1);
  Answer a = Q("AGGREGATE t COUNT(*) GROUP BY g");
  EXPECT_EQ(a.http, 413) << a.body.substr(0, 200);
  EXPECT_NE(a.body.find("\"code\":\"too_large\""), std::string::npos) << a.body;
  EXPECT_NE(a.body.find(std::to_string(kMaxGroups)), std::string::npos) << a.body;
  // Without GROUP BY the same rows fold into one row.
  Answer all = Q("AGGREGATE t COUNT(*), MAX(n)");
  EXPECT_EQ(all.http, 200) << all.body;
  EXPECT_NE(all.body.find(fmt::format("[{},{}]", 2 * (kMaxGroups + 1), 2 * (kMaxGroups + 1) - 1)), std::string::npos)
      << all.body;
}

TEST_F(LongReads, FindWithoutLimitAnswersAPageAndTheAfterForTheNext) {
  Limits small;
  small.find_page = 7;
  small.max_find_rows = 50;
  svc_ = std::make_unique<Service>(db_.get(), small);
  Fill(10);  // 20 documents, ids 1..20; n = id - 1
  std::vector<int64_t> seen;
  std::string after = "0";
  for (int page = 0; page < 10; ++page) {
    Answer a = Q("FIND t WHERE n >= 3 AFTER " + after);
    ASSERT_EQ(a.http, 200) << a.body;
    size_t next = a.body.find("\"next\":");
    for (size_t at = a.body.find("{\"id\":"); at != std::string::npos; at = a.body.find("{\"id\":", at + 1))
      seen.push_back(std::stoll(a.body.substr(at + 6)));
    if (next == std::string::npos) break;
    after = a.body.substr(next + 7, a.body.find('}', next) - next - 7);
    EXPECT_EQ(after, std::to_string(seen.back())) << a.body;
  }
  std::vector<int64_t> want;
  for (int64_t id = 4; id <= 20; ++id) want.push_back(id);
  EXPECT_EQ(seen, want);
  // A page that ends exactly at the last row has no "next".
  Answer last = Q("FIND t WHERE n >= 3 AFTER 13");
  EXPECT_EQ(last.body.find("\"next\""), std::string::npos) << last.body;
  EXPECT_NE(last.body.find("\"count\":7"), std::string::npos) << last.body;
  // LIMIT asks for a page of its own size, up to max_find_rows.
  EXPECT_EQ(Q("FIND t LIMIT 50").http, 200);
  Answer over = Q("FIND t LIMIT 51");
  EXPECT_EQ(over.http, 413) << over.body;
  EXPECT_NE(over.body.find("max_find_rows = 50"), std::string::npos) << over.body;
}

TEST_F(LongReads, AfterTakesAParameterAndRefusesNear) {
  Fill(5);
  std::string body = R"j({"statement": "FIND t AFTER $1 LIMIT 2", "params": [8]})j";
  Answer a = svc_->Query(body);
  ASSERT_EQ(a.http, 200) << a.body;
  EXPECT_NE(a.body.find("{\"id\":9,"), std::string::npos) << a.body;
  EXPECT_EQ(a.body.find("\"next\""), std::string::npos) << a.body;
  std::string bad = R"j({"statement": "FIND t AFTER $1", "params": [-1]})j";
  EXPECT_EQ(svc_->Query(bad).http, 400);
  auto v = db_->CreateCollection("v", Schema{{Field::Vector("e", 2).Hnsw()}});
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(Q("FIND v NEAR e [1, 2] AFTER 3").http, 400);
}

TEST_F(LongReads, CancelledReadsAnswerTimeoutAndWritesGoOn) {
  Fill(300);
  svc_->CancelReads();
  Answer find = Q("FIND t LIMIT 10");
  EXPECT_EQ(find.http, 503) << find.body;
  EXPECT_NE(find.body.find("\"code\":\"timeout\""), std::string::npos) << find.body;
  EXPECT_EQ(Q("AGGREGATE t COUNT(*) GROUP BY g").http, 503);
  EXPECT_EQ(Q("AGGREGATE t SUM(n)").http, 503);
  EXPECT_EQ(Q("PUT t {g: 1, n: 2}").http, 200);
}

}  // namespace long_read_test
}  // namespace fenec::query
