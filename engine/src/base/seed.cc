#include "engine/src/base/seed.h"

#include <cstdio>
#include <cstdlib>
#include <random>

namespace fenec::base {

uint64_t SeedFromEnv(const char* who) {
  uint64_t seed;
  if (const char* env = std::getenv("FENEC_SEED"); env != nullptr && *env != '\0') {
    seed = std::strtoull(env, nullptr, 0);
  } else {
    seed = (uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
  }
  std::fprintf(stderr, "%s: seed=%llu (replay with FENEC_SEED=%llu)\n", who, static_cast<unsigned long long>(seed),
               static_cast<unsigned long long>(seed));
  return seed;
}

}  // namespace fenec::base
