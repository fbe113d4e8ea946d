// Options: how a database writes, and which design each finding's switch selects.
//
// The defaults are the designs FINDINGS.md argues for. Each `k...Naive`
// value keeps the naive design selectable on the same code, so the
// concurrency bench can measure both in one run (CC-1..CC-5, GR-5; the
// vector index's VS-1, VS-2, GR-3, GR-4 in HnswOptions).
#pragma once

#include <cstdint>
#include <string_view>

#include "fenec/limits.h"

namespace fenec {

class Env;

// What an acknowledged write survives. Each mode's promise, in one line:
// what a crash of the process (kill -9, an OOM kill, a segfault) loses,
// and what a power cut or a kernel crash loses. Ids are never handed to
// another document after either (engine/doc/journal.md, "Ids").
enum class Durability {
  // Acknowledged once its journal record is fdatasync'ed (group commit).
  // Process crash: nothing. Power cut: nothing.
  kDurable,
  // Acknowledged once its journal record is written to the operating system
  // (one write a group-commit round, as RocksDB's sync=false); fdatasync'ed
  // every sync_ms. Process crash: nothing. Power cut: up to sync_ms.
  kWriteThrough,
  // Acknowledged once landed in the process; the journal is written when
  // 1 MiB of records gathered and, with an fdatasync, every sync_ms (CC-2's
  // and GR-5's mode). Process crash: up to sync_ms or 1 MiB of records,
  // whichever comes first. Power cut: the same.
  kBuffered,
};

// "durable", "write-through", "buffered": the server's --durability values.
const char* DurabilityName(Durability d);
// The mode of that name; false if there is none.
bool ParseDurability(std::string_view name, Durability* out);

enum class CommitMode {
  // CC-1: the journal is written and fsync'ed after the write lock is
  // released; one fsync covers every record before it. (kBuffered: records
  // gather in memory and are written at 1 MB and by the periodic sync.)
  kGroup,
  // Naive: each commit's record is written and fsync'ed under the write lock,
  // one fsync per commit, writers queued behind it. (kBuffered: written, not
  // fsync'ed, under the lock.)
  kNaive,
};

enum class BatchBuild {
  kOutsideLock,  // CC-3: rows typed and encoded before the write lock; the lock only lands them
  kUnderLock,    // naive: rows built and encoded while the write lock is held
};

enum class LongReads {
  kPinned,     // CC-5: pin (share id-index chunks and stored rows) under the shared lock, read unlocked
  kUnderLock,  // naive: hold the shared lock for the whole scan / aggregate
};

enum class BufferWrite {
  kAfterUnlock,  // CC-4: a full 1 MB write buffer is written once the write lock is let go
  kUnderLock,    // naive: written while the lock is held
};

enum class Journals {
  // JR-1: the documents' storage (root) writes its own and every index
  // storage's (branch's) journal records in one pwritev and one fdatasync;
  // the journal file is hard-linked into each branch's Journals/, so each
  // storage recovers alone from its own folder. Falls back to kSeparate
  // where hard links fail (another volume, a filesystem without them).
  kShared,
  // Naive: each storage writes and fdatasyncs its own journal; a put into a
  // collection with n indexes is n + 1 journal writes and fsyncs.
  kSeparate,
};

enum class Completion {
  // Each writer lands its own commit and waits in group commit (CC-1).
  kDirect,
  // JR-2, the transaction merger: one thread executes queued puts in
  // batches. kMergerSync completes a batch's commit asynchronously (executing
  // the next batch while it is written) only when more operations were
  // already queued; otherwise it waits for the commit before executing more.
  kMergerSync,
  // JR-2: completes asynchronously whenever it executed any operation.
  kMergerAsync,
};

// The default stays pwrite: on buffered ext4, pwritev from the committing
// threads runs ahead of both ring arms (commit-bench measures it); the global
// ring is the design for many files and for direct I/O, where its low
// priority reaches the disk.
enum class DataFlush {
  kPwrite,      // full write buffers written to the data file by pwrite, by the committing thread
  kGlobalRing,  // IO-6/JR-3: handed to the process's one io_uring, written at low I/O priority (BE/7)
};

// What open does with a journal record it cannot read (engine/doc/journal.md,
// "Recovery"; RocksDB's WALRecoveryMode is the model). Either way a torn or
// zeroed tail after the last good record - a commit never acknowledged - is
// the journal's end, and the database opens with every record before it.
enum class RecoveryMode {
  // A record that does not read (bad checksum, length, magic; cut short)
  // followed by proof that it was durable - a later record of the same
  // storage saying so, or a later journal file past it - means acknowledged
  // commits are unreadable: open fails with kCorruption naming the file and
  // the byte offset, and nothing is changed on disk.
  kTolerateTornTail,
  // Point in time: open with every record before the bad one, drop the rest
  // (counted in Stats::recovery_dropped_*, one line on stderr), and set the
  // dropped journal files aside as <name>.dropped once a checkpoint holds
  // what was kept. Acknowledged commits after the bad record are lost.
  kPointInTime,
};

// @hnsw vector indexes (engine/doc/vectors.md). Each switch names its
// finding; the k...Naive / kRow value is the "before" arm, kept selectable.
enum class VectorInsert {
  // VS-1: the linker hands up to 512 queued vectors at a time to the index,
  // which pre-links them to each other and computes their distances in
  // gathered rounds on every core.
  kBatch,
  // Naive: one vector at a time, the standard HNSW insert.
  kRow,
};

enum class VectorTable {
  kSharded,  // GR-3: the table of held vectors grows a 256th at a time
  kNaive,    // naive: rebuilt from every vector when half full
};

enum class VectorOpen {
  // GR-4: at open, the held-vector table is built from the 4-byte tags the
  // checkpoint kept beside the graph: no vector is read for it.
  kKept,
  // Naive: the first write after open reads and hashes every vector.
  kNaive,
};

// Where an @hnsw field's full vectors live while the database is open.
enum class VectorStorage {
  kMemory,  // anonymous memory
  // VS-3: a file of the field's branch folder (vectors.fvec), mapped; the
  // page cache holds what fits, and batch linking reads a step's vectors
  // ahead. Rebuilt from the branch at every open (engine/doc/vectors.md).
  kFile,
};

enum class VectorQuantization {
  kNone,    // searches compare full vectors
  kBinary,  // VS-2: searches walk on one bit a dimension, then rescore on full vectors
  kScalar4, // VS-2: the same on 4 bits a dimension (a uniform quantizer per dimension)
};

struct HnswOptions {
  uint32_t m = 16;                 // links a node keeps (level 0: 2m); 2..128
  uint32_t ef_construction = 100;  // beam width while linking (at least m is used); >= 1
  uint32_t ef_search = 64;         // beam width of a NEAR that gives no EF; >= 1
  VectorInsert insert = VectorInsert::kBatch;
  VectorTable table = VectorTable::kSharded;
  VectorOpen open = VectorOpen::kKept;
  VectorQuantization quantization = VectorQuantization::kNone;
  uint32_t oversample = 16;  // kBinary: rescore the best oversample * k (1..32; engine/doc/vectors.md)
  bool rescore = true;      // kBinary: false answers the codes' ranking (distances are estimates)
  uint32_t threads = 0;     // threads computing a batch's distances; 0: hardware_concurrency
  VectorStorage storage = VectorStorage::kMemory;
  // Vectors landed but not yet linked, per index, at most (back-pressure: a
  // writer whose vectors would not fit waits before taking the write lock;
  // Stats::vector_queue_waits counts them). A NEAR scans these exactly, so
  // the bound is also the most a NEAR compares beyond its graph search.
  // Eight link batches: the linker always has a next batch while writers
  // fill the one after. >= 1.
  uint32_t queue_bound = 4096;
};

// Options::commit_window_us's default: a round's leader waits at most a
// part of a recent fdatasync on this disk (journal/group_commit.h; the
// bound's constants: engine/src/base/commit_window.h).
inline constexpr uint32_t kCommitWindowAdaptive = UINT32_MAX;
// "adaptive" or microseconds 0..1 000 000, as fenec-server's
// --commit-window-us takes it; false if it is neither.
bool ParseCommitWindow(std::string_view text, uint32_t* us);

struct Options {
  Env* env = nullptr;  // nullptr: Env::Default() (PosixEnv)
  bool create_if_missing = true;
  bool error_if_exists = false;

