// The writer never acknowledges a commit recovery would refuse.
// A put or batch whose journal record - its own or an index branch's -
// would exceed Options::max_commit_bytes fails with kTooLarge before
// anything lands: no id, no row, no journal byte; the database goes on, and
// what it acknowledges after survives a power cut. The largest commit that
// fits survives one too. Each case runs with shared and separate journals
// and through the transaction merger (JR-2).
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <string>
#include <thread>
#include <vector>

#include "engine/src/base/testing.h"
#include "engine/src/db/db_impl.h"
#include "engine/src/db/payload.h"
#include "engine/src/db/row.h"
#include "engine/src/io/fault_env.h"
#include "fenec/database.h"
#include "fenec/limits.h"

namespace fenec {
namespace limits_test {

constexpr uint64_t kLimit = 64 << 10;

// name @unique, body @text, n: two branches.
Schema Docs() { return {{Field::Text("name").Unique(), Field::Text("body").TextIndexed(), Field::Int("n")}}; }

Document Doc(int64_t n, size_t body_bytes) {
  Document d;
  d.emplace_back(fmt::format("doc-{}", n));
  d.emplace_back(std::string(body_bytes, 'b'));
  d.emplace_back(n);
  return d;
}

struct Arm {
  Journals journals;
  Completion completion;
  std::string Name() const {
    return fmt::format("{}/{}", journals == Journals::kShared ? "shared" : "separate",
                       completion == Completion::kDirect ? "direct" : "merger");
  }
};
const Arm kArms[] = {{Journals::kShared, Completion::kDirect},
                     {Journals::kSeparate, Completion::kDirect},
                     {Journals::kShared, Completion::kMergerAsync}};

Options Opts(Env* env, const Arm& arm, uint64_t limit = kLimit) {
  Options o;
  o.env = env;
  o.journals = arm.journals;
  o.completion = arm.completion;
  o.max_commit_bytes = limit;
  return o;
}

// Reopens after a simulated power cut and checks exactly `want` are there.
void CrashAndVerify(FaultEnv* env, std::unique_ptr<Database>* db, const std::string& path, const Options& o,
                    const std::vector<std::pair<DocId, Document>>& want, uint64_t seed) {
  env->Crash();
  db->reset();
  env->ApplyCrash(seed);
  auto reopened = Database::Open(path, o);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  auto c = (*reopened)->FindCollection("docs");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(*(*reopened)->Count(*c), want.size());
  for (const auto& [id, doc] : want) {
    auto got = (*reopened)->Get(*c, id);
    ASSERT_TRUE(got.ok()) << "acknowledged id " << id << " lost";
    EXPECT_EQ(*got, doc) << "id " << id;
  }
  EXPECT_TRUE((*reopened)->Check().ok()) << (*reopened)->Check().ToString();
}

TEST(Limits, PutAndBatchOverTheLimitAreRefusedAndNothingLands) {
  const uint64_t seed = base::TestSeed();
  for (const Arm& arm : kArms) {
    SCOPED_TRACE(arm.Name());
    base::ScratchDir dir;
    const std::string path = dir.path() + "/db";
    FaultEnv env;
    const Options o = Opts(&env, arm);
    auto db = Database::Open(path, o);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    auto c = (*db)->CreateCollection("docs", Docs());
    ASSERT_TRUE(c.ok());
    std::vector<std::pair<DocId, Document>> acked;
    for (int n = 1; n <= 3; ++n) {
      auto id = (*db)->Put(*c, Doc(n, 100));
      ASSERT_TRUE(id.ok()) << id.status().ToString();
      acked.emplace_back(*id, Doc(n, 100));
    }
    const Stats before = (*db)->GetStats();
    const EnvCounters io = env.counters();

    auto one = (*db)->Put(*c, Doc(4, kLimit));
    ASSERT_EQ(one.status().code(), StatusCode::kTooLarge) << one.status().ToString();
    EXPECT_NE(one.status().message().find("max_commit_bytes"), std::string::npos) << one.status().message();
    EXPECT_NE(one.status().message().find(std::to_string(kLimit)), std::string::npos) << one.status().message();
    std::vector<Document> batch;
    for (int n = 0; n < 10; ++n) batch.push_back(Doc(10 + n, kLimit / 8));
    auto many = (*db)->PutBatch(*c, std::move(batch));
    ASSERT_EQ(many.status().code(), StatusCode::kTooLarge) << many.status().ToString();
    EXPECT_NE(many.status().message().find("batch of 10"), std::string::npos) << many.status().message();

    const Stats after = (*db)->GetStats();
    EXPECT_EQ(after.last_lsn, before.last_lsn) << "no journal record";
    EXPECT_EQ(after.commits, before.commits);
    EXPECT_EQ(env.counters().writes, io.writes) << "no byte written";
    EXPECT_EQ(*(*db)->Count(*c), 3u) << "no row visible";
    EXPECT_FALSE(after.fail_stopped) << "the database keeps working";
    auto small = (*db)->Put(*c, Doc(5, 100));
    ASSERT_TRUE(small.ok()) << small.status().ToString();
    EXPECT_EQ(*small, acked.back().first + 1) << "no id consumed";
    acked.emplace_back(*small, Doc(5, 100));
    CrashAndVerify(&env, &*db, path, o, acked, seed);
  }
}

// Small rows, ids past one varint byte: each index entry outgrows its row,
// so the @text branch's record is over the limit while the root's fits.
TEST(Limits, AnIndexRecordOverTheLimitRefusesTheCommit) {
  const uint64_t seed = base::TestSeed();
  for (const Arm& arm : kArms) {
    SCOPED_TRACE(arm.Name());
    base::ScratchDir dir;
    const std::string path = dir.path() + "/db";
    FaultEnv env;
    const Options o = Opts(&env, arm);
    auto db = Database::Open(path, o);
    ASSERT_TRUE(db.ok());
    const Schema schema{{Field::Text("t").TextIndexed()}};
    auto c = (*db)->CreateCollection("docs", schema);
    ASSERT_TRUE(c.ok());
    std::vector<Document> batch(14500, Document{Value(std::string("a"))});
    uint64_t rows = 0;
    for (const Document& d : batch) rows += 1 + EncodedRowSize(schema, d);
    ASSERT_LE(PutPayloadSize(c->value, 1, batch.size(), rows), kLimit) << "the root's record fits";
    auto r = (*db)->PutBatch(*c, batch);
    ASSERT_EQ(r.status().code(), StatusCode::kTooLarge) << r.status().ToString();
    EXPECT_NE(r.status().message().find("index on 't'"), std::string::npos) << r.status().message();
    EXPECT_EQ(*(*db)->Count(*c), 0u);
    EXPECT_EQ((*db)->GetStats().last_lsn, 1u) << "only the create";
    batch.resize(100);
    auto ok = (*db)->PutBatch(*c, batch);
    ASSERT_TRUE(ok.ok()) << ok.status().ToString();
    EXPECT_EQ(ok->front(), 1u) << "no id consumed";
    std::vector<std::pair<DocId, Document>> acked;
    for (DocId id : *ok) acked.emplace_back(id, batch[0]);
    CrashAndVerify(&env, &*db, path, o, acked, seed);
  }
}

// The largest put that fits: its record is exactly the limit.
TEST(Limits, TheLargestCommitThatFitsSurvivesAPowerCut) {
  const uint64_t seed = base::TestSeed();
  for (const Arm& arm : kArms) {
    SCOPED_TRACE(arm.Name());
    base::ScratchDir dir;
    const std::string path = dir.path() + "/db";
    FaultEnv env;
    const Options o = Opts(&env, arm);
    auto db = Database::Open(path, o);
    ASSERT_TRUE(db.ok());
    auto c = (*db)->CreateCollection("docs", Docs());
    ASSERT_TRUE(c.ok());
    auto first = (*db)->Put(*c, Doc(1, 10));
    ASSERT_TRUE(first.ok());
    // The body that makes the next put's record exactly kLimit bytes.
    auto record = [&](size_t body) {
      const size_t row = EncodedRowSize(Docs(), Doc(2, body));
      return PutPayloadSize(c->value, *first + 1, 1, VarintSize(row) + row);
    };
    size_t body = kLimit - 64;
    while (record(body + 1) <= kLimit) ++body;
    ASSERT_EQ(record(body), kLimit);
    auto over = (*db)->Put(*c, Doc(2, body + 1));
    ASSERT_EQ(over.status().code(), StatusCode::kTooLarge) << over.status().ToString();
    auto at = (*db)->Put(*c, Doc(2, body));
    ASSERT_TRUE(at.ok()) << at.status().ToString();
    EXPECT_EQ(*at, *first + 1);
    CrashAndVerify(&env, &*db, path, o, {{*first, Doc(1, 10)}, {*at, Doc(2, body)}}, seed);
  }
}

// The real limit: six 50 MiB documents in one batch (a
// 300 MiB record, which recovery would refuse) are refused before any byte
// is encoded, and so is one document of five 52 MiB texts, directly and
// through the merger; a small put after them survives a power cut.
TEST(Limits, OverTheDefaultLimitIsRefusedBeforeAnythingIsBuilt) {
  for (Completion completion : {Completion::kDirect, Completion::kMergerAsync}) {
    SCOPED_TRACE(completion == Completion::kDirect ? "direct" : "merger");
    base::ScratchDir dir;
    const std::string path = dir.path() + "/db";
    FaultEnv env;
    Options o;
    o.env = &env;
    o.completion = completion;
    auto db = Database::Open(path, o);
    ASSERT_TRUE(db.ok());
    auto c = (*db)->CreateCollection("docs", Docs());
    ASSERT_TRUE(c.ok());
    {
      std::vector<Document> batch;
      for (int n = 0; n < 6; ++n) batch.push_back(Doc(n, 50u << 20));
      auto r = (*db)->PutBatch(*c, std::move(batch));
      ASSERT_EQ(r.status().code(), StatusCode::kTooLarge) << r.status().ToString();
      EXPECT_NE(r.status().message().find(std::to_string(limits::kMaxCommitBytes)), std::string::npos);
    }
    {
      Schema five;
      for (int k = 0; k < 5; ++k) five.fields.push_back(Field::Text("t" + std::to_string(k)));
      auto wide = (*db)->CreateCollection("wide", five);
      ASSERT_TRUE(wide.ok());
      Document doc(5, Value(std::string(52u << 20, 'w')));
      auto r = (*db)->Put(*wide, std::move(doc));
      ASSERT_EQ(r.status().code(), StatusCode::kTooLarge) << r.status().ToString();
    }
    auto small = (*db)->Put(*c, Doc(7, 10));
    ASSERT_TRUE(small.ok());
    EXPECT_EQ(*small, 1u);
    CrashAndVerify(&env, &*db, path, o, {{*small, Doc(7, 10)}}, base::TestSeed());
  }
}

// Replay lets records skip at most DbImpl::kMaxReplayIdGap ids in all, so a
// batch refused at landing (a @unique clash) gives its ids back when it can.
TEST(Limits, ABatchRefusedAtLandingGivesItsIdsBack) {
  base::ScratchDir dir;
  auto db = Database::Open(dir.path() + "/db", Options{});
  ASSERT_TRUE(db.ok());
  auto c = (*db)->CreateCollection("docs", Docs());
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(*(*db)->Put(*c, Doc(1, 10)), 1u);
  std::vector<Document> clash;
  for (int n = 2; n < 1000; ++n) clash.push_back(Doc(n, 10));
  clash.push_back(Doc(1, 10));  // doc-1 again
  EXPECT_EQ((*db)->PutBatch(*c, clash).status().code(), StatusCode::kConstraint);
  EXPECT_EQ(*(*db)->Put(*c, Doc(2, 10)), 2u) << "the refused batch's 999 ids were given back";
}

// Replay's id-gap limit, small for these tests: every database opened
// while it lives, writer and reader alike, uses it.
struct SmallIdGap {
  explicit SmallIdGap(uint64_t gap) { DbImpl::SetMaxReplayIdGapForTesting(gap); }
  ~SmallIdGap() { DbImpl::SetMaxReplayIdGapForTesting(0); }
};

struct GapArm {
  std::string name;
  void (*set)(Options*);
};
const GapArm kGapArms[] = {
    {"shared/direct", [](Options*) {}},
    {"separate/direct", [](Options* o) { o->journals = Journals::kSeparate; }},
    {"merger", [](Options* o) { o->completion = Completion::kMergerAsync; }},
    {"build-under-lock", [](Options* o) { o->batch_build = BatchBuild::kUnderLock; }},
    {"naive", [](Options* o) { o->commit_mode = CommitMode::kNaive; }},
    {"buffered", [](Options* o) { o->durability = Durability::kBuffered; }},
};

// The hazard: puts refused at landing burn ids when another put took ids
// meanwhile, and replay refuses records that skip more than
// DbImpl::MaxReplayIdGap() ids in all since the checkpoint. The writer
// counts the skips as replay does and checkpoints before a record would
// pass the limit, so every acknowledged put opens; the put never fails for it.
TEST(Limits, TheWriterCheckpointsBeforeReplayWouldRefuseItsIdGap) {
  const uint64_t seed = base::TestSeed();
  SmallIdGap gap(64);
  for (const GapArm& arm : kGapArms) {
    SCOPED_TRACE(arm.name);
    base::ScratchDir dir;
    const std::string path = dir.path() + "/db";
    FaultEnv env;
    Options o;
    o.env = &env;
    arm.set(&o);
    auto db = Database::Open(path, o);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    auto* impl = dynamic_cast<DbImpl*>(db->get());
    auto c = (*db)->CreateCollection("docs", Docs());
    ASSERT_TRUE(c.ok());
    std::vector<std::pair<DocId, Document>> acked;
    int n = 0;
    // Burns `burn` ids, then puts `rows` documents; they must land right after the burned ids.
    auto put = [&](uint64_t burn, size_t rows) {
      const uint64_t first = (acked.empty() ? 1 : acked.back().first + 1) + burn;
      ASSERT_TRUE(impl->BurnIdsForTesting(*c, burn).ok());
      std::vector<Document> docs;
      for (size_t i = 0; i < rows; ++i) docs.push_back(Doc(++n, 10));
      auto ids = (*db)->PutBatch(*c, docs);
      ASSERT_TRUE(ids.ok()) << ids.status().ToString();
      ASSERT_EQ(ids->size(), rows);
      EXPECT_EQ(ids->front(), first);
      for (size_t i = 0; i < rows; ++i) acked.emplace_back((*ids)[i], docs[i]);
    };
    auto gap_checkpoints = [&] { return (*db)->GetStats().id_gap_checkpoints; };
    put(0, 1);
    const uint64_t checkpoints = (*db)->GetStats().checkpoints;
    put(100, 1);  // one record skips more than the limit: the checkpoint starts replay past it
    EXPECT_EQ(gap_checkpoints(), 1u);
    put(40, 2);
    EXPECT_EQ(gap_checkpoints(), 1u) << "40 of 64";
    put(40, 1);  // 80: over
    EXPECT_EQ(gap_checkpoints(), 2u);
    // A real @unique clash, alone: its ids go back, nothing is skipped.
    EXPECT_EQ((*db)->Put(*c, Doc(1, 10)).status().code(), StatusCode::kConstraint);
    put(0, 1);
    put(10, 3);
    put(54, 1);  // exactly the limit: replay accepts it, so no checkpoint
    EXPECT_EQ(gap_checkpoints(), 2u);
    EXPECT_EQ((*db)->GetStats().checkpoints, checkpoints + 2);
    if (o.durability == Durability::kBuffered) {
      ASSERT_TRUE((*db)->Sync().ok());
    }
    CrashAndVerify(&env, &*db, path, o, acked, seed);
  }
}

// An @hnsw collection: the checkpoint a put takes holds the field's linker
// at the capture (the put's room in its queue already reserved) and the
// graph it writes opens with every vector.
TEST(Limits, AnIdGapCheckpointWithAVectorIndex) {
  SmallIdGap gap(64);
  base::ScratchDir dir;
  const std::string path = dir.path() + "/db";
  FaultEnv env;
  Options o;
  o.env = &env;
  auto db = Database::Open(path, o);
  ASSERT_TRUE(db.ok());
  auto* impl = dynamic_cast<DbImpl*>(db->get());
  const Schema schema{{Field::Vector("v", 4).Hnsw(), Field::Int("n")}};
  auto c = (*db)->CreateCollection("docs", schema);
  ASSERT_TRUE(c.ok());
  std::vector<std::pair<DocId, Document>> acked;
  for (int n = 0; n < 6; ++n) {
    ASSERT_TRUE(impl->BurnIdsForTesting(*c, n % 2 ? 100 : 30).ok());
    Document d{Value(std::vector<float>{float(n), 1, 2, 3}), Value(int64_t{n})};
    auto id = (*db)->Put(*c, d);
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    acked.emplace_back(*id, std::move(d));
  }
  // 30, 100 (over: a checkpoint), 30, 100, 30, 100.
  EXPECT_EQ((*db)->GetStats().id_gap_checkpoints, 3u);
  ASSERT_TRUE((*db)->WaitForIndexes().ok());
  env.Crash();
  db->reset();
  env.ApplyCrash(base::TestSeed());
  auto reopened = Database::Open(path, o);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ(*(*reopened)->Count(*c), acked.size());
  for (const auto& [id, doc] : acked) {
    auto got = (*reopened)->Get(*c, id);
    ASSERT_TRUE(got.ok()) << "acknowledged id " << id << " lost";
    EXPECT_EQ(*got, doc);
  }
  ASSERT_TRUE((*reopened)->WaitForIndexes().ok());
  EXPECT_TRUE((*reopened)->Check().ok()) << (*reopened)->Check().ToString();
}

// A put waiting for an id-gap checkpoint that fails fails with the
// checkpoint's status, and what was acknowledged opens.
TEST(Limits, AFailedIdGapCheckpointFailsThePut) {
  SmallIdGap gap(64);
  base::ScratchDir dir;
  const std::string path = dir.path() + "/db";
  FaultEnv env;
  Options o;
  o.env = &env;
  auto db = Database::Open(path, o);
  ASSERT_TRUE(db.ok());
  auto* impl = dynamic_cast<DbImpl*>(db->get());
  auto c = (*db)->CreateCollection("docs", Docs());
  ASSERT_TRUE(c.ok());
  auto first = (*db)->Put(*c, Doc(1, 10));
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(impl->BurnIdsForTesting(*c, 100).ok());
  env.FailNth(FaultOp::kSync, 1, EIO, "data.fdb", /*sticky=*/true);
  auto r = (*db)->Put(*c, Doc(2, 10));
  // The checkpoint's fdatasync failed: the database fail-stops, and the put says why.
  EXPECT_EQ(r.status().code(), StatusCode::kFailStopped) << r.status().ToString();
  EXPECT_NE(r.status().ToString().find("data.fdb"), std::string::npos) << r.status().ToString();
  EXPECT_EQ((*db)->GetStats().id_gap_checkpoints, 0u);
  env.ClearFaults();
  CrashAndVerify(&env, &*db, path, o, {{*first, Doc(1, 10)}}, base::TestSeed());
}

// Writers racing: refused puts burn ids (burned here, as the give-back that
// loses the race leaves them) while others land; whatever the interleaving,
// no put fails, and every acknowledged one opens under the same limit.
TEST(Limits, ConcurrentWritersPastTheIdGapAllOpen) {
  const uint64_t seed = base::TestSeed();
  SmallIdGap gap(64);
  for (Completion completion : {Completion::kDirect, Completion::kMergerAsync}) {
    SCOPED_TRACE(completion == Completion::kDirect ? "direct" : "merger");
    base::ScratchDir dir;
    const std::string path = dir.path() + "/db";
    FaultEnv env;
    Options o;
    o.env = &env;
    o.completion = completion;
    auto db = Database::Open(path, o);
    ASSERT_TRUE(db.ok());
    auto* impl = dynamic_cast<DbImpl*>(db->get());
    auto c = (*db)->CreateCollection("docs", Docs());
    ASSERT_TRUE(c.ok());
    constexpr int kThreads = 4, kPuts = 50;
    std::vector<std::vector<std::pair<DocId, Document>>> acked(kThreads);
    std::vector<int> failed(kThreads, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kPuts; ++i) {
          (void)impl->BurnIdsForTesting(*c, 1 + (t * 7 + i * 13) % 30);
          Document d = Doc(t * 1000 + i, 10);
          auto id = (*db)->Put(*c, d);
          if (!id.ok()) {
            ++failed[t];
            continue;
          }
          acked[t].emplace_back(*id, std::move(d));
        }
      });
    }
    for (auto& th : threads) th.join();
    std::vector<std::pair<DocId, Document>> all;
    for (int t = 0; t < kThreads; ++t) {
      EXPECT_EQ(failed[t], 0) << "thread " << t;
      all.insert(all.end(), acked[t].begin(), acked[t].end());
    }
    // About 3 100 ids burned; a checkpoint clears at most the 64 counted and
    // the skips of the <= 4 puts it serves (each <= 4 x 31 ids), so >= 5.
    // Each put waits for at most one.
    const Stats st = (*db)->GetStats();
    EXPECT_GE(st.id_gap_checkpoints, 5u);
    EXPECT_LE(st.id_gap_checkpoints, uint64_t{kThreads * kPuts});
    CrashAndVerify(&env, &*db, path, o, all, seed);
  }
}

