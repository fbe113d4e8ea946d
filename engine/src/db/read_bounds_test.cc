// Long reads that a caller can bound: a deadline, a cancel flag, and pages
// (ReadOptions::after), on every way a scan is served (pinned, under the
// lock, a snapshot, an index).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>

#include "fenec/database.h"
#include "engine/src/base/testing.h"

namespace fenec {
namespace read_bounds_test {

constexpr int kRows = 2000;

struct Fixture {
  base::ScratchDir dir;
  std::unique_ptr<Database> db;
  CollectionId c;
  explicit Fixture(LongReads reads = LongReads::kPinned) {
    Options o;
    o.durability = Durability::kBuffered;
    o.long_reads = reads;
    auto opened = Database::Open(dir.path(), o);
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    db = std::move(opened).value();
    auto made = db->CreateCollection("t", Schema{{Field::Text("k").Unique(), Field::Int("n")}});
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    c = *made;
    std::vector<Document> docs;
    for (int i = 0; i < kRows; ++i) docs.push_back({Value("k" + std::to_string(i)), Value(int64_t{i % 10})});
    EXPECT_TRUE(db->PutBatch(c, std::move(docs)).ok());
  }
};

std::vector<DocId> Ids(const std::vector<Row>& rows) {
  std::vector<DocId> ids;
  for (const Row& r : rows) ids.push_back(r.id);
  return ids;
}

class ReadBounds : public ::testing::TestWithParam<LongReads> {};

TEST_P(ReadBounds, PagesJoinToTheWholeScan) {
  Fixture f(GetParam());
  Filter even;
  even.Where("n", CompareOp::kLt, Value(int64_t{5}));
  auto all = f.db->Scan(f.c, even, 0);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), size_t{kRows / 2});
  std::vector<DocId> paged;
  ReadOptions ro;
  for (int pages = 0;; ++pages) {
    ASSERT_LT(pages, kRows);
    auto page = f.db->Scan(f.c, even, 77, ro);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    if (page->empty()) break;
    for (DocId id : Ids(*page)) paged.push_back(id);
    ro.after = page->back().id;
  }
  EXPECT_EQ(paged, Ids(*all));
}

TEST_P(ReadBounds, APastDeadlineStopsScanAndAggregate) {
  Fixture f(GetParam());
  ReadOptions ro;
  ro.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  EXPECT_EQ(f.db->Scan(f.c, {}, 0, ro).status().code(), StatusCode::kTimedOut);
  EXPECT_EQ(f.db->Aggregate(f.c, "n", {}, ro).status().code(), StatusCode::kTimedOut);
  ro.deadline = std::chrono::steady_clock::now() + std::chrono::hours(1);
  auto rows = f.db->Scan(f.c, {}, 0, ro);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->size(), size_t{kRows});
}

TEST_P(ReadBounds, CancelStopsAScanAsItGoes) {
  Fixture f(GetParam());
  std::atomic<bool> cancel{false};
  ReadOptions ro;
  ro.cancel = &cancel;
  uint64_t visited = 0;
  Status s = f.db->ScanEach(f.c, {}, ro, [&](DocId, const Document&) {
    if (++visited == 10) cancel.store(true);
    return true;
  });
  EXPECT_EQ(s.code(), StatusCode::kTimedOut) << s.ToString();
  // The flag is looked at every few hundred rows, never after the scan's end.
  EXPECT_GE(visited, 10u);
  EXPECT_LT(visited, uint64_t{kRows});
}

INSTANTIATE_TEST_SUITE_P(Modes, ReadBounds, ::testing::Values(LongReads::kPinned, LongReads::kUnderLock));

TEST(ReadBoundsSnapshot, PagesAndDeadlineThroughASnapshot) {
  Fixture f;
  auto pin = f.db->Pin();
  ASSERT_TRUE(pin.ok());
  ReadOptions ro;
  ro.snapshot = *pin;
  ro.after = kRows - 5;
  auto tail = f.db->Scan(f.c, {}, 0, ro);
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(Ids(*tail), (std::vector<DocId>{kRows - 4, kRows - 3, kRows - 2, kRows - 1, kRows}));
  ro.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  EXPECT_EQ(f.db->Scan(f.c, {}, 0, ro).status().code(), StatusCode::kTimedOut);
}

TEST(ReadBoundsIndex, AnIndexAnsweredReadHonoursAfter) {
  Fixture f;
  Filter one;
  one.Where("k", CompareOp::kEq, Value("k41"));
  auto hit = f.db->Scan(f.c, one, 0);
  ASSERT_TRUE(hit.ok());
  ASSERT_EQ(hit->size(), 1u);
  ReadOptions ro;
  ro.after = hit->front().id;
  auto none = f.db->Scan(f.c, one, 0, ro);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(ReadBoundsEach, StopsWhenTheCallbackSaysSo) {
  Fixture f;
  std::vector<DocId> seen;
  Status s = f.db->ScanEach(f.c, {}, {}, [&](DocId id, const Document& doc) {
    EXPECT_EQ(doc.size(), 2u);
    seen.push_back(id);
    return seen.size() < 3;
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(seen, (std::vector<DocId>{1, 2, 3}));
}

// A filter of many conditions finds its fields through a map built once
// (filter.cc); the answers are the ones a field-by-field lookup gives.
TEST(ReadBoundsFilter, ManyConditionsFindTheirFields) {
  base::ScratchDir dir;
  Options o;
  o.durability = Durability::kBuffered;
  auto db = Database::Open(dir.path(), o);
  ASSERT_TRUE(db.ok());
  Schema wide;
  for (int i = 0; i < 100; ++i) wide.fields.push_back(Field::Int("f" + std::to_string(i)));
  auto c = (*db)->CreateCollection("w", wide);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  for (int64_t n = 0; n < 10; ++n) {
    Document d;
    // Built in place: a moved temporary Value made GCC 12 warn (maybe-uninitialized)
    // about the string alternative the variant's move never reads for an int.
    for (int i = 0; i < 100; ++i) d.emplace_back(n + i);
    ASSERT_TRUE((*db)->Put(*c, d).ok());
  }
  Filter f;
  for (int i = 99; i >= 50; --i) f.Where("f" + std::to_string(i), CompareOp::kGe, Value(int64_t{i + 4}));
  auto rows = (*db)->Scan(*c, f, 0);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(Ids(*rows), (std::vector<DocId>{5, 6, 7, 8, 9, 10}));
  f.Where("nosuch", CompareOp::kEq, Value(int64_t{1}));
  EXPECT_EQ((*db)->Scan(*c, f, 0).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace read_bounds_test
}  // namespace fenec
