// A batch's buffers merged into one pwritev(2): one system call, one write
// presented to the device however many buffers the batch holds (IO-7).
#include "iobench/src/submit.h"

namespace fenec::iobench {
namespace {

class PwritevSubmitter final : public BlockingSubmitter {
 public:
  SubmitKind kind() const override { return SubmitKind::kPwritev; }

 protected:
  IoError write(const WriteRequest& w) override {
    return pwritev_full(w.fd, w.iov, w.iovcnt, w.offset, *w.path, &stats_.write_calls);
  }
};

}  // namespace

std::unique_ptr<Submitter> make_pwritev_submitter() { return std::make_unique<PwritevSubmitter>(); }

}  // namespace fenec::iobench
