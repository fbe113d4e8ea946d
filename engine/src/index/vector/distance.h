// Distance kernels of the vector index: squared L2, inner product and
// Hamming, each at four instruction-set levels, chosen at run time.
//
// Why run-time dispatch: the engine is built once (-O2, no -march) and must
// run on any x86-64, yet use AVX-512 where the machine has it. Each level is
// compiled with __attribute__((target(...))), so only its own function uses
// those instructions, and BestKernels() picks the highest level
// __builtin_cpu_supports() reports, once (a function-local static). hnswlib
// picks its kernels from compile flags instead (USE_AVX512 ...): a binary
// built with them faults on an older CPU, one built without them never uses
// the wide units.
//
// The levels, and what each does per call:
//   kScalar  one float at a time, in index order (the reference the tests
//            compare against; no auto-vectorization without -ffast-math).
//   kSse     4 lanes, four accumulators (16 floats a step), scalar tail.
//   kAvx2    AVX2 + FMA: 8 lanes, four accumulators (32 a step), scalar tail.
//   kAvx512  AVX-512F: 16 lanes, two accumulators (32 a step), the tail as
//            one masked load (any dim, no scalar loop).
// Summation order differs per level, so results differ in the last bits
// (the tests bound it: 1e-4 relative). Ranking never mixes levels: one index
// uses one level for everything it compares.
//
// Hamming distance (binary quantization) is popcount(a ^ b) over 64-bit
// words: the popcnt instruction at kSse and up (target "popcnt"), the
// compiler's bit trick at kScalar.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace fenec::index::vec {

enum class SimdLevel : uint8_t { kScalar, kSse, kAvx2, kAvx512 };

std::string_view SimdLevelName(SimdLevel level);  // "scalar" | "sse" | "avx2" | "avx512"

using FloatKernel = float (*)(const float* a, const float* b, size_t dim);
using HammingKernel = uint32_t (*)(const uint64_t* a, const uint64_t* b, size_t words);

struct Kernels {
  SimdLevel level = SimdLevel::kScalar;
  FloatKernel l2 = nullptr;           // sum (a_i - b_i)^2
  FloatKernel dot = nullptr;          // sum a_i * b_i
  FloatKernel one_minus_dot = nullptr;  // 1 - dot: the cosine / inner-product distance
  HammingKernel hamming = nullptr;    // popcount(a ^ b) over `words` 64-bit words
};

// Whether this CPU runs `level` (kScalar and kSse always: SSE2 is x86-64's baseline).
bool Supported(SimdLevel level);
// The kernels of one level; `level` must be Supported (the tests run each).
const Kernels& KernelsFor(SimdLevel level);
// The highest supported level's kernels, chosen on first call.
const Kernels& BestKernels();

}  // namespace fenec::index::vec
