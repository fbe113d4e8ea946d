// advise-bench: `iobench advise` checked against the engines. Measures the
// disk under --dir with iobench's advise library, calibrates each engine
// (its CPU a commit, its own sync, a round's serial cost), prints the advice,
// then runs every engine present at its default and its recommended settings
// at each writer count (the cells interleaved over the repetitions) and says, with 95% intervals, how the
// model's predictions and the recommendations held up. `make advise` runs
// it on the scratch folder; `iobench advise --verify` execs it.
#include <fmt/format.h>

#include "iobench/kit/harness.h"
#include "scenarios/advise/verify.h"

namespace sa = fenec::scenarios::advise;

int main(int argc, char** argv) {
  fenec::kit::Harness h("advise",
                        "iobench advise, verified: the disk's measured sync costs, the settings each engine should "
                        "use on it and the durable commits/s the model predicts, then each engine (fenecdb, "
                        "PostgreSQL 15 on a scratch cluster, RocksDB, SQLite) at its default and recommended "
                        "settings at each writer count: measured/predicted (band [0.8, 1.25]) and "
                        "recommended/default (a win needs its 95% interval above 1.0).");
  h.footer("The model: iobench/doc/advise.md. iobench advise --verify passes --dir, --engines, --writers, --quick, "
           "--json, --csv, --report and --cpu-us through.");
  sa::Config c;
  const std::vector<std::string> all = {"fenecdb", "postgres", "rocksdb", "sqlite"};
  h.flag("--engines", &c.engines, "engines to advise and verify", all).one_of(all);
  h.flag("--writers", &c.writers, "writer counts", {1, 4, 16}).range(1, 256);
  h.flag("--seconds", &c.seconds, "time a verify cell", 2, 0.5).range(0.05, 600);
  h.flag("--measure-seconds", &c.measure_seconds, "time a measuring sweep cell", 1.5, 0.5).range(0.05, 60);
  h.flag("--calibrate-seconds", &c.calibrate_seconds,
         fmt::format("time of each of an engine's three calibration cells (a buffered writer, a durable one, {} "
                     "durable ones)",
                     fenec::iobench::advise::kCalibrationWriters),
         1, 0.3).range(0.05, 60);
  h.flag("--cpu-us", &c.cpu_us, "CPU a commit per engine instead of calibrating, e.g. postgres=90", std::string());
  h.flag("--report", &c.report, "folder for advise.md and its plots (default: plots/advise)", std::string());
  // --reps auto: a run of its own, not in make bench: its cells' main
  // experiment may take a few minutes.
  h.set_default_budget(240, 900);
  if (const int rc = h.parse(argc, argv); rc >= 0) return rc;
  return sa::run(h, c);
}
