// micro-icount's kernels: prepare() builds a kernel's inputs (not counted) and
// returns its work, which micro-icount runs twice in the kernel's own child
// process: once to warm up, once counted. The work returns a result (never 0)
// so that it cannot be optimised away, the same both times.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace fenec::micro {

using IcountWork = std::function<uint64_t()>;
using IcountPrepare = IcountWork (*)();

// The engine's hot paths ("ENG/<path>"), built only with FENEC_MICRO_ENGINE.
std::vector<std::pair<const char*, IcountPrepare>> engine_icount_kernels();

}  // namespace fenec::micro
