// growth-bench: GR-1 and GR-2, indexes that grow without stalling writes.
//
// Part 1 puts keys one at a time into a @unique index (fenec's UniqueIndex)
// under the engine's write-lock discipline, sharded arm vs naive arm, each
// put timed, and the same puts through fenecdb: the longest put per
// doubling band, its p99 and p99.9, the ten longest puts and a plot of put
// latency over key count with the doublings marked. Part 2 does the same
// with a @text index's distinct terms. The arms of each part run --reps
// times (3 quick, 5 full), interleaved (naive, sharded, fenecdb, naive, ...),
// so every figure has one value a repetition and a 95% interval.
// Parts 2b and 2c are the vector index's table of held vectors
// (vector_arm.h): GR-3, 128-d vectors put into it, naive and sharded,
// interleaved, every growth timed (CPU and wall) and counted; GR-4, a
// checkpointed fenecdb VECTOR(128) @hnsw collection reopened with the table
// built from the kept tags or (naive) by the first write from every vector.
// GR-5 (gr5.h) times each periodic journal fsync and every put beside it,
// in kBuffered mode, against a naive arm whose puts wait for the fsync.
// Part 3 measures lookups at 4 M keys beside absl::flat_hash_map and
// std::unordered_map in the same run (interleaved rounds), and part 4 the
// memory a key costs (smaps_rollup and the index's own accounting: a count,
// measured once).
//
// The verdicts (report.cc): each finding's stall check is repetition i's
// naive growth at the last doubling reached over repetition i's longest
// sharded growth, both in the putting thread's CPU time (a stall is one put,
// the maximum is the finding; the wall clock's maximum of the sharded arm is
// this shared machine's preemption), with its 95% interval against the line
// the source's figures draw at that doubling; GR-1 adds an exact part, no
// growth hashing a key again. GR-3 and GR-4 hold their own lines (naive /
// sharded longest growth >= 30, naive / kept first write >= 10, CPU time)
// with exact parts (moves a 256th at a time; 0 vectors read at open).
// main.cc is the command line; the run is run.h.
#include "iobench/kit/harness.h"
#include "scenarios/growth/run.h"

int main(int argc, char** argv) {
  fenec::kit::Harness h("growth",
            "GR-1/GR-2: single puts into a @unique and a @text index under the engine's "
            "write-lock discipline (std::shared_mutex, exclusive for puts), the sharded arm "
            "(256 tables that grow on their own) vs the naive arm (one table doubling in one "
            "move), --reps times interleaved; lookups beside absl::flat_hash_map and "
            "std::unordered_map; memory a key. Verdicts: the naive stall at the last doubling over "
            "the sharded longest growth, in CPU time, with its 95% interval against the line the "
            "source's figures draw there (GR-1: 13.6x at 917 504 keys, 65.3x at 3 670 016; GR-2: "
            "13.8x, 55.2x), and for GR-1 no growth hashing a key again.");
  fenec::scenarios::growth::Options o;
  h.flag("--keys", &o.keys, "unique puts", 4000000, 1000000).range(1, 1 << 30);
  h.flag("--terms", &o.terms, "distinct text terms put", 3700000, 1000000).range(1, 1 << 30);
  h.flag("--lookup-keys", &o.lookup_keys, "keys in each map for the lookup and memory parts", 4000000, 1000000)
      .range(1, 1 << 30);
  h.flag("--lookups", &o.lookups, "present-key lookups per map, as many absent, split over the --reps rounds",
         4000000, 1000000).range(1, uint64_t{1} << 34);
  h.flag("--vectors", &o.vectors,
         "GR-3: 128-d vectors put into the held-vector table, each arm and run (quick too: the naive stall grows "
         "with n and the sharded growth does not, so the ratio is n's)", 1048576).range(1, 1 << 28);
  h.flag("--vector-base", &o.vector_base,
         "GR-4: vectors in the persisted @hnsw collection reopened (full: the source's ~1.1 M; quick fewer: "
         "building it links every vector, and each run copies its folder)", 1048576, 131072).range(1, 1 << 26);
  h.flag("--skip-vector", &o.skip_vector, "skip GR-3 and GR-4 (the vector index's held-vector table)");
  h.flag("--key-style", &o.key_style,
         "unique keys: email (user<n>@example.com, 17-26 bytes, heap-held) or short (u<n>, inline everywhere)",
         "email").one_of({"email", "short"});
  h.flag("--plot-points", &o.plot_points, "points per arm on the latency plots (longest put of each chunk)", 2000)
      .range(10, 1000000);
  h.flag("--no-side", &o.no_side, "no second thread reading and writing beside the puts");
  h.flag("--skip-unique", &o.skip_unique, "skip the @unique part (GR-1 and the same puts through fenecdb)");
  h.flag("--skip-text", &o.skip_text, "skip the text-index part");
  h.flag("--skip-lookup", &o.skip_lookup, "skip the lookup part");
  h.flag("--skip-memory", &o.skip_memory, "skip the memory part");
  h.flag("--skip-db", &o.skip_db, "skip the same puts through fenecdb (and its reopen)");
  h.flag("--skip-gr5", &o.skip_gr5, "skip GR-5 (puts beside the periodic fsync)");
  h.flag("--gr5-seconds", &o.gr5_seconds, "GR-5: putting time an arm and repetition", 4, 1.5).range(0.1, 3600);
  h.flag("--gr5-sync-ms", &o.gr5_sync_ms, "GR-5: the periodic fsync's period (Options::sync_ms)", 50u)
      .range(1, 60000);
  h.flag("--gr5-sync-delay-us", &o.gr5_sync_delay_us,
         "GR-5: each journal fdatasync sleeps this long first (the source's F_FULLFSYNC took 52 ms)", 50000u)
      .range(0, 10000000);
  // --reps auto: only GR-5 runs as a sequence (a repetition: two short arms).
  h.set_default_budget(20, 120);
  if (const int rc = h.parse(argc, argv); rc >= 0) return rc;
  return fenec::scenarios::growth::run(h, o);
}
