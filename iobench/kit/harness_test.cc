#include "engine/src/base/testing.h"
#include "iobench/kit/harness.h"
#include "iobench/kit/interrupt.h"
#include "iobench/kit/proc.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace fenec::kit {
namespace harness_test {

namespace fs = std::filesystem;

class HarnessTest : public base::ScratchTest {
 protected:
  void SetUp() override {
    base::ScratchTest::SetUp();
    root_ = dir();
    unsetenv("FENEC_SEED");
    unsetenv("FENEC_REPS");
    kit::clear_stop_request();
  }

  // argv with the output roots pointed into this test's temp folder.
  int parse(Harness& h, std::vector<std::string> args) {
    args.insert(args.begin(), {"t-bench", "--results", (root_ / "results").string(), "--plots",
                               (root_ / "plots").string(), "--dir", (root_ / "scratch").string()});
    argv_storage_ = args;
    argv_.clear();
    for (auto& a : argv_storage_) argv_.push_back(a.data());
    argv_.push_back(nullptr);
    return h.parse(static_cast<int>(argv_storage_.size()), argv_.data());
  }

  static std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  fs::path root_;
  std::vector<std::string> argv_storage_;
  std::vector<char*> argv_;
};

TEST_F(HarnessTest, BadFlagReturnsTwoWithOneLine) {
  Harness h("t", "test scenario");
  testing::internal::CaptureStderr();
  EXPECT_EQ(parse(h, {"--no-such-flag"}), 2);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.rfind("t-bench: ", 0), 0u) << err;
  EXPECT_NE(err.find("see t-bench --help"), std::string::npos);
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST_F(HarnessTest, BadSeedReturnsTwo) {
  Harness h("t", "test scenario");
  testing::internal::CaptureStderr();
  EXPECT_EQ(parse(h, {"--seed", "12abc"}), 2);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "t-bench: --seed: '12abc' is not a non-negative integer; see t-bench --help\n");
}

TEST_F(HarnessTest, HelpReturnsZeroAndExplains) {
  Harness h("t", "test scenario: what it measures");
  int extra = 0;
  h.flag("--extra", &extra, "A driver's own flag", 0);
  testing::internal::CaptureStdout();
  EXPECT_EQ(parse(h, {"--help"}), 0);
  const std::string out = testing::internal::GetCapturedStdout();
  for (const char* s : {"test scenario: what it measures", "--quick", "--seed", "--results",
                        "--plots", "--dir", "--csv", "--json", "--extra"}) {
    EXPECT_NE(out.find(s), std::string::npos) << s;
  }
  EXPECT_FALSE(fs::exists(root_ / "scratch"));  // --help touches nothing
}

// A driver's flags, declared once the way a scenario declares them.
struct Flags {
  int rows = -1;
  double seconds = -1;
  uint64_t max_puts = 0;
  std::vector<int> writers;
  std::vector<std::string> modes;
  std::string server = "unset";
  bool skip = false, recovery = true;
  enum class Pin { kSame, kApart } pin = Pin::kApart;
  Flag* writers_flag = nullptr;

