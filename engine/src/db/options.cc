// Options' names and the checks Open makes of them.
#include <fmt/format.h>

#include "engine/src/db/db_impl.h"

namespace fenec {

const char* DurabilityName(Durability d) {
  switch (d) {
    case Durability::kDurable: return "durable";
    case Durability::kWriteThrough: return "write-through";
    case Durability::kBuffered: return "buffered";
  }
  return "?";
}

bool ParseDurability(std::string_view name, Durability* out) {
  for (Durability d : {Durability::kDurable, Durability::kWriteThrough, Durability::kBuffered}) {
    if (name == DurabilityName(d)) {
      *out = d;
      return true;
    }
  }
  return false;
}

bool ParseCommitWindow(std::string_view text, uint32_t* us) {
  if (text == "adaptive") {
    *us = kCommitWindowAdaptive;
    return true;
  }
  uint64_t v = 0;
  if (text.empty() || text.size() > 7) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v > 1000000) return false;
  *us = static_cast<uint32_t>(v);
  return true;
}

Status ValidateOptions(const Options& options) {
  if (options.write_buffer_bytes < 4096 || options.write_buffer_bytes > (256u << 20))
    return Status::InvalidArgument("write_buffer_bytes must be 4 KiB .. 256 MiB");
  if (options.handover_piece == 0) return Status::InvalidArgument("handover_piece must be > 0");
  if (options.durability != Durability::kDurable && options.sync_ms == 0)
    return Status::InvalidArgument(fmt::format("sync_ms must be > 0 in {} mode", DurabilityName(options.durability)));
  if (options.journal_file_bytes < 4096) return Status::InvalidArgument("journal_file_bytes must be >= 4 KiB");
  // One pwritev names the zeros 1 MiB at a time, and IOV_MAX is 1 024.
  if (options.journal_zero_ahead > (256ull << 20))
    return Status::InvalidArgument("journal_zero_ahead must be <= 256 MiB");
  // A window is a fraction of one fdatasync; a second of it is a mistake, not a setting.
  if (options.commit_window_us > 1000000 && options.commit_window_us != kCommitWindowAdaptive)
    return Status::InvalidArgument("commit_window_us must be <= 1 000 000, or kCommitWindowAdaptive");
  if (options.max_commit_bytes < 4096 || options.max_commit_bytes > limits::kMaxCommitBytes)
    return Status::InvalidArgument(
        fmt::format("max_commit_bytes must be 4 KiB .. limits::kMaxCommitBytes ({})", limits::kMaxCommitBytes));
  if (Status s = ValidateHnswOptions(options.hnsw); !s.ok()) return s;
  return Status::OK();
}

}  // namespace fenec
