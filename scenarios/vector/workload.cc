// vector-bench's workload: see workload.h.
#include "scenarios/vector/workload.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

#include "engine/src/index/vector/distance.h"

namespace fenec::scenarios::vector {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

void fill(std::vector<float>* out, size_t n, uint32_t dim, const std::vector<float>& centers, size_t clusters,
          float spread, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> noise(0.0f, spread);
  std::uniform_int_distribution<size_t> pick(0, clusters - 1);
  out->resize(n * dim);
  for (size_t i = 0; i < n; ++i) {
    const float* c = &centers[pick(rng) * dim];
    for (uint32_t j = 0; j < dim; ++j) (*out)[i * dim + j] = c[j] + noise(rng);
  }
}

}  // namespace

Dataset make_clustered(const DataSpec& spec) {
  Dataset d;
  d.dim = spec.dim;
  const size_t clusters = std::max<size_t>(spec.clusters, 1);
  std::mt19937_64 crng(spec.seed);
  std::normal_distribution<float> unit(0.0f, 1.0f);
  std::vector<float> centers(clusters * spec.dim);
  for (float& c : centers) c = unit(crng);
  fill(&d.base, spec.n, spec.dim, centers, clusters, spec.spread, spec.seed + 1);
  fill(&d.queries, spec.queries, spec.dim, centers, clusters, spec.spread, spec.seed + 2);
  return d;
}

std::vector<std::vector<uint32_t>> exact_top_k(const Dataset& d, size_t k, unsigned threads) {
  const auto& kern = index::vec::BestKernels();
  const size_t nq = d.query_count(), n = d.size();
  k = std::min(k, n);
  std::vector<std::vector<uint32_t>> out(nq);
  auto work = [&](size_t from, size_t to) {
    std::vector<std::pair<float, uint32_t>> all(n);
    for (size_t q = from; q < to; ++q) {
      for (size_t i = 0; i < n; ++i)
        all[i] = {kern.l2(d.query(q).data(), d.row(i).data(), d.dim), static_cast<uint32_t>(i)};
      std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k), all.end());
      for (size_t i = 0; i < k; ++i) out[q].push_back(all[i].second);
    }
  };
  threads = std::max(1u, threads);
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, nq * t / threads, nq * (t + 1) / threads);
  work(0, nq / threads);
  for (auto& t : pool) t.join();
  return out;
}

size_t hits_at_k(const std::vector<uint64_t>& found, const std::vector<uint32_t>& truth, size_t k) {
  const size_t nt = std::min(k, truth.size());
  size_t hits = 0;
  for (size_t i = 0; i < found.size() && i < k; ++i)
    hits += std::find(truth.begin(), truth.begin() + static_cast<std::ptrdiff_t>(nt), found[i]) !=
            truth.begin() + static_cast<std::ptrdiff_t>(nt);
  return hits;
}

FenecArm::FenecArm(const ArmParams& p, index::vec::InsertArm insert, index::vec::Quantization q, bool rescore) {
  o_.dim = p.dim;
  o_.m = p.m;
  o_.ef_construction = p.ef_construction;
  o_.insert_arm = insert;
  o_.threads = p.threads;
  o_.seed = p.seed;
  o_.quantization = q;
  o_.rescore = rescore;
}

std::string FenecArm::build(const Dataset& d) {
  auto created = index::vec::VectorIndex::Create(o_);
  if (!created.ok()) return "VectorIndex::Create: " + created.status().ToString();
  index_ = std::move(created).value();
  std::vector<index::vec::InsertItem> items(d.size());
  for (size_t i = 0; i < d.size(); ++i) items[i] = {i, d.row(i)};
  const Status s = index_->InsertBatch(items);
  if (!s.ok()) {
    index_.reset();
    return "VectorIndex::InsertBatch: " + s.ToString();
  }
  return "";
}

std::string FenecArm::load(const std::vector<uint8_t>& graph, const Dataset& d) {
  auto created = index::vec::VectorIndex::Create(o_);
  if (!created.ok()) return "VectorIndex::Create: " + created.status().ToString();
  index_ = std::move(created).value();
  const Status s = index_->Load(graph, [&](uint32_t, uint64_t owner, std::span<float> out) {
    if (owner >= d.size()) return Status::InvalidArgument("owner out of range");
    std::copy_n(d.row(owner).data(), d.dim, out.data());
    return Status::OK();
  });
  if (!s.ok()) {
    index_.reset();
    return "VectorIndex::Load: " + s.ToString();
  }
  return "";
}

