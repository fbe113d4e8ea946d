// Collections made and dropped: all or nothing under one write-lock hold,
// journaled like any write (the write path itself is db_write.cc).
#include <fmt/format.h>

#include <cerrno>
#include <exception>
#include <new>
#include <utility>

#include "engine/src/db/db_impl.h"
#include "engine/src/db/merger.h"
#include "engine/src/db/payload.h"
#include "engine/src/ring/global_ring.h"
#include "engine/src/base/coding.h"

namespace fenec {

// All or nothing: every file and thread the collection needs is made
// before it is published and journaled, in one write-lock hold. A failure
// there unmakes them (ReleaseCollection) and publishes nothing; only a
// failure from the journal append on is irrevocable (fail-stop).
Result<CollectionId> DbImpl::CreateCollection(const std::string& name, const Schema& schema) {
  if (Status s = WriteCheck(); !s.ok()) return s;
  if (Status s = CheckName("collection", name); !s.ok()) return s;
  if (Status s = schema.Validate(); !s.ok()) return s;
  uint64_t lsn = 0;
  uint32_t id = 0;
  std::shared_ptr<CollectionState> c;
  Status built;
  // The record's room is taken first: a full disk refuses the create before
  // anything is made. Its size with the largest id the record can carry.
  base::Bytes sized;
  EncodeCreate(UINT32_MAX, name, schema, &sized);
  const bool unsynced = options_.durability != Durability::kDurable;
  CommitTicket ticket;  // the reservation's LSN (ids_lsn), unsynced modes
  for (;;) {
    RoomNeed room;
    // Under the lock: refused, room wanted (nothing made), or made and, if built, published.
    auto create = [&]() FENEC_REQUIRES(lock_) -> Status {
      if (Status s = fail_.Check(); !s.ok()) return s;
      if (names_.count(name)) return Status::AlreadyExists(fmt::format("collection '{}' exists", name));
      if (live_collections_ >= kMaxCollections)
        return Status::InvalidArgument(fmt::format("too many collections (at most {})", kMaxCollections));
      if (next_collection_id_ > UINT32_MAX - kMaxCollections)
        return Status::InvalidArgument("collection ids are used up");
      if (!TakeRoom(nullptr, sized.size(), {}, 0, unsynced, &room)) return Status::OK();
      id = FreeCollectionId();
      auto made = MakeCollection(id, name, schema);
      if (!made.ok()) {
        GiveBackRoom(nullptr, sized.size(), {}, unsynced);
        return made.status();
      }
      c = std::move(made).value();
      try {
        // Rare enough that creating the branch folders under the lock is fine.
        built = BuildCollection(c.get());
      } catch (const std::exception& e) {
        // Not a failure the engine expects: nothing is published, but the
        // state it left is unknown, so stop writing until reopened.
        built = fail_.Trip(Status::IOError(std::string("create collection: ") + e.what(), name, ENOMEM));
      }
      if (!built.ok()) {
        GiveBackRoom(nullptr, sized.size(), {}, unsynced);
        c->dropped = true;
        next_collection_id_ = id + 1;  // never given again: a folder the cleanup leaves is no one's
        return Status::OK();
      }
      try {
        base::Bytes payload;
        EncodeCreate(id, name, schema, &payload);
        lsn = gc_->Append(payload);
        gc_->Unreserve(sized.size() - payload.size());  // its room was taken for the largest id
        c->last_lsn = lsn;
        Publish(c);
        // Unsynced modes: the first ids reserved with the create, which
        // returns once that is durable, so its first puts wait for no fsync.
        if (unsynced) ReserveIds(c.get(), 1, &ticket);
      } catch (const std::exception& e) {
        return fail_.Trip(Status::IOError(std::string("create collection: ") + e.what(), name, ENOMEM));
      }
      if (options_.commit_mode == CommitMode::kNaive) return gc_->CommitUnderLock();
      return Status::OK();
    };
    Status done;
    {
      WriteLock lock(&lock_);
      done = create();
    }
    if (!done.ok()) return done;
    if (!room.wanted) break;
    if (Status s = MakeRoom(room); !s.ok()) return s;  // a full disk refuses the create here
  }
  if (!built.ok()) {
    ReleaseCollection(c.get());  // outside the lock: joins the linkers it started
    return built;
  }
  ticket.lsn = lsn;
  if (Status s = FinishCommit(ticket, {}); !s.ok()) return s;
  return CollectionId{id};
}

// The record first, the folders after it is durable: a crash between the two
// leaves folders the next open removes (RemoveOrphanBranches).
Status DbImpl::DropCollection(const std::string& name) {
  if (Status s = WriteCheck(); !s.ok()) return s;
  // A checkpoint writes the branches it captured after the lock; none runs
  // while their folders are removed.
  base::MutexLock ck(&checkpoint_mu_);
  std::shared_ptr<CollectionState> c;
  uint64_t lsn = 0;
  for (RoomNeed room;; room = RoomNeed{}) {
    {
      WriteLock lock(&lock_);
      if (Status s = fail_.Check(); !s.ok()) return s;
      auto it = names_.find(name);
      if (it == names_.end()) return Status::NotFound(fmt::format("no collection '{}'", name));
      c = collections_[it->second % kMaxCollections];
      base::Bytes payload;
      EncodeDrop(c->id, &payload);
      if (TakeRoom(nullptr, payload.size(), {}, 0, false, &room)) {
        lsn = gc_->Append(payload);
        Unpublish(c.get());
        if (options_.commit_mode == CommitMode::kNaive) {
          if (Status s = gc_->CommitUnderLock(); !s.ok()) return s;
        }
        break;
      }
    }
    if (Status s = MakeRoom(room); !s.ok()) return s;  // a full disk refuses the drop here, before it lands
  }
  if (Status s = FinishCommit(CommitTicket{lsn, {}, {}}, {}); !s.ok()) return s;
  // Unsynced modes: folders go only once the record is on disk (none: no fsync).
  if (options_.durability != Durability::kDurable && !IndexSet(c.get()).empty())
    if (Status s = gc_->SyncAll(); !s.ok()) return s;
  ReleaseCollection(c.get());
  return Status::OK();
}

}  // namespace fenec
