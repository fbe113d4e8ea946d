// The one harness every scenario driver runs on (scenarios/<name>/main.cc).
//
// It owns what is common to all of them: the flags (--quick, --seed,
// --results, --plots, --dir, --csv, --json) and the driver's own, each
// declared once with its full and quick default (flag()), the run metadata,
// the seed log, interleaved repetitions (interleave(); sequential ones,
// --reps auto, through sequence(): sequential.h), a scratch folder for
// the scenario's files (removed at the end and on Ctrl-C), writing
// results/<name>/, printing the verdict table and the exit code (fail(),
// finish()). A driver declares its flags, calls parse(), measures into
// results(), and returns finish(). Long loops poll kit::stop_requested().
//
// CLI11 is only declared here and included by harness.cc alone: it costs
// seconds to compile, and a driver needs none of it.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "iobench/kit/machine.h"
#include "iobench/kit/results.h"
#include "iobench/kit/sequential.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace fenec::kit {

// What a flag may hold. Lists are given comma-separated (--writers 1,4,16).
using FlagValue = std::variant<int, unsigned, uint64_t, double, float, std::string, std::vector<int>,
                               std::vector<unsigned>, std::vector<uint64_t>, std::vector<double>,
                               std::vector<std::string>>;

// One declared flag (Harness::flag); refine it before parse(), ask given() after.
class Flag {
 public:
  // Every value must lie in [lo, hi].
  Flag& range(double lo, double hi);
  // Every value must be one of `names`.
  Flag& one_of(const std::vector<std::string>& names);
  // `check(value)` returns "" or why the value is refused.
  Flag& check(std::function<std::string(const std::string&)> check);
  // What the help says the default is, where the value is worked out at run
  // time (e.g. "this build's fenec-server" for an empty path).
  Flag& default_text(std::string text);
  // On the command line (after parse()).
  bool given() const;

 private:
  friend class Harness;
  using Target = std::variant<int*, unsigned*, uint64_t*, double*, float*, std::string*, std::vector<int>*,
                              std::vector<unsigned>*, std::vector<uint64_t>*, std::vector<double>*,
                              std::vector<std::string>*>;
  void describe();
  void apply(bool quick);
  CLI::Option* opt_ = nullptr;
  std::string help_, default_text_;
  Target target_;
  FlagValue full_, quick_;
  bool is_switch_ = false;
};

class Harness {
 public:
  Harness(std::string scenario, std::string description);
  ~Harness();

  // The driver's own flags, each declared once: its name, what it does, its
  // default in full and in quick mode (or one for both). The help shows both
  // defaults; parse() sets the one --quick picks unless the flag was given.
  //   h.flag("--rows", &rows, "rows to load", 1'000'000, 20'000).range(100, 1e8);
  template <class T>
  Flag& flag(const std::string& name, T* out, const std::string& help, const std::type_identity_t<T>& full,
             const std::type_identity_t<T>& quick) {
    return add_flag(name, Flag::Target{out}, help, FlagValue{full}, FlagValue{quick});
  }
  template <class T>
  Flag& flag(const std::string& name, T* out, const std::string& help, const std::type_identity_t<T>& both) {
    return flag(name, out, help, both, both);
  }
  // A switch: given, it sets *out true; "!--no-x" sets it false. Unchanged otherwise.
  Flag& flag(const std::string& name, bool* out, const std::string& help);
  // A flag naming one of `names`' values, e.g. an enum; defaults are names.
  template <class E>
  Flag& choice(const std::string& name, E* out, const std::string& help, const std::map<std::string, E>& names,
               const std::string& full, const std::string& quick) {
    std::string& text = choice_text_.emplace_back();
    std::vector<std::string> keys;
    for (const auto& [k, v] : names) keys.push_back(k);
    after_parse_.push_back([out, names, &text] { *out = names.at(text); });
    return flag(name, &text, help, full, quick).one_of(keys);
  }
  template <class E>
  Flag& choice(const std::string& name, E* out, const std::string& help, const std::map<std::string, E>& names,
               const std::string& both) {
    return choice(name, out, help, names, both, both);
  }
  // A closing paragraph of --help (what the verdicts judge, what is written).
  void footer(const std::string& text);
  // Parses argv; on a bad flag prints one line and returns 2, on --help
  // prints it and returns 0; otherwise returns -1 (go on). Logs the seed
  // ("seed=N", random unless --seed given) on stderr and in the metadata.
  // With --csv - or --json -, stdout carries that data alone from here on
  // (hold_stdout_for_data): everything else the run prints goes to stderr.
  int parse(int argc, char** argv);

