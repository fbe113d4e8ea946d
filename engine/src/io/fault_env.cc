#include "engine/src/io/fault_env.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <random>
#include <thread>

namespace fenec {
namespace {

constexpr uint64_t kSector = 512;

std::string ParentDir(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

class FaultFile final : public FileWrapper {
 public:
  FaultFile(FaultEnv* env, std::unique_ptr<File> base) : FileWrapper(std::move(base)), env_(env) {}

  Status Write(uint64_t offset, std::span<const uint8_t> data) override {
    if (Status s = env_->BeforeCall(FaultOp::kWrite, path(), "pwrite"); !s.ok()) return s;
    uint64_t old_size = 0;
    if (Status s = target()->Size(&old_size); !s.ok()) return s;
    if (Status s = env_->CheckRoom(path(), offset + data.size(), old_size, "pwrite"); !s.ok()) return s;
    std::vector<uint8_t> old;
    if (offset < old_size) {
      old.resize(std::min<uint64_t>(data.size(), old_size - offset));
      size_t got = 0;
      if (Status s = target()->Read(offset, old, &got); !s.ok()) return s;
      old.resize(got);
    }
    if (Status s = target()->Write(offset, data); !s.ok()) return s;
    env_->CountWrite(data.size());
    env_->RecordWrite(path(), offset, std::move(old), old_size, data.size());
    return Status::OK();
  }

  Status WriteV(uint64_t offset, std::span<const iovec> parts) override {
    // One buffer, one recorded write: a pwritev is one call to the disk too.
    std::vector<uint8_t> flat;
    for (const iovec& v : parts) {
      auto* p = static_cast<const uint8_t*>(v.iov_base);
      flat.insert(flat.end(), p, p + v.iov_len);
    }
    return Write(offset, flat);
  }

  Status Read(uint64_t offset, std::span<uint8_t> out, size_t* got) override {
    env_->CountRead();
    return target()->Read(offset, out, got);
  }

  Status Sync() override {
    if (Status s = env_->BeforeCall(FaultOp::kSync, path(), "fdatasync"); !s.ok()) return s;
    env_->CountSync();
    env_->SyncBegin();
    Status synced = target()->Sync();
    env_->SyncEnd();
    if (Status s = synced; !s.ok()) return s;
    env_->RecordSync(path());
    return Status::OK();
  }

  Status Truncate(uint64_t size) override {
    if (Status s = env_->BeforeCall(FaultOp::kWrite, path(), "ftruncate"); !s.ok()) return s;
    env_->ForgetReserved(path());  // ftruncate frees the blocks reserved past the size
    return target()->Truncate(size);
  }
  Status Allocate(uint64_t offset, uint64_t length) override {
    if (Status s = env_->BeforeCall(FaultOp::kWrite, path(), "fallocate"); !s.ok()) return s;
    if (Status s = env_->CheckAllocate(path(), offset + length); !s.ok()) return s;
    return target()->Allocate(offset, length);
  }

 private:
  FaultEnv* env_;
};

}  // namespace

FaultEnv::FaultEnv(Env* base) : EnvWrapper(base) {}
FaultEnv::~FaultEnv() = default;

void FaultEnv::FailNth(FaultOp op, uint64_t n, int err, std::string path_part, bool sticky) {
  base::MutexLock lock(&mu_);
  faults_.push_back(Fault{op, n, err, std::move(path_part), sticky});
}

void FaultEnv::ClearFaults() {
  base::MutexLock lock(&mu_);
  faults_.clear();
}

uint64_t FaultEnv::faults_fired() const {
  base::MutexLock lock(&mu_);
  return faults_fired_;
}

void FaultEnv::SetFull(bool full) {
  base::MutexLock lock(&mu_);
  full_ = full;
}

uint64_t FaultEnv::refusals() const {
  base::MutexLock lock(&mu_);
  return refusals_;
}

Status FaultEnv::CheckRoom(const std::string& path, uint64_t end, uint64_t size, const char* name) {
  base::MutexLock lock(&mu_);
  if (!full_ || end <= size) return Status::OK();
  auto it = reserved_end_.find(path);
  if (it != reserved_end_.end() && end <= it->second) return Status::OK();
  ++refusals_;
  return Status::FromErrno(name, path, ENOSPC);
}

void FaultEnv::ForgetReserved(const std::string& path) {
  base::MutexLock lock(&mu_);
  reserved_end_.erase(path);
}

Status FaultEnv::CheckAllocate(const std::string& path, uint64_t end) {
  base::MutexLock lock(&mu_);
  if (full_) {
    ++refusals_;
    return Status::FromErrno("fallocate", path, ENOSPC);
  }
  uint64_t& reserved = reserved_end_[path];
  reserved = std::max(reserved, end);
  return Status::OK();
}

void FaultEnv::Crash() {
  base::MutexLock lock(&mu_);
  crashed_ = true;
}

Status FaultEnv::BeforeCall(FaultOp op, const std::string& path, const char* name) {
  base::MutexLock lock(&mu_);
  if (crashed_ && op != FaultOp::kOpen) return Status::IOError(name, path, EIO);
  for (Fault& f : faults_) {
    if (f.op != op || path.find(f.path_part) == std::string::npos) continue;
    if (f.fired && f.sticky) return Status::FromErrno(name, path, f.err);
    if (f.fired || f.remaining == 0) continue;
    if (--f.remaining == 0) {
      f.fired = true;
      ++faults_fired_;
      return Status::FromErrno(name, path, f.err);
    }
  }
  return Status::OK();
}

void FaultEnv::RecordWrite(const std::string& path, uint64_t offset, std::vector<uint8_t> old_bytes,
                           uint64_t old_size, uint64_t length) {
  base::MutexLock lock(&mu_);
  synced_size_.try_emplace(path, old_size);
  unsynced_[path].push_back(UnsyncedWrite{offset, length, std::move(old_bytes), old_size});
}

void FaultEnv::RecordSync(const std::string& path) {
  base::MutexLock lock(&mu_);
  unsynced_.erase(path);
  synced_size_.erase(path);
}

void FaultEnv::CountWrite(uint64_t bytes) {
  base::MutexLock lock(&mu_);
  if (syncs_in_progress_ > 0) ++writes_during_sync_;
  ++counters_.writes;
  counters_.write_bytes += bytes;
}
void FaultEnv::SyncBegin() {
  uint32_t delay = sync_delay_us_.load();
  {
    base::MutexLock lock(&mu_);
    ++syncs_in_progress_;
  }
  if (delay > 0) std::this_thread::sleep_for(std::chrono::microseconds(delay));
}

void FaultEnv::SyncEnd() {
  base::MutexLock lock(&mu_);
  --syncs_in_progress_;
}

uint64_t FaultEnv::writes_during_sync() const {
  base::MutexLock lock(&mu_);
  return writes_during_sync_;
}

void FaultEnv::CountRead() {
  base::MutexLock lock(&mu_);
  ++counters_.reads;
}
void FaultEnv::CountSync() {
  base::MutexLock lock(&mu_);
  ++counters_.syncs;
}

uint64_t FaultEnv::unsynced_writes() const {
  base::MutexLock lock(&mu_);
  uint64_t n = 0;
  for (const auto& [path, writes] : unsynced_) n += writes.size();
  return n;
}

void FaultEnv::ForgetUnsynced() {
  base::MutexLock lock(&mu_);
  unsynced_.clear();
  synced_size_.clear();
  unsynced_creates_.clear();
}

// Each sector an unsynced write touched ends up as it is now (kept), as it
// was at the file's last sync (dropped: every unsynced write's old bytes put
// back, latest first, so the earliest write's old bytes win), or random
// (garbled). Intermediate versions are not modelled: the two ends already
// give recovery every torn shape it must survive.
CrashReport FaultEnv::ApplyCrash(uint64_t seed, const CrashPolicy& policy) {
  base::MutexLock lock(&mu_);
  CrashReport report;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> coin(0.0, 1.0);

  for (const std::string& path : unsynced_creates_) {
    if (!policy.drop_unsynced_creates || coin(rng) < policy.keep) continue;
    if (target()->DeleteFile(path).ok()) ++report.files_removed;
    unsynced_.erase(path);
  }

  for (auto& [path, writes] : unsynced_) {
    std::unique_ptr<File> file;
    if (!target()->Open(path, OpenMode::kReadWrite, &file).ok()) continue;  // deleted since: nothing to undo
    report.writes += writes.size();
    uint64_t cur_size = 0;
    if (!file->Size(&cur_size).ok()) continue;
    uint64_t synced = synced_size_[path];

    std::set<uint64_t> sectors;
    for (const UnsyncedWrite& w : writes)
      for (uint64_t s = w.offset / kSector; s <= (w.offset + w.length - 1) / kSector; ++s) sectors.insert(s);

    uint64_t keep_end = synced;  // the file is at least as long as it was at its last sync
    for (uint64_t s : sectors) {
      uint64_t lo = s * kSector, hi = std::min(lo + kSector, cur_size);
      if (lo >= hi) continue;
      double r = coin(rng);
      if (r < policy.keep) {
        ++report.sectors_kept;
        keep_end = std::max(keep_end, hi);
      } else if (r < policy.keep + policy.garble) {
        ++report.sectors_garbled;
        for (const UnsyncedWrite& w : writes) {
          uint64_t a = std::max(lo, w.offset), b = std::min(hi, w.offset + w.length);
          if (a >= b) continue;
          std::vector<uint8_t> junk(b - a);
          for (auto& byte : junk) byte = static_cast<uint8_t>(rng());
          (void)file->Write(a, junk);
        }
        keep_end = std::max(keep_end, hi);
      } else {
        ++report.sectors_dropped;
        for (auto it = writes.rbegin(); it != writes.rend(); ++it) {
          uint64_t a = std::max(lo, it->offset), b = std::min(hi, it->offset + it->length);
          if (a >= b) continue;
          std::vector<uint8_t> old(b - a, 0);  // past the old end of file: zeros
          for (uint64_t i = a; i < b; ++i)
            if (i - it->offset < it->old_bytes.size()) old[i - a] = it->old_bytes[i - it->offset];
          (void)file->Write(a, old);
        }
      }
    }
    if (keep_end < cur_size) (void)file->Truncate(keep_end);
    (void)file->Sync();
  }
  unsynced_.clear();
  synced_size_.clear();
  unsynced_creates_.clear();
  crashed_ = false;
  return report;
}

Status FaultEnv::Open(const std::string& path, OpenMode mode, std::unique_ptr<File>* out) {
  if (Status s = BeforeCall(FaultOp::kOpen, path, "open"); !s.ok()) return s;
  bool creating = (mode == OpenMode::kCreate || mode == OpenMode::kCreateNew) && !target()->Exists(path);
  if (creating) {
    base::MutexLock lock(&mu_);
    if (crashed_) return Status::IOError("open", path, EIO);
  }
  std::unique_ptr<File> base;
  if (Status s = target()->Open(path, mode, &base); !s.ok()) return s;
  if (creating) {
    base::MutexLock lock(&mu_);
    unsynced_creates_.insert(path);
  }
  *out = std::make_unique<FaultFile>(this, std::move(base));
  return Status::OK();
}

Status FaultEnv::CreateDir(const std::string& path) {
  if (Status s = BeforeCall(FaultOp::kWrite, path, "mkdir"); !s.ok()) return s;
  return target()->CreateDir(path);
}

Status FaultEnv::DeleteFile(const std::string& path) {
  if (Status s = BeforeCall(FaultOp::kWrite, path, "unlink"); !s.ok()) return s;
  Status s = target()->DeleteFile(path);
  if (s.ok()) {
    base::MutexLock lock(&mu_);
    unsynced_.erase(path);
    synced_size_.erase(path);
    unsynced_creates_.erase(path);
    reserved_end_.erase(path);
  }
  return s;
}

Status FaultEnv::DeleteDir(const std::string& path) {
  if (Status s = BeforeCall(FaultOp::kWrite, path, "rmdir"); !s.ok()) return s;
  return target()->DeleteDir(path);
}

Status FaultEnv::Rename(const std::string& from, const std::string& to) {
  if (Status s = BeforeCall(FaultOp::kWrite, from, "rename"); !s.ok()) return s;
  Status s = target()->Rename(from, to);
  if (s.ok()) {
    base::MutexLock lock(&mu_);
    if (auto it = unsynced_.find(from); it != unsynced_.end()) {
      unsynced_[to] = std::move(it->second);
      unsynced_.erase(it);
    }
    if (auto it = synced_size_.find(from); it != synced_size_.end()) {
      synced_size_[to] = it->second;
      synced_size_.erase(it);
    }
    if (unsynced_creates_.erase(from) > 0) unsynced_creates_.insert(to);
  }
  return s;
}

Status FaultEnv::Link(const std::string& from, const std::string& to) {
  if (Status s = BeforeCall(FaultOp::kWrite, to, "link"); !s.ok()) return s;
  Status s = target()->Link(from, to);
  if (s.ok()) {
    base::MutexLock lock(&mu_);
    unsynced_creates_.insert(to);
  }
  return s;
}

Status FaultEnv::SyncDir(const std::string& path) {
  if (Status s = BeforeCall(FaultOp::kSyncDir, path, "fsync"); !s.ok()) return s;
  Status s = target()->SyncDir(path);
  if (s.ok()) {
    base::MutexLock lock(&mu_);
    ++counters_.dir_syncs;
    for (auto it = unsynced_creates_.begin(); it != unsynced_creates_.end();)
      it = ParentDir(*it) == path ? unsynced_creates_.erase(it) : std::next(it);
  }
  return s;
}

EnvCounters FaultEnv::counters() const {
  base::MutexLock lock(&mu_);
  return counters_;
}

}  // namespace fenec
