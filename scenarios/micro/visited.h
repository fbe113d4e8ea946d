// MM-2: the visited set of a graph walk, and what clearing it costs.
//
// A walk that reuses one hash set pays clear() in proportion to the largest
// set it ever held (libstdc++ zeroes the whole bucket array), so after one
// walk from a hub every later walk pays for the hub. A bitmap avoids the
// hashing but its clear is still O(nodes). VersionedBitmap keeps a 16-bit
// version beside each 64-bit word: clear() bumps the version, a word whose
// version is stale reads as empty and is zeroed when first written, and only
// when the version wraps (every 65 536 clears) are both arrays really cleared.
#pragma once

#include <cstdint>
#include <cstring>
#include <unordered_set>
#include <vector>

namespace fenec::scenarios::micro {

class HashVisited {
 public:
  bool add(uint32_t node) { return set_.insert(node).second; }
  void clear() { set_.clear(); }
  size_t size() const { return set_.size(); }

 private:
  std::unordered_set<uint32_t> set_;
};

// An open-addressing set in two flat arrays, the shape of .NET's HashSet<int>
// (buckets + entries, no allocation per element): clear() zeroes the whole
// table, whose size is set by the largest walk it ever held; a new set
// starts small and doubles, a handful of allocations per walk.
class FlatVisited {
 public:
  FlatVisited() : slots_(kMinSlots, 0) {}
  bool add(uint32_t node) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    if (!place(slots_, node)) return false;
    ++size_;
    return true;
  }
  void clear() {
    std::memset(slots_.data(), 0, slots_.size() * sizeof(uint32_t));
    size_ = 0;
  }
  size_t size() const { return size_; }

 private:
  static constexpr size_t kMinSlots = 16;
  // Slots hold node + 1, so 0 marks an empty slot. Returns false if present.
  static bool place(std::vector<uint32_t>& slots, uint32_t node) {
    const size_t mask = slots.size() - 1;
    size_t i = (node * 0x9E3779B1u) & mask;
    while (slots[i] != 0) {
      if (slots[i] == node + 1) return false;
      i = (i + 1) & mask;
    }
    slots[i] = node + 1;
    return true;
  }
  void grow() {
    std::vector<uint32_t> bigger(slots_.size() * 2, 0);
    for (uint32_t v : slots_) {
      if (v != 0) place(bigger, v - 1);
    }
    slots_.swap(bigger);
  }
  std::vector<uint32_t> slots_;
  size_t size_ = 0;
};

class BitmapVisited {
 public:
  explicit BitmapVisited(size_t nodes) : words_((nodes + 63) / 64, 0) {}
  bool add(uint32_t node) {
    uint64_t& w = words_[node >> 6];
    const uint64_t mask = uint64_t{1} << (node & 63);
    const bool fresh = (w & mask) == 0;
    w |= mask;
    return fresh;
  }
  void clear() { std::memset(words_.data(), 0, words_.size() * sizeof(uint64_t)); }

 private:
  std::vector<uint64_t> words_;
};

class VersionedBitmap {
 public:
  explicit VersionedBitmap(size_t nodes)
      : words_((nodes + 63) / 64, 0), versions_(words_.size(), 0) {}

  bool add(uint32_t node) {
    const size_t i = node >> 6;
    if (versions_[i] != version_) {
      versions_[i] = version_;
      words_[i] = 0;
    }
    const uint64_t mask = uint64_t{1} << (node & 63);
    const bool fresh = (words_[i] & mask) == 0;
    words_[i] |= mask;
    return fresh;
  }
  bool contains(uint32_t node) const {
    const size_t i = node >> 6;
    return versions_[i] == version_ && (words_[i] & (uint64_t{1} << (node & 63))) != 0;
  }
  void clear() {
    if (++version_ != 0) return;
    // The version wrapped to 0: a word stamped 65 536 clears ago would read
    // as current again, so this once both arrays really are cleared (all
    // words empty and stamped 0 is exactly the state of a fresh bitmap).
    std::memset(words_.data(), 0, words_.size() * sizeof(uint64_t));
    std::memset(versions_.data(), 0, versions_.size() * sizeof(uint16_t));
    ++real_clears_;
  }
  uint64_t real_clears() const { return real_clears_; }

 private:
  std::vector<uint64_t> words_;
  std::vector<uint16_t> versions_;
  uint16_t version_ = 0;
  uint64_t real_clears_ = 0;
};

}  // namespace fenec::scenarios::micro