  void declare(Harness& h) {
    h.flag("--rows", &rows, "rows to load", 1'000'000, 20'000).range(100, 1e8);
    h.flag("--seconds", &seconds, "seconds a cell", 1.5, 0.15).range(0.01, 600);
    h.flag("--max-puts", &max_puts, "most puts a cell", 500000);
    writers_flag = &h.flag("--writers", &writers, "writer threads a cell", {1, 4, 16}, {1, 16}).range(1, 256);
    h.flag("--modes", &modes, "journal modes", {"separate", "shared"}).one_of({"separate", "shared"});
    h.flag("--server", &server, "the server binary", "").default_text("this build's fenec-server");
    h.flag("--skip-x", &skip, "skip the x part");
    h.flag("!--no-recovery", &recovery, "skip the recovery rounds");
    h.choice("--pin", &pin, "where the client runs", {{"same", Pin::kSame}, {"apart", Pin::kApart}}, "same");
  }
};

TEST_F(HarnessTest, HelpShowsEachFlagWithBothDefaults) {
  Harness h("t", "test scenario: what it measures");
  Flags f;
  f.declare(h);
  h.footer("What the verdicts judge.");
  testing::internal::CaptureStdout();
  EXPECT_EQ(parse(h, {"--help"}), 0);
  const std::string out = testing::internal::GetCapturedStdout();
  for (const char* s : {"rows to load (default 1000000; quick 20000)", "seconds a cell (default 1.5; quick 0.15)",
                        "most puts a cell (default 500000)", "writer threads a cell (default 1,4,16; quick 1,16)",
                        "journal modes (default separate,shared)",
                        "the server binary (default this build's fenec-server)", "skip the x part",
                        "--no-recovery", "where the client runs (default same)",
                        "What the verdicts judge."}) {
    EXPECT_NE(out.find(s), std::string::npos) << s << "\n" << out;
  }
}

TEST_F(HarnessTest, QuickAppliesQuickDefaults) {
  Harness h("t", "test scenario");
  Flags f;
  f.declare(h);
  testing::internal::CaptureStderr();
  ASSERT_EQ(parse(h, {"--quick"}), -1);
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(f.rows, 20'000);
  EXPECT_DOUBLE_EQ(f.seconds, 0.15);
  EXPECT_EQ(f.max_puts, 500000u);
  EXPECT_EQ(f.writers, (std::vector<int>{1, 16}));
  EXPECT_EQ(f.modes, (std::vector<std::string>{"separate", "shared"}));
  EXPECT_EQ(f.server, "");
  EXPECT_FALSE(f.skip);
  EXPECT_TRUE(f.recovery);
  EXPECT_EQ(f.pin, Flags::Pin::kSame);
  EXPECT_FALSE(f.writers_flag->given());
}

TEST_F(HarnessTest, FullAppliesFullDefaults) {
  Harness h("t", "test scenario");
  Flags f;
  f.declare(h);
  testing::internal::CaptureStderr();
  ASSERT_EQ(parse(h, {}), -1);
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(f.rows, 1'000'000);
  EXPECT_DOUBLE_EQ(f.seconds, 1.5);
  EXPECT_EQ(f.writers, (std::vector<int>{1, 4, 16}));
}

TEST_F(HarnessTest, AnExplicitFlagWinsOverEitherDefault) {
  Harness h("t", "test scenario");
  Flags f;
  f.declare(h);
  testing::internal::CaptureStderr();
  ASSERT_EQ(parse(h, {"--quick", "--rows", "500", "--writers", "2,8", "--modes", "shared", "--skip-x",
                      "--no-recovery", "--pin", "apart", "--seconds", "3"}),
            -1);
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(f.rows, 500);
  EXPECT_DOUBLE_EQ(f.seconds, 3);
  EXPECT_EQ(f.writers, (std::vector<int>{2, 8}));
  EXPECT_TRUE(f.writers_flag->given());
  EXPECT_EQ(f.modes, (std::vector<std::string>{"shared"}));
  EXPECT_TRUE(f.skip);
  EXPECT_FALSE(f.recovery);
  EXPECT_EQ(f.pin, Flags::Pin::kApart);
}

TEST_F(HarnessTest, ABadFlagValueIsOneLineAndExitTwo) {
  for (std::vector<std::string> args : {std::vector<std::string>{"--rows", "5"}, {"--writers", "1,x"},
                                        {"--modes", "other"}, {"--pin", "nowhere"}, {"--rows"}}) {
    Harness h("t", "test scenario");
    Flags f;
    f.declare(h);
    testing::internal::CaptureStderr();
    EXPECT_EQ(parse(h, args), 2) << args[0];
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(err.rfind("t-bench: ", 0), 0u) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  }
}

TEST_F(HarnessTest, InterleaveRotatesTheFirstArm) {
  std::vector<std::pair<size_t, int>> ran;
  EXPECT_EQ(run_interleaved(3, 3, [&](size_t a, int r) { ran.emplace_back(a, r); }, Order{true, 1}), 3);
  const std::vector<std::pair<size_t, int>> want = {{1, 0}, {2, 0}, {0, 0}, {2, 1}, {0, 1},
                                                    {1, 1}, {0, 2}, {1, 2}, {2, 2}};
  EXPECT_EQ(ran, want);
  ran.clear();
  EXPECT_EQ(run_interleaved(2, 2, [&](size_t a, int r) { ran.emplace_back(a, r); }), 2);
  EXPECT_EQ(ran, (std::vector<std::pair<size_t, int>>{{0, 0}, {1, 0}, {0, 1}, {1, 1}}));
}

TEST_F(HarnessTest, AFailedPartMakesTheExitCodeOne) {
  Harness h("t", "test scenario");
  testing::internal::CaptureStderr();
  ASSERT_EQ(parse(h, {"--seed", "3"}), -1);
  EXPECT_EQ(h.seed(5), 8u);
  h.fail("RECOVERY FAILED: 2 puts missing");
  testing::internal::CaptureStdout();
  EXPECT_EQ(h.finish(), 1);
  testing::internal::GetCapturedStdout();
  EXPECT_NE(testing::internal::GetCapturedStderr().find("t-bench: RECOVERY FAILED: 2 puts missing\n"),
            std::string::npos);
}

TEST_F(HarnessTest, SeedFlagIsHonouredAndLogged) {
  setenv("FENEC_SEED", "7", 1);  // the flag wins over the environment
  Harness h("t", "test scenario");
  testing::internal::CaptureStderr();
  ASSERT_EQ(parse(h, {"--seed", "42", "--quick"}), -1);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("seed=42\n"), std::string::npos);
  EXPECT_EQ(h.seed(), 42u);
  EXPECT_TRUE(h.quick());
  EXPECT_EQ(h.results().meta().kv.at("seed"), "42");
  EXPECT_EQ(h.results().meta().kv.at("quick"), "true");
  testing::internal::CaptureStdout();
  EXPECT_EQ(h.finish(), 0);
  testing::internal::GetCapturedStdout();
}

// --reps: auto by default (the pilot is the scenario's count), a count,
// FENEC_REPS when the flag is not given, and one line for a bad value.
TEST_F(HarnessTest, RepsAreAutoByDefaultACountWhenGivenAndFromTheEnvironment) {
  {
    Harness h("t", "test scenario");
    h.set_default_reps(4, 6);
    h.set_default_budget(20, 200, 10, 0);
    testing::internal::CaptureStderr();
    ASSERT_EQ(parse(h, {"--quick"}), -1);
    testing::internal::GetCapturedStderr();
    EXPECT_TRUE(h.auto_reps());
    EXPECT_EQ(h.reps(), 4);
    EXPECT_EQ(h.results().meta().kv.at("reps"), "auto:20:10 (pilot 4)");
    Sequence& s = h.sequence("x");
    EXPECT_EQ(&s, &h.sequence("x"));  // one site a name
    EXPECT_TRUE(s.automatic());
  }
  {
    Harness h("t", "test scenario");
    testing::internal::CaptureStderr();
    ASSERT_EQ(parse(h, {"--reps", "7"}), -1);
    testing::internal::GetCapturedStderr();
    EXPECT_FALSE(h.auto_reps());
    EXPECT_EQ(h.reps(), 7);
    EXPECT_FALSE(h.sequence("x").automatic());
    EXPECT_EQ(h.results().meta().kv.at("reps"), "7");
  }
  {
    setenv("FENEC_REPS", "auto:90:20", 1);
    Harness h("t", "test scenario");
    testing::internal::CaptureStderr();
    ASSERT_EQ(parse(h, {}), -1);
    testing::internal::GetCapturedStderr();
    EXPECT_EQ(h.results().meta().kv.at("reps"), "auto:90:20 (pilot 5)");
    unsetenv("FENEC_REPS");
  }
  {
    Harness h("t", "test scenario");
    testing::internal::CaptureStderr();
    EXPECT_EQ(parse(h, {"--reps", "auto:x"}), 2);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("--reps"), std::string::npos) << err;
  }
}

