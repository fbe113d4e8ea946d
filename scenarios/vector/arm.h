// vector-bench's data and the interface every arm implements.
//
// Kept free of the engine's headers on purpose: hnswlib_arm.cc includes it
// and is compiled with -O3 -march=native (so hnswlib picks its AVX-512
// kernels, as its own users build it), and the fewer inline functions that
// TU shares with the rest of the scenario, the fewer are compiled twice with
// different flags.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace fenec::scenarios::vector {

// The vectors indexed (row i is owner i), the queries, and each query's exact
// k nearest rows (ids, nearest first), by squared L2.
struct Dataset {
  uint32_t dim = 0;
  std::vector<float> base;     // size() * dim
  std::vector<float> queries;  // query_count() * dim
  std::vector<std::vector<uint32_t>> truth;

  size_t size() const { return dim ? base.size() / dim : 0; }
  size_t query_count() const { return dim ? queries.size() / dim : 0; }
  std::span<const float> row(size_t i) const { return {base.data() + i * dim, dim}; }
  std::span<const float> query(size_t i) const { return {queries.data() + i * dim, dim}; }
};

// What every arm is built with: the same graph parameters and threads.
struct ArmParams {
  uint32_t dim = 0;
  uint32_t m = 16;
  uint32_t ef_construction = 100;
  unsigned threads = 2;  // threads that build (the row arm uses one by design)
  uint64_t seed = 1;     // the levels' RNG
};

class AnnArm {
 public:
  virtual ~AnnArm() = default;
  // Indexes every row of `d`, owner i for row i. "" or why not.
  virtual std::string build(const Dataset& d) = 0;
  // The k nearest owners to `q` with a beam of `ef`, nearest first. Called
  // from one thread at a time.
  virtual std::vector<uint64_t> search(std::span<const float> q, size_t k, size_t ef) = 0;
};

// hnswlib's HierarchicalNSW<float> on L2Space (hnswlib_arm.cc): addPoint from
// `threads` threads, each taking the next row (hnswlib's own ParallelFor).
std::unique_ptr<AnnArm> make_hnswlib_arm(const ArmParams& p);
// The flags hnswlib_arm.cc was compiled with and the SIMD kernel hnswlib
// chose from them (for the run's metadata).
std::string hnswlib_build_flags();
std::string hnswlib_simd();

}  // namespace fenec::scenarios::vector
