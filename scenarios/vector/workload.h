// vector-bench's workload: the seeded clustered data, exact neighbours by
// brute force, recall as hits, the fenec arms (VectorIndex, row and batch),
// one repetition of an arm (build timed, then searches at each ef), and the
// binary-quantization part (VS-2).
//
// THE DATA. `clusters` centers, each component drawn from N(0, 1) (seeded by
// seed), and each vector a center chosen uniformly plus N(0, spread^2) noise
// in every dimension (seed + 1); queries are fresh vectors drawn the same way
// (seed + 2), so they fall in the clusters but are none of the rows. The
// default is VS-ref's reference workload: 128 dimensions, 100 clusters,
// and spread 1.75. Why 1.75: two rows of one cluster lie about
// spread * sqrt(2 * dim) = 28 apart and rows of two clusters about
// sqrt(2 * dim * (1 + spread^2)) = 32, so a row's nearest neighbours are
// mostly, not only, in its own cluster, and a graph search has to cross
// clusters. At spread 0.5 (the first default) the clusters were far apart
// (8 against 18): on 20 000 rows recall@10 was 0.9935 already at ef 32 and
// no arm's recall differed from another's. At 1.75 on 20 000 rows: 0.93
// at ef 32, 0.96 at 64, 0.98 at 128 (both fenec arms, seed 1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/src/index/vector/vector_index.h"
#include "scenarios/vector/arm.h"

namespace fenec::scenarios::vector {

struct DataSpec {
  size_t n = 20000;
  size_t queries = 1000;
  uint32_t dim = 128;
  size_t clusters = 100;
  float spread = 1.75f;
  uint64_t seed = 1;
};

// The rows and queries; truth left empty (exact_top_k fills it).
Dataset make_clustered(const DataSpec& spec);
// Each query's k nearest rows by squared L2 (ties by row id), on `threads` threads.
std::vector<std::vector<uint32_t>> exact_top_k(const Dataset& d, size_t k, unsigned threads);
// How many of found's first k owners are in truth's first k (recall@k's hits).
size_t hits_at_k(const std::vector<uint64_t>& found, const std::vector<uint32_t>& truth, size_t k);

// "fenec-batch", "fenec-row", "fenec-bq", "fenec-bq-norescore", "hnswlib".
inline constexpr const char* kBatch = "fenec-batch";
inline constexpr const char* kRow = "fenec-row";
inline constexpr const char* kHnswlib = "hnswlib";

// A VectorIndex arm: the engine's HNSW index called directly (no database).
class FenecArm final : public AnnArm {
 public:
  FenecArm(const ArmParams& p, index::vec::InsertArm insert,
           index::vec::Quantization q = index::vec::Quantization::kNone, bool rescore = true);
  std::string build(const Dataset& d) override;
  std::vector<uint64_t> search(std::span<const float> q, size_t k, size_t ef) override;
  // The index's options, to change before build() or load().
  index::vec::Options& options() { return o_; }
  // Null until build() (or load()) succeeds.
  const index::vec::VectorIndex* index() const { return index_.get(); }
  // Replaces the contents by `graph` (VectorIndex::Serialize), vectors from d.
  std::string load(const std::vector<uint8_t>& graph, const Dataset& d);

 private:
  index::vec::Options o_;
  std::unique_ptr<index::vec::VectorIndex> index_;
};

// One ef's searches: the whole query set on one thread, in passes.
struct EfPoint {
  size_t ef = 0;
  uint64_t hits = 0, queries = 0;  // the first pass: recall@k = hits / (queries * k)
  uint64_t timed_queries = 0;      // every pass's queries, over `seconds`
  double seconds = 0;
  double recall(size_t k) const { return queries ? double(hits) / double(queries * k) : 0; }
  double queries_per_s() const { return seconds > 0 ? double(timed_queries) / seconds : 0; }
};

// One repetition of one arm.
struct ArmRun {
  std::string error;  // non-empty: the arm failed, nothing else is valid
  double build_s = 0;
  std::vector<EfPoint> efs;
  bool has_stats = false;  // a fenec arm: the index's counters and bytes
  index::vec::Stats stats;
  index::vec::MemoryBreakdown memory;
  const EfPoint* at(size_t ef) const;
};

// Builds `arm` over d (timed), then searches the whole query set at each ef,
// counting the first pass's hits against d.truth. Queries/s are timed over
// whole passes: at `timed_ef`, passes until `min_seconds` have gone by (a
// pass of 1 000 queries takes tens of milliseconds, too short to time on a
// shared machine); at every other ef, one pass.
ArmRun run_arm(AnnArm& arm, const Dataset& d, const std::vector<size_t>& efs, size_t k, size_t timed_ef = 0,
               double min_seconds = 0);

// VS-2: the batch arm with binary codes, searched with and without rescoring
// (the second index loads the first's graph: same graph, only the search
// differs), beside the float index's bytes and recall at the same ef.
struct BqRun {
  std::string error;
  double build_s = 0;
  index::vec::MemoryBreakdown memory;  // the binary index's (float vectors kept for rescoring)
  EfPoint rescored, plain;             // at ef
  uint64_t rescored_distances = 0;     // full distances of rescoring, over the query set
  uint32_t oversample = 0;             // the index's: the best oversample * k are rescored
  // The 4-bit code (Quantization::kScalar4), rescored, at each oversample
  // (the first built, the others the same graph loaded).
  struct Sq4Point {
    uint32_t oversample = 0;
    EfPoint rescored;
  };
  std::string sq4_error;
  double sq4_build_s = 0;
  index::vec::MemoryBreakdown sq4_memory;
  std::vector<Sq4Point> sq4;
};
// The oversamples the 4-bit code is searched at (the first: its headline,
// VS-2's target of at most 4x).
inline constexpr uint32_t kSq4Oversamples[] = {4, 2, 8};
BqRun run_bq(const Dataset& d, const ArmParams& p, size_t ef, size_t k, double min_seconds = 0);

}  // namespace fenec::scenarios::vector
