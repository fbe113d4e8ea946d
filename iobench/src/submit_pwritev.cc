// A batch's buffers merged into one pwritev(2): one system call, one write
// presented to the device however many buffers the batch holds (IO-7).
#include "iobench/src/submit.h"

namespace fenec::iobench {
namespace {

class PwritevSubmitter final : public Submitter {
 public:
  SubmitKind kind() const override { return SubmitKind::kPwritev; }

  IoError submit(const WriteRequest& w) override {
    IoError e = pwritev_full(w.fd, w.iov, w.iovcnt, w.offset, *w.path, &stats_.write_calls);
    if (!e.ok()) return e;
    stats_.bytes += w.bytes;
    done_.push_back(w.tag);
    return {};
  }

  IoError reap(unsigned, std::vector<uint32_t>* done) override {
    done->insert(done->end(), done_.begin(), done_.end());
    done_.clear();
    return {};
  }

  IoError sync(int fd, const std::string& path, SyncCall call) override {
    if (call == SyncCall::kNone) return {};
    ++stats_.sync_calls;
    return sync_fd(fd, call == SyncCall::kFdatasync, path);
  }

 private:
  std::vector<uint32_t> done_;
};

}  // namespace

std::unique_ptr<Submitter> make_pwritev_submitter() { return std::make_unique<PwritevSubmitter>(); }

}  // namespace fenec::iobench
