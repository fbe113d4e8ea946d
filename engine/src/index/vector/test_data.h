// Test data for the vector index's tests (header-only, tests only):
// seeded clustered Gaussian vectors, exact neighbours by brute force,
// recall as hits out of a fixed query set, and the graph's invariants.
//
// The data: `clusters` centers drawn from N(0, 1) in each dimension, and
// each vector a center (chosen uniformly) plus N(0, spread^2) noise in each
// dimension. With spread 0.5 at 64 dims a cluster's radius (spread *
// sqrt(dim) = 4) is well under the distance between two centers (about
// sqrt(2 * dim) = 11.3): clusters are apart, and inside each the vectors
// are an isotropic Gaussian, as hard for a graph as random data of that
// many dimensions. Queries are fresh vectors drawn the same way.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "engine/src/index/vector/distance.h"
#include "engine/src/index/vector/vector_index.h"

namespace fenec::index::vec::testing {

struct Data {
  uint32_t dim = 0;
  std::vector<float> v;  // n * dim
  size_t size() const { return v.size() / dim; }
  std::span<const float> row(size_t i) const { return {v.data() + i * dim, dim}; }
};

// n vectors around `clusters` centers drawn from center_seed; the noise and
// the cluster choice come from seed.
inline Data Clustered(size_t n, uint32_t dim, size_t clusters, float spread, uint64_t center_seed,
                        uint64_t seed) {
  std::mt19937_64 crng(center_seed);
  std::normal_distribution<float> unit(0.0f, 1.0f);
  std::vector<float> centers(clusters * dim);
  for (float& c : centers) c = unit(crng);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> noise(0.0f, spread);
  std::uniform_int_distribution<size_t> pick(0, clusters - 1);
  Data d{dim, std::vector<float>(n * dim)};
  for (size_t i = 0; i < n; ++i) {
    const float* c = &centers[pick(rng) * dim];
    for (uint32_t j = 0; j < dim; ++j) d.v[i * dim + j] = c[j] + noise(rng);
  }
  return d;
}

// The k nearest rows of `data` to each query row, by squared L2, nearest first.
inline std::vector<std::vector<uint32_t>> Exact(const Data& data, const Data& queries, size_t k) {
  const Kernels& kern = BestKernels();
  std::vector<std::vector<uint32_t>> out(queries.size());
  std::vector<std::pair<float, uint32_t>> all(data.size());
  for (size_t q = 0; q < queries.size(); ++q) {
    for (size_t i = 0; i < data.size(); ++i)
      all[i] = {kern.l2(queries.row(q).data(), data.row(i).data(), data.dim), static_cast<uint32_t>(i)};
    std::partial_sort(all.begin(), all.begin() + k, all.end());
    for (size_t i = 0; i < k; ++i) out[q].push_back(all[i].second);
  }
  return out;
}

// The same for any distance (cosine, inner product): dist(query, row).
template <class Dist>
std::vector<std::vector<uint32_t>> ExactBy(const Data& data, const Data& queries, size_t k, Dist&& dist) {
  std::vector<std::vector<uint32_t>> out(queries.size());
  std::vector<std::pair<float, uint32_t>> all(data.size());
  for (size_t q = 0; q < queries.size(); ++q) {
    for (size_t i = 0; i < data.size(); ++i) all[i] = {dist(queries.row(q), data.row(i)), static_cast<uint32_t>(i)};
    std::partial_sort(all.begin(), all.begin() + k, all.end());
    for (size_t i = 0; i < k; ++i) out[q].push_back(all[i].second);
  }
  return out;
}

// Items owner i -> row i (owners are row numbers plus `first_owner`).
inline std::vector<InsertItem> Items(const Data& data, uint64_t first_owner = 0) {
  std::vector<InsertItem> items(data.size());
  for (size_t i = 0; i < data.size(); ++i) items[i] = InsertItem{first_owner + i, data.row(i)};
  return items;
}

// Recall as hits: how many of each query's true k nearest (owners = row
// numbers) the index returns in its k answers, summed over the queries.
inline uint64_t Hits(const VectorIndex& index, const Data& queries, const std::vector<std::vector<uint32_t>>& truth,
                     size_t k, size_t ef, const Filter& filter = {}) {
  uint64_t hits = 0;
  for (size_t q = 0; q < queries.size(); ++q) {
    Result<std::vector<Hit>> r = index.Search(queries.row(q), k, ef, filter);
    if (!r.ok()) return 0;
    for (const Hit& h : *r)
      if (std::find(truth[q].begin(), truth[q].end(), h.owner) != truth[q].end()) ++hits;
  }
  return hits;
}

// The graph's invariants (vector_index.h, "INVARIANTS") for every node not
// dead: list lengths within 2m (level 0) and m (above), no self loop, no
// duplicate, no id out of range or below the list's layer, no dead node.
// Returns the first violation, or "" when there is none.
inline std::string CheckGraph(const VectorIndex& index) {
  const uint32_t n = index.node_count();
  const uint32_t m = index.options().m;
  for (uint32_t i = 0; i < n; ++i) {
    for (int layer = 0; layer <= index.NodeLevel(i); ++layer) {
      std::vector<uint32_t> l = index.Links(i, layer);
      const size_t cap = layer == 0 ? 2 * m : m;
      const std::string at = " at node " + std::to_string(i) + " layer " + std::to_string(layer);
      if (l.size() > cap) return "list of " + std::to_string(l.size()) + " over " + std::to_string(cap) + at;
      std::vector<uint32_t> sorted = l;
      std::sort(sorted.begin(), sorted.end());
      if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return "duplicate" + at;
      for (uint32_t id : l) {
        if (id == i) return "self loop" + at;
        if (id >= n) return "link to " + std::to_string(id) + ", past the last node" + at;
        if (index.NodeLevel(id) < layer) return "link to " + std::to_string(id) + " below the layer" + at;
      }
    }
  }
  return "";
}

}  // namespace fenec::index::vec::testing
