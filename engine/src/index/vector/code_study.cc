// code_study: how well does a one-bit-a-dimension code order a query's true
// top-10, with no graph in the way? Every row is ranked by its code, and
// for R in a few pool sizes the tool prints the fraction of the true top-10
// that falls in the best R (recall@10 after rescoring R). It compares the
// ways of taking and reading the bits that VS-2 weighed (engine/doc/vectors.md
// has the figures and the choice):
//   hamming/mean     bits around each dimension's mean, Hamming distance
//   hamming/median   bits around each dimension's median
//   estimate/mean    the index's estimate (quantize.h): each side's mean and
//                    variance, a full-precision query
//   estimate/median  the same around the median
//   sign/mean        -sum_j (q_j - t_j) * (+-1): a full-precision query
//                    against signs, no levels
//   estimate/centers (with CENTERS > 0) bits of each row's residual from
//                    its nearest of CENTERS k-means centers (Lloyd, 10
//                    rounds over the sample), read as estimate/mean reads
//                    its bits: ||q - c||^2 - 2 <q - c, mu_side> + sum of
//                    mu_side^2 + var_side. In an index that is a table per
//                    query (the <q, mu_side> part, dim/8 lookups), a
//                    center id and one float a row, and ||q - c||^2 per
//                    center: what codes around each cluster would cost.
// Thresholds and levels come from the first 1024 rows, as in the index.
// With `rotate` 1 a seeded random orthogonal matrix turns rows and queries
// first (Gram-Schmidt on a Gaussian matrix: O(dim^3) once, O(n dim^2) to
// apply, so keep n to a few thousand at 768-d).
//
// Usage: vector_code_study N DIM CLUSTERS SPREAD QUERIES SEED ROTATE [CENTERS]
// (built on demand: ninja -C build engine/src/index/vector/vector_code_study)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "engine/src/index/vector/distance.h"
#include "engine/src/index/vector/test_data.h"

namespace vec = fenec::index::vec;

