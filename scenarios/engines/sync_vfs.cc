#include "scenarios/engines/sync_vfs.h"

#include <sqlite3.h>

#include <atomic>
#include <mutex>

namespace fenec::scenarios::engines {
namespace {

constexpr const char* kVfsName = "fenec-count";

enum class Kind { kMainDb, kWal, kOther };

std::atomic<uint64_t> g_main_syncs{0}, g_wal_syncs{0}, g_other_syncs{0};

sqlite3_vfs* g_real = nullptr;  // the VFS we forward to; set once under g_once

// Our file object: SQLite allocates szOsFile bytes, we put the real file's
// object right after ours so one allocation holds both.
struct CountingFile {
  sqlite3_file base;
  Kind kind;
  sqlite3_file* real() { return reinterpret_cast<sqlite3_file*>(this + 1); }
};

CountingFile* cf(sqlite3_file* f) { return reinterpret_cast<CountingFile*>(f); }
sqlite3_file* real(sqlite3_file* f) { return cf(f)->real(); }
const sqlite3_io_methods* rm(sqlite3_file* f) { return real(f)->pMethods; }

int x_close(sqlite3_file* f) { return rm(f)->xClose(real(f)); }
int x_read(sqlite3_file* f, void* buf, int n, sqlite3_int64 off) { return rm(f)->xRead(real(f), buf, n, off); }
int x_write(sqlite3_file* f, const void* buf, int n, sqlite3_int64 off) {
  return rm(f)->xWrite(real(f), buf, n, off);
}
int x_truncate(sqlite3_file* f, sqlite3_int64 size) { return rm(f)->xTruncate(real(f), size); }

int x_sync(sqlite3_file* f, int flags) {
  switch (cf(f)->kind) {
    case Kind::kMainDb: g_main_syncs.fetch_add(1, std::memory_order_relaxed); break;
    case Kind::kWal: g_wal_syncs.fetch_add(1, std::memory_order_relaxed); break;
    case Kind::kOther: g_other_syncs.fetch_add(1, std::memory_order_relaxed); break;
  }
  return rm(f)->xSync(real(f), flags);
}

int x_file_size(sqlite3_file* f, sqlite3_int64* size) { return rm(f)->xFileSize(real(f), size); }
int x_lock(sqlite3_file* f, int level) { return rm(f)->xLock(real(f), level); }
int x_unlock(sqlite3_file* f, int level) { return rm(f)->xUnlock(real(f), level); }
int x_check_reserved(sqlite3_file* f, int* out) { return rm(f)->xCheckReservedLock(real(f), out); }
int x_file_control(sqlite3_file* f, int op, void* arg) { return rm(f)->xFileControl(real(f), op, arg); }
int x_sector_size(sqlite3_file* f) { return rm(f)->xSectorSize(real(f)); }
int x_device_chars(sqlite3_file* f) { return rm(f)->xDeviceCharacteristics(real(f)); }

// Version 2 (shared memory: what WAL needs) and 3 (memory-mapped fetch).
// The table claims version 3; a method the real file lacks answers as
// SQLite's own fallbacks expect (shm: an error, so WAL is refused; fetch: no map).
int x_shm_map(sqlite3_file* f, int pg, int pgsz, int extend, void volatile** pp) {
  if (rm(f)->iVersion < 2 || !rm(f)->xShmMap) return SQLITE_IOERR_SHMMAP;
  return rm(f)->xShmMap(real(f), pg, pgsz, extend, pp);
}
int x_shm_lock(sqlite3_file* f, int offset, int n, int flags) {
  if (rm(f)->iVersion < 2 || !rm(f)->xShmLock) return SQLITE_IOERR_SHMLOCK;
  return rm(f)->xShmLock(real(f), offset, n, flags);
}
void x_shm_barrier(sqlite3_file* f) {
  if (rm(f)->iVersion >= 2 && rm(f)->xShmBarrier) rm(f)->xShmBarrier(real(f));
}
int x_shm_unmap(sqlite3_file* f, int del) {
  if (rm(f)->iVersion < 2 || !rm(f)->xShmUnmap) return SQLITE_OK;
  return rm(f)->xShmUnmap(real(f), del);
}
int x_fetch(sqlite3_file* f, sqlite3_int64 off, int amt, void** pp) {
  if (rm(f)->iVersion < 3 || !rm(f)->xFetch) {
    *pp = nullptr;
    return SQLITE_OK;
  }
  return rm(f)->xFetch(real(f), off, amt, pp);
}
int x_unfetch(sqlite3_file* f, sqlite3_int64 off, void* p) {
  if (rm(f)->iVersion < 3 || !rm(f)->xUnfetch) return SQLITE_OK;
  return rm(f)->xUnfetch(real(f), off, p);
}

const sqlite3_io_methods kMethods = {
    3,          x_close,         x_read,        x_write,          x_truncate,    x_sync,
    x_file_size, x_lock,         x_unlock,      x_check_reserved, x_file_control,
    x_sector_size, x_device_chars, x_shm_map,   x_shm_lock,       x_shm_barrier, x_shm_unmap,
    x_fetch,    x_unfetch,
};

int v_open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* f, int flags, int* out_flags) {
  CountingFile* c = cf(f);
  c->base.pMethods = nullptr;
  c->kind = (flags & SQLITE_OPEN_MAIN_DB) ? Kind::kMainDb
            : (flags & SQLITE_OPEN_WAL)   ? Kind::kWal
                                          : Kind::kOther;
  const int rc = g_real->xOpen(g_real, name, c->real(), flags, out_flags);
  // SQLite calls xClose on our file iff pMethods is set; mirror the real
  // file so a half-opened real file is still closed.
  if (c->real()->pMethods) c->base.pMethods = &kMethods;
  return rc;
}

int v_delete(sqlite3_vfs*, const char* name, int sync_dir) { return g_real->xDelete(g_real, name, sync_dir); }
int v_access(sqlite3_vfs*, const char* name, int flags, int* out) {
  return g_real->xAccess(g_real, name, flags, out);
}
int v_full_pathname(sqlite3_vfs*, const char* name, int n, char* out) {
  return g_real->xFullPathname(g_real, name, n, out);
}
void* v_dl_open(sqlite3_vfs*, const char* name) { return g_real->xDlOpen(g_real, name); }
void v_dl_error(sqlite3_vfs*, int n, char* msg) { g_real->xDlError(g_real, n, msg); }
void (*v_dl_sym(sqlite3_vfs*, void* h, const char* sym))(void) { return g_real->xDlSym(g_real, h, sym); }
void v_dl_close(sqlite3_vfs*, void* h) { g_real->xDlClose(g_real, h); }
int v_randomness(sqlite3_vfs*, int n, char* out) { return g_real->xRandomness(g_real, n, out); }
int v_sleep(sqlite3_vfs*, int us) { return g_real->xSleep(g_real, us); }
int v_current_time(sqlite3_vfs*, double* t) { return g_real->xCurrentTime(g_real, t); }
int v_last_error(sqlite3_vfs*, int n, char* msg) { return g_real->xGetLastError(g_real, n, msg); }
int v_current_time64(sqlite3_vfs*, sqlite3_int64* t) { return g_real->xCurrentTimeInt64(g_real, t); }
int v_set_syscall(sqlite3_vfs*, const char* name, sqlite3_syscall_ptr p) {
  return g_real->xSetSystemCall(g_real, name, p);
}
sqlite3_syscall_ptr v_get_syscall(sqlite3_vfs*, const char* name) { return g_real->xGetSystemCall(g_real, name); }
const char* v_next_syscall(sqlite3_vfs*, const char* name) { return g_real->xNextSystemCall(g_real, name); }

sqlite3_vfs g_vfs{};
std::once_flag g_once;
bool g_registered = false;

void register_vfs() {
  if (sqlite3_initialize() != SQLITE_OK) return;
  g_real = sqlite3_vfs_find(nullptr);
  if (!g_real) return;
  // Claim no more than the real VFS offers: SQLite reads the optional
  // members (xCurrentTimeInt64, the syscall hooks) only by iVersion.
  g_vfs.iVersion = g_real->iVersion < 3 ? g_real->iVersion : 3;
  g_vfs.szOsFile = static_cast<int>(sizeof(CountingFile)) + g_real->szOsFile;
  g_vfs.mxPathname = g_real->mxPathname;
  g_vfs.zName = kVfsName;
  g_vfs.xOpen = v_open;
  g_vfs.xDelete = v_delete;
  g_vfs.xAccess = v_access;
  g_vfs.xFullPathname = v_full_pathname;
  g_vfs.xDlOpen = v_dl_open;
  g_vfs.xDlError = v_dl_error;
  g_vfs.xDlSym = v_dl_sym;
  g_vfs.xDlClose = v_dl_close;
  g_vfs.xRandomness = v_randomness;
  g_vfs.xSleep = v_sleep;
  g_vfs.xCurrentTime = v_current_time;
  g_vfs.xGetLastError = v_last_error;
  g_vfs.xCurrentTimeInt64 = v_current_time64;
  g_vfs.xSetSystemCall = v_set_syscall;
  g_vfs.xGetSystemCall = v_get_syscall;
  g_vfs.xNextSystemCall = v_next_syscall;
  g_registered = sqlite3_vfs_register(&g_vfs, /*makeDflt=*/0) == SQLITE_OK;
}

}  // namespace

const char* counting_vfs_name() {
  std::call_once(g_once, register_vfs);
  return g_registered ? kVfsName : nullptr;
}

SyncCounts sync_counts() {
  return {g_main_syncs.load(std::memory_order_relaxed), g_wal_syncs.load(std::memory_order_relaxed),
          g_other_syncs.load(std::memory_order_relaxed)};
}

}  // namespace fenec::scenarios::engines
