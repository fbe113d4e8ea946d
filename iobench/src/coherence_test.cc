// IO-5's detector: a real mount here reads back what was written; a reader
// that keeps pages it has read (as the CIFS mount did) is caught every round.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <vector>
#include <unistd.h>

#include "iobench/kit/results.h"
#include "iobench/src/coherence.h"
#include "engine/src/base/testing.h"

namespace fenec::iobench {
namespace coherence_test {

bool never() { return false; }

// A buffered reader whose page cache is never invalidated by direct writes:
// the first read of a 4 KiB page is kept and served from then on.
class StaleReader {
 public:
  ssize_t operator()(int fd, void* buf, size_t len, off_t off) {
    auto* out = static_cast<uint8_t*>(buf);
    size_t done = 0;
    while (done < len) {
      off_t page = (off + static_cast<off_t>(done)) / kPage;
      auto it = cache_.find(page);
      if (it == cache_.end()) {
        std::vector<uint8_t> p(kPage);
        if (::pread(fd, p.data(), kPage, page * kPage) < 0) return -1;
        it = cache_.emplace(page, std::move(p)).first;
      }
      size_t in = static_cast<size_t>((off + static_cast<off_t>(done)) % kPage);
      size_t n = std::min(len - done, kPage - in);
      std::memcpy(out + done, it->second.data() + in, n);
      done += n;
    }
    return static_cast<ssize_t>(len);
  }
 private:
  static constexpr size_t kPage = 4096;
  std::map<off_t, std::vector<uint8_t>> cache_;
};

class Coherence : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::make_unique<base::ScratchDir>("coherence");
    probe_ = probe(dir_->path());
    if (!probe_.o_direct) GTEST_SKIP() << "no O_DIRECT here: " << probe_.o_direct_note;
    opts_.dir = dir_->path();
    opts_.rounds = 20;
    opts_.seed = base::TestSeed();
    opts_.stop = never;
  }
  std::unique_ptr<base::ScratchDir> dir_;
  ProbeResult probe_;
  CoherenceOptions opts_;
};

TEST_F(Coherence, RealMountReadsBackEveryWrite) {
  CoherenceResult c = run_coherence(opts_, probe_);
  ASSERT_TRUE(c.ok()) << c.skipped << c.error;
  EXPECT_EQ(c.rounds, 20u);
  EXPECT_EQ(c.reads, 40u);
  EXPECT_EQ(c.stale, 0u) << (c.examples.empty() ? "" : c.examples[0]);
  EXPECT_EQ(dir_->entries(), 0u);
}

TEST_F(Coherence, StaleReaderIsCaughtEveryRound) {
  StaleReader stale;
  opts_.read = [&stale](int fd, void* b, size_t n, off_t off) { return stale(fd, b, n, off); };
  CoherenceResult c = run_coherence(opts_, probe_);
  ASSERT_TRUE(c.ok()) << c.skipped << c.error;
  EXPECT_EQ(c.rounds, 20u);
  // Step 2 reads fresh pages (correct); step 4 re-reads a page cached as zeros.
  EXPECT_EQ(c.stale, 20u);
  EXPECT_EQ(c.stale_zero, 20u);
  ASSERT_FALSE(c.examples.empty());
  EXPECT_NE(c.examples[0].find("zeros"), std::string::npos);
  kit::Results r("io", kit::Metadata{});
  add_coherence_rows(r, opts_, c, "IO-5");
  bool found = false;
  for (const auto& row : r.rows()) found |= row.metric == "stale_reads" && row.value == 20;
  EXPECT_TRUE(found);
}

}  // namespace coherence_test
}  // namespace fenec::iobench
