// The reconciliation's invariant (it must catch each way a ledger can go
// wrong) and a short real run against fenec-server as a child process.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <simdjson.h>

#include <cstdlib>
#include <filesystem>
#include <random>

#include "engine/src/base/testing.h"
#include "iobench/kit/results.h"
#include "scenarios/recon/ledger.h"
#include "scenarios/recon/report.h"
#include "scenarios/recon/run.h"
#include "scenarios/common/server_process.h"

namespace fenec::scenarios::recon {
namespace {

const bool kSigpipeIgnored = [] {
  signal(SIGPIPE, SIG_IGN);
  return true;
}();

uint64_t Seed() { return base::TestSeed(); }

// A ledger built in memory: books, and the totals a database holding transfers 1..upto[c] would show.
struct Fake {
  LedgerShape shape;
  std::vector<std::unique_ptr<Books>> books;
  std::vector<AccountTotals> totals;

  Fake(uint64_t seed, int per_client, const std::vector<int>& upto) {
    std::mt19937_64 rng(seed);
    totals.resize(static_cast<size_t>(shape.accounts()));
    for (int a = 1; a <= shape.accounts(); ++a) totals[a - 1].account = a;
    for (int c = 0; c < shape.clients; ++c) {
      books.push_back(std::make_unique<Books>());
      for (int s = 1; s <= per_client; ++s) {
        Transfer t;
        int first = shape.first_account(c), per = shape.accounts_per_client;
        t.from = static_cast<uint16_t>(first + rng() % per);
        t.to = static_cast<uint16_t>(first + (t.from - first + 1 + rng() % (per - 1)) % per);
        t.amount = 1 + static_cast<int32_t>(rng() % 100);
        books.back()->Append(t);
        if (s <= upto[c]) Land(t, s);
      }
    }
  }
  void Land(const Transfer& t, int seq) {
    for (auto [acct, amount] : {std::pair{t.from, -t.amount}, std::pair{t.to, t.amount}}) {
      AccountTotals& r = totals[acct - 1];
      r.count += 1;
      r.sum += amount;
      r.max_seq = std::max<int64_t>(r.max_seq, seq);
    }
  }
  std::string Check() const {
    std::vector<const Books*> view;
    for (const auto& b : books) view.push_back(b.get());
    return CheckInvariant(shape, totals, view);
  }
};

TEST(Invariant, HoldsForAnyPrefixOfEachClient) {
  uint64_t seed = Seed();
  EXPECT_EQ(Fake(seed, 300, {300, 0, 17, 299}).Check(), "");
  EXPECT_EQ(Fake(seed + 1, 50, {50, 50, 50, 50}).Check(), "");
}

TEST(Invariant, CatchesEachWayALedgerGoesWrong) {
  uint64_t seed = Seed();
  {
    Fake f(seed, 100, {100, 60, 60, 60});
    f.totals[3].sum += 1;  // one entry's amount off: the total is no longer 0
    EXPECT_NE(f.Check().find("sum to"), std::string::npos) << f.Check();
  }
  {
    Fake f(seed, 100, {100, 60, 60, 60});
    // A debit without its credit.
    f.totals[0].count += 1;
    f.totals[0].sum -= 5;
    f.totals[1].sum += 5;  // keep the total at zero so the pair rule is what fails
    EXPECT_NE(f.Check().find("leg without its pair"), std::string::npos) << f.Check();
  }
  {
    // Transfer 10 of client 1 applied twice.
    Fake twice(seed, 100, {100, 60, 60, 60});
    std::vector<int64_t> m = twice.books[1]->Movement(10, twice.shape.accounts());
    std::vector<int64_t> m9 = twice.books[1]->Movement(9, twice.shape.accounts());
    for (int a = 1; a <= twice.shape.accounts(); ++a) {
      if (m[a] != m9[a]) {
        twice.totals[a - 1].sum += m[a] - m9[a];
        twice.totals[a - 1].count += 1;
      }
    }
    EXPECT_NE(twice.Check(), "");
  }
  {
    Fake f(seed, 100, {100, 60, 60, 60});
    // The database shows a transfer the client never sent.
    f.totals[f.shape.first_account(2) - 1].max_seq = 101;
    EXPECT_NE(f.Check().find("only 100 were sent"), std::string::npos) << f.Check();
  }
  {
    Fake f(seed, 100, {100, 60, 60, 60});
    // Balances moved between two accounts of one client: counts and total still fine.
    f.totals[0].sum += 7;
    f.totals[1].sum -= 7;
    EXPECT_NE(f.Check().find("the books say"), std::string::npos) << f.Check();
  }
}

TEST(Bodies, AreTheJsonTheServerReads) {
  simdjson::dom::parser p;
  Transfer t{3, 5, 42};
  simdjson::dom::element e;
  ASSERT_EQ(p.parse(TransferBody(1, 7, t)).get(e), simdjson::SUCCESS) << TransferBody(1, 7, t);
  EXPECT_EQ(e["statements"].get_array().size(), 2u);
  std::string docs = EntriesDocs(0, 1, {t, t});
  ASSERT_EQ(p.parse(docs).get(e), simdjson::SUCCESS) << docs;
  EXPECT_EQ(e.get_array().size(), 4u);
  std::vector<AccountTotals> rows;
  EXPECT_EQ(ParseTotals(R"j({"columns":["account","count(*)","sum(amount)","max(seq)"],"rows":[[1,2,-5,9],[2,0,0,null]]})j",
                        &rows),
            "");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].sum, -5);
  EXPECT_EQ(rows[1].max_seq, 0);
}

