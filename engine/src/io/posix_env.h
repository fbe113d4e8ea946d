// PosixEnv: Env on plain POSIX calls, counting every syscall it makes.
#pragma once

#include <atomic>

#include "fenec/env.h"

namespace fenec {

class PosixEnv final : public Env {
 public:
  Status Open(const std::string& path, OpenMode mode, std::unique_ptr<File>* out) override;
  Status CreateDir(const std::string& path) override;
  Status DeleteFile(const std::string& path) override;
  Status DeleteDir(const std::string& path) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status Link(const std::string& from, const std::string& to) override;
  Status ListDir(const std::string& path, std::vector<std::string>* names) override;
  bool Exists(const std::string& path) override;
  Status SyncDir(const std::string& path) override;
  EnvCounters counters() const override;

  // Counted by PosixFile; relaxed atomics: these are statistics, not synchronization.
  struct Counters {
    std::atomic<uint64_t> writes{0}, write_bytes{0}, reads{0}, syncs{0}, dir_syncs{0};
  };
  Counters& mutable_counters() { return counters_; }

 private:
  Counters counters_;
};

}  // namespace fenec