TEST(Limits, MaxCommitBytesIsBoundedByTheReader) {
  base::ScratchDir dir;
  Options o;
  o.max_commit_bytes = limits::kMaxCommitBytes + 1;
  EXPECT_EQ(Database::Open(dir.path() + "/db", o).status().code(), StatusCode::kInvalidArgument);
  o.max_commit_bytes = 100;
  EXPECT_EQ(Database::Open(dir.path() + "/db", o).status().code(), StatusCode::kInvalidArgument);
}

// EncodedRowSize is what the limit is checked with: it must be EncodeRow's size.
TEST(Limits, EncodedRowSizeIsWhatEncodeRowWrites) {
  const Schema s{{Field::Text("t"), Field::Int("i"), Field::Float("f"), Field::Bool("b"), Field::Vector("v", 3)}};
  for (const Document& d : {Document{Value(std::string(200, 'x')), Value(int64_t{1}), Value(2.5), Value(true),
                                     Value(std::vector<float>{1, 2, 3})},
                            Document{Value(), Value(), Value(int64_t{3}), Value(), Value()}}) {
    base::Bytes row;
    EncodeRow(s, d, &row);
    EXPECT_EQ(EncodedRowSize(s, d), row.size());
  }
}

}  // namespace limits_test
}  // namespace fenec