// A short real run: the server as a child, a prefill, three seconds of
// transfers with a reconciliation each second. Then one corrupting write
// (a debit with no credit) that the next reconciliation must catch.
TEST(RealServer, ShortRunHoldsTheInvariantAndCatchesAHalfTransfer) {
  const char* bin = std::getenv("FENEC_SERVER_BIN");
  if (!bin) GTEST_SKIP() << "FENEC_SERVER_BIN not set (meson test sets it)";
  uint64_t seed = Seed();
  base::ScratchDir scratch("recon-test");
  ASSERT_TRUE(scratch.ok()) << scratch.error();
  const std::string dir = scratch.path();
  {
    ServerProcess server;
    ASSERT_EQ(server.Start(bin, {"--data", dir + "/db", "--long-reads", "pinned"}, dir + "/server.log"), "");
    LedgerShape shape;
    std::vector<std::vector<Transfer>> logs;
    ASSERT_EQ(Prefill(server.port(), shape, 600, seed, [] { return false; }, &logs), "");
    std::vector<std::unique_ptr<Books>> books;
    for (int c = 0; c < shape.clients; ++c) {
      books.push_back(std::make_unique<Books>());
      for (const auto& t : logs[c]) books.back()->Append(t);
    }
    EXPECT_EQ(ReconcileOnce(server.port(), shape, books), "");

    RunConfig cfg;
    cfg.seconds = 3.2;
    cfg.retry_every = 20;
    cfg.seed = seed;
    cfg.rate_per_client = 200;  // bounded: at most ~640 transfers a client
    cfg.stop = [] { return false; };
    RunResult r = RunLedger(server.port(), shape, books, cfg);
    EXPECT_EQ(r.errors, 0u) << r.first_error;
    EXPECT_EQ(r.violations, 0u) << r.first_violation;
    EXPECT_EQ(r.retries_applied, 0u) << r.first_error;
    EXPECT_GT(r.transfers, 0u);
    EXPECT_EQ(r.transfers, r.points.size());
    EXPECT_GT(r.retries_rejected, 0u);
    EXPECT_EQ(r.recons.size(), 3u);  // at 1 s, 2 s and 3 s
    uint64_t sent = 0;
    for (const auto& b : books) sent += b->size();
    EXPECT_EQ(sent, 4u * 600 + r.transfers);
    EXPECT_EQ(ReconcileOnce(server.port(), shape, books), "");

    httplib::Client cli("127.0.0.1", server.port());
    auto put = cli.Post("/docs/entries", R"j([{"key": "rogue", "transfer": 1, "account": 2, "amount": -10, "seq": 1, "client": 0}])j",
                        "application/json");
    ASSERT_TRUE(put && put->status == 200);
    EXPECT_NE(ReconcileOnce(server.port(), shape, books), "");
    EXPECT_EQ(server.Stop(), 0);
  }
}

// ---- RC-1's verdict on synthetic runs (figures made up)

std::vector<RunFigures> Runs(std::initializer_list<double> longest_ms) {
  std::vector<RunFigures> out;
  int run = 0;
  for (double ms : longest_ms) {
    RunFigures f;
    f.run = ++run;
    f.wait_max_ms = ms;
    f.p999_ms = ms / 20;
    f.p99_ms = 0.3;
    f.over_50ms = ms > 50 ? 4 : 0;
    out.push_back(f);
  }
  return out;
}

std::map<std::string, std::vector<RunFigures>> Arms(std::initializer_list<double> locked,
                                                    std::initializer_list<double> pinned) {
  return {{kNoRecon, Runs({3, 4, 3.5})}, {kPinned, Runs(pinned)}, {kLocked, Runs(locked)}};
}

