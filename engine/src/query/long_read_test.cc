// AGGREGATE's GROUP BY folds rows as the engine streams them: what it holds
// is its groups, at most kMaxGroups, and one over is refused with nothing
// changed.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "fenec/database.h"
#include "engine/src/query/aggregate.h"
#include "engine/src/query/service.h"
#include "engine/src/base/testing.h"

namespace fenec::query {
namespace {

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

}  // namespace
}  // namespace fenec::query
