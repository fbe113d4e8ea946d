// The io scenario's verdict rules on made-up cells: each finding is judged
// reproduced only when the shape holds, and a missing cell is "not applicable".
#include <gtest/gtest.h>

#include "scenarios/io/verdicts.h"

namespace fenec::scenarios::io {
namespace {

using iobench::Layout;
using iobench::Mode;
using iobench::SubmitKind;

// A cell that "ran" `ops` ops of `size` in `seconds`, each taking `lat_us`.
CellResult made(Mode mode, uint64_t size, unsigned jobs, double ops, double seconds, uint64_t lat_us,
                SubmitKind submit = SubmitKind::kPwrite, unsigned batch = 1) {
  CellResult c;
  c.spec.mode = mode;
  c.spec.size = size;
  c.spec.jobs = jobs;
  c.spec.submit = submit;
  c.spec.batch = batch;
  c.ops = static_cast<uint64_t>(ops);
  c.write_calls = c.ops * (submit == SubmitKind::kPwrite ? batch : 1);
  c.bytes = c.ops * size * batch;
  c.seconds = seconds;
  for (uint64_t i = 0; i < c.ops; ++i) c.lat.Record(lat_us * 1000);
  for (unsigned j = 0; j < jobs; ++j) c.job_mb_per_s.push_back(c.mb_per_s() / jobs);
  return c;
}

TEST(Io1, ReproducedWhenDurableThroughputFollowsWriteCount) {
  std::vector<CellResult> cells = {
      made(Mode::kDirectDsync, 4096, 1, 250, 1, 4000), made(Mode::kDirectDsync, 16384, 1, 240, 1, 4100),
      made(Mode::kDirectDsync, 16 << 20, 1, 60, 1, 16000), made(Mode::kBuffered, 16384, 1, 60000, 1, 5)};
  kit::Verdict v = io1_verdict(cells, Mode::kDirectDsync, "p.png");
  EXPECT_EQ(v.verdict, "reproduced") << v.ours;
  EXPECT_NE(v.ours.find("16m"), std::string::npos);
  // Durable 16m no faster than 16k x 4: bytes, not writes, would be the bound.
  cells[2] = made(Mode::kDirectDsync, 16 << 20, 1, 0.2, 1, 16000);
  cells[2].ops = 1;
  cells[2].bytes = 4 * cells[1].bytes - 1;
  EXPECT_NE(io1_verdict(cells, Mode::kDirectDsync, "").verdict.find("not reproduced"), std::string::npos);
  cells.pop_back();
  EXPECT_NE(io1_verdict(cells, Mode::kDirectDsync, "").verdict.find("not applicable"), std::string::npos);
}

TEST(Io2, NeedsMoreTotalAndMuchMoreLatency) {
  std::vector<CellResult> cells = {made(Mode::kDirectDsync, 8192, 1, 2000, 1, 500),
                                   made(Mode::kDirectDsync, 8192, 16, 11000, 1, 1500)};
  EXPECT_EQ(io2_verdict(cells, {}, Mode::kDirectDsync, 8192, "").verdict, "reproduced");
  cells[1] = made(Mode::kDirectDsync, 8192, 16, 11000, 1, 600);  // latency barely moved
  EXPECT_NE(io2_verdict(cells, {}, Mode::kDirectDsync, 8192, "").verdict.find("did not double"), std::string::npos);
  cells.pop_back();
  EXPECT_NE(io2_verdict(cells, {}, Mode::kDirectDsync, 8192, "").verdict.find("not applicable"), std::string::npos);
}

TEST(Io3, ReproducedOnlyWhenTheRateFalls) {
  CellResult c = made(Mode::kBuffered, 1 << 20, 1, 8000, 8, 300);
  for (int i = 0; i < 8; ++i) c.intervals.push_back({i + 1.0, i < 3 ? 2500.0 : 600.0, 0, 0, 0, 0});
  EXPECT_EQ(io3_verdict(&c, 2ull << 30, "").verdict, "reproduced");
  // The same fall before the page cache could have filled is not the drain.
  EXPECT_NE(io3_verdict(&c, 64ull << 30, "").verdict.find("below"), std::string::npos);
  for (auto& p : c.intervals) p.mb_per_s = 2000;
  EXPECT_NE(io3_verdict(&c, 2ull << 30, "").verdict.find("not reproduced"), std::string::npos);
  EXPECT_NE(io3_verdict(nullptr, 0, "").verdict.find("not applicable"), std::string::npos);
}

TEST(Io5, StaleReadsReproduceIt) {
  iobench::ProbeResult p;
  p.fs_type = "ext4";
  iobench::CoherenceResult c;
  c.rounds = 10;
  c.reads = 20;
  EXPECT_NE(io5_verdict(c, p).verdict.find("not applicable"), std::string::npos);
  c.stale = 10;
  EXPECT_EQ(io5_verdict(c, p).verdict, "reproduced");
}

TEST(Io4, ClassesFromTheLatencyRatio) {
  iobench::LiesResult r;
  r.verdict = iobench::Durability::kPlausible;
  r.ratio = 50;
  EXPECT_NE(io4_verdict(r).verdict.find("reproduced"), std::string::npos);
  r.verdict = iobench::Durability::kInconclusive;
  EXPECT_NE(io4_verdict(r).verdict.find("not reproduced"), std::string::npos);
  r.verdict = iobench::Durability::kUnknown;
  EXPECT_NE(io4_verdict(r).verdict.find("not applicable"), std::string::npos);
}

TEST(Io7, MergedWritesMustWinClearly) {
  std::vector<CellResult> cells = {
      made(Mode::kDirectDsync, 4096, 1, 15, 1, 60000, SubmitKind::kPwrite, 16),
      made(Mode::kDirectDsync, 4096, 1, 230, 1, 4000, SubmitKind::kPwritev, 16)};
  kit::Verdict v = io7_verdict(cells, Mode::kDirectDsync, 16, "");
  EXPECT_EQ(v.verdict, "reproduced") << v.ours;
  cells[1] = made(Mode::kDirectDsync, 4096, 1, 20, 1, 4000, SubmitKind::kPwritev, 16);
  EXPECT_NE(io7_verdict(cells, Mode::kDirectDsync, 16, "").verdict.find("not reproduced"), std::string::npos);
}

TEST(FindCell, IgnoresSkippedAndPrefilledCells) {
  std::vector<CellResult> cells = {made(Mode::kDsync, 4096, 1, 10, 1, 100)};
  cells[0].skipped = "no";
  EXPECT_EQ(find_cell(cells, Mode::kDsync, 4096, 1), nullptr);
  cells[0].skipped.clear();
  cells[0].spec.prefill = true;
  EXPECT_EQ(find_cell(cells, Mode::kDsync, 4096, 1), nullptr);
  cells[0].spec.prefill = false;
  EXPECT_EQ(find_cell(cells, Mode::kDsync, 4096, 1), &cells[0]);
  EXPECT_EQ(find_cell(cells, Mode::kDsync, 4096, 1, Layout::kPerJob), nullptr);
}

}  // namespace
}  // namespace fenec::scenarios::io
