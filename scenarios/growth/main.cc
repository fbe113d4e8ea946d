// growth-bench: GR-1 and GR-2, indexes that grow without stalling writes.
//
// Part 1 puts keys one at a time into a @unique index (fenec's UniqueIndex)
// under the engine's write-lock discipline, sharded arm vs naive arm, each
// put timed: the longest put per doubling band, the ten longest puts and a
// plot of put latency over key count with the doublings marked. Part 2 does
// the same with a @text index's distinct terms. Part 3 measures lookups at
// 4 M keys beside absl::flat_hash_map and std::unordered_map in the same
// run, and part 4 the memory a key costs (smaps_rollup and the index's own
// accounting). The verdicts set our figures beside the source's.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "iobench/kit/console.h"
#include "iobench/kit/harness.h"
#include "scenarios/growth/fenecdb_arm.h"
#include "scenarios/growth/lookup.h"
#include "scenarios/growth/report.h"
#include "scenarios/growth/workload.h"
#include "engine/src/base/interrupt.h"

namespace {

using fenec::kit::Harness;
using namespace fenec::scenarios::growth;

struct Options {
  uint64_t keys = 0, terms = 0, lookup_keys = 0, lookups = 0;
  int reps = 0;
  std::string key_style = "email";
  size_t plot_points = 2000;
  bool no_side = false, skip_text = false, skip_lookup = false, skip_memory = false, skip_db = false;
};

PutRun put_part(Harness& h, Kind kind, fenec::index::Arm arm, uint64_t n, const Options& o) {
  const std::string arm_name = arm_of(kind, arm);
  fenec::kit::Progress progress(fmt::format("growth: {} puts", arm_name), 1);
  progress.update(0, fmt::format("{} puts", n));
  PutRun run = run_puts(kind, arm, n, o.key_style == "short" ? KeyStyle::kShort : KeyStyle::kEmail,
                        !o.no_side, o.plot_points);
  progress.finish();
  add_put_rows(h.results(), kind, arm, n, run);
  if (run.interrupted) h.results().mark_incomplete("interrupted during " + arm_name);
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  Harness h("growth",
            "GR-1/GR-2: single puts into a @unique and a @text index under the engine's "
            "write-lock discipline (std::shared_mutex, exclusive for puts), the sharded arm "
            "(256 tables that grow on their own) vs the naive arm (one table doubling in one "
            "move); lookups beside absl::flat_hash_map and std::unordered_map; memory a key.");
  Options o;
  auto& app = h.app();
  app.add_option("--keys", o.keys, "unique puts (default 4000000; quick 1000000)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 30));
  app.add_option("--terms", o.terms, "distinct text terms put (default 3700000; quick 1000000)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 30));
  app.add_option("--lookup-keys", o.lookup_keys,
                 "keys in each map for the lookup and memory parts (default 4000000; quick 1000000)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 30));
  app.add_option("--lookups", o.lookups, "present-key lookups per map, as many absent (default 4000000; quick 1000000)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 34));
  app.add_option("--reps", o.reps, "interleaved lookup rounds over the maps (default 5; quick 3)")
      ->check(CLI::Range(1, 100));
  app.add_option("--key-style", o.key_style,
                 "unique keys: email (user<n>@example.com, 17-26 bytes, heap-held) or short "
                 "(u<n>, inline everywhere)")
      ->check(CLI::IsMember({"email", "short"}))
      ->capture_default_str();
  app.add_option("--plot-points", o.plot_points, "points per arm on the latency plots (longest put of each chunk)")
      ->check(CLI::Range(size_t{10}, size_t{1000000}))
      ->capture_default_str();
  app.add_flag("--no-side", o.no_side, "no second thread reading and writing beside the puts");
  app.add_flag("--skip-text", o.skip_text, "skip the text-index part");
  app.add_flag("--skip-lookup", o.skip_lookup, "skip the lookup part");
  app.add_flag("--skip-memory", o.skip_memory, "skip the memory part");
  app.add_flag("--skip-db", o.skip_db, "skip the same puts through fenecdb (and its reopen)");
  if (const int rc = h.parse(argc, argv); rc >= 0) return rc;

  if (o.keys == 0) o.keys = h.quick() ? 1000000 : 4000000;
  if (o.terms == 0) o.terms = h.quick() ? 1000000 : 3700000;
  if (o.lookup_keys == 0) o.lookup_keys = h.quick() ? 1000000 : 4000000;
  if (o.lookups == 0) o.lookups = h.quick() ? 1000000 : 4000000;
  if (o.reps == 0) o.reps = h.quick() ? 3 : 5;
  const KeyStyle style = o.key_style == "short" ? KeyStyle::kShort : KeyStyle::kEmail;
  h.results().meta().set("key_style", o.key_style);
  h.results().meta().set("discipline", "index under std::shared_mutex (engine write-lock discipline)");

  fmt::print("growth-bench: the index under the engine's write-lock discipline (std::shared_mutex: "
             "puts exclusive, lookups shared), called directly; then through fenecdb.\n");

  Summary sum;
  sum.keys = o.keys;
  sum.terms = o.terms;
  sum.plot_points = o.plot_points;
  using fenec::index::Arm;
  sum.unique_sharded = put_part(h, Kind::kUnique, Arm::kSharded, o.keys, o);
  if (!fenec::base::StopRequested()) sum.unique_naive = put_part(h, Kind::kUnique, Arm::kNaive, o.keys, o);
  if (!o.skip_db && !fenec::base::StopRequested()) {
    fenec::kit::Progress progress("growth: fenecdb puts", 1);
    progress.update(0, fmt::format("{} puts", o.keys));
    sum.db = run_fenecdb(o.keys, style, h.data_dir() + "/fenecdb", o.plot_points);
    progress.finish();
    add_db_rows(h.results(), *sum.db, o.keys);
  }
  if (!o.skip_text && !fenec::base::StopRequested()) {
    sum.text_sharded = put_part(h, Kind::kText, Arm::kSharded, o.terms, o);
    if (!fenec::base::StopRequested()) sum.text_naive = put_part(h, Kind::kText, Arm::kNaive, o.terms, o);
  }
  if (!o.skip_lookup && !fenec::base::StopRequested()) {
    fenec::kit::Progress progress("growth: lookups", 1);
    progress.update(0, fmt::format("{} keys x 4 maps", o.lookup_keys));
    sum.lookups = run_lookups(o.lookup_keys, o.lookups, o.reps, style, h.seed());
    progress.finish();
    add_lookup_rows(h.results(), sum.lookups);
    for (Arm arm : {Arm::kSharded, Arm::kNaive}) {
      if (fenec::base::StopRequested()) break;
      sum.rebuilds.push_back(time_rebuild(arm, o.lookup_keys, style));
      add_rebuild_rows(h.results(), sum.rebuilds.back());
    }
  }
  if (!o.skip_memory && !fenec::base::StopRequested()) {
    std::vector<std::pair<std::string, uint64_t>> cells;
    for (const char* arm : kLookupArms) cells.emplace_back(arm, o.lookup_keys);
    if (!o.skip_text) {
      cells.emplace_back("text-sharded", o.terms);
      cells.emplace_back("text-naive", o.terms);
    }
    fenec::kit::Progress progress("growth: memory", cells.size());
    size_t done = 0;
    for (const auto& [arm, n] : cells) {
      if (fenec::base::StopRequested()) break;
      MemResult m = measure_memory(arm, n, style);
      add_memory_rows(h.results(), m);
      sum.memory.push_back(m);
      progress.update(++done, arm);
    }
    progress.finish();
  }
  print_summary(sum);
  write_plots(h, sum);
  for (auto& v : verdicts(h, sum)) h.results().verdict(std::move(v));
  return h.finish();
}
