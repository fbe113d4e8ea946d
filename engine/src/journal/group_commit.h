// GroupCommit (CC-1): many committers, one journal write and one fdatasync.
//
// Design. A commit lands its rows under the database's write lock and, still
// under it, appends its journal record to an in-memory pending buffer
// (Append: LSNs are thus in landing order). The lock is then released and
// the committer waits for its LSN to be durable (AwaitDurable). Whoever
// finds no I/O in progress becomes the leader: it takes every pending
// record, writes them in one pwrite, fdatasyncs once, publishes the new
// durable LSN and wakes the rest. A commit whose LSN is already at or below
// the durable watermark returns at once: an earlier fsync covered it. So
// 16 writers share their fsyncs, and no fsync is ever made with the write
// lock held.
//
// The naive arm (CommitUnderLock) writes and fsyncs before the write lock
// is released: exactly one fsync per commit, writers queued behind it.
//
// Buffered mode: a commit returns once its record is appended; the records
// are written when 1 MB has gathered (by the committer, after the lock) and
// written + fdatasync'ed every sync_ms by a background thread. GR-5: a
// committer that would write while that periodic fsync is running does not
// wait for it; the write is left to the syncer, right after its fsync
// (writes_deferred_for_sync counts them).
//
// Write-through (kWriteThroughGroup): a commit returns once its record is
// written to the kernel: the same leader and followers as a durable round,
// one pwritev for every record pending, no fdatasync. The periodic syncer
// writes what is pending as I/O owner, then fdatasyncs the file without
// owning it, so the rounds of writes go on beside its sync.
//
// Commit window (kDurableGroup, SetCommitWindow): without one, the commits
// a round k releases land while round k+1 is already syncing, so at N
// writers a round carries about N/2. With a window the leader, before its
// write + fdatasync, waits until as many commits are pending as were ever
// in flight at once (landed, not durable) since the previous round began,
// or until the window ends, whichever is first. That peak is the number of
// writers committing now: one writer never waits, and a writer that stops
// costs at most one full window before the next round's peak drops it.
// Adaptive (SetCommitWindow(kCommitWindowAdaptive), the default): the
// bound is half the disk's own recent fdatasync time (a moving average of
// the rounds' syncs; kAdaptiveWindowSyncDivisor). The wait ends as soon as
// the writers in flight are queued, so the bound costs only when they do
// not come; the writers a round released need their own CPU to come back,
// which on few cores is a good part of a sync, and a quarter of it left
// some of them out of most rounds. Under kMinAdaptiveWindowNs (a sync that costs
// microseconds, as on tmpfs) it does not wait at all. A wait that ends
// with fewer than half the writers queued halves the next (down to a
// sixteenth of the sync): writers that stopped cost little; one that
// fills doubles it back.
// Followers wait as they do behind a sync (io_busy_ is set).
//
// Room (EnableRoom; the database's journals): a commit is admitted only
// into room the journal file already has (Reserve, under the write lock,
// before anything lands), so its record's write never meets a full disk
// (writer.h, "Room"). Without room the committer, outside the lock, makes
// some (MakeRoom): the I/O owner writes what is pending and grows the file
// by zeros or a reservation, starting the next file if this one is full or
// a rotation was asked for. A full disk refuses only that growth: MakeRoom
// answers kNoSpace, nothing is admitted, and the next MakeRoom tries again.
//
// Failure: a failed write or fsync trips the FailStop; every waiter and
// every later commit gets kFailStopped. Nothing is retried. So does a
// record over kMaxPayload reaching Append (the database refuses those
// before landing, with kTooLarge; this is the last guard): nothing of that
// commit is appended, and it is never acknowledged.
//
// Each record carries its storage's durable LSN as of its Append (format.h,
// `synced`): the root's durable watermark, or a branch stream's, which
// moves when an fdatasync covers the stream's records.
//
// Shared journals (JR-1): AddStream registers a branch storage; Append then
// takes the root's record and its branches' records together, so they sit
// side by side in the pending blocks and reach the disk in the root's one
// pwritev and one fdatasync. Each branch record carries the branch's own
// storage id and LSN. Before a branch's first record goes into a journal
// file, the I/O owner hard-links that file into the branch's Journals/
// (named by the branch's first LSN in it) and fsyncs that directory, so the
// branch recovers alone from its own folder. The durable watermark stays
// the root's LSN: every Append has exactly one root record.
//
// Locking: mu_ guards pending_, the LSNs and the I/O-owner flag; it is held
// only to swap buffers and publish, never across I/O. (The database's write
// lock, which Append and CommitUnderLock need, is the caller's: a comment.)
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <span>
#include <thread>
#include <vector>