std::vector<uint64_t> FenecArm::search(std::span<const float> q, size_t k, size_t ef) {
  std::vector<uint64_t> out;
  if (!index_) return out;
  auto hits = index_->Search(q, k, ef);
  if (!hits.ok()) return out;
  out.reserve(hits->size());
  for (const auto& h : *hits) out.push_back(h.owner);
  return out;
}

const EfPoint* ArmRun::at(size_t ef) const {
  for (const auto& p : efs)
    if (p.ef == ef) return &p;
  return nullptr;
}

namespace {

EfPoint search_passes(AnnArm& arm, const Dataset& d, size_t ef, size_t k, double min_seconds) {
  EfPoint p;
  p.ef = ef;
  p.queries = d.query_count();
  const auto t0 = Clock::now();
  for (size_t q = 0; q < d.query_count(); ++q) p.hits += hits_at_k(arm.search(d.query(q), k, ef), d.truth[q], k);
  p.timed_queries = p.queries;
  while ((p.seconds = seconds_since(t0)) < min_seconds && p.queries > 0) {
    for (size_t q = 0; q < d.query_count(); ++q) (void)arm.search(d.query(q), k, ef);
    p.timed_queries += p.queries;
  }
  return p;
}

}  // namespace

ArmRun run_arm(AnnArm& arm, const Dataset& d, const std::vector<size_t>& efs, size_t k, size_t timed_ef,
               double min_seconds) {
  ArmRun r;
  const auto t0 = Clock::now();
  r.error = arm.build(d);
  r.build_s = seconds_since(t0);
  if (!r.error.empty()) return r;
  for (size_t ef : efs) r.efs.push_back(search_passes(arm, d, ef, k, ef == timed_ef ? min_seconds : 0));
  if (auto* f = dynamic_cast<FenecArm*>(&arm); f && f->index()) {
    r.has_stats = true;
    r.stats = f->index()->stats();
    r.memory = f->index()->MemoryBytes();
  }
  return r;
}

BqRun run_bq(const Dataset& d, const ArmParams& p, size_t ef, size_t k, double min_seconds) {
  using index::vec::InsertArm;
  using index::vec::Quantization;
  BqRun r;
  FenecArm rescored(p, InsertArm::kBatch, Quantization::kBinary, true);
  const auto t0 = Clock::now();
  r.error = rescored.build(d);
  r.build_s = seconds_since(t0);
  if (!r.error.empty()) return r;
  r.memory = rescored.index()->MemoryBytes();
  r.oversample = index::vec::Options{}.oversample;  // the library's default, which the arm keeps
  const uint64_t before = rescored.index()->stats().search_rescored;
  r.rescored = search_passes(rescored, d, ef, k, min_seconds);
  // Over the first pass only (the query set once).
  r.rescored_distances = (rescored.index()->stats().search_rescored - before) * r.rescored.queries /
                         std::max<uint64_t>(r.rescored.timed_queries, 1);
  std::vector<uint8_t> graph;
  rescored.index()->Serialize(&graph);
  FenecArm plain(p, InsertArm::kBatch, Quantization::kBinary, false);
  r.error = plain.load(graph, d);
  if (!r.error.empty()) return r;
  r.plain = search_passes(plain, d, ef, k, min_seconds);

  FenecArm sq4(p, InsertArm::kBatch, Quantization::kScalar4, true);
  sq4.options().oversample = kSq4Oversamples[0];
  const auto t1 = Clock::now();
  r.sq4_error = sq4.build(d);
  r.sq4_build_s = seconds_since(t1);
  if (!r.sq4_error.empty()) return r;
  r.sq4_memory = sq4.index()->MemoryBytes();
  r.sq4.push_back({kSq4Oversamples[0], search_passes(sq4, d, ef, k, min_seconds)});
  std::vector<uint8_t> sq4_graph;
  sq4.index()->Serialize(&sq4_graph);
  for (size_t i = 1; i < std::size(kSq4Oversamples); ++i) {
    FenecArm other(p, InsertArm::kBatch, Quantization::kScalar4, true);
    other.options().oversample = kSq4Oversamples[i];
    if (std::string e = other.load(sq4_graph, d); !e.empty()) {
      r.sq4_error = e;
      return r;
    }
    r.sq4.push_back({kSq4Oversamples[i], search_passes(other, d, ef, k, 0)});
  }
  return r;
}

}  // namespace fenec::scenarios::vector
