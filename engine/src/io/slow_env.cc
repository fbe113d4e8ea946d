#include "engine/src/io/slow_env.h"

#include <chrono>
#include <thread>

namespace fenec {
namespace {

class SlowSyncFile final : public File {
 public:
  SlowSyncFile(SlowSyncEnv* env, std::unique_ptr<File> base) : env_(env), base_(std::move(base)) {}

  Status Write(uint64_t offset, std::span<const uint8_t> data) override { return base_->Write(offset, data); }
  Status WriteV(uint64_t offset, std::span<const iovec> parts) override { return base_->WriteV(offset, parts); }
  Status Read(uint64_t offset, std::span<uint8_t> out, size_t* got) override { return base_->Read(offset, out, got); }
  Status Sync() override {
    env_->BeforeSync();
    return base_->Sync();
  }
  Status Size(uint64_t* size) override { return base_->Size(size); }
  Status Truncate(uint64_t size) override { return base_->Truncate(size); }
  Status Allocate(uint64_t offset, uint64_t length) override { return base_->Allocate(offset, length); }
  Status Map(uint64_t reserve, const uint8_t** base) override { return base_->Map(reserve, base); }
  const std::string& path() const override { return base_->path(); }

 private:
  SlowSyncEnv* env_;
  std::unique_ptr<File> base_;
};

}  // namespace

Status SlowSyncEnv::Open(const std::string& path, OpenMode mode, std::unique_ptr<File>* out) {
  std::unique_ptr<File> f;
  if (Status s = base_->Open(path, mode, &f); !s.ok()) return s;
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
