#include "engine/src/io/slow_env.h"

#include <chrono>
#include <thread>

namespace fenec {
namespace {

class SlowSyncFile final : public FileWrapper {
 public:
  SlowSyncFile(SlowSyncEnv* env, std::unique_ptr<File> base) : FileWrapper(std::move(base)), env_(env) {}

  Status Sync() override {
    env_->BeforeSync();
    return FileWrapper::Sync();
  }

 private:
  SlowSyncEnv* env_;
};

}  // namespace

Status SlowSyncEnv::Open(const std::string& path, OpenMode mode, std::unique_ptr<File>* out) {
  std::unique_ptr<File> f;
  if (Status s = target()->Open(path, mode, &f); !s.ok()) return s;
  *out = std::make_unique<SlowSyncFile>(this, std::move(f));
  return Status::OK();
}

void SlowSyncEnv::BeforeSync() {
  const uint32_t us = delay_us_.load(std::memory_order_relaxed);
  if (us == 0) return;
  // Sleeps, not spins: a slow device keeps the caller off the CPU, as a real
  // fdatasync does, so the other threads (the merger) may run meanwhile.
  std::this_thread::sleep_for(std::chrono::microseconds(us));
  delayed_.fetch_add(1, std::memory_order_relaxed);
  delayed_us_.fetch_add(us, std::memory_order_relaxed);
}

}  // namespace fenec
