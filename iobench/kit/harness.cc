#include "iobench/kit/harness.h"
#include "engine/src/base/cli.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <random>

#include "iobench/kit/interrupt.h"
#include "iobench/kit/console.h"

namespace fenec::kit {
namespace {

bool parse_seed(const std::string& s, uint64_t* out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
  try {
    *out = std::stoull(s);
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

std::string show(int v) { return std::to_string(v); }
std::string show(unsigned v) { return std::to_string(v); }
std::string show(uint64_t v) { return std::to_string(v); }
std::string show(double v) { return fmt::format("{:g}", v); }
std::string show(float v) { return fmt::format("{:g}", v); }
std::string show(const std::string& v) { return v.empty() ? "none" : v; }
template <class T>
std::string show(const std::vector<T>& v) {
  if (v.empty()) return "none";
  std::string out;
  for (const T& x : v) out += (out.empty() ? "" : ",") + show(x);
  return out;
}
std::string show(const FlagValue& v) {
  return std::visit([](const auto& x) { return show(x); }, v);
}

}  // namespace

Flag& Flag::range(double lo, double hi) {
  const bool integral = std::visit(
      [](auto* p) {
        using T = std::remove_pointer_t<decltype(p)>;
        return !std::is_floating_point_v<T> && !std::is_same_v<T, std::vector<double>>;
      },
      target_);
  if (integral) {
    opt_->check(CLI::Range(static_cast<int64_t>(lo), static_cast<int64_t>(hi)));
  } else {
    opt_->check(CLI::Range(lo, hi));
  }
  return *this;
}

Flag& Flag::one_of(const std::vector<std::string>& names) {
  opt_->check(CLI::IsMember(names));
  return *this;
}

Flag& Flag::check(std::function<std::string(const std::string&)> check) {
  opt_->check(std::move(check));
  return *this;
}

Flag& Flag::default_text(std::string text) {
  default_text_ = std::move(text);
  describe();
  return *this;
}

bool Flag::given() const { return opt_->count() > 0; }

void Flag::describe() {
  if (is_switch_) {
    opt_->description(help_);
    return;
  }
  const std::string full = default_text_.empty() ? show(full_) : default_text_, quick = show(quick_);
  opt_->description(full_ == quick_ ? fmt::format("{} (default {})", help_, full)
                        : fmt::format("{} (default {}; quick {})", help_, full, quick));
}

void Flag::apply(bool quick) {
  if (is_switch_ || given()) return;
  std::visit(
      [this, quick](auto* p) {
        using T = std::remove_pointer_t<decltype(p)>;
        *p = std::get<T>(quick ? quick_ : full_);
      },
      target_);
}

Harness::Harness(std::string scenario, std::string description)
    : scenario_(std::move(scenario)),
      app_(std::make_unique<CLI::App>(std::move(description), scenario_ + "-bench")) {
  // Placeholder until parse() collects the real metadata, so results() is never null.
  results_ = std::make_unique<Results>(scenario_, Metadata{});
  app_->add_flag("--quick", quick_, "Quick mode: fewer cases and shorter runs (what `make bench` runs)");
  app_->add_option("--seed", seed_arg_,
                  "Seed for every random choice (default: $FENEC_SEED, else random; logged as seed=N)")
      ->type_name("N");
  app_->add_option("--results", results_root_, "Results root; writes <DIR>/" + scenario_ + "/")
      ->type_name("DIR")
      ->capture_default_str();
  app_->add_option("--plots", plots_root_, "Plots root; writes <DIR>/" + scenario_ + "/")
      ->type_name("DIR")
      ->capture_default_str();
  app_->add_option("--dir", scratch_root_,
                  "Scratch root for the scenario's files (the filesystem under test); "
                  "uses <DIR>/" + scenario_ + "-<pid>, removed at the end")
      ->type_name("DIR")
      ->capture_default_str();
  app_->add_option("--reps", reps_text_, reps_help())
      ->type_name("N|auto[:BUDGET[:CAP]]")
      ->check([](const std::string& v) {
        RepsPlan p;
        return parse_reps(v, &p);
      });
  app_->add_option("--csv", csv_path_, "Also write the CSV here ('-' = stdout)")->type_name("PATH");
  app_->add_option("--json", json_path_, "Also write the JSON sidecar here ('-' = stdout)")
      ->type_name("PATH");
}

Flag& Harness::add_flag(const std::string& name, Flag::Target target, const std::string& help, FlagValue full,
                        FlagValue quick) {
  Flag& f = flags_.emplace_back();
  f.help_ = help;
  f.target_ = target;
  f.full_ = std::move(full);
  f.quick_ = std::move(quick);
  f.opt_ = std::visit([&](auto* p) { return app_->add_option(name, *p); }, target);
  std::visit(
      [&f](auto* p) {
        using T = std::remove_pointer_t<decltype(p)>;
        if constexpr (!std::is_arithmetic_v<T> && !std::is_same_v<T, std::string>) f.opt_->delimiter(',');
      },
      target);
  f.describe();
  return f;
}

Flag& Harness::flag(const std::string& name, bool* out, const std::string& help) {
  Flag& f = flags_.emplace_back();
  f.is_switch_ = true;
  f.help_ = help;
  f.opt_ = app_->add_flag(name, *out);
  f.describe();
  return f;
}

void Harness::footer(const std::string& text) { app_->footer(text); }

void Harness::fail(std::string what) {
  if (std::find(failures_.begin(), failures_.end(), what) == failures_.end()) failures_.push_back(std::move(what));
}

int Harness::interleave(size_t arms, const std::function<void(size_t arm, int rep)>& cell, Order order) const {
  return run_interleaved(reps(), arms, cell, order);
}

Sequence& Harness::sequence(const std::string& name) {
  for (Sequence& s : sequences_)
    if (s.name() == name) return s;
  SequencePolicy p;
  p.automatic = plan_.automatic;
  p.pilot = reps();
  p.cap = cap();
  return sequences_.emplace_back(name, p, &budget_);
}

int Harness::cap() const {
  const int cap = plan_.cap > 0 ? plan_.cap : default_cap_[quick_ ? 0 : 1];
  return std::max(cap > 0 ? cap : std::max(12, 4 * reps()), reps());
}

std::string Harness::reps_help() const {
  return fmt::format(
      "Repetitions of every cell's arms, run interleaved (A B A B ...) so drift hits each arm alike; headline "
      "ratios get 95% intervals from them. N: exactly N (default {} quick, {} full). auto (the default; "
      "$FENEC_REPS too): that many as a pilot, then, where a verdict's check straddles its line, one main "
      "experiment of new repetitions planned from the pilot, within BUDGET seconds for the run (default {:g} "
      "quick, {:g} full) and CAP repetitions a cell (iobench/doc/sequential.md)",
      default_reps_[0], default_reps_[1], default_budget_[0], default_budget_[1]);
}

Harness::~Harness() {
  if (!data_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(data_dir_, ec);
  }
}

int Harness::parse(int argc, char** argv) {
  if (int rc = base::ParseFlags(*app_, argc, argv); rc >= 0) return rc;
  for (Flag& f : flags_) f.apply(quick_);
  for (const auto& hook : after_parse_) hook();
  const char* env_reps = std::getenv("FENEC_REPS");
  const std::string reps_text = !reps_text_.empty() ? reps_text_ : (env_reps && *env_reps ? env_reps : "auto");
  if (std::string err = parse_reps(reps_text, &plan_); !err.empty()) {
    std::cerr << fmt::format("{0}: {1}: {2}; see {0} --help\n", app_->get_name(),
                             reps_text_.empty() ? "FENEC_REPS" : "--reps", err);
    return 2;
  }
  if (plan_.automatic && plan_.budget_s < 0) plan_.budget_s = default_budget_[quick_ ? 0 : 1];
  budget_ = RepsBudget(plan_.automatic ? plan_.budget_s : 0);
  const char* env_seed = std::getenv("FENEC_SEED");
  const std::string seed_text = !seed_arg_.empty() ? seed_arg_ : (env_seed ? env_seed : "");
  if (!seed_text.empty()) {
    if (!parse_seed(seed_text, &seed_)) {
      std::cerr << fmt::format("{0}: --seed: '{1}' is not a non-negative integer; see {0} --help\n", app_->get_name(),
                               seed_text);
      return 2;
    }
  } else {
    std::random_device rd;
    seed_ = (static_cast<uint64_t>(rd()) << 32) | rd();
  }
  std::cerr << fmt::format("seed={}\n", seed_);

  namespace fs = std::filesystem;
  data_dir_ = (fs::path(scratch_root_) / fmt::format("{}-{}", scenario_, getpid())).string();
  std::error_code ec;
  fs::create_directories(data_dir_, ec);
  if (ec) {
    std::cerr << fmt::format("{}: cannot create scratch dir {}: {}\n", app_->get_name(), data_dir_, ec.message());
    data_dir_.clear();
    return 2;
  }

  Metadata meta = Metadata::collect(data_dir_, quick_);
  meta.set("seed", std::to_string(seed_));
  meta.set("reps", plan_.automatic ? fmt::format("auto:{:g}:{} (pilot {})", plan_.budget_s, cap(), reps())
                                    : std::to_string(reps()));
  std::string args;
  for (int i = 1; i < argc; ++i) args += (i > 1 ? " " : "") + std::string(argv[i]);
  meta.set("args", args);
  results_ = std::make_unique<Results>(scenario_, std::move(meta));
  machine_start_ = sample_machine();
  if (std::string err = hold_stdout_for_data(csv_path_, json_path_); !err.empty()) {
    std::cerr << fmt::format("{0}: {1}; see {0} --help\n", app_->get_name(), err);
    return 2;
  }
  kit::install_stop_handlers();
  return -1;
}

std::string Harness::results_dir() const { return (std::filesystem::path(results_root_) / scenario_).string(); }

std::string Harness::plot_path(const std::string& name) const {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(plots_root_) / scenario_;
  std::error_code ec;
  fs::create_directories(dir, ec);
  return (dir / name).string();
}

int Harness::finish() {
  const bool stopped = kit::stop_requested();
  if (stopped) results_->mark_incomplete("interrupted");
  record_machine(results_->meta(), machine_start_, sample_machine());
  std::string seqs;
  for (const Sequence& q : sequences_) seqs += fmt::format("{}{}: {}", seqs.empty() ? "" : "; ", q.name(), q.summary());
  if (!seqs.empty()) results_->meta().set("sequences", seqs);

  if (!results_->verdicts().empty()) {
    Table t({"finding", "source", "ours", "verdict", "why", "plot"});
    for (const auto& v : results_->verdicts())
      t.row({v.finding, v.source, v.ours, outcome_name(v.outcome), v.reason, v.plot});
    std::cout << "\n" << t.str();
  }
  if (std::string note = machine_note(results_->meta()); !note.empty()) std::cout << note << "\n";
  for (const auto& s : results_->skips()) {
    std::cout << fmt::format("skipped: {} {}: {}\n", s.arm, s.case_, s.reason);
  }

  int rc = stopped ? 130 : 0;
  const std::string dir = results_dir();
  if (auto err = results_->write_dir(dir); !err.empty()) {
    std::cerr << fmt::format("{}: writing results: {}\n", app_->get_name(), err);
    rc = stopped ? 130 : 1;
  } else {
    std::cout << fmt::format("results: wrote {0}/latest.csv, {0}/latest.json, {0}/verdicts.md{1}\n",
                             dir, stopped ? " (incomplete: interrupted)" : "");
  }
  for (const auto& [path, write] :
       {std::pair{csv_path_, &Results::write_csv}, std::pair{json_path_, &Results::write_json}}) {
    if (path.empty()) continue;
    if (auto err = (results_.get()->*write)(path); !err.empty()) {
      std::cerr << fmt::format("{}: writing {}: {}\n", app_->get_name(), path, err);
      if (rc == 0) rc = 1;
    }
  }
  std::cout << std::flush;
  for (const std::string& what : failures_) std::cerr << fmt::format("{}: {}\n", app_->get_name(), what);
  if (rc == 0 && !failures_.empty()) rc = 1;

  if (!data_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(data_dir_, ec);
    // The root too, if this run was its only user (fails harmlessly otherwise).
    std::filesystem::remove(scratch_root_, ec);
    data_dir_.clear();
  }
  return rc;
}

void Harness::set_default_reps(int quick, int full) {
  default_reps_[0] = std::max(3, quick);
  default_reps_[1] = std::max(5, full);
  app_->get_option("--reps")->description(reps_help());
}

void Harness::set_default_budget(double quick_s, double full_s, int quick_cap, int full_cap) {
  default_budget_[0] = quick_s;
  default_budget_[1] = full_s;
  default_cap_[0] = quick_cap;
  default_cap_[1] = full_cap;
  app_->get_option("--reps")->description(reps_help());
}

}  // namespace fenec::kit
