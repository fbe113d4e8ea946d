// The plainest path: one pwrite(2) per buffer, so a batch of N buffers costs N
// system calls and presents the disk N writes (the arm IO-7 compares against).
#include "iobench/src/submit.h"

namespace fenec::iobench {
namespace {

class PwriteSubmitter final : public BlockingSubmitter {
 public:
  SubmitKind kind() const override { return SubmitKind::kPwrite; }

 protected:
  IoError write(const WriteRequest& w) override {
    uint64_t off = w.offset;
    for (int i = 0; i < w.iovcnt; ++i) {
      IoError e = pwrite_full(w.fd, w.iov[i].iov_base, w.iov[i].iov_len, off, *w.path, &stats_.write_calls);
      if (!e.ok()) return e;
      off += w.iov[i].iov_len;
    }
    return {};
  }
};

}  // namespace

extern const SubmitPath kPwritePath{
    .kind = SubmitKind::kPwrite,
    .name = "pwrite",
    .help = "one pwrite(2) per buffer: a batch of N buffers is N system calls (the default)",
    .is_default = true,
    .call_per_buffer = true,
    .fio_engine = "psync",
    .make = [](unsigned, std::string*) -> std::unique_ptr<Submitter> { return std::make_unique<PwriteSubmitter>(); },
};

}  // namespace fenec::iobench
