// Seed for the index tests' random mixes: the project's shared seed rule
// (FENEC_SEED if set, else random; logged either way so a failing run can be replayed).
#pragma once

#include <cstdint>

#include "iobench/lib/test_seed.h"

namespace fenec::index::testing {

inline uint64_t test_seed(const char* test_name) { return bench::test_seed(test_name); }

}  // namespace fenec::index::testing
