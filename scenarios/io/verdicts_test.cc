// The io scenario's verdict rules on made-up cells, each run over several
// repetitions: a check whose interval clears its line, misses it, or holds it
// (straddles), and how judge() turns those into reproduced, partly
// reproduced, not reproduced and inconclusive; a missing cell is "not applicable".
#include <gtest/gtest.h>

#include "scenarios/io/verdicts.h"

namespace fenec::scenarios::io {
namespace {

using iobench::Layout;
using iobench::Mode;
using iobench::SubmitKind;
using kit::Outcome;

// A cell that "ran" `ops` ops of `size` in `seconds`, each taking `lat_us`, as repetition `rep`.
CellResult made(Mode mode, uint64_t size, unsigned jobs, double ops, double seconds, uint64_t lat_us,
                SubmitKind submit = SubmitKind::kPwrite, unsigned batch = 1, int rep = 0) {
  CellResult c;
  c.spec.mode = mode;
  c.spec.size = size;
  c.spec.jobs = jobs;
  c.spec.submit = submit;
  c.spec.batch = batch;
  c.rep = rep;
  c.ops = static_cast<uint64_t>(ops);
  c.write_calls = c.ops * (iobench::submit_path(submit).call_per_buffer ? batch : 1);
  c.bytes = c.ops * size * batch;
  c.seconds = seconds;
  for (uint64_t i = 0; i < c.ops; ++i) c.lat.Record(lat_us * 1000);
  for (unsigned j = 0; j < jobs; ++j) c.job_mb_per_s.push_back(c.mb_per_s() / jobs);
  return c;
}

// Three repetitions of a cell, its op count scaled by `spread[r]` in repetition r.
void reps(std::vector<CellResult>* out, Mode mode, uint64_t size, unsigned jobs, double ops, uint64_t lat_us,
          std::vector<double> spread = {1, 1.05, 0.95}, SubmitKind submit = SubmitKind::kPwrite,
          unsigned batch = 1) {
  for (size_t r = 0; r < spread.size(); ++r)
    out->push_back(made(mode, size, jobs, ops * spread[r], 1, lat_us, submit, batch, static_cast<int>(r)));
}

std::vector<CellResult> io1_cells(double big_ops) {
  std::vector<CellResult> cells;
  reps(&cells, Mode::kDirectDsync, 4096, 1, 2500, 400);
  reps(&cells, Mode::kDirectDsync, 16384, 1, 2400, 410, {1, 0.97, 1.02});
  reps(&cells, Mode::kDirectDsync, 16 << 20, 1, big_ops, 16000, {1, 1.03, 0.98});
  reps(&cells, Mode::kBuffered, 16384, 1, 60000, 5);
  return cells;
}

TEST(Io1, ReproducedWhenEveryCheckClears) {
  // 16m: 60 ops x 16 MiB vs 2400 x 16 KiB: 25x the MB/s.
  Judged j = io1_verdict(io1_cells(60), Mode::kDirectDsync, "p.png");
  EXPECT_EQ(j.verdict.outcome, Outcome::kReproduced) << j.verdict.reason;
  EXPECT_NE(j.verdict.ours.find("16m"), std::string::npos);
  EXPECT_NE(j.verdict.reason.find("16k/4k durable IOPS"), std::string::npos) << j.verdict.reason;
  EXPECT_NE(j.verdict.ours.find("x ["), std::string::npos) << "ratios with their intervals: " << j.verdict.ours;
  ASSERT_EQ(j.rows.size(), 3u);
  for (const RatioRow& r : j.rows) {
    EXPECT_TRUE(r.ratio.ci95.known()) << r.metric;
    EXPECT_EQ(r.ratio.reps, 3u) << r.metric;
  }
}

TEST(Io1, PartlyWhenBigWritesDoNotGrowAndInconclusiveWhenTheyStraddle) {
  // 16m durable only 2x the 16k MB/s in every repetition: that check misses, the others clear.
  Judged j = io1_verdict(io1_cells(6), Mode::kDirectDsync, "");
  EXPECT_EQ(j.verdict.outcome, Outcome::kPartly) << j.verdict.reason;
  EXPECT_NE(j.verdict.reason.find("missed"), std::string::npos);
  // Around 4x, repetitions spread wide: the interval holds the line.
  std::vector<CellResult> cells = io1_cells(12);
  for (CellResult& c : cells)
    if (c.spec.size == (16u << 20) && c.rep == 1) c.bytes *= 3;
  j = io1_verdict(cells, Mode::kDirectDsync, "");
  EXPECT_EQ(j.verdict.outcome, Outcome::kInconclusive) << j.verdict.reason;
  EXPECT_NE(j.verdict.reason.find("straddles"), std::string::npos);
}

TEST(Io1, NotApplicableWithoutItsCells) {
  std::vector<CellResult> cells = io1_cells(60);
  cells.resize(9);  // no buffered cell
  EXPECT_EQ(io1_verdict(cells, Mode::kDirectDsync, "").verdict.outcome, Outcome::kNotApplicable);
}

TEST(Io2, NeedsMoreTotalAndMuchMoreLatency) {
  std::vector<CellResult> cells;
  reps(&cells, Mode::kDirectDsync, 8192, 1, 2000, 500);
  reps(&cells, Mode::kDirectDsync, 8192, 16, 11000, 1500, {1, 0.9, 1.1});
  Judged j = io2_verdict(cells, {}, Mode::kDirectDsync, 8192, "");
  EXPECT_EQ(j.verdict.outcome, Outcome::kReproduced) << j.verdict.reason;
  EXPECT_EQ(j.rows.size(), 2u);
  // Latency barely moved: the total rises, the latency check misses.
  cells.resize(3);
  reps(&cells, Mode::kDirectDsync, 8192, 16, 11000, 600);
  j = io2_verdict(cells, {}, Mode::kDirectDsync, 8192, "");
  EXPECT_EQ(j.verdict.outcome, Outcome::kPartly) << j.verdict.reason;
  // Latency 2x in one repetition, 1.4x and 2.6x in the others: the interval holds 2.
  cells.resize(3);
  cells.push_back(made(Mode::kDirectDsync, 8192, 16, 11000, 1, 1000, SubmitKind::kPwrite, 1, 0));
  cells.push_back(made(Mode::kDirectDsync, 8192, 16, 11000, 1, 700, SubmitKind::kPwrite, 1, 1));
  cells.push_back(made(Mode::kDirectDsync, 8192, 16, 11000, 1, 1300, SubmitKind::kPwrite, 1, 2));
  j = io2_verdict(cells, {}, Mode::kDirectDsync, 8192, "");
  EXPECT_EQ(j.verdict.outcome, Outcome::kInconclusive) << j.verdict.reason;
  cells.resize(3);
  EXPECT_EQ(io2_verdict(cells, {}, Mode::kDirectDsync, 8192, "").verdict.outcome, Outcome::kNotApplicable);
}

// A buffered 1m cell over 8 s in 1 s intervals: `fast` MB/s for the first
// `fast_s` seconds, `slow` after.
CellResult drain(int rep, double fast, double slow, int fast_s) {
  CellResult c = made(Mode::kBuffered, 1 << 20, 1, 1, 8, 300, SubmitKind::kPwrite, 1, rep);
  double bytes = 0;
  for (int i = 0; i < 8; ++i) {
    const double mb = i < fast_s ? fast : slow;
    c.intervals.push_back({i + 1.0, mb, 0, 0, 0, 0});
    bytes += mb * 1e6;
  }
  c.bytes = static_cast<uint64_t>(bytes);
  return c;
}

TEST(Io3, ReproducedWhenTheRateFallsPastTheWritebackThreshold) {
  // 1 GB/s for 3 s, then about 500 MB/s; writeback from 2 GiB on.
  std::vector<CellResult> cells = {drain(0, 1000, 500, 3), drain(1, 1050, 480, 3), drain(2, 950, 520, 3)};
  Judged j = io3_verdict(cells, 2ull << 30, "");
  EXPECT_EQ(j.verdict.outcome, Outcome::kReproduced) << j.verdict.reason;
  ASSERT_EQ(j.rows.size(), 1u);
  // The rate held past the threshold: not reproduced.
  cells = {drain(0, 1000, 1000, 3), drain(1, 1050, 1020, 3), drain(2, 950, 960, 3)};
  EXPECT_EQ(io3_verdict(cells, 2ull << 30, "").verdict.outcome, Outcome::kNotReproduced);
  // A fall before the page cache could have filled (64 GB) is not the drain:
  // nothing was written past the threshold.
  cells = {drain(0, 1000, 500, 3)};
  EXPECT_EQ(io3_verdict(cells, 64ull << 30, "").verdict.outcome, Outcome::kNotApplicable);
  EXPECT_EQ(io3_verdict({}, 0, "").verdict.outcome, Outcome::kNotApplicable);
}

TEST(Io3, QuickModeCannotShowIt) {
  kit::Verdict v = io3_quick_verdict(2ull << 30).verdict;
  EXPECT_EQ(v.outcome, Outcome::kNotApplicable);
  EXPECT_NE(v.reason.find("quick"), std::string::npos);
}

TEST(Io5, StaleReadsReproduceIt) {
  iobench::ProbeResult p;
  p.fs_type = "ext4";
  iobench::CoherenceResult c;
  c.rounds = 10;
  c.reads = 20;
  EXPECT_EQ(io5_verdict(c, p).outcome, Outcome::kNotApplicable);
  c.stale = 10;
  EXPECT_EQ(io5_verdict(c, p).outcome, Outcome::kReproduced);
}

std::vector<iobench::LiesResult> lies(std::vector<double> durable_us, double buffered_us) {
  std::vector<iobench::LiesResult> out;
  for (double d : durable_us) {
    iobench::LiesResult r;
    r.verdict = iobench::Durability::kPlausible;  // iobench's own class: the scenario judges the interval
    r.durable_p50_us = d;
    r.buffered_p50_us = buffered_us;
    r.flush_p50_us = d;
    r.ratio = d / buffered_us;
    out.push_back(r);
  }
  return out;
}

TEST(Io4, ClassesFromTheIntervalOfTheLatencyRatio) {
  Judged j = io4_verdict(lies({100, 105, 95}, 3));  // ~33x: honest
  EXPECT_EQ(j.verdict.outcome, Outcome::kReproduced) << j.verdict.reason;
  EXPECT_NE(j.verdict.reason.find("honest"), std::string::npos);
  j = io4_verdict(lies({40, 42, 38}, 20));  // ~2x, durable 40 us: lying
  EXPECT_EQ(j.verdict.outcome, Outcome::kReproduced) << j.verdict.reason;
  EXPECT_NE(j.verdict.reason.find("lying"), std::string::npos);
  j = io4_verdict(lies({10, 11, 9}, 5));  // 2x but a durable write in 10 us: lying
  EXPECT_NE(j.verdict.reason.find("lying"), std::string::npos) << j.verdict.reason;
  j = io4_verdict(lies({100, 105, 95}, 20));  // ~5x: between the classes
  EXPECT_EQ(j.verdict.outcome, Outcome::kNotReproduced) << j.verdict.reason;
  j = io4_verdict(lies({100, 250, 150}, 15));  // 6.7x..16.7x: holds the 10x line
  EXPECT_EQ(j.verdict.outcome, Outcome::kInconclusive) << j.verdict.reason;
  std::vector<iobench::LiesResult> none(1);
  none[0].verdict = iobench::Durability::kUnknown;
  EXPECT_EQ(io4_verdict(none).verdict.outcome, Outcome::kNotApplicable);
  none[0].verdict = iobench::Durability::kNotDurable;
  EXPECT_EQ(io4_verdict(none).verdict.outcome, Outcome::kNotApplicable);
  EXPECT_EQ(io4_verdict({}).verdict.outcome, Outcome::kNotApplicable);
}

TEST(Io7, MergedWritesMustWinClearly) {
  std::vector<CellResult> cells;
  reps(&cells, Mode::kDirectDsync, 4096, 1, 15, 60000, {1, 1.1, 0.9}, SubmitKind::kPwrite, 16);
  reps(&cells, Mode::kDirectDsync, 4096, 1, 230, 4000, {1, 1.05, 0.95}, SubmitKind::kPwritev, 16);
  Judged j = io7_verdict(cells, Mode::kDirectDsync, 16, "");
  EXPECT_EQ(j.verdict.outcome, Outcome::kReproduced) << j.verdict.reason;
  cells.resize(3);
  reps(&cells, Mode::kDirectDsync, 4096, 1, 20, 4000, {1, 1.05, 0.95}, SubmitKind::kPwritev, 16);
  EXPECT_EQ(io7_verdict(cells, Mode::kDirectDsync, 16, "").verdict.outcome, Outcome::kNotReproduced);
  cells.resize(3);
  reps(&cells, Mode::kDirectDsync, 4096, 1, 30, 4000, {0.7, 1.4, 1}, SubmitKind::kPwritev, 16);
  EXPECT_EQ(io7_verdict(cells, Mode::kDirectDsync, 16, "").verdict.outcome, Outcome::kInconclusive);
}

TEST(FindReps, IgnoresSkippedAndPrefilledRunsAndSortsByRep) {
  std::vector<CellResult> cells = {made(Mode::kDsync, 4096, 1, 10, 1, 100, SubmitKind::kPwrite, 1, 1),
                                   made(Mode::kDsync, 4096, 1, 20, 1, 100, SubmitKind::kPwrite, 1, 0)};
  auto runs = find_reps(cells, Mode::kDsync, 4096, 1);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0]->rep, 0);
  EXPECT_EQ(runs[1]->rep, 1);
  cells[0].skipped = "no";
  EXPECT_EQ(find_reps(cells, Mode::kDsync, 4096, 1).size(), 1u);
  cells[0].skipped.clear();
  cells[0].spec.prefill = true;
  EXPECT_EQ(find_reps(cells, Mode::kDsync, 4096, 1).size(), 1u);
  EXPECT_TRUE(find_reps(cells, Mode::kDsync, 4096, 1, Layout::kPerJob).empty());
}

TEST(Paired, PairsByRepetitionAndLeavesOutTheUnmatched) {
  std::vector<CellResult> a = {made(Mode::kDsync, 4096, 1, 40, 1, 100, SubmitKind::kPwrite, 1, 0),
                               made(Mode::kDsync, 4096, 1, 60, 1, 100, SubmitKind::kPwrite, 1, 2),
                               made(Mode::kDsync, 4096, 1, 99, 1, 100, SubmitKind::kPwrite, 1, 5)};
  std::vector<CellResult> b = {made(Mode::kDsync, 4096, 1, 30, 1, 100, SubmitKind::kPwrite, 1, 2),
                               made(Mode::kDsync, 4096, 1, 20, 1, 100, SubmitKind::kPwrite, 1, 0)};
  auto iops = [](const CellResult& c) { return c.iops(); };
  kit::Ratio r = paired(find_reps(a, Mode::kDsync, 4096, 1), iops, find_reps(b, Mode::kDsync, 4096, 1), iops);
  EXPECT_EQ(r.reps, 2u);
  EXPECT_NEAR(r.value, 2.0, 1e-9);  // 40/20 and 60/30
}

}  // namespace
}  // namespace fenec::scenarios::io