TEST_F(HarnessTest, SeedFromEnvironment) {
  setenv("FENEC_SEED", "1234", 1);
  Harness h("t", "test scenario");
  testing::internal::CaptureStderr();
  ASSERT_EQ(parse(h, {}), -1);
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(h.seed(), 1234u);
  unsetenv("FENEC_SEED");
}

TEST_F(HarnessTest, ScratchCreatedThenRemovedAndResultsWritten) {
  Harness h("t", "test scenario");
  testing::internal::CaptureStderr();
  ASSERT_EQ(parse(h, {"--csv", (root_ / "extra.csv").string()}), -1);
  testing::internal::GetCapturedStderr();
  const fs::path data = h.data_dir();
  EXPECT_TRUE(fs::is_directory(data));
  EXPECT_EQ(data.filename().string(), "t-" + std::to_string(getpid()));
  std::ofstream(data / "file") << "x";
  const std::string plot = h.plot_path("chart");
  EXPECT_EQ(plot, (root_ / "plots" / "t" / "chart").string());
  EXPECT_TRUE(fs::is_directory(root_ / "plots" / "t"));
  h.results().add("IO-1", "arm", "case", "iops", 5, "ops/s");
  h.results().verdict({"IO-1", "claim", "3x", "3.1x", Outcome::kReproduced, "", ""});
  testing::internal::CaptureStdout();
  EXPECT_EQ(h.finish(), 0);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("IO-1"), std::string::npos);
  EXPECT_NE(out.find("reproduced"), std::string::npos);
  EXPECT_NE(out.find("latest.csv"), std::string::npos);
  EXPECT_FALSE(fs::exists(data));
  EXPECT_FALSE(fs::exists(root_ / "scratch"));
  const std::string csv = slurp(root_ / "results" / "t" / "latest.csv");
  EXPECT_NE(csv.find("IO-1,t,arm,case,iops,5,ops/s\n"), std::string::npos) << csv;
  EXPECT_EQ(slurp(root_ / "extra.csv"), csv);
  EXPECT_TRUE(fs::exists(root_ / "results" / "t" / "latest.json"));
  EXPECT_TRUE(fs::exists(root_ / "results" / "t" / "verdicts.md"));
}

