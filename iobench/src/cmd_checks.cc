// `iobench syncmethods`, `iobench lies` and `iobench coherence`: the short
// checks that answer one question each about the disk under --dir.
#include <fmt/format.h>

#include "iobench/src/cli.h"
#include "iobench/src/coherence.h"
#include "iobench/src/lies.h"
#include "iobench/src/syncmethods.h"
#include "iobench/src/units.h"
#include "iobench/kit/interrupt.h"

namespace fenec::iobench {
namespace {

ProbeResult probe_or_throw(const CommonOpts& o) {
  begin_run(o);
  ProbeResult p = probe(o.dir);
  if (!p.error.empty()) throw std::runtime_error(p.error);
  return p;
}

double seconds_flag(const std::string& flag, const std::string& text) {
  double s = 0;
  std::string err;
  if (!parse_duration(text, &s, &err)) throw UsageError(fmt::format("{}: {}", flag, err));
  return s;
}

}  // namespace

RunFn register_syncmethods(CLI::App& root) {
  struct Opts {
    CommonOpts common;
    std::string duration = "1s";
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = root.add_subcommand("syncmethods", "pg_test_fsync's table: ops/s of each way to make a write durable");
  sub->footer(
      "Each op rewrites the start of a prefilled 16 MiB file. Methods: open_datasync (O_DSYNC), fdatasync,\n"
      "fsync, open_sync (O_SYNC) at one and two 8 KiB writes per op; 16 KiB with open_sync as 1x16k .. 16x1k;\n"
      "each with and without O_DIRECT (pg_test_fsync always adds it). Then whether an fsync through another\n"
      "descriptor flushes what the first one wrote, and plain writes for scale. Percentiles, not just means.");
  add_common_flags(sub, &o->common);
  sub->add_option("--duration", o->duration, "Time per test")->capture_default_str();
  return [o] {
    SyncMethodsOptions so;
    so.seconds = seconds_flag("--duration", o->duration);
    ProbeResult p = probe_or_throw(o->common);
    so.dir = o->common.dir;
    SyncMethodsResult r = run_syncmethods(so, p);
    fmt::print("{}", syncmethods_table(r));
    auto results = make_results(o->common, "syncmethods");
    add_syncmethods_rows(*results, r);
    if (kit::stop_requested()) results->mark_incomplete("interrupted");
    int rc = emit(*results, o->common);
    if (kit::stop_requested()) return 130;
    return r.error.empty() ? rc : 1;
  };
}

RunFn register_lies(CLI::App& root) {
  struct Opts {
    CommonOpts common;
    std::string duration = "1s";
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = root.add_subcommand("lies", "IO-4: are durable writes plausibly durable here?");
  sub->footer(
      "Measures 4 KiB write latency buffered, durable (O_DIRECT|O_DSYNC, else O_DSYNC) and the cost of an\n"
      "fdatasync, on a prefilled file. Durable at < 3x buffered, or under 20 us, is IO-4's red flag (a disk\n"
      "that acknowledges before persisting); 10x or more is what reaching stable media costs. The verdict\n"
      "lists its reasons. Figures only raise or lower suspicion: only a power cut proves it (diskcheck).");
  add_common_flags(sub, &o->common, true);
  sub->add_option("--duration", o->duration, "Time per measurement")->capture_default_str();
  return [o] {
    LiesOptions lo;
    lo.seconds = seconds_flag("--duration", o->duration);
    ProbeResult p = probe_or_throw(o->common);
    SweepEnv env;
    env.dir = o->common.dir;
    env.seed = resolve_seed(o->common);
    env.probe = &p;
    LiesResult r = run_lies(lo, env);
    fmt::print("{}", lies_report(r));
    auto results = make_results(o->common, "lies");
    add_lies_rows(*results, r);
    if (kit::stop_requested()) results->mark_incomplete("interrupted");
    int rc = emit(*results, o->common);
    return kit::stop_requested() ? 130 : rc;
  };
}

RunFn register_coherence(CLI::App& root) {
  struct Opts {
    CommonOpts common;
    unsigned rounds = 100;
    std::string chunk = "4k";
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = root.add_subcommand("coherence", "IO-5: do buffered reads see what O_DIRECT wrote?");
  sub->footer(
      "Each round: O_DIRECT|O_DSYNC write a chunk; read it and the next (unwritten) chunk through a second,\n"
      "buffered descriptor; O_DIRECT write that next chunk; re-read it. A coherent mount returns the new\n"
      "bytes; IO-5's CIFS mount returned the zeros it had cached. Exit 1 if any read was stale.");
  add_common_flags(sub, &o->common, true);
  sub->add_option("--rounds", o->rounds, "Rounds of the pattern")->capture_default_str()->check(CLI::Range(1u, 1000000u));
  sub->add_option("--chunk", o->chunk, "Bytes per write (a multiple of the O_DIRECT alignment)")->capture_default_str();
  return [o] {
    CoherenceOptions co;
    std::string err;
    if (!parse_size(o->chunk, &co.chunk, &err)) throw UsageError("--chunk: " + err);
    ProbeResult p = probe_or_throw(o->common);
    if (std::string why = p.direct_size_problem(co.chunk); !why.empty()) throw UsageError("--chunk: " + why);
    co.dir = o->common.dir;
    co.rounds = o->rounds;
    co.seed = resolve_seed(o->common);
    CoherenceResult c = run_coherence(co, p);
    auto results = make_results(o->common, "coherence");
    add_coherence_rows(*results, co, c, "IO-5");
    if (!c.skipped.empty()) fmt::print("skipped: {}\n", c.skipped);
    else if (!c.error.empty()) fmt::print("error: {}\n", c.error);
    else fmt::print("{} rounds, {} buffered reads compared, {} stale ({} returned zeros): {}\n", c.rounds, c.reads,
                    c.stale, c.stale_zero, c.stale ? "NOT coherent (IO-5)" : "coherent");
    for (const std::string& ex : c.examples) fmt::print("  {}\n", ex);
    if (kit::stop_requested()) results->mark_incomplete("interrupted");
    int rc = emit(*results, o->common);
    if (kit::stop_requested()) return 130;
    if (!c.error.empty() || c.stale) return 1;
    return rc;
  };
}

}  // namespace fenec::iobench
