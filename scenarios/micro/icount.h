// micro-icount's kernels: prepare() builds a kernel's inputs (not counted) and
// returns its work, which micro-icount runs twice in the kernel's own child
// process: once to warm up, once counted. The work returns a result (never 0)
// so that it cannot be optimised away, the same both times.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace fenec::scenarios::micro {

using IcountWork = std::function<uint64_t()>;
using IcountPrepare = IcountWork (*)();

struct IcountKernel {
  const char* name;       // a literal: the list puts nothing on the heap the children inherit
  IcountPrepare prepare;  // builds the kernel's inputs (not counted), returns its work (counted)
};

// The MM-2..MM-5 kernels (micro-icount).
std::vector<IcountKernel> mm_icount_kernels();
// The engine's hot paths, "ENG/<path>" (micro-icount-engine).
std::vector<IcountKernel> engine_icount_kernels();

// The driver both binaries run: flags, then each kernel in a child of its own.
int icount_main(int argc, char** argv, std::vector<IcountKernel> (*make_kernels)());

}  // namespace fenec::scenarios::micro
