// No I/O: every write and sync "completes" at once. It lets tests run the
// whole job loop (planning, depth, batching, sync rounds, intervals, counts)
// without a disk, the way fio's null engine tests fio itself.
#include "iobench/src/submit.h"

namespace fenec::iobench {
namespace {

class NullSubmitter final : public Submitter {
 public:
  explicit NullSubmitter(unsigned depth) : depth_(depth ? depth : 1) {}
  SubmitKind kind() const override { return SubmitKind::kNull; }
  unsigned depth() const override { return depth_; }

  IoError submit(const WriteRequest& w) override {
    if (w.tag >= depth_) return io_failure("null submit", "-", "tag beyond depth");
    ++stats_.write_calls;
    stats_.bytes += w.bytes;
    done_.push_back(w.tag);
    return {};
  }

  IoError reap(unsigned min, std::vector<uint32_t>* done) override {
    if (done_.size() < min) return io_failure("null reap", "-", "waiting for more writes than queued");
    done->insert(done->end(), done_.begin(), done_.end());
    done_.clear();
    return {};
  }

  IoError sync(int, const std::string&, SyncCall call) override {
    if (call != SyncCall::kNone) ++stats_.sync_calls;
    return {};
  }

 private:
  unsigned depth_;
  std::vector<uint32_t> done_;
};

}  // namespace

extern const SubmitPath kNullPath{
    .kind = SubmitKind::kNull,
    .name = "null",
    .help = "no I/O and no files: counts the writes and syncs it was asked for (tests the harness)",
    .writes_files = false,
    .max_depth = kMaxDepth,
    .fio_engine = "null",
    .make = [](unsigned depth, std::string*) -> std::unique_ptr<Submitter> {
      return std::make_unique<NullSubmitter>(depth);
    },
};

}  // namespace fenec::iobench
