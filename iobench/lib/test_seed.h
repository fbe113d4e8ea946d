// The seed of a randomized test or run: FENEC_SEED if set (decimal or 0x hex),
// else random. Logged either way, with who asked, so that a failing run can
// be replayed with FENEC_SEED=<n>. Header-only so that every test in the tree
// (engine, indexes, scenarios) shares it without linking the measurement kit.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>

namespace fenec::bench {

inline uint64_t test_seed(const char* who = "test") {
  uint64_t seed;
  if (const char* env = std::getenv("FENEC_SEED"); env != nullptr && *env != '\0') {
    seed = std::strtoull(env, nullptr, 0);
  } else {
    seed = (uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
  }
  std::fprintf(stderr, "%s: seed=%llu (replay with FENEC_SEED=%llu)\n", who,
               static_cast<unsigned long long>(seed), static_cast<unsigned long long>(seed));
  return seed;
}

}  // namespace fenec::bench
