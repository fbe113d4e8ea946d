// The iobench command line: each subcommand registers itself (flags and a run
// function) on the root CLI11 app. Flags shared by all: --dir, --csv, --json.
// A bad value found after parsing is a UsageError: one line, exit 2, like a
// bad flag.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "iobench/kit/results.h"

namespace fenec::iobench {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct CommonOpts {
  std::string dir = ".";
  std::string csv, json;
  std::string seed;  // empty = random, logged
};

void add_common_flags(CLI::App* sub, CommonOpts* o, bool with_seed = false);
// The seed to use, from --seed or random; logged on stderr ("seed=N").
uint64_t resolve_seed(const CommonOpts& o);
// Results tagged scenario "io" with the run metadata of o.dir.
std::unique_ptr<kit::Results> make_results(const CommonOpts& o, const std::string& command);
// Writes --csv/--json if given; returns 1 (with a message) if a write failed.
int emit(const kit::Results& r, const CommonOpts& o);
// What every subcommand does first: --dir must be an existing directory
// (UsageError otherwise), and with --csv - or --json - stdout is kept for
// that data alone (kit::hold_stdout_for_data): tables and progress go to stderr.
void begin_run(const CommonOpts& o);

using RunFn = std::function<int()>;
RunFn register_sweep(CLI::App& root);
RunFn register_probe(CLI::App& root);
RunFn register_syncmethods(CLI::App& root);
RunFn register_lies(CLI::App& root);
RunFn register_coherence(CLI::App& root);
RunFn register_diskcheck(CLI::App& root);
RunFn register_advise(CLI::App& root);
RunFn register_fleet(CLI::App& root);

}  // namespace fenec::iobench
