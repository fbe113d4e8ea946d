#include "iobench/src/submit.h"

namespace fenec::iobench {

IoError BlockingSubmitter::submit(const WriteRequest& w) {
  IoError e = write(w);
  if (!e.ok()) return e;
  stats_.bytes += w.bytes;
  done_.push_back(w.tag);
  return {};
}

IoError BlockingSubmitter::reap(unsigned, std::vector<uint32_t>* done) {
  done->insert(done->end(), done_.begin(), done_.end());
  done_.clear();
  return {};
}

IoError BlockingSubmitter::sync(int fd, const std::string& path, SyncCall call) {
  if (call == SyncCall::kNone) return {};
  ++stats_.sync_calls;
  return sync_fd(fd, call == SyncCall::kFdatasync, path);
}

std::unique_ptr<Submitter> make_submitter(SubmitKind kind, unsigned depth, std::string* error) {
  switch (kind) {
    case SubmitKind::kPwrite: return make_pwrite_submitter();
    case SubmitKind::kPwritev: return make_pwritev_submitter();
    case SubmitKind::kUring: return make_uring_submitter(depth, error);
    case SubmitKind::kNull: return make_null_submitter(depth);
  }
  *error = "unknown submission path";
  return nullptr;
}

}  // namespace fenec::iobench