namespace {

void Rotate(vec::testing::Data* a, vec::testing::Data* b, uint64_t seed) {
  const uint32_t dim = a->dim;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> unit(0.0, 1.0);
  std::vector<double> r(size_t{dim} * dim);
  for (double& x : r) x = unit(rng);
  for (uint32_t i = 0; i < dim; ++i) {  // rows made orthonormal in turn
    double* ri = &r[size_t{i} * dim];
    for (uint32_t k = 0; k < i; ++k) {
      const double* rk = &r[size_t{k} * dim];
      double dot = 0;
      for (uint32_t j = 0; j < dim; ++j) dot += ri[j] * rk[j];
      for (uint32_t j = 0; j < dim; ++j) ri[j] -= dot * rk[j];
    }
    double norm = 0;
    for (uint32_t j = 0; j < dim; ++j) norm += ri[j] * ri[j];
    norm = std::sqrt(norm);
    for (uint32_t j = 0; j < dim; ++j) ri[j] /= norm;
  }
  const std::vector<float> rf(r.begin(), r.end());
  std::vector<float> t(dim);
  for (vec::testing::Data* d : {a, b}) {
    for (size_t i = 0; i < d->size(); ++i) {
      float* v = &d->v[i * dim];
      for (uint32_t k = 0; k < dim; ++k) {
        float s = 0;
        for (uint32_t j = 0; j < dim; ++j) s += rf[size_t{k} * dim + j] * v[j];
        t[k] = s;
      }
      std::copy(t.begin(), t.end(), v);
    }
  }
}

// estimate/centers (see the top): prints its line like the other ways.
void CentersWay(const vec::testing::Data& x, const vec::testing::Data& q,
                const std::vector<std::vector<uint32_t>>& truth, size_t sample, size_t c,
                const std::vector<size_t>& pools, size_t k) {
  const uint32_t dim = x.dim;
  const size_t n = x.size(), nq = q.size();
  // k-means over the sample: the first c sample rows to start, 10 rounds.
  std::vector<float> cent(x.v.begin(), x.v.begin() + static_cast<ptrdiff_t>(c * dim));
  const vec::Kernels& kern = vec::BestKernels();
  auto nearest = [&](const float* v) {
    size_t best = 0;
    float bd = kern.l2(v, cent.data(), dim);
    for (size_t a = 1; a < c; ++a)
      if (float d = kern.l2(v, &cent[a * dim], dim); d < bd) bd = d, best = a;
    return best;
  };
  for (int round = 0; round < 10; ++round) {
    std::vector<double> sum(c * dim, 0);
    std::vector<size_t> cnt(c, 0);
    for (size_t i = 0; i < sample; ++i) {
      const size_t a = nearest(&x.v[i * dim]);
      ++cnt[a];
      for (uint32_t j = 0; j < dim; ++j) sum[a * dim + j] += x.v[i * dim + j];
    }
    for (size_t a = 0; a < c; ++a)
      if (cnt[a] > 0)
        for (uint32_t j = 0; j < dim; ++j) cent[a * dim + j] = static_cast<float>(sum[a * dim + j] / double(cnt[a]));
  }
  std::vector<uint32_t> of(n);
  for (size_t i = 0; i < n; ++i) of[i] = static_cast<uint32_t>(nearest(&x.v[i * dim]));
  // Each side's mean and variance of the residuals over the sample, a dimension.
  std::vector<double> cnt(2 * dim, 0), mu(2 * dim, 0), var(2 * dim, 0);
  for (size_t i = 0; i < sample; ++i)
    for (uint32_t j = 0; j < dim; ++j) {
      const double e = x.v[i * dim + j] - cent[size_t{of[i]} * dim + j];
      const size_t at = 2 * j + (e > 0 ? 1 : 0);
      cnt[at] += 1, mu[at] += e, var[at] += e * e;
    }
  for (size_t a = 0; a < 2 * dim; ++a) {
    mu[a] = cnt[a] > 0 ? mu[a] / cnt[a] : 0.0;
    var[a] = cnt[a] > 0 ? std::max(0.0, var[a] / cnt[a] - mu[a] * mu[a]) : 0.0;
  }
  std::vector<uint64_t> found(pools.size(), 0);
  std::vector<std::pair<float, uint32_t>> score(n);
  std::vector<size_t> rank(n);
  for (size_t qi = 0; qi < nq; ++qi) {
    const float* qv = q.v.data() + qi * dim;
    for (size_t i = 0; i < n; ++i) {
      const float* ci = &cent[size_t{of[i]} * dim];
      const float* v = &x.v[i * dim];
      double s = 0;
      for (uint32_t j = 0; j < dim; ++j) {
        const size_t at = 2 * j + (v[j] - ci[j] > 0 ? 1 : 0);
        const double d = qv[j] - ci[j] - mu[at];
        s += d * d + var[at];
      }
      score[i] = {static_cast<float>(s), static_cast<uint32_t>(i)};
    }
    std::sort(score.begin(), score.end());
    for (size_t i = 0; i < n; ++i) rank[score[i].second] = i;
    for (uint32_t id : truth[qi])
      for (size_t p = 0; p < pools.size(); ++p) found[p] += rank[id] < pools[p];
  }
  std::printf("%-16s", "estimate/centers");
  for (size_t p = 0; p < pools.size(); ++p) std::printf(" R=%zu:%.3f", pools[p], double(found[p]) / double(nq * k));
  std::printf("  (%zu centers)\n", c);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 8 && argc != 9) {
    std::fprintf(stderr, "usage: %s N DIM CLUSTERS SPREAD QUERIES SEED ROTATE [CENTERS]\n", argv[0]);
    return 2;
  }
  const size_t n = std::strtoull(argv[1], nullptr, 10), clusters = std::strtoull(argv[3], nullptr, 10);
  const uint32_t dim = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10));
  const float spread = std::strtof(argv[4], nullptr);
  const size_t nq = std::strtoull(argv[5], nullptr, 10);
  const uint64_t seed = std::strtoull(argv[6], nullptr, 10);
  const bool rotate = std::atoi(argv[7]) != 0;
  const size_t centers = argc == 9 ? std::strtoull(argv[8], nullptr, 10) : 0;
  // The tests' data: centers from seed, rows from seed + 1, queries seed + 2.
  vec::testing::Data x = vec::testing::Clustered(n, dim, clusters, spread, seed, seed + 1);
  vec::testing::Data q = vec::testing::Clustered(nq, dim, clusters, spread, seed, seed + 2);
  if (rotate) Rotate(&x, &q, seed + 99);
  constexpr size_t kK = 10;
  const std::vector<std::vector<uint32_t>> truth = vec::testing::Exact(x, q, kK);

  const size_t sample = std::min<size_t>(1024, n);
  std::vector<float> mean(dim), median(dim);
  for (uint32_t j = 0; j < dim; ++j) {
    std::vector<float> col(sample);
    double sum = 0;
    for (size_t i = 0; i < sample; ++i) sum += col[i] = x.v[i * dim + j];
    mean[j] = static_cast<float>(sum / double(sample));
    std::nth_element(col.begin(), col.begin() + sample / 2, col.end());
    median[j] = col[sample / 2];
  }
  const std::vector<size_t> pools = {10, 20, 40, 64, 100, 160, 200, 400};
  const char* names[] = {"hamming/mean", "hamming/median", "estimate/mean", "estimate/median", "sign/mean"};
  for (int way = 0; way < 5; ++way) {
    const std::vector<float>& t = (way == 1 || way == 3) ? median : mean;
    // Each side's mean and variance over the sample (index 0 below, 1 above).
    std::vector<double> cnt(2 * dim, 0), mu(2 * dim, 0), var(2 * dim, 0);
    for (size_t i = 0; i < sample; ++i)
      for (uint32_t j = 0; j < dim; ++j) {
        const float v = x.v[i * dim + j];
        const size_t at = 2 * j + (v > t[j] ? 1 : 0);
        cnt[at] += 1, mu[at] += v, var[at] += double(v) * v;
      }
    for (size_t a = 0; a < 2 * dim; ++a) {
      mu[a] = cnt[a] > 0 ? mu[a] / cnt[a] : t[a / 2];
      var[a] = cnt[a] > 0 ? std::max(0.0, var[a] / cnt[a] - mu[a] * mu[a]) : 0.0;
    }
    std::vector<uint8_t> bits(n * dim);
    for (size_t i = 0; i < n * dim; ++i) bits[i] = x.v[i] > t[i % dim];
    std::vector<uint64_t> found(pools.size(), 0);
    std::vector<std::pair<float, uint32_t>> score(n);
    std::vector<size_t> rank(n);
    std::vector<float> w(dim);
    std::vector<uint8_t> qbits(dim);
    for (size_t qi = 0; qi < nq; ++qi) {
      const float* qv = q.v.data() + qi * dim;
      double base = 0;
      for (uint32_t j = 0; j < dim; ++j) {
        const double below = (qv[j] - mu[2 * j]) * (qv[j] - mu[2 * j]) + var[2 * j];
        const double above = (qv[j] - mu[2 * j + 1]) * (qv[j] - mu[2 * j + 1]) + var[2 * j + 1];
        base += below;
        w[j] = static_cast<float>(above - below);
        qbits[j] = qv[j] > t[j];
      }
      for (size_t i = 0; i < n; ++i) {
        const uint8_t* b = &bits[i * dim];
        float s = 0;
        if (way <= 1) {
          for (uint32_t j = 0; j < dim; ++j) s += float(b[j] != qbits[j]);
        } else if (way <= 3) {
          s = static_cast<float>(base);
          for (uint32_t j = 0; j < dim; ++j) s += b[j] ? w[j] : 0.0f;
        } else {
          for (uint32_t j = 0; j < dim; ++j) s -= (qv[j] - t[j]) * (b[j] ? 1.0f : -1.0f);
        }
        score[i] = {s, static_cast<uint32_t>(i)};
      }
      std::sort(score.begin(), score.end());  // ties by row id, as the index's heaps
      for (size_t i = 0; i < n; ++i) rank[score[i].second] = i;
      for (uint32_t id : truth[qi])
        for (size_t p = 0; p < pools.size(); ++p) found[p] += rank[id] < pools[p];
    }
    std::printf("%-16s", names[way]);
    for (size_t p = 0; p < pools.size(); ++p) std::printf(" R=%zu:%.3f", pools[p], double(found[p]) / double(nq * kK));
    std::printf("\n");
  }
  if (centers > 0) CentersWay(x, q, truth, sample, std::min(centers, sample), pools, kK);
  return 0;
}
