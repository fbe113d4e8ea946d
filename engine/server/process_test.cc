// The real fenec-server binary's startup: the token from a file
// or from FENEC_TOKEN instead of argv, and the flags it refuses with one
// line and exit 2 (an unreadable token file, a --max-body the engine could
// not journal, a budget below --max-body).
#include <gtest/gtest.h>
#include <fcntl.h>
#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "fenec/limits.h"
#include "engine/src/base/testing.h"

extern char** environ;

namespace fenec::server {
namespace {

struct Spawned {
  pid_t pid = -1;
  int out = -1, err = -1;  // the child's stdout and stderr, read ends
};

// Starts the binary with args, the test's environment plus `env`.
Spawned Spawn(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
  Spawned s;
  const char* bin = std::getenv("FENEC_SERVER_BIN");
  int out[2], err[2];
  if (bin == nullptr || pipe(out) != 0 || pipe(err) != 0) return s;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&fa, err[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  posix_spawn_file_actions_addclose(&fa, err[0]);
  std::vector<std::string> all = {bin};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> envs = env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::string(*e).rfind("FENEC_TOKEN=", 0) != 0) envs.emplace_back(*e);
  }
  std::vector<char*> envp;
  for (auto& e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);
  if (posix_spawn(&s.pid, bin, &fa, nullptr, argv.data(), envp.data()) != 0) s.pid = -1;
  posix_spawn_file_actions_destroy(&fa);
  close(out[1]);
  close(err[1]);
  s.out = out[0];
  s.err = err[0];
  return s;
}

std::string ReadLine(int fd) {
  std::string line;
  char ch;
  while (read(fd, &ch, 1) == 1 && ch != '\n') line += ch;
  return line;
}

std::string ReadAll(int fd) {
  std::string all;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) all.append(buf, static_cast<size_t>(n));
  return all;
}

int Wait(const Spawned& s) {
  int status = 0;
  if (waitpid(s.pid, &status, 0) != s.pid) return -1;
  close(s.out);
  close(s.err);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

class ProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::getenv("FENEC_SERVER_BIN") == nullptr) GTEST_SKIP() << "FENEC_SERVER_BIN not set (meson test sets it)";
  }
  std::vector<std::string> Args(std::vector<std::string> more) {
    std::vector<std::string> args = {"--listen", "127.0.0.1:0", "--data", dir_.path() + "/db"};
    args.insert(args.end(), more.begin(), more.end());
    return args;
  }
  // Runs the server, expects it to refuse to start: exit 2, one line on stderr.
  std::string Refused(std::vector<std::string> more) {
    Spawned s = Spawn(Args(std::move(more)));
    EXPECT_GT(s.pid, 0);
    std::string err = ReadAll(s.err);
    EXPECT_EQ(Wait(s), 2) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    return err;
  }
  // Runs the server until it listens; checks the token it wants; stops it.
  void ExpectToken(Spawned s, const std::string& token) {
    ASSERT_GT(s.pid, 0);
    std::string line = ReadLine(s.out);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(line, m, std::regex(":([0-9]+) "))) << line << ReadAll(s.err);
    httplib::Client c("127.0.0.1", std::stoi(m[1]));
    auto none = c.Get("/health");
    ASSERT_TRUE(none);
    EXPECT_EQ(none->status, 401);
    c.set_bearer_token_auth(token + "x");
    EXPECT_EQ(c.Get("/health")->status, 401);
    c.set_bearer_token_auth(token);
    auto ok = c.Get("/health");
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->status, 200);
    kill(s.pid, SIGTERM);
    EXPECT_EQ(Wait(s), 0);
  }

  base::ScratchDir dir_;
};

TEST_F(ProcessTest, TokenFromAFile) {
  const std::string path = dir_.path() + "/token";
  std::ofstream(path) << "from-a-file\n";
  ExpectToken(Spawn(Args({"--token-file", path})), "from-a-file");
}

TEST_F(ProcessTest, TokenFromTheEnvironment) {
  ExpectToken(Spawn(Args({}), {"FENEC_TOKEN=from-the-env"}), "from-the-env");
}

TEST_F(ProcessTest, AnUnreadableTokenFileIsOneLineAndExit2) {
  std::string err = Refused({"--token-file", dir_.path() + "/missing"});
  EXPECT_NE(err.find("--token-file"), std::string::npos) << err;
  EXPECT_NE(err.find("No such file"), std::string::npos) << err;
  const std::string empty = dir_.path() + "/empty";
  std::ofstream(empty) << "\n";
  err = Refused({"--token-file", empty});
  EXPECT_NE(err.find("token"), std::string::npos) << err;
}

TEST_F(ProcessTest, LimitsTheEngineCannotKeepAreRefusedAtStartup) {
  std::string err = Refused({"--max-body", std::to_string(limits::kMaxCommitBytes + 1)});
  EXPECT_NE(err.find("--max-body"), std::string::npos) << err;
  err = Refused({"--max-body", "4096", "--max-inflight-bytes", "2048"});
  EXPECT_NE(err.find("--max-inflight-bytes"), std::string::npos) << err;
  // The largest the engine keeps is accepted.
  Spawned s = Spawn(Args({"--max-body", std::to_string(limits::kMaxCommitBytes)}));
  ASSERT_GT(s.pid, 0);
  EXPECT_NE(ReadLine(s.out).find("listening on"), std::string::npos);
  kill(s.pid, SIGTERM);
  EXPECT_EQ(Wait(s), 0);
}

}  // namespace
}  // namespace fenec::server
