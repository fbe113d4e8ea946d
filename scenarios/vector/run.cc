#include "scenarios/vector/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>

#include "findings/catalogue.h"
#include "iobench/kit/interrupt.h"
#include "engine/src/index/vector/distance.h"
#include "iobench/kit/console.h"
#include "scenarios/vector/fenecdb_arm.h"
#include "scenarios/vector/memory_report.h"
#include "scenarios/vector/mm2.h"
#include "scenarios/vector/report.h"

namespace fenec::scenarios::vector {

int run(kit::Harness& h, Options& o) {
  DataSpec& spec = o.spec;
  ArmParams& params = o.params;
  const size_t ef = o.ef;
  const double search_seconds = o.search_seconds, mm2_seconds = o.mm2_seconds;
  const bool skip_hnswlib = o.skip_hnswlib, skip_row = o.skip_row, skip_db = o.skip_db, durable = o.durable;
  bool skip_bq = o.skip_bq;
  const std::vector<std::string>& parts = o.parts;
  auto wants = [&](const char* part) { return std::find(parts.begin(), parts.end(), part) != parts.end(); };
  if (!wants("bq")) skip_bq = true;
  spec.seed = h.seed();
  params.dim = spec.dim;
  params.seed = h.seed();
  Summary s;
  s.spec = spec;
  s.params = params;
  s.ef = ef;
  s.efs = {16, 32, 64, 128};
  if (std::find(s.efs.begin(), s.efs.end(), ef) == s.efs.end()) {
    s.efs.push_back(ef);
    std::sort(s.efs.begin(), s.efs.end());
  }
  auto& meta = h.results().meta();
  meta.set("data",
           fmt::format("clustered gaussian: {} clusters, centers N(0,1), spread {}", spec.clusters, spec.spread));
  meta.set("vectors", std::to_string(spec.n));
  meta.set("dim", std::to_string(spec.dim));
  meta.set("queries", std::to_string(spec.queries));
  meta.set("hnsw", fmt::format("M={} ef_construction={} ef={} threads={}", params.m, params.ef_construction, ef,
                               params.threads));
  meta.set("search_seconds", fmt::format("{}", search_seconds));
  meta.set("fenec_simd", std::string(index::vec::SimdLevelName(index::vec::BestKernels().level)));
  meta.set("fenec_flags", "-O2 (the project's), kernels chosen at run time");
  meta.set("hnswlib_flags", hnswlib_build_flags());
  meta.set("hnswlib_simd", hnswlib_simd());
  meta.set("arms_through", fmt::format("fenec-batch, fenec-row: VectorIndex called directly (no database, no journal); "
                                       "fenecdb-batch: Database PutBatch x256 + WaitForIndexes + Near, journal on, {}",
                                       durable ? "durable" : "buffered durability"));

  fmt::print("vector-bench: {} x {}-d clustered vectors, {} queries; exact top-{} by brute force ...\n", spec.n,
             spec.dim, spec.queries, s.k);
  Dataset d = make_clustered(spec);
  {
    const auto t0 = std::chrono::steady_clock::now();
    d.truth = exact_top_k(d, s.k, params.threads);
    s.truth_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  if (wants("arms")) {
    s.arms.push_back(kBatch);
    if (!skip_row) s.arms.push_back(kRow);
    if (!skip_hnswlib) s.arms.push_back(kHnswlib);
    if (!skip_db) s.arms.push_back(kFenecDb);
  }
  // MM-2 searches the batch arm's first graph (no second build).
  std::unique_ptr<FenecArm> mm2_graph;
  const int reps = h.reps();
  kit::Sequence& seq = h.sequence("arms");
  {
    kit::Progress progress(fmt::format("vector: {} arms x {} reps", s.arms.size(), reps),
                           s.arms.size() * static_cast<uint64_t>(reps));
    uint64_t done = 0;
    seq.run(s.arms.size(), [&](size_t a, int rep) {
      const std::string& arm = s.arms[a];
      progress.update(done++, fmt::format("{}, run {}", arm, rep + 1));
      std::unique_ptr<AnnArm> impl;
      if (arm == kBatch)
        impl = std::make_unique<FenecArm>(params, index::vec::InsertArm::kBatch);
      else if (arm == kRow)
        impl = std::make_unique<FenecArm>(params, index::vec::InsertArm::kRow);
      else if (arm == kHnswlib)
        impl = make_hnswlib_arm(params);
      else
        impl = make_fenecdb_arm(params, fmt::format("{}/fenecdb-{}", h.data_dir(), rep + 1), durable);
      s.runs[arm].push_back(run_arm(*impl, d, s.efs, s.k, s.ef, search_seconds));
      if (arm == kBatch && rep == 0 && wants("mm2") && s.runs[arm].back().error.empty())
        mm2_graph.reset(static_cast<FenecArm*>(impl.release()));
    }, [&](const kit::Window& w) { return arm_checks(s, h.quick(), w); });
    progress.finish();
  }
  if (kit::stop_requested()) h.results().mark_incomplete("interrupted");
  if (!skip_bq && !kit::stop_requested()) {
    kit::Progress progress("vector: binary quantization", 1);
    s.bq = run_bq(d, params, ef, s.k, search_seconds);
    progress.finish();
  }
  std::optional<Mm2Run> mm2;
  if (wants("mm2") && !kit::stop_requested()) {
    kit::Progress progress(fmt::format("vector: MM-2, 3 visited sets x {} reps", reps), 1);
    std::string err;
    if (!mm2_graph) {
      mm2_graph = std::make_unique<FenecArm>(params, index::vec::InsertArm::kBatch);
      err = mm2_graph->build(d);
    }
    if (err.empty())
      mm2 = run_mm2(*mm2_graph->index(), d, s.k, ef, reps, mm2_seconds);
    else
      (mm2 = Mm2Run{})->error = "graph build failed: " + err;
    progress.finish();
  }
  mm2_graph.reset();
  // VS-3 on its own data (the source's 768-d), after every other part: its
  // builds run in children, each in a memory cgroup of its own.
  std::optional<MemoryRun> mem;
  DataSpec mem_spec = spec;
  mem_spec.n = o.mem_n;
  mem_spec.dim = o.mem_dim;
  mem_spec.queries = std::min<size_t>(spec.queries, 200);
  if (wants("memory") && !kit::stop_requested()) {
    kit::Progress progress(fmt::format("vector: VS-3, {} x {}-d under a memory cgroup", mem_spec.n, mem_spec.dim), 1);
    Dataset md = make_clustered(mem_spec);
    md.truth = exact_top_k(md, s.k, params.threads);
    ArmParams mp = params;
    mp.dim = mem_spec.dim;
    // A row build past 1.5x VS-3's line over the batch build's time has
    // decided the verdict (a lower bound above the line): it stops there.
    mem = run_memory(md, mp, ef, s.k, h.data_dir(), o.mem_fractions, !skip_row, !skip_hnswlib, o.mem_cap_s,
                     1.5 * findings::vs3::kSpeedup.value);
    progress.finish();
    set_memory_meta(h.results(), *mem, mem_spec);
  }
  add_rows(h.results(), s);
  if (mem) add_memory_rows(h.results(), *mem, mem_spec);
  if (mm2) add_mm2_rows(h.results(), *mm2);
  print_summary(s);
  if (mm2) print_mm2(*mm2);
  if (mem) print_memory(*mem, mem_spec);
  if (mem) write_memory_plot(h, *mem, mem_spec);
  if (!s.arms.empty() || s.bq) write_plots(h, s);
  if (mm2) write_mm2_plot(h, *mm2);
  for (auto& v : verdicts(h, s, &seq)) h.results().verdict(std::move(v));
  const std::string mm2_not_run = !wants("mm2") ? "not among --parts" : !mm2 ? "interrupted" : "";
  h.results().verdict(mm2_verdict(mm2 ? &*mm2 : nullptr, mm2_not_run, h.plot_path("mm2-visited") + ".png"));
  h.results().verdict(memory_verdict(h, mem ? &*mem : nullptr, mem_spec,
                                     !wants("memory") ? "not among --parts" : !mem ? "interrupted" : ""));
  return h.finish();
}

}  // namespace fenec::scenarios::vector
