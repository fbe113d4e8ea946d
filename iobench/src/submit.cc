#include "iobench/src/submit.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>

#include "iobench/src/units.h"

namespace fenec::iobench {

// Each path's descriptor lives in its own file; this is the one list of them.
extern const SubmitPath kPwritePath, kPwritevPath, kUringPath, kNullPath;

namespace {

const SubmitPath* const kPaths[] = {&kPwritePath, &kPwritevPath, &kUringPath, &kNullPath};

}  // namespace

unsigned SubmitPath::depth_for(unsigned requested) const { return std::clamp(requested, 1u, max_depth); }

std::span<const SubmitPath* const> submit_paths() { return kPaths; }

const SubmitPath& submit_path(SubmitKind k) {
  for (const SubmitPath* p : kPaths)
    if (p->kind == k) return *p;
  // A SubmitKind without a descriptor is a build mistake, not a user's.
  std::fprintf(stderr, "iobench: submission path %d is not registered (submit.cc)\n", static_cast<int>(k));
  std::abort();
}

const char* submit_name(SubmitKind k) { return submit_path(k).name; }

bool parse_submit(std::string_view text, SubmitKind* out, std::string* error) {
  for (const SubmitPath* p : kPaths)
    if (text == p->name) {
      *out = p->kind;
      return true;
    }
  *error = fmt::format("unknown submission path '{}' (known: {})", text, submit_names());
  return false;
}

bool parse_submit_list(std::string_view text, std::vector<SubmitKind>* out, std::string* error) {
  out->clear();
  for (const std::string& item : split_list(text)) {
    SubmitKind k{};
    if (!parse_submit(item, &k, error)) return false;
    out->push_back(k);
  }
  return true;
}

std::string submit_names(bool queued_only) {
  std::string out;
  for (const SubmitPath* p : kPaths)
    if (!queued_only || p->max_depth > 1) out += out.empty() ? p->name : fmt::format(", {}", p->name);
  return out;
}

std::string submit_help_lines() {
  std::string out;
  for (const SubmitPath* p : kPaths) out += fmt::format("  {:<8} {}\n", p->name, p->help);
  return out;
}

std::string arm_name(Mode m, SubmitKind k) {
  const SubmitPath& p = submit_path(k);
  if (p.is_default) return mode_name(m);
  return fmt::format("{}+{}", mode_name(m), p.name);
}

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
  const SubmitPath& p = submit_path(kind);
  return p.make(p.depth_for(depth), error);
}

}  // namespace fenec::iobench