kit::Outcome OutcomeOf(std::initializer_list<double> locked, std::initializer_list<double> pinned) {
  return MakeVerdict(Arms(locked, pinned), "plot.png").outcome;
}

TEST(Verdict, BothChecksAgainstTheSources50msLine) {
  // Locked well past 50 ms, pinned well under: both cleared.
  EXPECT_EQ(OutcomeOf({125, 128, 167}, {5.3, 7.2, 7.8}), kit::Outcome::kReproduced);
  // Locked under 50 ms in every run (missed), pinned under (cleared): one part holds.
  EXPECT_EQ(OutcomeOf({20, 22, 21}, {5, 6, 7}), kit::Outcome::kPartly);
  // Locked under, pinned over: neither part.
  EXPECT_EQ(OutcomeOf({20, 22, 21}, {60, 70, 65}), kit::Outcome::kNotReproduced);
  // One pinned run met a 385 ms stall: most runs had none (the source: 3 of 4).
  EXPECT_EQ(OutcomeOf({125, 128, 130}, {5, 6, 385}), kit::Outcome::kReproduced);
  // Two of three did: the pinned part does not hold, the locked one does.
  EXPECT_EQ(OutcomeOf({125, 128, 130}, {5, 60, 385}), kit::Outcome::kPartly);
  // Locked on the line (45-60 ms): straddles, and pinned clears: inconclusive, never reproduced.
  EXPECT_EQ(OutcomeOf({45, 60, 52}, {5, 6, 7}), kit::Outcome::kInconclusive);
  // One run an arm: no interval, no verdict.
  EXPECT_EQ(OutcomeOf({125}, {5}), kit::Outcome::kInconclusive);
}

TEST(Verdict, ChecksCarryTheirIntervalsAndLines) {
  auto checks = MakeChecks(Runs({125, 128, 130}));
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_TRUE(checks[0].above);
  EXPECT_DOUBLE_EQ(checks[0].line, 1);  // x 50 ms
  EXPECT_NEAR(checks[0].ratio.value, 127.6 / 50, 0.01);
  EXPECT_TRUE(checks[0].ratio.ci95.known());
  EXPECT_EQ(checks[0].ratio.reps, 3u);
  const kit::ExactPart p = PinnedPart(Runs({5, 60, 7}));
  EXPECT_TRUE(p.holds);
  EXPECT_NE(p.what.find("2 of 3"), std::string::npos) << p.what;
  EXPECT_FALSE(PinnedPart({}).holds);
  kit::Verdict v = MakeVerdict(Arms({125, 128, 130}, {5, 6, 7}), "plot.png");
  EXPECT_NE(v.reason.find("cleared"), std::string::npos) << v.reason;
  EXPECT_NE(v.ours.find("p99.9"), std::string::npos) << v.ours;
  EXPECT_NE(v.ours.find("locked/pinned"), std::string::npos) << v.ours;
}

TEST(Verdict, AnInvalidRunOrAMissingArmDecidesIt) {
  auto arms = Arms({125, 128, 130}, {5, 6, 7});
  arms[kPinned][1].valid = false;
  kit::Verdict v = MakeVerdict(arms, "plot.png");
  EXPECT_EQ(v.outcome, kit::Outcome::kNotReproduced);
  EXPECT_NE(v.reason.find("run 2 was invalid"), std::string::npos) << v.reason;
  arms = Arms({125, 128, 130}, {5, 6, 7});
  arms.erase(kNoRecon);
  EXPECT_EQ(MakeVerdict(arms, "plot.png").outcome, kit::Outcome::kNotApplicable);
}

TEST(Rows, SummaryRowsHoldEachArmsIntervalAndTheHeadlineRatios) {
  kit::Results results("recon", kit::Metadata{});
  AddSummaryRows(results, Arms({125, 128, 130}, {5, 6, 7}));
  int maxima = 0, lo = 0, ratios = 0;
  for (const auto& row : results.rows()) {
    EXPECT_EQ(row.case_.rfind("runs=all", 0), 0u) << row.case_;
    if (row.metric == "transfer_wait_max_ms") ++maxima;
    if (row.metric == "transfer_wait_max_ms_ci95_lo") ++lo;
    if (row.metric == "transfer_wait_max_ratio") ++ratios;
  }
  EXPECT_EQ(maxima, 3);  // one an arm
  EXPECT_EQ(lo, 3);
  EXPECT_EQ(ratios, 3);  // locked/pinned, locked/no-recon, pinned/no-recon
}

}  // namespace
}  // namespace fenec::scenarios::recon
