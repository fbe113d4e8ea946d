// The seed of a randomized test or run: FENEC_SEED if set (decimal or 0x
// hex), else random. Logged on stderr either way, with who asked, so that a
// failing run can be replayed with FENEC_SEED=<n>.
#pragma once

#include <cstdint>

namespace fenec::base {

uint64_t SeedFromEnv(const char* who);

}  // namespace fenec::base