#include "engine/src/base/commit_window.h"
#include "engine/src/base/mutex.h"
#include "engine/src/io/stat_counters.h"
#include "engine/src/base/thread_annotations.h"
#include "engine/src/io/fail_stop.h"
#include "engine/src/journal/writer.h"
#include "fenec/options.h"

namespace fenec::journal {

// A committer's states, in the style of RocksDB's write_thread.h.
enum class CommitterState : uint8_t {
  // Entered: its record was appended (Append) under the write lock, which is
  // now released. Leaves to kAlreadyDurable if the durable LSN already
  // covers it, else kLeader if no I/O is in progress, else kFollower.
  kLanded,
  // Waiting while another thread writes and syncs. Leaves to kDurable when a
  // leader's fsync covered it, to kLeader when the leader finished without
  // covering it (its record was appended after the leader took the batch),
  // to kFailed when the leader's I/O failed.
  kFollower,
  // Owns the journal: takes every pending record, one write, one fdatasync,
  // publishes the durable LSN, wakes followers. Leaves to kDurable (its own
  // record was in the batch it took) or kFailed.
  kLeader,
  // Terminal: returned without waiting; an earlier fsync covered it.
  kAlreadyDurable,
  // Terminal: its record is on disk.
  kDurable,
  // Terminal: the write or fsync failed; the database is fail-stopped.
  kFailed,
};
const char* CommitterStateName(CommitterState s);

enum class CommitPolicy {
  kDurableGroup,   // CC-1
  kDurableNaive,   // fsync under the write lock
  kWriteThroughGroup,  // each round's records written (no fsync); fdatasync'ed by the periodic sync
  kBufferedGroup,  // records gathered; written at 1 MB and by the periodic sync
  kBufferedNaive,  // each record written (no fsync) under the write lock
};

class GroupCommit {
 public:
  static constexpr size_t kFlushBytes = 1u << 20;
  static constexpr size_t kBlockBytes = 1u << 20;
  static constexpr size_t kMaxFreeBlocks = 8;
  // Room on: a write leaves at least this much room past it (RoomAhead), so
  // the commits it admits meanwhile rarely wait for MakeRoom.
  static constexpr uint64_t kRoomSlack = 64u << 10;
  static constexpr uint64_t kBufferedRoomFlushes = 8;

  // last_lsn: the last LSN recovered; the first Append returns last_lsn + 1.
  GroupCommit(JournalWriter* writer, uint64_t storage_id, uint64_t last_lsn, CommitPolicy policy, FailStop* fail);
  ~GroupCommit();

