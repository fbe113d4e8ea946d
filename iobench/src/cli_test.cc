// The iobench binary as a user meets it: bad flags and bad values exit 2 with
// one line, --help exits 0, O_DIRECT on tmpfs is skipped with the reason, and
// Ctrl-C removes the scratch files and marks the results incomplete.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fcntl.h>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <vector>

#include "engine/src/base/testing.h"
#include "iobench/src/submit.h"

extern char** environ;

namespace fenec::iobench {
namespace cli_test {

struct Outcome {
  int code = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const char* binary() {
  const char* b = std::getenv("IOBENCH");
  return b ? b : "iobench";
}

pid_t spawn(const std::vector<std::string>& args, const std::string& out, const std::string& err) {
  std::vector<char*> argv;
  std::string bin = binary();
  argv.push_back(bin.data());
  std::vector<std::string> copy = args;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, bin.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  return rc == 0 ? pid : -1;
}

Outcome run(const std::vector<std::string>& args, const base::ScratchDir& scratch) {
  Outcome r;
  // Beside the scratch folder, not in it (a run may empty it), and named
  // after it: the shards of this executable run at once.
  std::string out = scratch.path() + ".out.txt", err = scratch.path() + ".err.txt";
  pid_t pid = spawn(args, out, err);
  if (pid < 0) return r;
  int status = 0;
  waitpid(pid, &status, 0);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  std::remove(out.c_str());
  std::remove(err.c_str());
  return r;
}

size_t lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

class Cli : public ::testing::Test {
 protected:
  base::ScratchDir dir_{"cli"};
};

TEST_F(Cli, BadFlagsAndValuesExitTwoWithOneLine) {
  const std::vector<std::vector<std::string>> bad = {
      {"sweep", "--bogus"},
      {"nosuchcommand"},
      {},
      {"sweep", "--dir", dir_.path(), "--modes", "osync"},
      {"sweep", "--dir", dir_.path(), "--sizes", "0"},
      {"sweep", "--dir", dir_.path(), "--sizes", "4x"},
      {"sweep", "--dir", dir_.path(), "--jobs", "0"},
      {"sweep", "--dir", dir_.path(), "--submit", "aio"},
      {"sweep", "--dir", dir_.path(), "--duration", "soon"},
      {"sweep", "--dir", dir_.path() + "/missing"},
      {"sweep", "--dir", dir_.path(), "--batch", "x"},
      {"coherence", "--dir", dir_.path(), "--rounds", "0"},
      {"diskcheck", "write", "--dir", dir_.path(), "--mode", "buffered"},
      {"advise", "--dir", dir_.path(), "--engines", "mysql"},
      {"advise", "--dir", dir_.path(), "--cpu-us", "fenecdb=fast"},
      {"advise", "--dir", dir_.path(), "--writers", "0"},
  };
  for (const auto& args : bad) {
    Outcome r = run(args, dir_);
    std::string shown;
    for (const auto& a : args) shown += a + " ";
    EXPECT_EQ(r.code, 2) << shown << "\n" << r.err;
    EXPECT_EQ(lines(r.err), 1u) << shown << "\n" << r.err;
  }
}

TEST_F(Cli, DirectSizeOffAlignmentSaysWhich) {
  Outcome r = run({"sweep", "--dir", dir_.path(), "--modes", "direct", "--sizes", "1000", "--seed", "1"}, dir_);
  if (r.err.find("not a multiple") == std::string::npos) GTEST_SKIP() << "no O_DIRECT alignment here: " << r.err;
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("1000"), std::string::npos) << r.err;
}

TEST_F(Cli, EveryCommandHasHelp) {
  for (const char* cmd : {"sweep", "syncmethods", "probe", "lies", "coherence", "diskcheck", "advise"}) {
    Outcome r = run({cmd, "--help"}, dir_);
    EXPECT_EQ(r.code, 0) << cmd;
    EXPECT_NE(r.out.find("--dir"), std::string::npos) << cmd << " help mentions --dir";
    if (std::string(cmd) != "diskcheck") {
      EXPECT_NE(r.out.find("--json"), std::string::npos) << cmd;
    }
  }
  for (const char* sub : {"serve", "write", "verify"}) {
    Outcome r = run({"diskcheck", sub, "--help"}, dir_);
    EXPECT_EQ(r.code, 0) << sub;
    EXPECT_NE(r.out.find("--csv"), std::string::npos) << sub;
  }
}

// The help lists the paths from the registry: a path registered is a path
// the user can find, with its line.
TEST_F(Cli, HelpListsEveryRegisteredPath) {
  Outcome top = run({"--help"}, dir_);
  Outcome sweep = run({"sweep", "--help"}, dir_);
  ASSERT_EQ(top.code, 0);
  ASSERT_EQ(sweep.code, 0);
  EXPECT_NE(top.out.find("(paths: " + submit_names() + ")"), std::string::npos) << top.out;
  EXPECT_NE(sweep.out.find("Submission paths: " + submit_names()), std::string::npos) << sweep.out;
  for (const SubmitPath* p : submit_paths()) {
    EXPECT_NE(sweep.out.find(std::string(p->name) + " "), std::string::npos) << p->name;
    EXPECT_NE(sweep.out.find(p->help), std::string::npos) << p->name << "'s help line\n" << sweep.out;
    if (p->max_depth > 1) {
      EXPECT_NE(sweep.out.find("--depth"), std::string::npos);
    }
  }
}

TEST_F(Cli, NullSweepWritesCsvAndJson) {
  std::string csv = dir_.path() + ".null.csv", json = dir_.path() + ".null.json";
  Outcome r = run({"sweep", "--dir", dir_.path(), "--submit", "null", "--modes", "fsync", "--sizes", "4k,8k",
               "--total", "64k", "--seed", "5", "--csv", csv, "--json", json},
              dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  std::string c = slurp(csv), j = slurp(json);
  std::remove(csv.c_str());
  std::remove(json.c_str());
  EXPECT_NE(c.find(",io,fsync+null,size=4k;jobs=1;layout=shared,writes,16,count"), std::string::npos) << c;
  EXPECT_NE(c.find(",io,fsync+null,size=8k;jobs=1;layout=shared,syncs,8,count"), std::string::npos) << c;
  EXPECT_NE(j.find("\"bins\""), std::string::npos);
  EXPECT_NE(r.err.find("seed=5"), std::string::npos);
}

// Given '-' for its CSV or JSON, a command keeps stdout for that data alone
// (fio's --output-format=json habit): tables and progress go to stderr.
TEST_F(Cli, DataOnStdoutIsTheDataAlone) {
  const std::vector<std::string> sweep = {"sweep", "--dir", dir_.path(), "--submit", "null", "--modes", "fsync",
                                          "--sizes", "4k", "--total", "64k", "--seed", "5"};
  for (const auto& base : {std::vector<std::string>{"probe", "--dir", dir_.path()}, sweep}) {
    auto json = base, csv = base;
    json.insert(json.end(), {"--json", "-"});
    csv.insert(csv.end(), {"--csv", "-"});
    Outcome j = run(json, dir_);
    ASSERT_EQ(j.code, 0) << j.err;
    ASSERT_FALSE(j.out.empty());
    EXPECT_EQ(j.out.front(), '{') << j.out.substr(0, 200);
    EXPECT_EQ(j.out[j.out.find_last_not_of('\n')], '}') << j.out.substr(j.out.size() - 200);
    EXPECT_NE(j.err.find(base[0] == "probe" ? "O_DIRECT" : "fsync+null"), std::string::npos)
        << "the human table goes to stderr: " << j.err;
    Outcome c = run(csv, dir_);
    ASSERT_EQ(c.code, 0) << c.err;
    std::istringstream rows(c.out);
    size_t data = 0;
    for (std::string line; std::getline(rows, line);) {
      if (line.rfind("# ", 0) == 0) continue;  // the run's metadata
      EXPECT_GE(std::count(line.begin(), line.end(), ','), 6) << "not a CSV row: " << line;
      ++data;
    }
    EXPECT_GE(data, 2u) << c.out;  // the header and at least one row
  }
  auto both = sweep;
  both.insert(both.end(), {"--csv", "-", "--json", "-"});
  Outcome r = run(both, dir_);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
}

// advise end to end over the null path: the measurements run, the advice is
// printed (to stderr, stdout being the JSON's), and the JSON is one document.
TEST_F(Cli, NullAdviseIsTheWholeCommand) {
  Outcome r = run({"advise", "--dir", dir_.path(), "--submit", "null", "--quick", "--engines", "fenecdb,sqlite",
                   "--writers", "1,4", "--cpu-us", "fenecdb=5", "--seed", "3", "--json", "-"},
                  dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_FALSE(r.out.empty());
  EXPECT_EQ(r.out.front(), '{');
  EXPECT_EQ(r.out[r.out.find_last_not_of('\n')], '}');
  EXPECT_NE(r.out.find("\"predictions\":["), std::string::npos);
  EXPECT_NE(r.err.find("options.commit_window_us"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("PRAGMA journal_mode = WAL;"), std::string::npos) << r.err;
}

TEST_F(Cli, DirectOnTmpfsIsSkippedWithTheReason) {
  if (access("/dev/shm", W_OK) != 0) GTEST_SKIP() << "no /dev/shm";
  Outcome r = run({"sweep", "--dir", "/dev/shm", "--modes", "direct-dsync", "--sizes", "4k", "--total", "64k"}, dir_);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("skipped"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("memory-backed"), std::string::npos) << r.out;
}

TEST_F(Cli, InterruptRemovesFilesAndMarksIncomplete) {
  std::string csv = dir_.path() + ".int.csv";
  std::string out = dir_.path() + ".int-out.txt", err = dir_.path() + ".int-err.txt";
  // fdatasync after every 4 KiB write: slow enough to be mid-cell when interrupted.
  pid_t pid = spawn({"sweep", "--dir", dir_.path(), "--modes", "fdatasync", "--sizes", "4k,8k", "--duration", "40s",
                     "--total", "256m", "--seed", "1", "--csv", csv},
                    out, err);
  ASSERT_GT(pid, 0);
  // Wait for the first cell's file, then Ctrl-C.
  bool started = false;
  for (int i = 0; i < 2000 && !started; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    started = dir_.entries() > 0;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(started);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130) << slurp(err);
  EXPECT_EQ(dir_.entries(), 0u) << "scratch files removed";
  std::string c = slurp(csv);
  EXPECT_NE(c.find("incomplete"), std::string::npos) << c;
  EXPECT_NE(c.find("interrupted"), std::string::npos) << c;
  for (const auto& f : {csv, out, err}) std::remove(f.c_str());
}

}  // namespace cli_test
}  // namespace fenec::iobench
