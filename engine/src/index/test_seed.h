// Seed for the index tests' random mixes: FENEC_SEED if set, else random;
// logged either way so a failing run can be replayed.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace fenec::index::testing {

inline uint64_t test_seed(const char* test_name) {
  uint64_t seed;
  if (const char* env = std::getenv("FENEC_SEED"); env != nullptr && *env != '\0') {
    seed = std::strtoull(env, nullptr, 0);
  } else {
    seed = (uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
  }
  std::fprintf(stderr, "%s: seed=%llu (replay with FENEC_SEED=%llu)\n", test_name,
               static_cast<unsigned long long>(seed), static_cast<unsigned long long>(seed));
  return seed;
}

}  // namespace fenec::index::testing