TEST_F(HarnessTest, SigintMarksIncompleteAndReturns130) {
  Harness h("t", "test scenario");
  testing::internal::CaptureStderr();
  ASSERT_EQ(parse(h, {}), -1);
  EXPECT_FALSE(kit::stop_requested());
  std::raise(SIGINT);  // the handler only sets the flag; the process lives on
  testing::internal::GetCapturedStderr();
  EXPECT_TRUE(kit::stop_requested());
  const fs::path data = h.data_dir();
  testing::internal::CaptureStdout();
  EXPECT_EQ(h.finish(), 130);
  testing::internal::GetCapturedStdout();
  EXPECT_FALSE(fs::exists(data));
  EXPECT_NE(slurp(root_ / "results" / "t" / "latest.csv").find("# incomplete=interrupted\n"),
            std::string::npos);
  kit::clear_stop_request();
}

// --csv - keeps stdout for the CSV alone: what the driver prints meanwhile
// (tables, verdicts, "results: wrote ...") goes to stderr. In a child, since
// the harness moves the process's fd 1 for good.
TEST_F(HarnessTest, CsvOnStdoutIsTheCsvAlone) {
  const std::string out_path = (root_ / "stdout").string(), err_path = (root_ / "stderr").string();
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::freopen(out_path.c_str(), "w", stdout);
    std::freopen(err_path.c_str(), "w", stderr);
    Harness h("t", "test scenario");
    if (parse(h, {"--csv", "-"}) != -1) _exit(3);
    std::cout << "a driver's table\n";
    h.results().add("IO-1", "arm", "case", "iops", 5, "ops/s");
    h.results().verdict({"IO-1", "claim", "3x", "3.1x", Outcome::kReproduced, "", ""});
    _exit(h.finish());
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  const std::string out = slurp(out_path), err = slurp(err_path);
  EXPECT_EQ(out, slurp(root_ / "results" / "t" / "latest.csv"));
  EXPECT_NE(err.find("a driver's table"), std::string::npos) << err;
  EXPECT_NE(err.find("reproduced"), std::string::npos) << err;
  EXPECT_NE(err.find("latest.csv"), std::string::npos) << err;
}

TEST_F(HarnessTest, DestructorRemovesScratchWithoutFinish) {
  fs::path data;
  {
    Harness h("t", "test scenario");
    testing::internal::CaptureStderr();
    ASSERT_EQ(parse(h, {}), -1);
    testing::internal::GetCapturedStderr();
    data = h.data_dir();
    EXPECT_TRUE(fs::exists(data));
  }
  EXPECT_FALSE(fs::exists(data));
}

}  // namespace harness_test
}  // namespace fenec::kit

// The /proc reader requests-bench divides by its requests: a process's
// threads' CPU, in nanoseconds, growing as it runs; -1 for no such process.
TEST(ProcessCpu, GrowsAsThisProcessRunsAndIsUnknownForNoProcess) {
  const double before = fenec::kit::process_cpu_seconds(static_cast<int>(getpid()));
  ASSERT_GE(before, 0);
  volatile uint64_t spin = 0;
  double now = before;
  while (now <= before) {
    for (int i = 0; i < 1000000; ++i) spin = spin + static_cast<uint64_t>(i);
    now = fenec::kit::process_cpu_seconds(static_cast<int>(getpid()));
  }
  EXPECT_GT(now, before);
  EXPECT_EQ(fenec::kit::process_cpu_seconds(-1), -1);
}