  // A branch's record for Append.
  struct StreamRecord {
    uint32_t stream = 0;  // from AddStream
    std::span<const uint8_t> payload;
  };
  // Before the first Append: a branch storage whose records this journal
  // carries; last_lsn is the branch's last recovered LSN, journal_dir its
  // own Journals/. Returns its stream number (1, 2, ...).
  uint32_t AddStream(uint64_t storage_id, uint64_t last_lsn, std::string journal_dir) FENEC_EXCLUDES(mu_);
  // Caller holds the database's write lock. Appends the root's record and
  // then each branch's (their LSNs in branch_lsns if given). Returns the
  // root record's LSN.
  uint64_t Append(std::span<const uint8_t> payload, std::span<const StreamRecord> branches = {},
                  uint64_t* branch_lsns = nullptr) FENEC_EXCLUDES(mu_);
  uint64_t stream_last_lsn(uint32_t stream) const FENEC_EXCLUDES(mu_);
  // Before the first Append: from now on every Append is admitted by Reserve
  // first (header comment, "Room").
  void EnableRoom() FENEC_EXCLUDES(mu_);
  // Caller holds the write lock, before landing what it will Append: takes
  // `bytes` of the journal's room (records, headers included); false, nothing
  // taken, if there is not that much (MakeRoom). Always true without EnableRoom.
  bool Reserve(uint64_t bytes) FENEC_EXCLUDES(mu_);
  // Gives back reserved bytes no record will take (a commit refused after
  // Reserve, or what an Append took less than was reserved for it).
  void Unreserve(uint64_t bytes) FENEC_EXCLUDES(mu_);
  // Caller has released the write lock: makes room for at least `need`
  // bytes (writes what is pending, grows or rotates the file). Fails:
  // kNoSpace (the file system refused the growth; nothing changed that a
  // later call cannot retry), kFailStopped.
  Status MakeRoom(uint64_t need) FENEC_EXCLUDES(mu_);
  // kDurableGroup only, before the first Append: a round's leader waits up
  // to us microseconds for the commits in flight to queue (0: never waits;
  // kCommitWindowAdaptive: as long as a recent fdatasync took).
  void SetCommitWindow(uint32_t us) FENEC_EXCLUDES(mu_);
  // The window the next round may wait (adaptive: as things stand), in ns.
  uint64_t commit_window_ns() const FENEC_EXCLUDES(mu_);
  // Caller holds the write lock; naive policies only: writes (and for
  // kDurableNaive fsyncs) every pending record now. Fails: kFailStopped.
  Status CommitUnderLock() FENEC_EXCLUDES(mu_);
  // Caller has released the write lock. Returns once lsn is as durable as
  // the policy promises. Fails: kFailStopped (this or an earlier I/O failed).
  // may_write false (a caller that must do no I/O): under kBufferedGroup
  // and kWriteThroughGroup, kBusy with nothing done when the journal's write
  // is due on this caller or another's is in progress; the other policies
  // ignore it.
  Status AwaitDurable(uint64_t lsn, CommitterState* state = nullptr, bool may_write = true) FENEC_EXCLUDES(mu_);
  // Every record appended so far written and fdatasync'ed. Fails: kFailStopped.
  Status SyncAll() FENEC_EXCLUDES(mu_);
  // Returns once lsn is fdatasync'ed, whatever the policy: this caller
  // syncs if no one else is (*waited set if it had to wait at all).
  // may_write false: kBusy, nothing done, unless lsn is durable already.
  // Fails: kFailStopped.
  Status AwaitSynced(uint64_t lsn, bool may_write, bool* waited) FENEC_EXCLUDES(mu_);
  // Unsynced policies: the periodic syncer syncs now rather than at its
  // next period (a record just appended must be durable soon).
  void RequestSync() FENEC_EXCLUDES(mu_);

  // Buffered policies: every ms, write and fdatasync what is pending, then
  // do the writes deferred meanwhile and call after_sync (the database's
  // deferred data-buffer writes, GR-5).
  //
  // Not analyzed: it sets stop_syncer_ and syncer_on_ (guarded by mu_) without mu_, as it
  // always did, before it starts the only other thread that reads it; the
  // analysis cannot see that no other thread exists yet.
  void StartPeriodicSync(uint32_t ms, std::function<void()> after_sync) FENEC_NO_THREAD_SAFETY_ANALYSIS;
  void StopPeriodicSync() FENEC_EXCLUDES(mu_);
  // True while the periodic syncer owns the journal (writing or in fdatasync).
  bool periodic_sync_active() const { return periodic_active_.load(std::memory_order_acquire); }
  void CountDeferred() { counters_.Add(Stat::writes_deferred_for_sync); }

