// Room before landing (a full disk refuses a write before it lands, never
// after), and the id reservations that keep an acknowledged id from naming
// another document after a crash.
#include <fmt/format.h>

#include <chrono>

#include "engine/src/db/db_impl.h"
#include "engine/src/db/payload.h"

namespace fenec {
namespace {

int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void DbImpl::ReserveIds(CollectionState* c, uint64_t end, CommitTicket* t) {
  const uint64_t step = c->ids_step.load(std::memory_order_relaxed);
  if (end + step / 2 > c->ids_reserved) {
    // After the put's record, so replay has landed it when it reads this
    // one and can bound the reservation by its own index (ApplyRecord).
    base::Bytes payload;
    EncodeReserveIds(c->id, end + step, &payload);
    c->prev_reserved = c->ids_reserved;
    c->prev_reserve_lsn = c->reserve_lsn;
    c->ids_reserved = end + step;
    c->reserve_lsn = gc_->Append(payload);  // root only: no index changes, so no branch record
    gc_->Unreserve(kReserveRecordBytes - (journal::kHeaderSize + payload.size()));  // TakeRoom took the most
    stats_.Add(Stat::id_reservations);
    gc_->RequestSync();
  } else {
    gc_->Unreserve(kReserveRecordBytes);  // taken with the put's room (TakeRoom), not needed
  }
  t->ids_lsn = end <= c->prev_reserved ? c->prev_reserve_lsn : c->reserve_lsn;
}

Status DbImpl::ReserveIdsAtOpen() {
  {
    WriteLock lock(&lock_);
    for (CollectionState* c : LiveLocked()) {
      if (!gc_->Reserve(kReserveRecordBytes)) break;  // a full disk: the first puts reserve, and wait
      CommitTicket t;
      ReserveIds(c, c->index.size(), &t);
    }
  }
  Status s = gc_->SyncAll();
  return s.IsNoSpace() ? Status::OK() : s;
}

bool DbImpl::TakeRoom(CollectionState* c, uint64_t root_payload, std::span<const base::Bytes> branch_payloads,
                      uint64_t data_bytes, bool reserve, RoomNeed* need) {
  if (data_bytes > 0 && rows_->data_end() + data_bytes > storage_->data_room()) {
    *need = RoomNeed{true, nullptr, rows_->data_end() + data_bytes};
    return false;
  }
  // With shared journals (no branch journal of its own) the branches' records ride in the root's.
  const bool shared = c == nullptr || c->branches.empty() || c->branches.front()->gc == nullptr;
  uint64_t root = journal::kHeaderSize + root_payload + (reserve ? kReserveRecordBytes : 0);
  if (shared)
    for (const base::Bytes& p : branch_payloads) root += journal::kHeaderSize + p.size();
  if (!gc_->Reserve(root)) {
    *need = RoomNeed{true, gc_.get(), root};
    return false;
  }
  if (shared) return true;
  for (size_t k = 0; k < branch_payloads.size(); ++k) {
    journal::GroupCommit* bgc = c->branches[k]->gc.get();
    const uint64_t bytes = journal::kHeaderSize + branch_payloads[k].size();
    if (bgc->Reserve(bytes)) continue;
    for (size_t j = 0; j < k; ++j) c->branches[j]->gc->Unreserve(journal::kHeaderSize + branch_payloads[j].size());
    gc_->Unreserve(root);
    *need = RoomNeed{true, bgc, bytes};
    return false;
  }
  return true;
}

void DbImpl::GiveBackRoom(CollectionState* c, uint64_t root_payload, std::span<const base::Bytes> branch_payloads,
                          bool reserve) {
  const bool shared = c == nullptr || c->branches.empty() || c->branches.front()->gc == nullptr;
  uint64_t root = journal::kHeaderSize + root_payload + (reserve ? kReserveRecordBytes : 0);
  for (size_t k = 0; k < branch_payloads.size(); ++k) {
    const uint64_t bytes = journal::kHeaderSize + branch_payloads[k].size();
    if (shared) root += bytes;
    else c->branches[k]->gc->Unreserve(bytes);
  }
  gc_->Unreserve(root);
}

Status DbImpl::MakeRoom(const RoomNeed& need) {
  if (no_space_.load(std::memory_order_acquire)) {
    base::MutexLock lock(&no_space_mu_);
    if (SteadyNs() - no_space_at_ns_ < kNoSpaceRetryNs) {
      stats_.Add(Stat::no_space_refusals);
      return no_space_cause_;
    }
  }
  Status s = need.gc != nullptr ? need.gc->MakeRoom(need.bytes) : storage_->MakeDataRoom(need.bytes);
  if (s.IsNoSpace()) {
    stats_.Add(Stat::no_space_refusals);
    base::MutexLock lock(&no_space_mu_);
    no_space_cause_ = Status::FromErrno(
        fmt::format("grow the {} (writes are refused until space is freed; reads go on)",
                    need.gc != nullptr ? "journal" : "data file"),
        storage_->folder(), s.err() != 0 ? s.err() : ENOSPC);
    no_space_at_ns_ = SteadyNs();
    if (!no_space_.exchange(true, std::memory_order_acq_rel)) stats_.Add(Stat::no_space_episodes);
    return no_space_cause_;
  }
  if (s.ok() && no_space_.load(std::memory_order_acquire)) no_space_.store(false, std::memory_order_release);
  return s;
}

}  // namespace fenec
