#include <gtest/gtest.h>

#include <filesystem>

#include "fenec/database.h"
#include "engine/src/journal/reader.h"
#include "engine/src/base/testing.h"

namespace fenec {
namespace db_test {

Schema PeopleSchema() {
  return Schema{{Field::Text("name"), Field::Int("age"), Field::Float("score"), Field::Bool("active"),
                 Field::Vector("emb", 3)}};
}

Document Person(const std::string& name, int64_t age, double score = 1.5, bool active = true) {
  return {Value(name), Value(age), Value(score), Value(active), Value(std::vector<float>{1, 2, 3})};
}

std::unique_ptr<Database> OpenDb(const std::string& dir, Options o = {}) {
  auto db = Database::Open(dir, o);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  return db.ok() ? std::move(db).value() : nullptr;
}

TEST(Database, PutGetDeleteAndReopen) {
  base::ScratchDir dir;
  DocId ann, bob;
  {
    auto db = OpenDb(dir.path());
    auto people = db->CreateCollection("people", PeopleSchema());
    ASSERT_TRUE(people.ok()) << people.status().ToString();
    auto a = db->Put(*people, Person("ann", 41));
    auto b = db->Put(*people, Person("bob", 30));
    ASSERT_TRUE(a.ok() && b.ok());
    ann = *a;
    bob = *b;
    EXPECT_EQ(ann, 1u);
    EXPECT_EQ(bob, 2u);
    auto got = db->Get(*people, ann);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(*got, Person("ann", 41));
    EXPECT_TRUE(db->Delete(*people, bob).ok());
    EXPECT_TRUE(db->Get(*people, bob).status().IsNotFound());
    EXPECT_TRUE(db->Delete(*people, bob).IsNotFound());
    EXPECT_EQ(*db->Count(*people), 1u);
    EXPECT_EQ(db->GetStats().commits, 4u);  // create + 2 puts + delete
    ASSERT_TRUE(db->Close().ok());
    EXPECT_EQ(db->Put(*people, Person("x", 1)).status().code(), StatusCode::kClosed);
  }
  auto db = OpenDb(dir.path());
  auto people = db->FindCollection("people");
  ASSERT_TRUE(people.ok());
  EXPECT_EQ(*db->Get(*people, ann), Person("ann", 41));
  EXPECT_TRUE(db->Get(*people, bob).status().IsNotFound());
  EXPECT_EQ(*db->Count(*people), 1u);
  EXPECT_EQ(*db->Put(*people, Person("cy", 5)), 3u);  // ids are never reused
  EXPECT_TRUE(db->Check().ok());
}

TEST(Database, RecoversFromJournalWithoutCheckpoint) {
  base::ScratchDir dir;
  Options o;
  o.checkpoint_on_close = false;
  {
    auto db = OpenDb(dir.path(), o);
    auto c = db->CreateCollection("c", PeopleSchema());
    for (int i = 0; i < 100; ++i) ASSERT_TRUE(db->Put(*c, Person("p" + std::to_string(i), i)).ok());
    ASSERT_TRUE(db->Delete(*c, 50).ok());
  }
  auto db = OpenDb(dir.path(), o);
  EXPECT_EQ(db->GetStats().recovered_records, 102u);
  auto c = db->FindCollection("c");
  EXPECT_EQ(*db->Count(*c), 99u);
  EXPECT_EQ(*db->Get(*c, 100), Person("p99", 99));
  EXPECT_TRUE(db->Get(*c, 50).status().IsNotFound());
  EXPECT_TRUE(db->Check().ok());
}

TEST(Database, RejectsBadInput) {
  base::ScratchDir dir;
  auto db = OpenDb(dir.path());
  EXPECT_EQ(db->CreateCollection("", PeopleSchema()).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(db->CreateCollection("x", Schema{}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(db->CreateCollection("x", Schema{{Field::Vector("v", 0)}}).status().code(), StatusCode::kInvalidArgument);
  auto c = db->CreateCollection("x", PeopleSchema());
  EXPECT_EQ(db->CreateCollection("x", PeopleSchema()).status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(db->Put(*c, {Value("a")}).status().code(), StatusCode::kInvalidArgument);
  Document wrong = Person("a", 1);
  wrong[1] = Value("not an int");
  Status s = db->Put(*c, wrong).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("'age'"), std::string::npos) << s.ToString();
  wrong = Person("a", 1);
  wrong[4] = Value(std::vector<float>{1});
  EXPECT_EQ(db->Put(*c, wrong).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(db->Put(CollectionId{99}, Person("a", 1)).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(*db->Count(*c), 0u);
  Document nulls(5);  // every field missing is a valid document
  EXPECT_TRUE(db->Put(*c, nulls).ok());
  EXPECT_EQ(*db->Get(*c, db->Scan(*c, {}, 1)->at(0).id), nulls);
}

TEST(Database, MissingFolderWithoutCreateIsNotFound) {
  base::ScratchDir dir;
  Options o;
  o.create_if_missing = false;
  auto db = Database::Open(dir.path() + "/nope", o);
  EXPECT_EQ(db.status().code(), StatusCode::kNotFound);
}

TEST(Database, ScanFilterLimitAndAggregates) {
  base::ScratchDir dir;
  auto db = OpenDb(dir.path());
  auto c = db->CreateCollection("c", PeopleSchema());
  std::vector<Document> docs;
  for (int i = 1; i <= 100; ++i) docs.push_back(Person("n" + std::to_string(i), i, i * 0.5, i % 2 == 0));
  auto ids = db->PutBatch(*c, docs);
  ASSERT_TRUE(ids.ok());
  ASSERT_EQ(ids->size(), 100u);
  EXPECT_EQ(db->GetStats().commits, 2u);

  auto all = db->Scan(*c, {}, 0);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 100u);
  auto some = db->Scan(*c, Filter().Where("age", CompareOp::kGt, 90).Where("active", CompareOp::kEq, Value(true)), 3);
  ASSERT_TRUE(some.ok());
  ASSERT_EQ(some->size(), 3u);
  EXPECT_EQ(some->at(0).doc[1], Value(92));
  EXPECT_EQ(some->at(2).doc[1], Value(96));

  auto agg = db->Aggregate(*c, "age");
  ASSERT_TRUE(agg.ok());
  EXPECT_EQ(agg->count, 100u);
  EXPECT_EQ(agg->int_sum, 5050);
  EXPECT_EQ(agg->min, Value(1));
  EXPECT_EQ(agg->max, Value(100));
  auto fagg = db->Aggregate(*c, "score", Filter().Where("age", CompareOp::kLe, 10));
  EXPECT_EQ(fagg->count, 10u);
  EXPECT_DOUBLE_EQ(fagg->sum, 27.5);
  EXPECT_EQ(fagg->max, Value(5.0));
  auto names = db->Aggregate(*c, "name");
  EXPECT_EQ(names->min, Value("n1"));
  EXPECT_EQ(names->max, Value("n99"));
  EXPECT_EQ(db->Aggregate(*c, "", Filter().Where("score", CompareOp::kGe, 25))->count, 51u);
  EXPECT_EQ(db->Aggregate(*c, "emb").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(db->Scan(*c, Filter().Where("nope", CompareOp::kEq, 1), 0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(db->Scan(*c, Filter().Where("age", CompareOp::kEq, "x"), 0).status().code(), StatusCode::kInvalidArgument);
}

TEST(Database, ContainsWithoutTextIndex) {
  base::ScratchDir dir;
  auto db = OpenDb(dir.path());
  auto c = db->CreateCollection("notes", Schema{{Field::Text("body")}});
  ASSERT_TRUE(db->Put(*c, {Value("The quick brown Fox")}).ok());
  ASSERT_TRUE(db->Put(*c, {Value("a lazy dog, quick!")}).ok());
  EXPECT_EQ(db->Scan(*c, Filter().Where("body", CompareOp::kContains, "QUICK"), 0)->size(), 2u);
  EXPECT_EQ(db->Scan(*c, Filter().Where("body", CompareOp::kContains, "fox quick"), 0)->size(), 1u);
  EXPECT_EQ(db->Scan(*c, Filter().Where("body", CompareOp::kContains, "qui"), 0)->size(), 0u);
}

TEST(Database, UniqueRejectsDuplicatesAndChangesNothing) {
  base::ScratchDir dir;
  auto db = OpenDb(dir.path());
  auto c = db->CreateCollection("users", Schema{{Field::Text("email").Unique(), Field::Int("n")}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_TRUE(db->Put(*c, {Value("a@x"), Value(1)}).ok());
  Status dup = db->Put(*c, {Value("a@x"), Value(2)}).status();
  EXPECT_TRUE(dup.IsConstraint()) << dup.ToString();
  EXPECT_NE(dup.message().find("email"), std::string::npos);
  // In a batch: a clash with a stored row, or within the batch, rejects all of it.
  EXPECT_TRUE(db->PutBatch(*c, {{Value("b@x"), Value(3)}, {Value("a@x"), Value(4)}}).status().IsConstraint());
  EXPECT_TRUE(db->PutBatch(*c, {{Value("c@x"), Value(5)}, {Value("c@x"), Value(6)}}).status().IsConstraint());
  EXPECT_EQ(*db->Count(*c), 1u);
  EXPECT_TRUE(db->Scan(*c, Filter().Where("email", CompareOp::kEq, "b@x"), 0)->empty());
  // Nulls are not keys; a deleted row's key is free again.
  ASSERT_TRUE(db->Put(*c, {Value(), Value(7)}).ok());
  ASSERT_TRUE(db->Put(*c, {Value(), Value(8)}).ok());
  auto one = db->Scan(*c, Filter().Where("email", CompareOp::kEq, "a@x"), 0);
  ASSERT_EQ(one->size(), 1u);
  ASSERT_TRUE(db->Delete(*c, one->at(0).id).ok());
  EXPECT_TRUE(db->Put(*c, {Value("a@x"), Value(9)}).ok());
  EXPECT_TRUE(db->Check().ok());
  ASSERT_TRUE(db->Close().ok());
  auto db2 = OpenDb(dir.path());
  auto c2 = db2->FindCollection("users");
  EXPECT_TRUE(db2->Put(*c2, {Value("a@x"), Value(10)}).status().IsConstraint());
  EXPECT_TRUE(db2->Check().ok());
}

TEST(Database, TextIndexAnswersContains) {
  base::ScratchDir dir;
  auto db = OpenDb(dir.path());
  auto c = db->CreateCollection("docs", Schema{{Field::Text("body").TextIndexed(), Field::Int("n")}});
  ASSERT_TRUE(db->Put(*c, {Value("red apple pie"), Value(1)}).ok());
  ASSERT_TRUE(db->Put(*c, {Value("green apple"), Value(2)}).ok());
  ASSERT_TRUE(db->Put(*c, {Value("red car"), Value(3)}).ok());
  uint64_t pins = db->GetStats().pins;
  auto r = db->Scan(*c, Filter().Where("body", CompareOp::kContains, "apple").Where("n", CompareOp::kGt, 1), 0);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ(r->at(0).id, 2u);
  EXPECT_EQ(db->GetStats().pins, pins);  // answered by the index, under the lock, no pin
  ASSERT_TRUE(db->Delete(*c, 1).ok());
  EXPECT_EQ(db->Scan(*c, Filter().Where("body", CompareOp::kContains, "red"), 0)->size(), 1u);
  EXPECT_TRUE(db->Check().ok());
}

TEST(Database, CheckpointDeletesJournalsNoLongerNeeded) {
  base::ScratchDir dir;
  Options o;
  o.journal_file_bytes = 8192;  // rotate often
  auto db = OpenDb(dir.path(), o);
  auto c = db->CreateCollection("c", PeopleSchema());
  for (int i = 0; i < 300; ++i) ASSERT_TRUE(db->Put(*c, Person("p" + std::to_string(i), i)).ok());
  std::vector<journal::JournalFile> files;
  ASSERT_TRUE(journal::ListJournalFiles(Env::Default(), dir.path() + "/Journals", &files).ok());
  size_t before = files.size();
  EXPECT_GE(before, 3u);
  ASSERT_TRUE(db->Checkpoint().ok());
  ASSERT_TRUE(db->Put(*c, Person("after", 1)).ok());  // lands in a new file
  ASSERT_TRUE(db->Checkpoint().ok());
  ASSERT_TRUE(journal::ListJournalFiles(Env::Default(), dir.path() + "/Journals", &files).ok());
  EXPECT_EQ(files.size(), 1u);
  EXPECT_EQ(db->GetStats().checkpoints, 2u);
  db.reset();
  auto db2 = OpenDb(dir.path(), o);
  EXPECT_EQ(db2->GetStats().recovered_records, 0u);
  EXPECT_EQ(*db2->Count(*db2->FindCollection("c")), 301u);
}

// Zero ahead: the journal's zeros are counted, recovery reads them as the
// end (nothing discarded), and the switch off writes none.
TEST(Database, JournalZeroAheadRecoversEveryCommit) {
  for (uint64_t ahead : {uint64_t{0}, uint64_t{1} << 20}) {
    base::ScratchDir dir;
    Options o;
    o.journal_zero_ahead = ahead;
    o.checkpoint_on_close = false;  // reopening replays the journal
    {
      auto db = OpenDb(dir.path(), o);
      auto c = db->CreateCollection("c", PeopleSchema());
      for (int i = 0; i < 50; ++i) ASSERT_TRUE(db->Put(*c, Person("p" + std::to_string(i), i)).ok());
      EXPECT_EQ(db->GetStats().journal_zero_bytes, ahead) << "one run of zeros: 50 small commits fit in it";
    }
    auto db = OpenDb(dir.path(), o);
    EXPECT_EQ(*db->Count(*db->FindCollection("c")), 50u) << "zero_ahead " << ahead;
    EXPECT_EQ(db->GetStats().recovery_discarded_bytes, 0u) << "zero_ahead " << ahead;
  }
  Options bad;
  bad.journal_zero_ahead = 1ull << 30;
  base::ScratchDir dir;
  EXPECT_EQ(Database::Open(dir.path(), bad).status().code(), StatusCode::kInvalidArgument);
}

TEST(Database, WriteBuffersHandOverInPieces) {
  base::ScratchDir dir;
  Options o;
  o.write_buffer_bytes = 4096;
  o.handover_piece = 10;
  auto db = OpenDb(dir.path(), o);
  auto c = db->CreateCollection("c", Schema{{Field::Text("t")}});
  std::string body(100, 'x');
  for (int i = 0; i < 400; ++i) ASSERT_TRUE(db->Put(*c, {Value(body + std::to_string(i))}).ok());
  Stats st = db->GetStats();
  // 400 rows of ~105 bytes in 4 KiB buffers: a buffer written every ~39 rows.
  EXPECT_GE(st.buffer_flushes, 9u);
  EXPECT_EQ(st.buffer_flushes_under_lock, 0u);
  EXPECT_GT(st.handover_entries, 300u);
  EXPECT_LE(st.handover_entries, st.handover_pieces * 10);  // never more than a piece per hold
  for (int i = 0; i < 400; i += 37) EXPECT_EQ(*db->Get(*c, i + 1), Document{Value(body + std::to_string(i))});
}

TEST(Database, PinnedReadSeesTheDatabaseAsItStood) {
  base::ScratchDir dir;
  auto db = OpenDb(dir.path());
  auto c = db->CreateCollection("c", PeopleSchema());
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(db->Put(*c, Person("p", i)).ok());
  auto pin = db->Pin();
  ASSERT_TRUE(pin.ok());
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(db->Put(*c, Person("q", 100 + i)).ok());
  ASSERT_TRUE(db->Delete(*c, 1).ok());
  ReadOptions ro{*pin};
  EXPECT_EQ(db->Aggregate(*c, "age", {}, ro)->count, 50u);
  EXPECT_EQ(db->Aggregate(*c, "age")->count, 99u);
  EXPECT_TRUE(db->Get(*c, 1, ro).ok());
  EXPECT_TRUE(db->Get(*c, 60, ro).status().IsNotFound());
}

}  // namespace db_test
}  // namespace fenec