  void RequestRotation() FENEC_EXCLUDES(mu_);
  uint64_t durable_lsn() const FENEC_EXCLUDES(mu_);
  uint64_t last_lsn() const FENEC_EXCLUDES(mu_);
  // What it counted, under the root's names (fenec/stats.h): journal_writes,
  // journal_fsyncs, bytes_written, group_leads, journal_links ...; the other
  // fields 0. A branch's journal counts under the same names (the database
  // reports them as branch_journal_*).
  Stats counters() const { return counters_.Snapshot(); }
  void AddCountersTo(Stats* st) const { counters_.AddTo(st); }
  void ResetCounters() { counters_.Reset(); }

 private:
  // Caller holds mu_ and no one owns I/O. Takes the pending records, writes
  // them (and fsyncs if sync) with mu_ released, publishes; mu_ is held again
  // when it returns. Room on: then keeps room for RoomAhead() bytes, and
  // grow more (MakeRoom), the growth's outcome in *grown (kNoSpace is not a
  // failure of the write).
  Status RunIo(bool sync, bool periodic, uint64_t grow = 0, Status* grown = nullptr) FENEC_REQUIRES(mu_);
  uint64_t RoomAhead() const;
  // A round ended (or failed, or its leader gave up): every waiter looks again.
  void WakeAll() FENEC_REQUIRES(mu_);
  // A leader about to RunIo: the commit window's wait (header comment), with
  // io_busy_ set so the others follow. mu_ is held again when it returns.
  void AwaitWindow() FENEC_REQUIRES(mu_);
  uint64_t PendingCommits() const FENEC_REQUIRES(mu_);  // root records appended, not yet taken by a round
  void AppendLocked(uint64_t storage_id, uint64_t lsn, std::span<const uint8_t> payload, uint64_t synced)
      FENEC_REQUIRES(mu_);
  void SyncLoop(uint32_t ms) FENEC_EXCLUDES(mu_);
  // kWriteThroughGroup's periodic sync (the header comment). mu_ is held
  // again when it returns.
  Status SyncBeside() FENEC_REQUIRES(mu_);

  // A branch storage whose records ride in this journal (JR-1).
  struct Stream {
    uint64_t storage_id = 0;
    uint64_t last_lsn FENEC_GUARDED_BY(&GroupCommit::mu_) = 0;
    uint64_t pending_first FENEC_GUARDED_BY(&GroupCommit::mu_) = 0;  // its first LSN in pending_ (0: none)
    uint64_t durable_lsn FENEC_GUARDED_BY(&GroupCommit::mu_) = 0;    // its last LSN an fdatasync covered
    std::string dir;             // its Journals/
    uint64_t linked_gen = 0;     // writer generation it is linked into; only the I/O owner touches it
  };
  // The I/O owner, before writing: link the file the write goes to into
  // every branch with records in it that is not linked there yet.
  Status LinkBranches(const std::vector<std::pair<Stream*, uint64_t>>& firsts);

  JournalWriter* writer_;
  const uint64_t storage_id_;
  // [0] null: the root; stable addresses for the I/O owner.
  std::vector<std::unique_ptr<Stream>> streams_ FENEC_GUARDED_BY(mu_);
  const CommitPolicy policy_;
  FailStop* fail_;

