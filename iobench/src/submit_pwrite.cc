// The plainest path: one pwrite(2) per buffer, so a batch of N buffers costs N
// system calls and presents the disk N writes (the arm IO-7 compares against).
#include "iobench/src/submit.h"

namespace fenec::iobench {
namespace {

class PwriteSubmitter final : public Submitter {
 public:
  SubmitKind kind() const override { return SubmitKind::kPwrite; }

  IoError submit(const WriteRequest& w) override {
    uint64_t off = w.offset;
    for (int i = 0; i < w.iovcnt; ++i) {
      IoError e = pwrite_full(w.fd, w.iov[i].iov_base, w.iov[i].iov_len, off, *w.path, &stats_.write_calls);
      if (!e.ok()) return e;
      off += w.iov[i].iov_len;
    }
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

std::unique_ptr<Submitter> make_pwrite_submitter() { return std::make_unique<PwriteSubmitter>(); }

}  // namespace fenec::iobench
