// The one harness every scenario driver runs on (scenarios/<name>/main.cc).
//
// It owns what is common to all of them: the flags (--quick, --seed,
// --results, --plots, --dir, --csv, --json), the run metadata, the seed log,
// a scratch folder for the scenario's files (removed at the end and on
// Ctrl-C), writing results/<name>/ and printing the verdict table. A driver
// adds its own flags to app(), calls parse(), measures into results(), and
// returns finish(). Long loops poll base::StopRequested() (Ctrl-C).
//
// CLI11 is only declared here: it costs seconds to compile, so only the
// driver's main.cc, which adds flags, includes <CLI/CLI.hpp>.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "iobench/kit/machine.h"
#include "iobench/kit/results.h"

namespace CLI {
class App;
}  // namespace CLI

namespace fenec::kit {

class Harness {
 public:
  Harness(std::string scenario, std::string description);
  ~Harness();

  CLI::App& app() { return *app_; }
  // Parses argv; on a bad flag prints one line and returns 2, on --help
  // prints it and returns 0; otherwise returns -1 (go on). Logs the seed
  // ("seed=N", random unless --seed given) on stderr and in the metadata.
  // With --csv - or --json -, stdout carries that data alone from here on
  // (hold_stdout_for_data): everything else the run prints goes to stderr.
  int parse(int argc, char** argv);

  bool quick() const { return quick_; }
  // --reps: how many times each cell's arms run, interleaved (A B A B ...):
  // 3 in quick mode, 5 in full, unless given. Every headline ratio's 95%
  // interval comes from these repetitions (stats.h).
  int reps() const { return reps_ > 0 ? reps_ : (quick_ ? default_reps_[0] : default_reps_[1]); }
  // A scenario whose cells take a fraction of a second may default to more
  // repetitions (never fewer than 3 quick, 5 full): at 3 a 95% interval's
  // half-width is 4.3 standard errors, at 8 it is 2.4, so cheap cells buy
  // verdicts that noise cannot move. Call before parse(); --reps still wins.
  void set_default_reps(int quick, int full);
  uint64_t seed() const { return seed_; }
  // Scratch folder for the scenario's files: --dir (default ./fenec-scratch)
  // /<scenario>-<pid>; created by parse(), removed by finish() and on SIGINT/SIGTERM.
  const std::string& data_dir() const { return data_dir_; }
  Results& results() { return *results_; }
  // plots/<scenario>/<name> (no extension), folder created.
  std::string plot_path(const std::string& name) const;

  // Writes results (results/<scenario>/ and any --csv/--json), prints the
  // verdict table, removes the scratch folder. Returns the exit code
  // (0, or 130 if interrupted: base::StopRequested()).
  int finish();

 private:
  std::string scenario_;
  std::unique_ptr<CLI::App> app_;
  bool quick_ = false;
  int reps_ = 0;
  int default_reps_[2] = {3, 5};  // quick, full
  uint64_t seed_ = 0;
  std::string seed_arg_, results_root_ = "results", plots_root_ = "plots", scratch_root_ = "fenec-scratch";
  std::string csv_path_, json_path_, data_dir_;
  std::unique_ptr<Results> results_;
  MachineSample machine_start_;
};

// Runs each of `arms` arms once a repetition, in turn: arm 0, 1, ..., then
// again, `reps` times, so drift on a shared machine hits every arm alike and
// repetition r of each arm can be paired (paired_ratio). Stops between cells
// once base::StopRequested(); returns the repetitions completed in full.
int run_interleaved(int reps, size_t arms, const std::function<void(size_t arm, int rep)>& cell);

}  // namespace fenec::kit