  mutable base::Mutex mu_;
  base::CondVar cv_;  // I/O done: a durable LSN published, or the writer free
  // Records appended, not yet handed to a write: 1 MB blocks that never
  // move once filled (a growing vector would copy megabytes under the write
  // lock when the syncer is slow), written by one pwritev.
  using Block = std::vector<uint8_t>;
  std::vector<Block> pending_ FENEC_GUARDED_BY(mu_);
  size_t pending_bytes_ FENEC_GUARDED_BY(mu_) = 0;
  std::vector<Block> free_blocks_ FENEC_GUARDED_BY(mu_);  // emptied blocks kept for their capacity
  uint64_t pending_first_lsn_ FENEC_GUARDED_BY(mu_);  // LSN of pending_'s first record
  uint64_t last_lsn_ FENEC_GUARDED_BY(mu_);           // last LSN appended
  uint64_t written_lsn_ FENEC_GUARDED_BY(mu_);        // last LSN handed to the kernel
  uint64_t durable_lsn_ FENEC_GUARDED_BY(mu_);        // last LSN fdatasync'ed
  bool io_busy_ FENEC_GUARDED_BY(mu_) = false;        // someone owns the journal writer
  // durable_lsn_ as a round (RunIo) last published it, and the rounds ended
  // so far: a durable round's followers sleep on rounds_ended_ and read
  // durable_now_ without mu_ (AwaitDurable).
  std::atomic<uint64_t> durable_now_{0};
  std::atomic<uint32_t> rounds_ended_{0};
  std::atomic<uint32_t> followers_{0};  // sleeping on rounds_ended_ or about to
  bool room_on_ FENEC_GUARDED_BY(mu_) = false;        // EnableRoom
  uint64_t room_left_ FENEC_GUARDED_BY(mu_) = 0;      // room on: the file's room not yet reserved
  uint64_t outstanding_ FENEC_GUARDED_BY(mu_) = 0;    // room on: reserved, not yet appended
  bool rotate_ FENEC_GUARDED_BY(mu_) = false;
  bool journal_write_deferred_ FENEC_GUARDED_BY(mu_) = false;  // GR-5: a journal write is waiting for the syncer

  uint32_t window_us_ FENEC_GUARDED_BY(mu_) = 0;
  bool window_adaptive_ FENEC_GUARDED_BY(mu_) = false;
  uint64_t sync_avg_ns_ FENEC_GUARDED_BY(mu_) = 0;      // the rounds' fdatasyncs, a moving average (adaptive)
  // The adaptive window is sync_avg_ns_ * window_scale_ / 16: a sixteenth at least.
  static constexpr uint32_t kWindowScaleMax = 16 / kAdaptiveWindowSyncDivisor;
  uint32_t window_scale_ FENEC_GUARDED_BY(mu_) = kWindowScaleMax;
  static constexpr uint64_t kMinAdaptiveWindowNs = uint64_t{kAdaptiveWindowMinUs} * 1000;
  static constexpr uint64_t kMaxAdaptiveWindowNs = uint64_t{kAdaptiveWindowMaxUs} * 1000;
  uint64_t WindowNs() const FENEC_REQUIRES(mu_);
  bool window_open_ FENEC_GUARDED_BY(mu_) = false;     // a leader waits in AwaitWindow
  uint64_t window_target_ FENEC_GUARDED_BY(mu_) = 0;   // pending commits that end its wait
  uint64_t inflight_peak_ FENEC_GUARDED_BY(mu_) = 0;   // most commits landed, not durable, since the last round began
  base::CondVar window_cv_;                            // window_target_ commits pending

  std::atomic<bool> periodic_active_{false};
  std::thread syncer_;
  bool stop_syncer_ FENEC_GUARDED_BY(mu_) = false;
  bool sync_now_ FENEC_GUARDED_BY(mu_) = false;  // RequestSync
  bool syncer_on_ FENEC_GUARDED_BY(mu_) = false;  // StartPeriodicSync ran (stop_syncer_ says when it ends)
  base::CondVar syncer_cv_;  // stop_syncer_ or sync_now_ set
  std::function<void()> after_sync_;  // set before the syncer starts, then read by it alone

  StatCounters counters_;
};

}  // namespace fenec::journal