  Durability durability = Durability::kDurable;
  uint32_t sync_ms = 250;  // kWriteThrough, kBuffered: period of the background journal fdatasync

  CommitMode commit_mode = CommitMode::kGroup;
  // kDurable + kGroup: before a round's journal write and fdatasync, its
  // leader waits for more commits, and stops as soon as as many are queued
  // as were in flight at once since the last round began (the writers
  // committing now; one writer never waits). The commits a round releases
  // then ride the next round instead of the one after: at N writers a round
  // carries about N, not N/2. kCommitWindowAdaptive (the default): the wait
  // is bounded by this disk's recent fdatasync time, shrunk while writers
  // stop coming; a number: at most that many microseconds (<= 1 000 000);
  // 0: no wait. Stats::commit_window_*; engine/doc/journal.md, Writing.
  uint32_t commit_window_us = kCommitWindowAdaptive;
  BatchBuild batch_build = BatchBuild::kOutsideLock;
  LongReads long_reads = LongReads::kPinned;
  BufferWrite buffer_write = BufferWrite::kAfterUnlock;

  Journals journals = Journals::kShared;
  Completion completion = Completion::kDirect;
  DataFlush data_flush = DataFlush::kPwrite;

  uint32_t write_buffer_bytes = 1u << 20;  // CC-4: rows gather here before the data file
  uint32_t handover_piece = 16384;         // CC-4: id-index entries handed over per lock hold
  uint64_t journal_file_bytes = 64ull << 20;  // a journal file is rotated past this size
  // A small journal write that would grow the file carries this many bytes
  // of zeros behind its records, so the commits after it overwrite blocks
  // the file already has and their fdatasync is data only (no new size for
  // the file system's journal to commit). 0: append only, every fdatasync
  // also commits the grown size. engine/doc/journal.md has the measurements.
  uint64_t journal_zero_ahead = 1ull << 20;
  bool checkpoint_on_close = true;
  RecoveryMode recovery = RecoveryMode::kTolerateTornTail;
  // The largest journal record a put, a batch or a delete may make (its own
  // and each index branch's, built from the same commit): over it the write
  // fails with kTooLarge and nothing lands. At most, and by default,
  // limits::kMaxCommitBytes, the most recovery reads; a smaller value only
  // shrinks what writes accept (tests make it small).
  uint64_t max_commit_bytes = limits::kMaxCommitBytes;

  // Diagnostics: each write-lock hold also reads the thread's CPU time,
  // faults and involuntary switches (Stats::write_lock_hold_cpu_ns ...);
  // two getrusage calls a hold.
  bool probe_lock_holds = false;
  // 0: a random id chosen at creation. Tests set it to compare files byte for byte.
  uint64_t storage_id = 0;

  HnswOptions hnsw;  // every @hnsw field's index
};

}  // namespace fenec
