// io_uring through liburing: a batch is one IORING_OP_WRITE (one buffer) or
// IORING_OP_WRITEV (several), up to depth() in flight. Queued entries are
// submitted together when the job reaps, so a round of writes costs one
// io_uring_enter. -EAGAIN/-EINTR completions are resubmitted; a short write's
// remainder is finished with pwritev so the bytes land where planned.
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <liburing.h>

#include "iobench/src/probe.h"
#include "iobench/src/submit.h"

namespace fenec::iobench {
namespace {

constexpr uint64_t kSyncTag = UINT64_MAX;

class UringSubmitter final : public Submitter {
 public:
  explicit UringSubmitter(unsigned depth) : depth_(depth ? depth : 1), pending_(depth_) {}
  ~UringSubmitter() override {
    if (ready_) io_uring_queue_exit(&ring_);
  }

  std::string init() {
    // One extra entry so a sync can be queued beside a full set of writes.
    int r = io_uring_queue_init(depth_ + 1, &ring_, 0);
    if (r < 0) return fmt::format("io_uring_queue_init({}): {}", depth_ + 1, std::strerror(-r));
    ready_ = true;
    return "";
  }

  SubmitKind kind() const override { return SubmitKind::kUring; }
  unsigned depth() const override { return depth_; }

  IoError submit(const WriteRequest& w) override {
    if (w.tag >= depth_) return io_failure("io_uring submit", *w.path, "tag beyond depth");
    pending_[w.tag] = w;
    return queue(w);
  }

  IoError reap(unsigned min, std::vector<uint32_t>* done) override {
    unsigned got = 0;
    while (got < min) {
      int r = io_uring_submit_and_wait(&ring_, 1);
      if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY)
        return io_error("io_uring_submit_and_wait", "ring", -r);
      io_uring_cqe* cqe = nullptr;
      while (io_uring_peek_cqe(&ring_, &cqe) == 0 && cqe) {
        uint64_t tag = io_uring_cqe_get_data64(cqe);
        int res = cqe->res;
        io_uring_cqe_seen(&ring_, cqe);
        if (tag == kSyncTag) continue;  // a sync's completion is taken by sync()
        IoError e = complete(static_cast<uint32_t>(tag), res);
        if (!e.ok()) return e;
        if (retry_) {
          retry_ = false;
          continue;
        }
        done->push_back(static_cast<uint32_t>(tag));
        ++got;
      }
    }
    return {};
  }

  IoError sync(int fd, const std::string& path, SyncCall call) override {
    if (call == SyncCall::kNone) return {};
    ++stats_.sync_calls;
    while (true) {
      io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
      if (!sqe) return io_failure("io_uring fsync", path, "submission queue full");
      io_uring_prep_fsync(sqe, fd, call == SyncCall::kFdatasync ? IORING_FSYNC_DATASYNC : 0);
      io_uring_sqe_set_data64(sqe, kSyncTag);
      int res = 0;
      while (true) {
        int r = io_uring_submit_and_wait(&ring_, 1);
        if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY)
          return io_error("io_uring_submit_and_wait (fsync)", path, -r);
        io_uring_cqe* cqe = nullptr;
        if (io_uring_peek_cqe(&ring_, &cqe) != 0 || !cqe) continue;
        uint64_t tag = io_uring_cqe_get_data64(cqe);
        res = cqe->res;
        io_uring_cqe_seen(&ring_, cqe);
        if (tag == kSyncTag) break;
      }
      if (res == -EINTR || res == -EAGAIN) continue;
      if (res < 0) return io_error(call == SyncCall::kFdatasync ? "io_uring fdatasync" : "io_uring fsync", path, -res);
      return {};
    }
  }

 private:
  IoError queue(const WriteRequest& w) {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (!sqe) {
      io_uring_submit(&ring_);
      sqe = io_uring_get_sqe(&ring_);
      if (!sqe) return io_failure("io_uring submit", *w.path, "submission queue full");
    }
    if (w.iovcnt == 1)
      io_uring_prep_write(sqe, w.fd, w.iov[0].iov_base, static_cast<unsigned>(w.iov[0].iov_len), w.offset);
    else
      io_uring_prep_writev(sqe, w.fd, w.iov, static_cast<unsigned>(w.iovcnt), w.offset);
    io_uring_sqe_set_data64(sqe, w.tag);
    ++stats_.write_calls;
    return {};
  }

  IoError complete(uint32_t tag, int res) {
    const WriteRequest& w = pending_[tag];
    if (res == -EAGAIN || res == -EINTR) {
      retry_ = true;
      return queue(w);
    }
    if (res < 0) return io_error(fmt::format("io_uring write {} bytes at {} to", w.bytes, w.offset), *w.path, -res);
    if (static_cast<uint64_t>(res) < w.bytes) {
      if (res == 0) return io_failure("io_uring write", *w.path, "wrote 0 bytes");
      IoError e = finish_short(w, static_cast<uint64_t>(res));
      if (!e.ok()) return e;
    }
    stats_.bytes += w.bytes;
    return {};
  }

  IoError finish_short(const WriteRequest& w, uint64_t written) {
    std::vector<iovec> rest(w.iov, w.iov + w.iovcnt);
    size_t i = 0;
    uint64_t skip = written;
    while (i < rest.size() && skip >= rest[i].iov_len) skip -= rest[i++].iov_len;
    rest[i].iov_base = static_cast<char*>(rest[i].iov_base) + skip;
    rest[i].iov_len -= skip;
    return pwritev_full(w.fd, rest.data() + i, static_cast<int>(rest.size() - i), w.offset + written,
                        *w.path, &stats_.write_calls);
  }

  unsigned depth_;
  io_uring ring_{};
  bool ready_ = false;
  bool retry_ = false;
  std::vector<WriteRequest> pending_;
};

std::unique_ptr<Submitter> make_uring(unsigned depth, std::string* error) {
  auto s = std::make_unique<UringSubmitter>(depth);
  std::string why = s->init();
  if (!why.empty()) {
    *error = why;
    return nullptr;
  }
  return s;
}

// The probe tried a ring write: sysctl, seccomp or an old kernel can forbid it.
std::string uring_unavailable(const ProbeResult& p) {
  return p.io_uring ? "" : fmt::format("io_uring unavailable: {}", p.io_uring_note);
}

}  // namespace

extern const SubmitPath kUringPath{
    .kind = SubmitKind::kUring,
    .name = "uring",
    .help = "one IORING_OP_WRITE[V] per batch, up to --depth in flight (liburing)",
    .max_depth = kMaxDepth,
    .unavailable = uring_unavailable,
    .fio_engine = "io_uring",
    .make = make_uring,
};

}  // namespace fenec::iobench
