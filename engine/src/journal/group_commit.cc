#include "engine/src/journal/group_commit.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "engine/src/base/futex.h"
#include "engine/src/journal/format.h"

namespace fenec::journal {

const char* CommitterStateName(CommitterState s) {
  switch (s) {
    case CommitterState::kLanded: return "landed";
    case CommitterState::kFollower: return "follower";
    case CommitterState::kLeader: return "leader";
    case CommitterState::kAlreadyDurable: return "already-durable";
    case CommitterState::kDurable: return "durable";
    case CommitterState::kFailed: return "failed";
  }
  return "?";
}

GroupCommit::GroupCommit(JournalWriter* writer, uint64_t storage_id, uint64_t last_lsn, CommitPolicy policy,
                         FailStop* fail)
    : writer_(writer),
      storage_id_(storage_id),
      policy_(policy),
      fail_(fail),
      pending_first_lsn_(last_lsn + 1),
      last_lsn_(last_lsn),
      written_lsn_(last_lsn),
      durable_lsn_(last_lsn),
      durable_now_(last_lsn) {}

GroupCommit::~GroupCommit() { StopPeriodicSync(); }

uint32_t GroupCommit::AddStream(uint64_t storage_id, uint64_t last_lsn, std::string journal_dir) {
  base::MutexLock lock(&mu_);
  if (streams_.empty()) streams_.emplace_back();  // [0]: the root
  auto st = std::make_unique<Stream>();
  st->storage_id = storage_id;
  st->last_lsn = last_lsn;
  st->durable_lsn = last_lsn;  // recovered: read back from disk (and checkpointed if replayed)
  st->dir = std::move(journal_dir);
  streams_.push_back(std::move(st));
  return static_cast<uint32_t>(streams_.size() - 1);
}

uint64_t GroupCommit::stream_last_lsn(uint32_t stream) const {
  base::MutexLock lock(&mu_);
  return streams_[stream]->last_lsn;
}

void GroupCommit::AppendLocked(uint64_t storage_id, uint64_t lsn, std::span<const uint8_t> payload,
                               uint64_t synced) {
  size_t need = kHeaderSize + payload.size();
  outstanding_ -= std::min<uint64_t>(outstanding_, need);  // room on: its Reserve made room for it
  if (pending_.empty() || pending_.back().size() + need > pending_.back().capacity()) {
    Block b;
    if (!free_blocks_.empty()) {
      b = std::move(free_blocks_.back());
      free_blocks_.pop_back();
    }
    b.reserve(std::max(kBlockBytes, need));
    pending_.push_back(std::move(b));
  }
  // Within capacity: nothing moves. Append checked the size, so it cannot fail.
  (void)AppendRecord(&pending_.back(), storage_id, lsn, payload, synced);
  pending_bytes_ += need;
}

uint64_t GroupCommit::Append(std::span<const uint8_t> payload, std::span<const StreamRecord> branches,
                             uint64_t* branch_lsns) {
  base::MutexLock lock(&mu_);
  size_t largest = payload.size();
  for (const StreamRecord& b : branches) largest = std::max(largest, b.payload.size());
  if (largest > kMaxPayload) {
    // Recovery would refuse it: the commit is refused whole, and since its
    // rows may have landed in memory already, the database stops writing.
    (void)fail_->Trip(Status::TooLarge(fmt::format("a journal record of {} bytes reached the journal, over "
                                                   "limits::kMaxCommitBytes ({} bytes)",
                                                   largest, kMaxPayload)));
    for (size_t i = 0; i < branches.size() && branch_lsns; ++i) branch_lsns[i] = streams_[branches[i].stream]->last_lsn + 1;
    return last_lsn_ + 1;  // never appended: AwaitDurable answers kFailStopped
  }
  uint64_t lsn = ++last_lsn_;
  inflight_peak_ = std::max(inflight_peak_, last_lsn_ - durable_lsn_);
  if (window_open_ && PendingCommits() >= window_target_) window_cv_.Signal();
  AppendLocked(storage_id_, lsn, payload, durable_lsn_);  // the root's first: every batch begins with a root record
  for (size_t i = 0; i < branches.size(); ++i) {
    Stream& st = *streams_[branches[i].stream];
    uint64_t blsn = ++st.last_lsn;
    if (st.pending_first == 0) st.pending_first = blsn;
    AppendLocked(st.storage_id, blsn, branches[i].payload, st.durable_lsn);
    if (branch_lsns) branch_lsns[i] = blsn;
  }
  return lsn;
}

Status GroupCommit::LinkBranches(const std::vector<std::pair<Stream*, uint64_t>>& firsts) {
  Env* env = writer_->env();
  const uint64_t gen = writer_->generation();
  for (const auto& [stream, first] : firsts) {
    Stream& st = *stream;
    if (st.linked_gen == gen) continue;
    std::string to = st.dir + "/" + JournalFileName(first);
    // A link of this name can only be left by a run that crashed before
    // writing this branch's record there: it holds none of ours.
    if (env->Exists(to)) {
      if (Status s = env->DeleteFile(to); !s.ok() && !s.IsNotFound()) return s;
    }
    if (Status s = env->Link(writer_->current_path(), to); !s.ok()) return s;
    if (Status s = env->SyncDir(st.dir); !s.ok()) return s;
    st.linked_gen = gen;
    counters_.Add(Stat::journal_links);
  }
  return Status::OK();
}

void GroupCommit::EnableRoom() {
  base::MutexLock lock(&mu_);
  room_on_ = true;
}

bool GroupCommit::Reserve(uint64_t bytes) {
  base::MutexLock lock(&mu_);
  if (!room_on_) return true;
  if (bytes > room_left_) return false;
  room_left_ -= bytes;
  outstanding_ += bytes;
  return true;
}

void GroupCommit::Unreserve(uint64_t bytes) {
  base::MutexLock lock(&mu_);
  if (!room_on_) return;
  bytes = std::min(bytes, outstanding_);
  room_left_ += bytes;
  outstanding_ -= bytes;
}

Status GroupCommit::MakeRoom(uint64_t need) {
  base::MutexLock lk(&mu_);
  while (true) {
    if (Status s = fail_->Check(); !s.ok()) return s;
    if (!room_on_ || room_left_ >= need) return Status::OK();
    if (!io_busy_) break;
    cv_.Wait(&mu_);
  }
  Status grown;
  if (Status s = RunIo(/*sync=*/false, false, need, &grown); !s.ok()) return s;
  return grown;
}

uint64_t GroupCommit::RoomAhead() const {
  // Unsynced gathering admits a flush's records before any is written, and
  // more while the periodic fsync holds the journal (GR-5: they do not wait
  // for it): several flushes ahead, reserved (Allocate), not zeroed.
  return policy_ == CommitPolicy::kBufferedGroup ? kBufferedRoomFlushes * kFlushBytes + kRoomSlack : kRoomSlack;
}

Status GroupCommit::RunIo(bool sync, bool periodic, uint64_t grow, Status* grown) {
  io_busy_ = true;
  if (periodic) periodic_active_.store(true, std::memory_order_release);
  std::vector<Block> batch;
  batch.swap(pending_);
  const uint64_t total = pending_bytes_;
  pending_bytes_ = 0;
  uint64_t first = pending_first_lsn_, last = last_lsn_;
  pending_first_lsn_ = last + 1;
  bool rotate = rotate_;
  rotate_ = false;
  bool need_sync = sync && (durable_lsn_ < last);
  std::vector<std::pair<Stream*, uint64_t>> firsts;  // branches in this batch, and their first LSNs
  std::vector<uint64_t> stream_last(streams_.size(), 0);  // what this batch's fdatasync makes durable
  for (size_t i = 1; i < streams_.size(); ++i) {
    stream_last[i] = streams_[i]->last_lsn;
    if (streams_[i]->pending_first == 0) continue;
    firsts.emplace_back(streams_[i].get(), streams_[i]->pending_first);
    streams_[i]->pending_first = 0;
  }
  // Room on (header comment): every write keeps RoomAhead() of room past
  // it, so a commit rarely waits for MakeRoom. When the write starts the
  // next file, nothing is admitted until it has, and its room holds what
  // was reserved before (outstanding_: it goes to the new file).
  const bool room = room_on_;
  uint64_t need = 0;
  Status growth;
  if (room) {
    if (rotate) writer_->RequestRotation();  // the I/O owner's: no other thread touches the writer now
    need = std::max(grow, RoomAhead());
    if (grow > 0 || writer_->WouldStartFile(total)) {
      room_left_ = 0;
      need += outstanding_;
    }
  }
  mu_.Unlock();

  WriterCounters before = writer_->counters();
  Status s;
  if (!room && rotate) writer_->RequestRotation();
  std::vector<iovec> parts;
  for (Block& b : batch) parts.push_back({b.data(), b.size()});
  if (!batch.empty() && !firsts.empty()) {
    if (!room) s = writer_->Prepare(total, first);  // with room on, the records' file is there
    if (s.ok()) s = LinkBranches(firsts);
  }
  if (s.ok()) s = room ? writer_->Grow(parts, last + 1, need, &growth) : writer_->WriteV(parts, first);
  if (s.ok() && !batch.empty()) counters_.Max(Stat::journal_write_commits_max, last - first + 1);
  if (s.ok() && need_sync) s = writer_->Sync();
  WriterCounters after = writer_->counters();
  const uint64_t synced_ns = after.sync_ns - before.sync_ns;
  counters_.Add(Stat::journal_writes, after.writes - before.writes);
  counters_.Add(Stat::journal_fsyncs, after.syncs - before.syncs);
  counters_.Add(Stat::bytes_written, after.bytes - before.bytes);
  counters_.Add(Stat::journal_zero_bytes, after.zero_bytes - before.zero_bytes);
  counters_.Add(Stat::journal_sync_ns, after.sync_ns - before.sync_ns);

  mu_.Lock();
  for (Block& b : batch) {
    if (free_blocks_.size() >= kMaxFreeBlocks || b.capacity() > kBlockBytes) continue;
    b.clear();
    free_blocks_.push_back(std::move(b));
  }
  io_busy_ = false;
  if (periodic) periodic_active_.store(false, std::memory_order_release);
  // The adaptive window's measure: what a round's fdatasync costs on this disk now.
  if (need_sync && s.ok() && after.syncs > before.syncs) {
    const uint64_t ns = synced_ns / (after.syncs - before.syncs);
    sync_avg_ns_ = sync_avg_ns_ == 0 ? ns : sync_avg_ns_ - sync_avg_ns_ / 8 + ns / 8;
  }
  if (room) {
    // The room is known again: less what records appended meanwhile, and
    // room reserved but not yet appended, will take.
    const uint64_t taken = pending_bytes_ + outstanding_;
    room_left_ = writer_->room() > taken ? writer_->room() - taken : 0;
  }
  if (grown != nullptr) *grown = growth;
  if (s.ok()) {
    written_lsn_ = last;
    if (need_sync) {
      durable_lsn_ = last;
      for (size_t i = 1; i < stream_last.size(); ++i)
        streams_[i]->durable_lsn = std::max(streams_[i]->durable_lsn, stream_last[i]);
    }
  } else {
    s = fail_->Trip(s);
  }
  WakeAll();
  return s;
}

void GroupCommit::WakeAll() {
  // Followers of durable rounds wait on rounds_ended_ (AwaitDurable), the rest on cv_.
  durable_now_.store(durable_lsn_, std::memory_order_release);
  // seq_cst with the follower's count: one of the two always sees the other.
  rounds_ended_.fetch_add(1, std::memory_order_seq_cst);
  // Only when someone sleeps on it: a round with no follower makes no syscall.
  if (followers_.load(std::memory_order_seq_cst) > 0) base::FutexWakeAll(&rounds_ended_);
  cv_.SignalAll();
}

void GroupCommit::SetCommitWindow(uint32_t us) {
  base::MutexLock lock(&mu_);
  const bool group = policy_ == CommitPolicy::kDurableGroup;
  window_adaptive_ = group && us == kCommitWindowAdaptive;
  window_us_ = group && !window_adaptive_ ? us : 0;
}

uint64_t GroupCommit::WindowNs() const {
  if (!window_adaptive_) return uint64_t{window_us_} * 1000;
  const uint64_t ns = sync_avg_ns_ * window_scale_ / 16;
  return ns < kMinAdaptiveWindowNs ? 0 : std::min(ns, kMaxAdaptiveWindowNs);
}

uint64_t GroupCommit::commit_window_ns() const {
  base::MutexLock lock(&mu_);
  return WindowNs();
}

uint64_t GroupCommit::PendingCommits() const { return last_lsn_ - pending_first_lsn_ + 1; }

void GroupCommit::AwaitWindow() {
  const uint64_t target = inflight_peak_;
  inflight_peak_ = last_lsn_ - durable_lsn_;  // the next round's peak starts from what is in flight now
  const uint64_t window_ns = WindowNs();
  if (window_ns == 0 || PendingCommits() >= target) return;
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::nanoseconds(window_ns);
  io_busy_ = true;
  window_open_ = true;
  window_target_ = target;
  while (PendingCommits() < target && window_cv_.WaitUntil(&mu_, deadline) != std::cv_status::timeout) {
  }
  window_open_ = false;
  io_busy_ = false;  // RunIo takes it again at once, mu_ still held
  counters_.Add(Stat::commit_window_waits);
  const bool filled = PendingCommits() >= target;
  if (filled) counters_.Add(Stat::commit_window_filled);
  // Writers a few short of the peak are late; fewer than half are gone.
  if (window_adaptive_ && filled) window_scale_ = std::min(window_scale_ * 2, kWindowScaleMax);
  if (window_adaptive_ && PendingCommits() * 2 < target) window_scale_ = std::max(window_scale_ / 2, 1u);
  counters_.Add(Stat::commit_window_wait_ns,
                std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
}

Status GroupCommit::CommitUnderLock() {
  base::MutexLock lk(&mu_);
  while (io_busy_) cv_.Wait(&mu_);  // a SyncAll or checkpoint may own the writer
  if (Status s = fail_->Check(); !s.ok()) return s;
  return RunIo(policy_ == CommitPolicy::kDurableNaive, false);
}

Status GroupCommit::AwaitDurable(uint64_t lsn, CommitterState* state_out, bool may_write) {
  CommitterState state = CommitterState::kLanded;
  auto finish = [&](CommitterState s, Status st) {
    if (state_out) *state_out = s;
    return st;
  };
  base::MutexLock lk(&mu_);
  if (policy_ == CommitPolicy::kDurableNaive || policy_ == CommitPolicy::kBufferedNaive) {
    // CommitUnderLock already did the I/O; only its outcome is left to report.
    if (lsn <= written_lsn_) return finish(CommitterState::kDurable, Status::OK());
    return finish(CommitterState::kFailed, fail_->Check().ok() ? Status::Corruption("naive commit not written")
                                                                 : fail_->Check());
  }
  if (policy_ == CommitPolicy::kBufferedGroup) {
    if (Status s = fail_->Check(); !s.ok()) return finish(CommitterState::kFailed, s);
    if (pending_bytes_ >= kFlushBytes) {
      if (!io_busy_) {
        if (!may_write) return Status::Busy("the journal's write is due on this caller");
        if (Status s = RunIo(/*sync=*/false, false); !s.ok()) return finish(CommitterState::kFailed, s);
      } else if (periodic_active_.load(std::memory_order_acquire) && !journal_write_deferred_) {
        journal_write_deferred_ = true;  // GR-5: one write, left to the syncer after its fsync
        counters_.Add(Stat::writes_deferred_for_sync);
      }
    }
    return finish(CommitterState::kLanded, Status::OK());
  }

  if (policy_ == CommitPolicy::kWriteThroughGroup) {
    // A durable round's shape with write(2) for fdatasync: the leader writes
    // every record pending, followers wait for written_lsn_ to pass theirs.
    while (written_lsn_ < lsn) {
      if (Status s = fail_->Check(); !s.ok()) return finish(CommitterState::kFailed, s);
      if (!may_write) return Status::Busy("the journal's write is due on this caller");
      if (!io_busy_) {
        state = CommitterState::kLeader;
        counters_.Add(Stat::group_leads);
        if (Status s = RunIo(/*sync=*/false, false); !s.ok()) return finish(CommitterState::kFailed, s);
        continue;
      }
      state = CommitterState::kFollower;
      cv_.Wait(&mu_);
    }
    return finish(state == CommitterState::kLanded ? CommitterState::kAlreadyDurable : CommitterState::kDurable,
                  Status::OK());
  }

  if (durable_lsn_ >= lsn) {
    counters_.Add(Stat::commits_already_durable);
    return finish(CommitterState::kAlreadyDurable, Status::OK());
  }
  while (true) {
    if (durable_lsn_ >= lsn) {
      if (state == CommitterState::kFollower) counters_.Add(Stat::commits_covered_while_waiting);
      return finish(CommitterState::kDurable, Status::OK());
    }
    if (Status s = fail_->Check(); !s.ok()) return finish(CommitterState::kFailed, s);
    if (!io_busy_) {
      state = CommitterState::kLeader;
      counters_.Add(Stat::group_leads);
      AwaitWindow();
      if (Status s = fail_->Check(); !s.ok()) {  // tripped while it waited: no I/O
        WakeAll();
        return finish(CommitterState::kFailed, s);
      }
      if (Status s = RunIo(/*sync=*/true, false); !s.ok()) return finish(CommitterState::kFailed, s);
      continue;  // its own record was pending, so durable_lsn_ now covers it
    }
    // A follower sleeps until a round ends and learns from durable_now_,
    // without mu_, whether it covered it: a round's followers wake at once
    // and return, rather than taking mu_ in turn only to find they may.
    state = CommitterState::kFollower;
    const uint32_t round = rounds_ended_.load(std::memory_order_acquire);
    followers_.fetch_add(1, std::memory_order_seq_cst);
    lk.Unlock();
    // Rechecked after a spurious return: only a round's end lets it go on.
    while (rounds_ended_.load(std::memory_order_seq_cst) == round) base::FutexWait(&rounds_ended_, round);
    followers_.fetch_sub(1, std::memory_order_acq_rel);
    if (durable_now_.load(std::memory_order_acquire) >= lsn) {
      counters_.Add(Stat::commits_covered_while_waiting);
      return finish(CommitterState::kDurable, Status::OK());
    }
    lk.Lock();
  }
}

Status GroupCommit::SyncAll() {
  base::MutexLock lk(&mu_);
  while (true) {
    if (Status s = fail_->Check(); !s.ok()) return s;
    if (durable_lsn_ >= last_lsn_) return Status::OK();
    if (!io_busy_) {
      if (Status s = RunIo(/*sync=*/true, false); !s.ok()) return s;
      continue;
    }
    cv_.Wait(&mu_);
  }
}

Status GroupCommit::AwaitSynced(uint64_t lsn, bool may_write, bool* waited) {
  base::MutexLock lk(&mu_);
  *waited = false;
  // Unsynced policies leave every fdatasync to the periodic syncer (GR-5:
  // commits make none themselves): it is woken, and this caller waits for it.
  const bool syncer = policy_ == CommitPolicy::kBufferedGroup || policy_ == CommitPolicy::kWriteThroughGroup ||
                      policy_ == CommitPolicy::kBufferedNaive;
  while (durable_lsn_ < lsn) {
    if (Status s = fail_->Check(); !s.ok()) return s;
    if (!may_write) return Status::Busy("an fdatasync is due on this caller");
    *waited = true;
    if (syncer && syncer_on_ && !stop_syncer_) {
      sync_now_ = true;
      syncer_cv_.Signal();
      cv_.Wait(&mu_);
      continue;
    }
    if (!io_busy_) {
      if (Status s = RunIo(/*sync=*/true, false); !s.ok()) return s;
      continue;
    }
    cv_.Wait(&mu_);
  }
  return Status::OK();
}

void GroupCommit::RequestSync() {
  {
    base::MutexLock lock(&mu_);
    sync_now_ = true;
  }
  syncer_cv_.Signal();
}

void GroupCommit::StartPeriodicSync(uint32_t ms, std::function<void()> after_sync) {
  after_sync_ = std::move(after_sync);
  stop_syncer_ = false;
  syncer_on_ = true;
  syncer_ = std::thread([this, ms] { SyncLoop(ms); });
}

void GroupCommit::StopPeriodicSync() {
  {
    base::MutexLock lock(&mu_);
    stop_syncer_ = true;
  }
  syncer_cv_.SignalAll();
  if (syncer_.joinable()) syncer_.join();
}

void GroupCommit::SyncLoop(uint32_t ms) {
  base::MutexLock lk(&mu_);
  while (!stop_syncer_) {
    // Sleeps ms, or until stopped or asked to sync now (what wait_for with a predicate does).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (!stop_syncer_ && !sync_now_ && syncer_cv_.WaitUntil(&mu_, deadline) != std::cv_status::timeout) {
    }
    if (stop_syncer_) break;
    sync_now_ = false;
    if (fail_->stopped()) continue;
    if (durable_lsn_ >= last_lsn_) continue;
    while (io_busy_) cv_.Wait(&mu_);
    if (policy_ == CommitPolicy::kWriteThroughGroup) {
      if (SyncBeside().ok()) counters_.Add(Stat::periodic_syncs);
      continue;
    }
    if (!RunIo(/*sync=*/true, /*periodic=*/true).ok()) continue;
    counters_.Add(Stat::periodic_syncs);
    // Writes put off while the fsync ran (GR-5), now that it is done.
    if (pending_bytes_ >= kFlushBytes && !io_busy_) (void)RunIo(/*sync=*/false, false);
    journal_write_deferred_ = false;
    if (after_sync_) {
      lk.Unlock();
      after_sync_();
      lk.Lock();
    }
  }
}

Status GroupCommit::SyncBeside() {
  // What is pending is written first, as I/O owner, so the sync covers
  // every record appended so far.
  if (written_lsn_ < last_lsn_) {
    if (Status s = RunIo(/*sync=*/false, false); !s.ok()) return s;
  }
  while (io_busy_) cv_.Wait(&mu_);
  const uint64_t target = written_lsn_;
  if (durable_lsn_ >= target) return Status::OK();
  std::vector<uint64_t> stream_last(streams_.size(), 0);
  for (size_t i = 1; i < streams_.size(); ++i) stream_last[i] = streams_[i]->last_lsn;
  // Records written up to target are in this file or in ones rotation
  // already synced (JournalWriter::Prepare); the file stays open for us even
  // if the I/O owner moves to the next one meanwhile.
  std::shared_ptr<File> file = writer_->current_file();
  // Branch records past stream_last may be pending, not written: a stream's
  // durable LSN moves only to what the root's target covered.
  for (size_t i = 1; i < streams_.size(); ++i)
    if (streams_[i]->pending_first != 0) stream_last[i] = std::min(stream_last[i], streams_[i]->pending_first - 1);
  mu_.Unlock();
  Status s;
  const auto t0 = std::chrono::steady_clock::now();
  if (file) s = file->Sync();
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
  mu_.Lock();
  if (!s.ok()) {
    s = fail_->Trip(s);
    WakeAll();
    return s;
  }
  counters_.Add(Stat::journal_fsyncs);
  counters_.Add(Stat::journal_sync_ns, static_cast<uint64_t>(ns));
  durable_lsn_ = std::max(durable_lsn_, target);
  for (size_t i = 1; i < stream_last.size(); ++i)
    streams_[i]->durable_lsn = std::max(streams_[i]->durable_lsn, stream_last[i]);
  WakeAll();
  return Status::OK();
}

void GroupCommit::RequestRotation() {
  base::MutexLock lock(&mu_);
  rotate_ = true;
  if (room_on_) room_left_ = 0;  // the next commit makes room: in the next file
}

uint64_t GroupCommit::durable_lsn() const {
  base::MutexLock lock(&mu_);
  return durable_lsn_;
}

uint64_t GroupCommit::last_lsn() const {
  base::MutexLock lock(&mu_);
  return last_lsn_;
}

}  // namespace fenec::journal
