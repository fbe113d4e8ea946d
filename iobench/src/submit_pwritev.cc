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

extern const SubmitPath kPwritevPath{
    .kind = SubmitKind::kPwritev,
    .name = "pwritev",
    .help = "a batch's buffers merged into one pwritev(2): one call, one write to the device",
    .fio_engine = "pvsync",
    .make = [](unsigned, std::string*) -> std::unique_ptr<Submitter> { return std::make_unique<PwritevSubmitter>(); },
};

}  // namespace fenec::iobench
