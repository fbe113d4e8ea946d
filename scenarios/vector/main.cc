// vector-bench: VS-1 and VS-2, fenec's HNSW index (engine/src/index/vector)
// beside hnswlib.
//
// The data (workload.h): the reference workload, seeded clustered
// Gaussian vectors, 100 clusters of spread 1.75 around N(0, 1) centers, 128
// dimensions; 20 000 vectors in quick mode (recall@10 ~0.93 at ef 32, so
// the arms' recall differences show, and the quick run stays near a
// minute), 100 000 in full; 1 000 fresh queries drawn the same way, their
// exact top-10 by brute force. M=16, ef_construction=100; the headline ef
// is 32 (recall well below 1 there). Four arms, each --reps times (4 quick, 5 full)
// interleaved (batch, row, hnswlib, fenecdb, batch, ...): the VectorIndex's
// kBatch (VS-1's restructured insertion) and kRow (the source's before),
// called directly; Debian's hnswlib compiled -O3 -march=native; and
// fenecdb-batch, the same vectors through the database (PutBatch, journal
// on, WaitForIndexes, Near). The same M, ef_construction and build threads
// (hnswlib: addPoint from a pool; the row arm is one thread by design). Each
// repetition times the build (every vector indexed), then one thread's
// searches over the query set at ef 16, 32, 64, 128 (recall@10 as hits;
// queries/s, at the headline ef over passes of at least --search-seconds).
// Then VS-2 once: the batch arm with binary codes, its bytes by the index's
// accounting, its recall with rescoring and without. Then MM-2 (mm2.h): the
// batch arm's first graph searched with each visited set in turn.
// --parts picks which of the three run (arms, bq, mm2; all by default).
//
// Verdicts (report.cc): VS-1 paired row/batch build time against the
// source's -44% (1.79x), batch recall within 0.005 of row recall; VS-2 the
// 32x as an exact part and a recall cost without rescoring; VS-ref fenec
// against hnswlib on its targets.
// main.cc is the command line; the run is run.h.
#include <algorithm>
#include <thread>

#include "iobench/kit/harness.h"
#include "scenarios/vector/run.h"

int main(int argc, char** argv) {
  fenec::kit::Harness h("vector",
            "VS-1/VS-2: fenec's HNSW index (engine/src/index/vector, called directly) on seeded clustered Gaussian "
            "vectors: the batch insert arm (VS-1) against the row arm and hnswlib (-O3 -march=native), --reps times "
            "interleaved, build time and one thread's queries/s and recall@10 at ef 16-128; binary quantization "
            "(VS-2) bytes and recall with and without rescoring. Verdicts: row/batch build time against the "
            "source's -44% (1.79x) with batch recall within 0.005 of row's; binary vectors >= 32x smaller and a "
            "recall cost without rescoring; fenec vs hnswlib on its targets; MM-2: the same graph and queries searched "
            "with the versioned bitmap, a cleared hash set and a new one, CPU a search.");
  fenec::scenarios::vector::Options o;
  auto& spec = o.spec;
  auto& params = o.params;
  params.threads = std::max(1u, std::thread::hardware_concurrency());
  const std::vector<std::string> parts = {"arms", "bq", "mm2", "memory"};
  h.flag("--vectors", &spec.n, "vectors indexed", 100000, 20000).range(100, 1 << 26);
  h.flag("--queries", &spec.queries, "queries (exact top-10 by brute force)", spec.queries).range(1, 1 << 20);
  h.flag("--dim", &spec.dim, "dimensions", spec.dim).range(1, 4096);
  h.flag("--clusters", &spec.clusters, "Gaussian clusters", spec.clusters).range(1, 1 << 20);
  h.flag("--spread", &spec.spread, "each cluster's standard deviation a dimension (centers are N(0,1))", spec.spread)
      .range(0.001, 100);
  h.flag("--m", &params.m, "HNSW M (level 0 keeps 2M)", params.m).range(2, 128);
  h.flag("--ef-construction", &params.ef_construction, "beam width while building", params.ef_construction)
      .range(1, 10000);
  h.flag("--ef", &o.ef, "the headline search ef (queries/s, recall, verdicts); 16, 32, 64, 128 are searched too",
         o.ef).range(1, 10000);
  h.flag("--search-seconds", &o.search_seconds,
         "queries/s at the headline ef are timed over passes of the query set until this long has gone by (one "
         "pass at the other efs)", o.search_seconds).range(0, 600);
  h.flag("--threads", &params.threads, "build threads (batch arm's pool, hnswlib's addPoint pool)", params.threads)
      .range(1, 256);
  h.flag("--skip-hnswlib", &o.skip_hnswlib, "no hnswlib arm");
  h.flag("--skip-row", &o.skip_row, "no row arm (VS-1 is then skipped)");
  h.flag("--skip-db", &o.skip_db, "no fenecdb arm (the same vectors through the database)");
  h.flag("--durable", &o.durable, "the fenecdb arm acknowledges puts once fdatasync'ed (else buffered)");
  h.flag("--skip-bq", &o.skip_bq, "no binary-quantization part (VS-2 is then skipped)");
  h.flag("--parts", &o.parts,
         "parts to run: arms (VS-1, VS-ref: the insert arms, hnswlib, fenecdb), bq (VS-2), mm2 (MM-2: one graph "
         "searched with each visited set; it builds its own graph when arms does not run), memory (VS-3: builds "
         "under a memory cgroup, vectors in a file)", parts).one_of(parts);
  h.flag("--mem-vectors", &o.mem_n,
         "VS-3 (part memory): vectors of its own data set (--mem-dim, the clusters and spread above), built with "
         "their full vectors in a file under a cgroup v1 memory limit of 100%, 50% and 25% of the vector bytes",
         20000, 3000).range(100, 1 << 24);
  h.flag("--mem-dim", &o.mem_dim, "VS-3: dimensions of its data set (the source's 768)", o.mem_dim).range(1, 4096);
  h.flag("--mem-cap-seconds", &o.mem_cap_s,
         "VS-3: a build still running after this long is stopped and reported as stopped, with how far it got",
         600, 120).range(1, 86400);
  // Quick mode builds at the two fractions VS-3's verdict reads; 0.5 is a point on full mode's plot.
  h.flag("--mem-fractions", &o.mem_fractions, "VS-3: the memory limits, as fractions of the vector bytes",
         std::vector<double>{1.0, 0.5, 0.25}, std::vector<double>{1.0, 0.25});
  h.flag("--mm2-seconds", &o.mm2_seconds,
         "MM-2: one thread's searches a cell (one visited set, one repetition), whole passes of the query set "
         "until this long has gone by", 0.5, 0.1).range(0, 600);
  // A cell (one build and its searches) takes a second or two in quick
  // mode. Four repetitions, not three: t = 3.18 against 4.30 at three, so a
  // shared machine's noise moves the interval less. Under --reps auto (make
  // bench) they are the pilot, and a VS-1 interval still across its line
  // buys more from the budget, a repetition of the arms at a time.
  h.set_default_reps(4, 5);
  h.set_default_budget(40, 400);
  if (const int rc = h.parse(argc, argv); rc >= 0) return rc;
  return fenec::scenarios::vector::run(h, o);
}
