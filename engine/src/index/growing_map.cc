// GrowingMap: see growing_map.h for the design.
#include "engine/src/index/growing_map.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <ctime>

namespace fenec::index {

// Read once before and once after each growth, never on a plain put: the
// thread CPU clock is a system call.
GrowingMap::Clocks GrowingMap::Now() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  uint64_t wall = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                            std::chrono::steady_clock::now().time_since_epoch())
                                            .count());
  return {wall, static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec)};
}

void GrowingMap::Record(GrowthEvent::Kind kind, int shard, uint64_t moved,
                        uint64_t capacity_after, Clocks since) {
  Clocks end = Now();
  GrowthEvent e;
  e.kind = kind;
  e.shard = static_cast<int16_t>(shard);
  e.keys_before = size_;
  e.keys_moved = moved;
  e.capacity_after = capacity_after;
  e.ns = end.wall - since.wall;
  e.cpu_ns = end.cpu - since.cpu;
  log_.push_back(e);
  ++growths_;
  keys_moved_total_ += moved;
  max_keys_moved_ = std::max(max_keys_moved_, moved);
  last_keys_moved_ = moved;
  grew_in_this_write_ = true;
}

void GrowingMap::DoubleTable(HashTable& t, int shard) {
  size_t cap = t.capacity() == 0 ? kMinCapacity : t.capacity() * 2;
  Clocks t0 = Now();
  uint64_t moved = t.GrowTo(cap);
  Record(GrowthEvent::Kind::kDouble, shard, moved, cap, t0);
}

// The single table is full. Naive arm, or a table small enough to move
// within one step's budget: double it in one move. Otherwise freeze it and
// start moving it into its successor, one step a write.
void GrowingMap::GrowSingle() {
  assert(!moving() && shards_.empty());
  if (arm_ == Arm::kNaive || single_.capacity() <= kMoveSlotsPerStep) {
    DoubleTable(single_, -1);
    return;
  }
  Clocks t0 = Now();
  old_ = std::move(single_);
  move_pos_ = 0;
  uint64_t cap;
  if (old_.capacity() >= kSplitCapacity) {
    shards_.reserve(kShards);
    for (size_t i = 0; i < kShards; ++i) shards_.emplace_back(kShardInitialCapacity);
    cap = kShards * kShardInitialCapacity;
  } else {
    cap = old_.capacity() * 2;
    single_ = HashTable(cap);
  }
  Record(GrowthEvent::Kind::kMoveStart, -1, 0, cap, t0);
}

void GrowingMap::MoveStep() {
  Clocks t0 = Now();
  size_t end = std::min(move_pos_ + kMoveSlotsPerStep, old_.capacity());
  uint64_t moved = 0;
  for (size_t i = move_pos_; i < end; ++i) {
    Slot* s = old_.slot_at(i);
    if (s->hash == 0 || !s->key.live()) continue;
    HashTable& t = TargetOf(s->hash);
    if (t.full()) DoubleTable(t, shards_.empty() ? -1 : static_cast<int>(s->hash >> (64 - kShardBits)));
    t.InsertNew(*s);
    old_.Kill(s, /*free_key=*/false);  // the new table owns the key now
    ++moved;
  }
  move_pos_ = end;
  bool last = move_pos_ == old_.capacity();
  if (last) {
    assert(old_.size() == 0);
    old_ = HashTable();
  }
  Record(GrowthEvent::Kind::kMoveStep, -1, moved, 0, t0);
}

Slot* GrowingMap::InsertAbsent(const HashedKey& k, uint64_t value) {
  assert(Find(k) == nullptr);
  grew_in_this_write_ = false;
  if (moving()) MoveStep();
  if (shards_.empty() && single_.full()) {
    // A table twice the old one's size cannot fill during the move (it ends
    // in capacity/kMoveSlotsPerStep writes); finish the move if it ever does.
    while (moving()) MoveStep();
    GrowSingle();
    if (moving()) MoveStep();
  }
  HashTable& t = TargetOf(k.hash);
  if (t.full()) DoubleTable(t, shards_.empty() ? -1 : static_cast<int>(k.hash >> (64 - kShardBits)));
  Slot slot;
  slot.hash = k.hash;
  slot.value = value;
  slot.key = SlotKey::Make(k.key);
  Slot* placed = t.InsertNew(slot);
  ++size_;
  if (grew_in_this_write_) ++puts_that_grew_;
  return placed;
}

bool GrowingMap::Erase(const HashedKey& k, uint64_t* value) {
  bool found = false;
  HashTable& t = TargetOf(k.hash);
  if (Slot* s = t.Find(k.hash, k.key)) {
    if (value) *value = s->value;
    t.Erase(s);
    found = true;
  } else if (moving()) {
    if (Slot* f = old_.Find(k.hash, k.key)) {
      if (value) *value = f->value;
      old_.Kill(f, /*free_key=*/true);
      found = true;
    }
  }
  if (found) --size_;
  if (moving()) MoveStep();
  return found;
}

void GrowingMap::Clear() {
  single_ = HashTable();
  old_ = HashTable();
  shards_.clear();
  move_pos_ = 0;
  size_ = 0;
  growths_ = keys_moved_total_ = max_keys_moved_ = last_keys_moved_ = puts_that_grew_ = 0;
  log_.clear();
}

void GrowingMap::Presize(const std::vector<uint64_t>& hashes) {
  Clear();
  size_t n = hashes.size();
  if (arm_ == Arm::kNaive || n <= kSplitKeys) {
    single_ = HashTable(HashTable::CapacityFor(n, kMinCapacity));
    return;
  }
  std::vector<size_t> per_shard(kShards, 0);
  for (uint64_t h : hashes) ++per_shard[h >> (64 - kShardBits)];
  shards_.reserve(kShards);
  for (size_t i = 0; i < kShards; ++i)
    shards_.emplace_back(HashTable::CapacityFor(per_shard[i], kShardInitialCapacity));
}

IndexStats GrowingMap::stats() const {
  IndexStats st;
  st.keys = size_;
  st.capacity_slots = single_.capacity() + old_.capacity();
  st.memory_bytes = single_.memory_bytes() + old_.memory_bytes();
  for (const HashTable& t : shards_) {
    st.capacity_slots += t.capacity();
    st.memory_bytes += t.memory_bytes();
  }
  st.memory_bytes += shards_.capacity() * sizeof(HashTable) + log_.capacity() * sizeof(GrowthEvent);
  st.growths = growths_;
  st.keys_moved_total = keys_moved_total_;
  st.max_keys_moved = max_keys_moved_;
  st.last_keys_moved = last_keys_moved_;
  st.puts_that_grew = puts_that_grew_;
  st.moving = moving();
  st.sharded = !shards_.empty();
  return st;
}

}  // namespace fenec::index
