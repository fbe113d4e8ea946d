// FaultEnv: an Env for tests that loses what a power cut would lose and
// fails the calls a dying disk would fail.
//
// Writes go through to the wrapped Env at once (so reads and mmap see them,
// as they would see the page cache), but each one not yet covered by a Sync
// of its file is remembered with the bytes it replaced. ApplyCrash() then
// plays the power cut, as SQLite's crash VFS does: sector by sector (512 B),
// each unsynced write is kept, dropped (the old bytes put back) or garbled
// (random bytes), chosen by a seeded RNG. Only bytes an unsynced write
// covered change: like SQLite's default (SQLITE_IOCAP_POWERSAFE_OVERWRITE),
// we assume a device does not damage bytes of a sector nobody rewrote, which
// the journal relies on when it appends mid-sector. Files created since their folder
// was last SyncDir'ed may vanish. Deletions are not undone (a journal the
// engine deleted was no longer needed, so its return would be harmless).
//
// A full disk: SetFull(true) makes the file system refuse new blocks, as
// ext4 or xfs do when full: a write reaching past both the file's size and
// what Allocate reserved for it, and every Allocate, fail with ENOSPC;
// writes into blocks the file has (overwrites, zeros written ahead,
// reserved blocks) succeed. SetFull(false): space is back.
//
// Faults: FailNth(op, n, errno) makes the n-th next call of that kind fail
// with errno (once, or from then on if sticky); Crash() makes every
// mutating call fail with EIO from then on, so a Database being torn down
// writes nothing more, like a process whose machine lost power.
#pragma once

#include <cstdint>
#include <atomic>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/src/base/mutex.h"
#include "engine/src/base/thread_annotations.h"
#include "fenec/env.h"

namespace fenec {

enum class FaultOp { kWrite, kSync, kSyncDir, kOpen };

struct CrashPolicy {
  double keep = 0.5;    // chance a sector of an unsynced write survives
  double garble = 0.1;  // chance it holds random bytes; the rest are dropped
  bool drop_unsynced_creates = true;
};

struct CrashReport {
  uint64_t writes = 0;  // unsynced writes at the crash
  uint64_t sectors_kept = 0, sectors_dropped = 0, sectors_garbled = 0;
  uint64_t files_removed = 0;
};

class FaultEnv final : public EnvWrapper {
 public:
  explicit FaultEnv(Env* base = Env::Default());
  ~FaultEnv() override;

  // The n-th (1-based) next call of `op` whose path contains `path_part`
  // fails with `err`; with sticky, every such call from then on does.
  void FailNth(FaultOp op, uint64_t n, int err, std::string path_part = {}, bool sticky = false);
  void ClearFaults();
  uint64_t faults_fired() const;
  // The full disk above; refusals() counts the calls it refused.
  void SetFull(bool full);
  uint64_t refusals() const;

  // From now on writes, syncs, creates, renames and deletes fail with EIO.
  void Crash();
  // Plays the power cut on the files (call after Crash() and after the
  // Database using this Env is destroyed), then forgets all unsynced state
  // and lifts the crash: the Env is ready for a reopen.
  CrashReport ApplyCrash(uint64_t seed, const CrashPolicy& policy = {});
  // Every file Sync sleeps this long first: a slow disk, so tests can make
  // writers meet an fsync in progress (GR-5) without relying on timing luck.
  void SetSyncDelay(uint32_t micros) { sync_delay_us_.store(micros); }
  // Writes issued while some file's Sync was in progress.
  uint64_t writes_during_sync() const;
  // Forgets unsynced state as if everything had been synced.
  void ForgetUnsynced();
  uint64_t unsynced_writes() const;

  Status Open(const std::string& path, OpenMode mode, std::unique_ptr<File>* out) override;
  Status CreateDir(const std::string& path) override;
  Status DeleteFile(const std::string& path) override;
  Status DeleteDir(const std::string& path) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status Link(const std::string& from, const std::string& to) override;
  Status SyncDir(const std::string& path) override;
  EnvCounters counters() const override;

  // Used by FaultFile.
  Status BeforeCall(FaultOp op, const std::string& path, const char* name);
  void RecordWrite(const std::string& path, uint64_t offset, std::vector<uint8_t> old_bytes, uint64_t old_size,
                   uint64_t length);
  void RecordSync(const std::string& path);
  void CountWrite(uint64_t bytes);
  // Full disk: ENOSPC for a write to [offset, end) past size and the reserved blocks.
  Status CheckRoom(const std::string& path, uint64_t end, uint64_t size, const char* name);
  Status CheckAllocate(const std::string& path, uint64_t end);
  void ForgetReserved(const std::string& path);
  void CountRead();
  void CountSync();
  void SyncBegin();
  void SyncEnd();

 private:
  struct UnsyncedWrite {
    uint64_t offset, length;
    std::vector<uint8_t> old_bytes;  // what [offset, offset+length) held, up to the old size
    uint64_t old_size;               // file size before the write
  };
  struct Fault {
    FaultOp op;
    uint64_t remaining;
    int err;
    std::string path_part;
    bool sticky, fired = false;
  };

  mutable base::Mutex mu_;
  std::map<std::string, std::vector<UnsyncedWrite>> unsynced_ FENEC_GUARDED_BY(mu_);
  // Size at the last sync, per file with unsynced writes.
  std::map<std::string, uint64_t> synced_size_ FENEC_GUARDED_BY(mu_);
  std::set<std::string> unsynced_creates_ FENEC_GUARDED_BY(mu_);
  std::vector<Fault> faults_ FENEC_GUARDED_BY(mu_);
  uint64_t faults_fired_ FENEC_GUARDED_BY(mu_) = 0;
  bool full_ FENEC_GUARDED_BY(mu_) = false;
  uint64_t refusals_ FENEC_GUARDED_BY(mu_) = 0;
  std::map<std::string, uint64_t> reserved_end_ FENEC_GUARDED_BY(mu_);  // Allocate's, per file
  bool crashed_ FENEC_GUARDED_BY(mu_) = false;
  EnvCounters counters_ FENEC_GUARDED_BY(mu_);
  std::atomic<uint32_t> sync_delay_us_{0};
  int syncs_in_progress_ FENEC_GUARDED_BY(mu_) = 0;
  uint64_t writes_during_sync_ FENEC_GUARDED_BY(mu_) = 0;
};

}  // namespace fenec
