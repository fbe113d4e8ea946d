// Env: the one seam through which the engine touches files.
//
// Every open, write, read, fdatasync, link, rename and mmap goes through it,
// so a test can swap in a FaultEnv (engine/src/io/fault_env.h) that loses
// unsynced bytes at a simulated power cut or fails the Nth call with EIO or
// ENOSPC, and a bench can count exactly the syscalls a design makes. Env
// implementations are thread-safe; a File may be used from several threads
// at once for positional I/O (pwrite/pread at distinct offsets).
#pragma once

#include <sys/uio.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "fenec/status.h"

namespace fenec {

// Cumulative counts of what an Env asked the kernel to do. Each field is a
// count of syscalls (or bytes), so "fsyncs per commit" is a division.
struct EnvCounters {
  uint64_t writes = 0;        // pwrite/pwritev calls
  uint64_t write_bytes = 0;   // bytes those calls wrote
  uint64_t reads = 0;         // pread calls
  uint64_t syncs = 0;         // fdatasync/fsync calls on files
  uint64_t dir_syncs = 0;     // fsync calls on directories
};

class File {
 public:
  virtual ~File() = default;
  // Writes all of data at offset (retrying short writes and EINTR).
  // Fails: kIOError (errno), kNoSpace.
  virtual Status Write(uint64_t offset, std::span<const uint8_t> data) = 0;
  // One pwritev of every buffer, back to back from offset (IO-7).
  // Fails: as Write.
  virtual Status WriteV(uint64_t offset, std::span<const iovec> parts) = 0;
  // Reads up to out.size() bytes; *got is short only at end of file.
  // Fails: kIOError.
  virtual Status Read(uint64_t offset, std::span<uint8_t> out, size_t* got) = 0;
  // fdatasync. Fails: kIOError (after which the file's state is unknown: the
  // engine stops writing rather than retry, as PostgreSQL learned to).
  virtual Status Sync() = 0;
  // Fails: kIOError.
  virtual Status Size(uint64_t* size) = 0;
  virtual Status Truncate(uint64_t size) = 0;
  // Reserves blocks for [offset, offset + length) without changing the
  // file's size (fallocate with FALLOC_FL_KEEP_SIZE): a later write there
  // needs no new blocks, so a full disk cannot refuse it (where the file
  // system overwrites in place). Fails: kNoSpace, kNotSupported where the
  // file system lacks it, kIOError.
  virtual Status Allocate(uint64_t offset, uint64_t length) = 0;
  // Maps `reserve` bytes of the file read-only and shared. Only bytes below
  // the file's current size may be touched; pages written later through
  // Write become readable through the same mapping (page cache is shared),
  // so one large reservation serves a growing file. Fails: kIOError,
  // kNotSupported.
  virtual Status Map(uint64_t reserve, const uint8_t** base) = 0;
  virtual const std::string& path() const = 0;
  // The kernel file descriptor, for I/O submitted elsewhere (the global
  // io_uring, IO-6); -1 where the Env must see every write (FaultEnv).
  virtual int fd() const { return -1; }
};

enum class OpenMode { kRead, kReadWrite, kCreate /* read-write, created if missing */, kCreateNew /* fails if exists */ };

class Env {
 public:
  virtual ~Env() = default;
  // The process-wide PosixEnv. Never deleted.
  static Env* Default();

  // Fails: kNotFound (ENOENT), kAlreadyExists (kCreateNew), kIOError.
  virtual Status Open(const std::string& path, OpenMode mode, std::unique_ptr<File>* out) = 0;
  virtual Status CreateDir(const std::string& path) = 0;          // ok if it exists
  virtual Status DeleteFile(const std::string& path) = 0;         // kNotFound if absent
  virtual Status DeleteDir(const std::string& path) = 0;          // an empty directory; kNotFound if absent
  virtual Status Rename(const std::string& from, const std::string& to) = 0;
  virtual Status Link(const std::string& from, const std::string& to) = 0;  // kNotSupported across volumes
  virtual Status ListDir(const std::string& path, std::vector<std::string>* names) = 0;  // no . or ..
  virtual bool Exists(const std::string& path) = 0;
  // fsync on the directory, so a created, renamed or deleted entry survives a power cut.
  virtual Status SyncDir(const std::string& path) = 0;

  virtual EnvCounters counters() const = 0;
};

// FileWrapper and EnvWrapper forward every call to another File or Env, so
// an Env that changes one behaviour (a slow fdatasync, injected faults, no
// hard links) overrides only the calls it changes, as LevelDB's EnvWrapper.
class FileWrapper : public File {
 public:
  explicit FileWrapper(std::unique_ptr<File> target) : target_(std::move(target)) {}
  File* target() const { return target_.get(); }

  Status Write(uint64_t offset, std::span<const uint8_t> data) override { return target_->Write(offset, data); }
  Status WriteV(uint64_t offset, std::span<const iovec> parts) override { return target_->WriteV(offset, parts); }
  Status Read(uint64_t offset, std::span<uint8_t> out, size_t* got) override {
    return target_->Read(offset, out, got);
  }
  Status Sync() override { return target_->Sync(); }
  Status Size(uint64_t* size) override { return target_->Size(size); }
  Status Truncate(uint64_t size) override { return target_->Truncate(size); }
  Status Allocate(uint64_t offset, uint64_t length) override { return target_->Allocate(offset, length); }
  Status Map(uint64_t reserve, const uint8_t** base) override { return target_->Map(reserve, base); }
  const std::string& path() const override { return target_->path(); }
  // -1 unless a wrapper says otherwise: writes submitted on the descriptor
  // elsewhere (the global ring) would bypass the wrapper.
  int fd() const override { return -1; }

 private:
  std::unique_ptr<File> target_;
};

class EnvWrapper : public Env {
 public:
  explicit EnvWrapper(Env* target) : target_(target) {}
  Env* target() const { return target_; }

  Status Open(const std::string& path, OpenMode mode, std::unique_ptr<File>* out) override {
    return target_->Open(path, mode, out);
  }
  Status CreateDir(const std::string& path) override { return target_->CreateDir(path); }
  Status DeleteFile(const std::string& path) override { return target_->DeleteFile(path); }
  Status DeleteDir(const std::string& path) override { return target_->DeleteDir(path); }
  Status Rename(const std::string& from, const std::string& to) override { return target_->Rename(from, to); }
  Status Link(const std::string& from, const std::string& to) override { return target_->Link(from, to); }
  Status ListDir(const std::string& path, std::vector<std::string>* names) override {
    return target_->ListDir(path, names);
  }
  bool Exists(const std::string& path) override { return target_->Exists(path); }
  Status SyncDir(const std::string& path) override { return target_->SyncDir(path); }
  EnvCounters counters() const override { return target_->counters(); }

 private:
  Env* target_;
};

}  // namespace fenec
