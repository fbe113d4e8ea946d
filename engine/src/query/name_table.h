// Names to small ids (a schema's fields, a statement's parameters, a
// document's keys, a group's value), found by hash: a lookup costs a few
// probes whatever the number of names, where a scan costs one comparison a
// name (a document's K keys checked pairwise take K^2/2 comparisons).
//
// The table keeps ids only, in open addressing with linear probing at most
// half full; the caller's name_of(id) gives the name an id stands for. So a
// table copied or moved with its owner stays right, and costs 8 bytes a name.
//
// Names come from clients, so the hash is XXH3 keyed by a secret drawn once
// per process: a client cannot choose keys that collide and turn each
// lookup back into a scan.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/src/query/work.h"

namespace fenec::query {

uint64_t HashName(std::string_view name);

// For a test that wants its probe counts reproducible: sets the hash's secret
// from seed. Only before any name is hashed in the process (false after).
bool SetNameHashSeedForTest(uint64_t seed);

class NameTable {
 public:
  NameTable() = default;

  // Room for n names without growing.
  void Reserve(size_t n);
  size_t size() const { return size_; }
  void Clear();

  // The id under name, or -1.
  template <typename NameOf>
  int Find(std::string_view name, const NameOf& name_of) const {
    if (slots_.empty()) return -1;
    return slots_[Locate(name, HashName(name), name_of)].id;
  }

  // Puts id under name unless the name is held: returns the id already
  // there, or -1 when id was put.
  template <typename NameOf>
  int Insert(std::string_view name, int id, const NameOf& name_of) {
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    const uint64_t h = HashName(name);
    Slot& s = slots_[Locate(name, h, name_of)];
    if (s.id >= 0) return s.id;
    s.hash = static_cast<uint32_t>(h);
    s.id = id;
    ++size_;
    return -1;
  }

 private:
  struct Slot {
    uint32_t hash = 0;  // the name's hash's low bits: where it goes, and a cheap inequality
    int32_t id = -1;    // -1: empty
  };

  // The slot holding name, or the empty one where it would go.
  template <typename NameOf>
  size_t Locate(std::string_view name, uint64_t h, const NameOf& name_of) const {
    WorkCounters& w = Work();
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      ++w.name_probes;
      const Slot& s = slots_[i];
      if (s.id < 0) return i;
      if (s.hash != static_cast<uint32_t>(h)) continue;
      ++w.name_compares;
      if (std::string_view(name_of(s.id)) == name) return i;
    }
  }

  void Grow();

  std::vector<Slot> slots_;  // a power of two long, or empty
  size_t size_ = 0;
};

}  // namespace fenec::query
