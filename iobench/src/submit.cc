#include "iobench/src/submit.h"

namespace fenec::iobench {

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
