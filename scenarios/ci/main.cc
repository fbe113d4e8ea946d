// fenec-ci: the CI regression step after the quick suite has run.
//
// Reads the run's results (<results>/<scenario>/latest.csv and callgrind
// dumps) through the metric definitions, judges every metric against the
// committed baseline and recent recorded runs, writes <out>/report.txt,
// run.csv, charts/, index.html, github-action-benchmark and Bencher files,
// optionally appends the run to the history, and exits 1 on a regression of
// a stable metric or a confirmed one of a noisy metric (not of a trend).
// main.cc is the command line (fenec-ci is no scenario on the harness: it
// runs after them, on their results); the run is ci_run.h.
#include "engine/src/base/cli.h"
#include "scenarios/ci/ci_run.h"

using namespace fenec::scenarios::ci;

int main(int argc, char** argv) {
  CLI::App app(
      "fenec-ci: compares one run of the quick suite with results/baseline/ci.csv and the recorded "
      "history, writes a text report, charts (PNG+SVG), index.html, github-action-benchmark and "
      "Bencher files. Exit 1 on a regression of a stable metric (counts, instruction counts) or a "
      "confirmed regression of a noisy one (factor + Mann-Whitney U); 0 otherwise.");
  CiOptions o;
  app.add_option("--config", o.config, "metric definitions")->capture_default_str();
  app.add_option("--results", o.results, "results root the quick suite wrote")->capture_default_str();
  app.add_option("--callgrind", o.callgrind, "folder of callgrind dumps (micro-icount)");
  app.add_option("--baseline", o.baseline, "the committed reference run")->capture_default_str();
  app.add_option("--history", o.history, "history CSV, one row per metric per run")->capture_default_str();
  app.add_option("--out", o.out, "output folder")->capture_default_str();
  app.add_option("--commit", o.info.commit, "commit of this run")->capture_default_str();
  app.add_option("--date", o.info.date, "UTC date of this run")->required();
  app.add_option("--tag", o.info.tag, "ci (a check) or record (a run kept as a reference)")
      ->check(CLI::IsMember({"ci", "record"}))
      ->capture_default_str();
  app.add_flag("--append", o.append, "append this run to the history");
  app.add_flag("--no-gate", o.no_gate, "exit 0 even on a regression (make record)");
  app.add_flag("--write-baseline", o.write_baseline, "make this run the baseline (overwrites it)");
  app.add_option("--recent", o.recent, "recorded runs pooled with the baseline as reference")
      ->capture_default_str();
  app.add_option("--alpha", o.policy.alpha, "Mann-Whitney significance")->capture_default_str()
      ->check(CLI::Range(1e-9, 0.5));
  if (int rc = fenec::base::ParseFlags(app, argc, argv); rc >= 0) return rc;
  return run_ci(o);
}
