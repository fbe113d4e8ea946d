// UniqueIndex: see unique_index.h for the design.
#include "engine/src/index/unique_index.h"

#include <fmt/format.h>

#include <atomic>
#include <cassert>
#include <unordered_map>

#include "engine/src/index/growing_map.h"

namespace fenec::index {

// Counted with a relaxed load+store, not an RMW: exact for one thread, cheap
// for readers under the shared lock (see IndexStats).
struct alignas(64) UniqueCounters {
  std::atomic<uint64_t> hashes{0};
  void add_hashes(uint64_t n) {
    hashes.store(hashes.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
};

static std::string printable(std::string_view key) {
  constexpr size_t kShown = 64;
  std::string out;
  for (size_t i = 0; i < key.size() && i < kShown; ++i) {
    unsigned char c = static_cast<unsigned char>(key[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'')
      out += static_cast<char>(c);
    else
      out += fmt::format("\\x{:02x}", c);
  }
  if (key.size() > kShown) out += fmt::format("... ({} bytes)", key.size());
  return out;
}

std::string UniqueViolation::message() const {
  if (kind == Kind::kExisting)
    return fmt::format("unique key '{}' for row {} is already held by row {}", printable(key),
                       row, holder_row);
  return fmt::format("unique key '{}' appears twice in one batch (puts #{} row {} and #{} row {})",
                     printable(key), other_put_index, holder_row, put_index, row);
}

void UniqueBatch::Put(std::string_view key, uint64_t row) {
  assert(key.size() <= UniqueIndex::kMaxKeyBytes);
  Entry e;
  e.key.assign(key);
  e.hash = HashKey(e.key).hash;
  e.row = row;
  puts_.push_back(std::move(e));
  ++uncredited_hashes_;
}

void UniqueBatch::Erase(std::string_view key) {
  Entry e;
  e.key.assign(key);
  e.hash = HashKey(e.key).hash;
  erases_.push_back(std::move(e));
  ++uncredited_hashes_;
}

void UniqueBatch::Clear() {
  puts_.clear();
  erases_.clear();
  uncredited_hashes_ = 0;
}

UniqueIndex::UniqueIndex(Arm arm)
    : map_(std::make_unique<GrowingMap>(arm)), counters_(std::make_unique<UniqueCounters>()) {}
UniqueIndex::~UniqueIndex() = default;
UniqueIndex::UniqueIndex(UniqueIndex&&) noexcept = default;
UniqueIndex& UniqueIndex::operator=(UniqueIndex&&) noexcept = default;

Arm UniqueIndex::arm() const { return map_->arm(); }
size_t UniqueIndex::size() const { return map_->size(); }

HashedKey UniqueIndex::HashCounted(std::string_view key) const {
  counters_->add_hashes(1);
  return HashKey(key);
}

void UniqueIndex::Credit(const UniqueBatch& batch) const {
  counters_->add_hashes(batch.uncredited_hashes_);
  batch.uncredited_hashes_ = 0;
}

std::optional<uint64_t> UniqueIndex::Find(std::string_view key) const {
  return Find(HashCounted(key));
}

std::optional<uint64_t> UniqueIndex::Find(const HashedKey& key) const {
  if (const Slot* s = map_->Find(key)) return s->value;
  return std::nullopt;
}

std::optional<UniqueViolation> UniqueIndex::Put(std::string_view key, uint64_t row) {
  assert(key.size() <= kMaxKeyBytes);
  HashedKey k = HashCounted(key);
  if (const Slot* s = map_->Find(k)) {
    if (s->value == row) return std::nullopt;
    UniqueViolation v;
    v.kind = UniqueViolation::Kind::kExisting;
    v.key.assign(key);
    v.row = row;
    v.holder_row = s->value;
    return v;
  }
  map_->InsertAbsent(k, row);
  return std::nullopt;
}

std::optional<uint64_t> UniqueIndex::Erase(std::string_view key) {
  uint64_t row = 0;
  if (map_->Erase(HashCounted(key), &row)) return row;
  return std::nullopt;
}

std::optional<UniqueViolation> UniqueIndex::Check(const UniqueBatch& batch) const {
  Credit(batch);
  // Keys the batch frees before its puts land.
  std::unordered_multimap<uint64_t, size_t> erased;
  for (size_t i = 0; i < batch.erases_.size(); ++i) erased.emplace(batch.erases_[i].hash, i);
  auto is_erased = [&](const UniqueBatch::Entry& e) {
    auto [lo, hi] = erased.equal_range(e.hash);
    for (auto it = lo; it != hi; ++it)
      if (batch.erases_[it->second].key == e.key) return true;
    return false;
  };
  std::unordered_multimap<uint64_t, size_t> seen;  // earlier puts by hash
  for (size_t i = 0; i < batch.puts_.size(); ++i) {
    const UniqueBatch::Entry& e = batch.puts_[i];
    auto [lo, hi] = seen.equal_range(e.hash);
    for (auto it = lo; it != hi; ++it) {
      const UniqueBatch::Entry& prev = batch.puts_[it->second];
      if (prev.key == e.key && prev.row != e.row) {
        UniqueViolation v;
        v.kind = UniqueViolation::Kind::kInBatch;
        v.key = e.key;
        v.row = e.row;
        v.holder_row = prev.row;
        v.put_index = i;
        v.other_put_index = it->second;
        return v;
      }
    }
    seen.emplace(e.hash, i);
    if (const Slot* s = map_->Find(e.hashed()); s && s->value != e.row && !is_erased(e)) {
      UniqueViolation v;
      v.kind = UniqueViolation::Kind::kExisting;
      v.key = e.key;
      v.row = e.row;
      v.holder_row = s->value;
      v.put_index = i;
      return v;
    }
  }
  return std::nullopt;
}

std::optional<UniqueViolation> UniqueIndex::Apply(const UniqueBatch& batch) {
  if (auto v = Check(batch)) return v;
  for (const UniqueBatch::Entry& e : batch.erases_) map_->Erase(e.hashed(), nullptr);
  for (const UniqueBatch::Entry& e : batch.puts_) {
    if (Slot* s = map_->Find(e.hashed())) {
      // Same key, same row (checked above): an earlier put of this batch or
      // the index already holds it.
      assert(s->value == e.row);
      continue;
    }
    map_->InsertAbsent(e.hashed(), e.row);
  }
  return std::nullopt;
}

std::optional<UniqueViolation> UniqueIndex::Rebuild(std::span<const Entry> entries) {
  std::vector<uint64_t> hashes;
  hashes.reserve(entries.size());
  for (const Entry& e : entries) hashes.push_back(HashKey(e.key).hash);
  counters_->add_hashes(entries.size());
  map_->Presize(hashes);
  for (size_t i = 0; i < entries.size(); ++i) {
    HashedKey k{entries[i].key, hashes[i]};
    if (const Slot* s = map_->Find(k)) {
      UniqueViolation v;
      v.kind = UniqueViolation::Kind::kInBatch;
      v.key.assign(entries[i].key);
      v.row = entries[i].row;
      v.holder_row = s->value;
      v.put_index = i;
      for (size_t j = 0; j < i; ++j)
        if (entries[j].key == entries[i].key) v.other_put_index = j;
      map_->Clear();
      return v;
    }
    map_->InsertAbsent(k, entries[i].row);
  }
  return std::nullopt;
}

void UniqueIndex::Clear() { map_->Clear(); }

void UniqueIndex::ForEach(const std::function<void(std::string_view, uint64_t)>& fn) const {
  map_->ForEach([&](const Slot& s) { fn(s.key.view(), s.value); });
}

IndexStats UniqueIndex::stats() const {
  IndexStats st = map_->stats();
  st.hash_computations = counters_->hashes.load(std::memory_order_relaxed);
  return st;
}

const std::vector<GrowthEvent>& UniqueIndex::growth_log() const { return map_->growth_log(); }

}  // namespace fenec::index
