// micro-bench: the data-structure findings MM-2..MM-5 as Google Benchmark
// micro-benchmarks, written as Google Benchmark JSON (results/micro/latest.json,
// with the project's metadata, rows and verdicts under "fenec") and as the
// project's tidy CSV (results/micro/latest.csv).
//
// main.cc is the command line; the run is run.h.
#include "iobench/kit/harness.h"
#include "scenarios/micro/benches.h"
#include "scenarios/micro/run.h"

int main(int argc, char** argv) {
  fenec::kit::Harness h("micro",
            "MM-2..MM-5 micro-benchmarks (Google Benchmark): clearing a visited set, batched "
            "atomic counting, a shared vs per-thread regex matcher, tiny preads vs one read vs "
            "mmap. Writes results/micro/latest.json (Google Benchmark JSON) and latest.csv. "
            "--reps passes run every benchmark once each, in turn (pass 1, pass 2, ...); each "
            "verdict checks ratios of two arms' CPU time per item, paired by repetition, with their 95% "
            "intervals, against the finding's line: reproduced, partly reproduced, not reproduced, "
            "or inconclusive (an interval holds its line).");
  std::string filter;
  double min_time = 0;
  fenec::scenarios::micro::FixtureSizes sizes;
  h.flag("--filter", &filter, "regex of benchmarks to run, e.g. 'MM2|MM5/pread'", ".").default_text("all");
  h.flag("--min-time", &min_time, "seconds each benchmark runs at least (MM-4's matchers 2x that)", 0.5, 0.05)
      .range(0.001, 60);
  h.flag("--graph-nodes", &sizes.graph_nodes, "MM-2 graph size", sizes.graph_nodes).range(1000, 100000000);
  h.flag("--strings", &sizes.strings, "MM-5 strings in the file", sizes.strings).range(100, 100000000);
  // A benchmark here runs a twentieth of a second: 8 passes cost seconds and
  // narrow each interval threefold against 3 (harness.h).
  h.set_default_reps(8, 8);
  if (const int rc = h.parse(argc, argv); rc >= 0) return rc;
  return fenec::scenarios::micro::run(h, filter, min_time, sizes);
}