  bool quick() const { return quick_; }
  // --reps: how many times each cell's arms run, interleaved (A B A B ...):
  // 3 in quick mode, 5 in full, unless given. Every headline ratio's 95%
  // interval comes from these repetitions (stats.h). In auto mode (the
  // default: --reps auto[:BUDGET[:CAP]], sequential.h) this is the pilot's
  // count, and a site run through sequence() may add a main experiment.
  int reps() const { return plan_.fixed > 0 ? plan_.fixed : (quick_ ? default_reps_[0] : default_reps_[1]); }
  // A scenario whose cells take a fraction of a second may default to more
  // repetitions (never fewer than 3 quick, 5 full): at 3 a 95% interval's
  // half-width is 4.3 standard errors, at 8 it is 2.4, so cheap cells buy
  // verdicts that noise cannot move. Call before parse(); --reps still wins.
  void set_default_reps(int quick, int full);
  // Auto mode's defaults for this scenario: the seconds its main experiments
  // share, and the most repetitions a site makes (0: 4x the pilot, at least
  // 12). Call before parse(); auto:BUDGET:CAP still wins.
  void set_default_budget(double quick_s, double full_s, int quick_cap = 0, int full_cap = 0);
  // Auto mode: sites may run main experiments (sequential.h). False with --reps N.
  bool auto_reps() const { return plan_.automatic; }
  // The site `name` (created at first use, kept until finish(), so verdicts
  // computed after its loop can ask it for their checks): its pilot is
  // reps() repetitions; in auto mode it may add a main experiment.
  Sequence& sequence(const std::string& name);
  // `n` more sites will run in this scenario: each may spend at most an even
  // share of the budget still left, so the first cannot spend the rest's.
  void expect_sequences(int n) { budget_.expect(n); }
  uint64_t seed() const { return seed_; }
  // The seed of one random stream of the run (a cell, a round, a kill
  // point): seed() + stream, so --seed replays every stream.
  uint64_t seed(uint64_t stream) const { return seed_ + stream; }
  // run_interleaved over reps() repetitions.
  int interleave(size_t arms, const std::function<void(size_t arm, int rep)>& cell, Order order = {}) const;
  // Scratch folder for the scenario's files: --dir (default ./fenec-scratch)
  // /<scenario>-<pid>; created by parse(), removed by finish() and on SIGINT/SIGTERM.
  const std::string& data_dir() const { return data_dir_; }
  Results& results() { return *results_; }
  // <--results>/<scenario>: where finish() writes latest.csv and latest.json.
  std::string results_dir() const;
  // plots/<scenario>/<name> (no extension), folder created.
  std::string plot_path(const std::string& name) const;
  // plot_path(name) + ".png": where a verdict points at its chart.
  std::string plot_png(const std::string& name) const { return plot_path(name) + ".png"; }

  // A part of the run failed (a cell broke, a check found lost data): said
  // at the end of finish() (once, however often it was failed), which then
  // returns 1.
  void fail(std::string what);
  bool failed() const { return !failures_.empty(); }

  // Writes results (results/<scenario>/ and any --csv/--json), prints the
  // verdict table and every fail(), removes the scratch folder. The exit code
  // is decided here alone: 130 if interrupted (kit::stop_requested()), else 1
  // if a part failed or the results could not be written, else 0.
  int finish();

 private:
  std::string scenario_;
  std::string reps_help() const;
  int cap() const;  // auto mode: most repetitions a site makes
  Flag& add_flag(const std::string& name, Flag::Target target, const std::string& help, FlagValue full,
                 FlagValue quick);
  std::unique_ptr<CLI::App> app_;
  std::deque<Flag> flags_;  // deques: references handed out stay valid
  std::deque<std::string> choice_text_;
  std::vector<std::function<void()>> after_parse_;
  std::vector<std::string> failures_;
  bool quick_ = false;
  std::string reps_text_;
  RepsPlan plan_;
  int default_reps_[2] = {3, 5};  // quick, full
  double default_budget_[2] = {30, 300};  // seconds: quick, full
  int default_cap_[2] = {0, 0};
  RepsBudget budget_;
  std::deque<Sequence> sequences_;  // a deque: references handed out stay valid
  uint64_t seed_ = 0;
  std::string seed_arg_, results_root_ = "results", plots_root_ = "plots", scratch_root_ = "fenec-scratch";
  std::string csv_path_, json_path_, data_dir_;
  std::unique_ptr<Results> results_;
  MachineSample machine_start_;
};

}  // namespace fenec::kit
