// UniqueIndex: the hash index behind a @unique field (GR-1).
//
// Include as "engine/src/index/unique_index.h" and link fenec_index_dep
// (engine/src/index/meson.build); the library depends on nothing of the
// engine, only on xxhash. Namespace fenec::index.
//
// Design. A key (a byte string) maps to one 64-bit row id. Each slot keeps
// the key's 64-bit hash beside the key and the row (32 bytes: hash 8, row 8,
// key 16 - keys up to 15 bytes inline, longer ones in one exact-size heap
// block). The stored hash costs 8 bytes a key and buys two things: a lookup
// hashes once and compares hashes before bytes, and a growth places every
// slot by its stored hash without hashing any key again.
//
// Growth is the point of this class. A table that doubles in one move makes
// the put that fills it - and, under the engine's write lock, every writer
// behind it - wait for all keys to move (the stall GR-1 measured in the
// source). The sharded arm (default) keeps one table (cheap for small
// indexes) up to kSplitKeys = 114 688 keys (7/8 of 131 072 slots), then
// splits it into 256 tables selected by the hash's top 8 bits, each of which
// doubles on its own, so a growth moves about a 256th of the keys. Below the
// split, the single table's growths (the split included) are spread over the
// puts that follow, 256 old slots a put, so no put moves more than that
// either (growing_map.h). The naive arm (Arm::kNaive) is the single table
// doubling in one move, kept as the comparison arm.
//
// Concurrency: none inside. The engine's discipline is what makes it safe:
// const methods under the shared lock (any number of threads), everything
// else under the exclusive lock. UniqueBatch is built with no lock at all.
//
// Errors: uniqueness violations are returned as UniqueViolation, and a call
// that returns one has changed nothing. Keys longer than kMaxKeyBytes are a
// programming error (assert), the engine validates field sizes first.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/src/index/index_types.h"

namespace fenec::index {

class GrowingMap;

// What made a Put (or a batch) fail. The index is unchanged when one is returned.
struct UniqueViolation {
  enum class Kind { kExisting, kInBatch };
  Kind kind = Kind::kExisting;
  std::string key;
  uint64_t row = 0;             // the row that tried to take the key
  uint64_t holder_row = 0;      // kExisting: the row holding it; kInBatch: the earlier put's row
  size_t put_index = 0;         // position of the failing put in the batch (0 for single puts)
  size_t other_put_index = 0;   // kInBatch: position of the earlier put with the same key
  std::string message() const;  // one line, key shown escaped and truncated
};

// A batch of changes to one UniqueIndex, built OUTSIDE the write lock: keys
// are copied and hashed here, so the locked part only probes. Erases apply
// before puts, so a batch may move a key from one row to another.
class UniqueBatch {
 public:
  void Put(std::string_view key, uint64_t row);
  void Erase(std::string_view key);
  void Clear();
  size_t puts() const { return puts_.size(); }
  size_t erases() const { return erases_.size(); }

 private:
  friend class UniqueIndex;
  struct Entry {
    std::string key;
    uint64_t hash = 0;
    uint64_t row = 0;
    HashedKey hashed() const { return {key, hash}; }
  };
  std::vector<Entry> puts_, erases_;
  mutable uint64_t uncredited_hashes_ = 0;  // added to the index's counter on first check/apply
};

class UniqueIndex {
 public:
  static constexpr uint64_t kSplitKeys = 114688;
  static constexpr size_t kShards = 256;
  static constexpr size_t kMaxKeyBytes = (size_t{1} << 31) - 1;

  explicit UniqueIndex(Arm arm = Arm::kSharded);
  ~UniqueIndex();
  UniqueIndex(UniqueIndex&&) noexcept;
  UniqueIndex& operator=(UniqueIndex&&) noexcept;
  UniqueIndex(const UniqueIndex&) = delete;
  UniqueIndex& operator=(const UniqueIndex&) = delete;

  Arm arm() const;
  size_t size() const;

  // The row holding `key`, or nullopt. The HashedKey overload hashes nothing.
  std::optional<uint64_t> Find(std::string_view key) const;
  std::optional<uint64_t> Find(const HashedKey& key) const;

  // Adds key -> row. Putting a key the same row already holds is a no-op
  // success; a key held by another row is a violation (nothing changes).
  std::optional<UniqueViolation> Put(std::string_view key, uint64_t row);
  // Removes key; returns the row that held it, nullopt if absent.
  std::optional<uint64_t> Erase(std::string_view key);

  // First violation the batch would cause (against the index after the
  // batch's erases, or between two of its puts), nullopt if it is clean.
  std::optional<UniqueViolation> Check(const UniqueBatch& batch) const;
  // Check(), then, only if clean, the erases and the puts. All or nothing.
  std::optional<UniqueViolation> Apply(const UniqueBatch& batch);

  // Replaces the contents by `entries` in one presized load (what the engine
  // calls on open: rebuilt from the collection's rows). No growth happens;
  // each key is hashed once. A duplicate key leaves the index empty and is
  // returned as a kInBatch violation.
  struct Entry {
    std::string_view key;
    uint64_t row = 0;
  };
  std::optional<UniqueViolation> Rebuild(std::span<const Entry> entries);
  void Clear();

  // Every key and row, in no particular order.
  void ForEach(const std::function<void(std::string_view key, uint64_t row)>& fn) const;

  IndexStats stats() const;
  // Every growth since construction (or the last clear/rebuild), oldest first.
  const std::vector<GrowthEvent>& growth_log() const;

 private:
  HashedKey HashCounted(std::string_view key) const;
  void Credit(const UniqueBatch& batch) const;
  std::unique_ptr<GrowingMap> map_;
  std::unique_ptr<struct UniqueCounters> counters_;
};

}  // namespace fenec::index
