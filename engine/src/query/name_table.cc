#include "engine/src/query/name_table.h"

#include <atomic>
#include <random>

#define XXH_INLINE_ALL
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

namespace fenec::query {
namespace {

struct Secret {
  alignas(64) unsigned char bytes[XXH3_SECRET_DEFAULT_SIZE];
  void From(uint64_t seed) { XXH3_generateSecret(bytes, sizeof bytes, &seed, sizeof seed); }
};

Secret g_secret;
std::atomic<bool> g_used{false};

const Secret& TheSecret() {
  // Drawn on first use; a test may have set it before (SetNameHashSeedForTest).
  static const bool drawn = [] {
    if (!g_used.exchange(true)) {
      std::random_device rd;
      g_secret.From((static_cast<uint64_t>(rd()) << 32) ^ rd());
    }
    return true;
  }();
  (void)drawn;
  return g_secret;
}

}  // namespace

uint64_t HashName(std::string_view name) {
  const Secret& s = TheSecret();
  return XXH3_64bits_withSecret(name.data(), name.size(), s.bytes, sizeof s.bytes);
}

bool SetNameHashSeedForTest(uint64_t seed) {
  if (g_used.exchange(true)) return false;
  g_secret.From(seed);
  return true;
}

void NameTable::Reserve(size_t n) {
  size_t want = 16;
  while (want < n * 2) want *= 2;
  if (want <= slots_.size()) return;
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(want, Slot{});
  const size_t mask = want - 1;
  WorkCounters& w = Work();
  for (const Slot& s : old) {
    if (s.id < 0) continue;
    size_t i = s.hash & mask;
    while (slots_[i].id >= 0) {
      ++w.name_probes;
      i = (i + 1) & mask;
    }
    ++w.name_probes;
    slots_[i] = s;
  }
}

void NameTable::Grow() { Reserve(slots_.empty() ? 8 : slots_.size()); }

void NameTable::Clear() {
  slots_.clear();
  size_ = 0;
}

}  // namespace fenec::query
