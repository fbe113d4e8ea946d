// The real fenec-server binary: its startup (the token from a file or from
// FENEC_TOKEN instead of argv, the flags it refuses with one line and exit
// 2: an unreadable token file, a --max-body the engine could not journal, a
// budget below --max-body, a mode's flag given to another mode), and what
// each --durability keeps across kill -9, checked over HTTP.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "fenec/limits.h"
#include "engine/src/base/testing.h"

extern char** environ;

namespace fenec::server {
namespace process_test {

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

// The port a started server prints ("listening on HOST:PORT (...)"); 0 if none.
int PortOf(const std::string& line) {
  std::smatch m;
  return std::regex_search(line, m, std::regex(":([0-9]+) ")) ? std::stoi(m[1]) : 0;
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

TEST_F(ProcessTest, AModesFlagGivenToAnotherModeIsRefused) {
  EXPECT_NE(Refused({"--sync", "100"}).find("--sync"), std::string::npos) << "durable is the default";
  EXPECT_NE(Refused({"--durability", "buffered", "--commit-window-us", "10"}).find("--commit-window-us"),
            std::string::npos);
  EXPECT_NE(Refused({"--durability", "sometimes"}).find("--durability"), std::string::npos);
}

// kill -9 over HTTP, each mode, four rounds: eight clients put, the server
// is killed mid-run and started again. durable and write-through lose no
// acknowledged put; buffered may lose the last ones (counted); in every
// mode an acknowledged id answers its own document or 404, never another
// document, and the ids put after a restart are past every acknowledged one.
class KillNine : public ProcessTest, public ::testing::WithParamInterface<const char*> {
 protected:
  struct Acked {
    int client;
    int64_t seq;
  };
  Spawned Start() {
    std::vector<std::string> more = {"--durability", GetParam()};
    if (std::string(GetParam()) != "durable") more.insert(more.end(), {"--sync", "50"});
    Spawned s = Spawn(Args(more));
    port_ = s.pid > 0 ? PortOf(ReadLine(s.out)) : 0;
    return s;
  }
  // Every acknowledged id, read back: its own document, or (buffered only) lost.
  uint64_t Verify(uint64_t seed) {
    httplib::Client c("127.0.0.1", port_);
    uint64_t lost = 0, max_id = 0;
    for (const auto& [id, a] : acked_) {
      max_id = std::max(max_id, id);
      auto r = c.Get(fmt::format("/docs/log/{}", id));
      if (!r) {
        ADD_FAILURE() << "GET failed: " << httplib::to_string(r.error());
        return lost;
      }
      if (r->status == 404) {
        ++lost;
        continue;
      }
      EXPECT_EQ(r->status, 200) << r->body;
      EXPECT_NE(r->body.find(fmt::format(R"("tag":"{}-{}")", a.client, a.seq)), std::string::npos)
          << "acknowledged id " << id << " names another document: " << r->body << " (seed " << seed << ")";
    }
    auto next = c.Post("/docs/log", fmt::format(R"([{{"client": 99, "seq": 0, "tag": "after-{}"}}])", ++checks_),
                       "application/json");
    EXPECT_TRUE(next && next->status == 200) << (next ? next->body : "no answer");
    std::smatch m;
    if (next && next->status == 200 && std::regex_search(next->body, m, std::regex("([0-9]+)"))) {
      EXPECT_GT(std::stoull(m[1]), max_id) << "an acknowledged id was given again (seed " << seed << ")";
    }
    return lost;
  }

  int port_ = 0;
  int checks_ = 0;
  std::map<uint64_t, Acked> acked_;
};
INSTANTIATE_TEST_SUITE_P(Modes, KillNine, ::testing::Values("durable", "write-through", "buffered"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::erase(n, '-');
                           return n;
                         });

TEST_P(KillNine, NoAcknowledgedWriteIsLostOrItsIdGivenAgain) {
  const uint64_t seed = base::TestSeed();
  std::mt19937_64 rng(seed);
  const bool may_lose = std::string(GetParam()) == "buffered";
  int64_t next_seq = 0;
  uint64_t lost = 0;
  for (int round = 0; round < 4; ++round) {
    Spawned s = Start();
    ASSERT_GT(s.pid, 0);
    ASSERT_GT(port_, 0) << ReadAll(s.err);
    if (round == 0) {
      httplib::Client c("127.0.0.1", port_);
      auto made = c.Post("/query", R"j({"statement": "CREATE COLLECTION log (client INT, seq INT, tag TEXT @unique)"})j",
                         "application/json");
      ASSERT_TRUE(made && made->status == 200) << (made ? made->body : "no answer");
    } else {
      lost = Verify(seed);
      if (HasFailure()) return;
      if (!may_lose) {
        EXPECT_EQ(lost, 0u) << GetParam() << " lost an acknowledged put to kill -9 (seed " << seed << ")";
      }
    }
    // Eight clients, each at most 5000 puts; the kill comes after `kill_at` acknowledgements.
    const uint64_t kill_at = acked_.size() + 300 + rng() % 1500;
    std::mutex mu;
    std::atomic<bool> killed{false};
    std::vector<std::thread> ts;
    for (int client = 0; client < 8; ++client) {
      ts.emplace_back([&, client] {
        httplib::Client c("127.0.0.1", port_);
        c.set_keep_alive(true);
        for (int64_t seq = next_seq; seq < next_seq + 5000 && !killed.load(); ++seq) {
          auto r = c.Post("/docs/log", fmt::format(R"([{{"client": {0}, "seq": {1}, "tag": "{0}-{1}"}}])", client, seq),
                          "application/json");
          if (!r) return;  // the server is gone
          if (r->status != 200) continue;  // refused: nothing to remember
          std::smatch m;
          if (!std::regex_search(r->body, m, std::regex("([0-9]+)"))) continue;
          std::lock_guard lock(mu);
          acked_[std::stoull(m[1])] = Acked{client, seq};
          if (acked_.size() >= kill_at && !killed.exchange(true)) kill(s.pid, SIGKILL);
        }
      });
    }
    for (auto& t : ts) t.join();
    if (!killed.exchange(true)) kill(s.pid, SIGKILL);
    Wait(s);
    next_seq += 5000;
  }
  Spawned s = Start();
  ASSERT_GT(port_, 0);
  lost = Verify(seed);
  fmt::print(stderr, "{}: {} acknowledged over 4 kill -9 rounds, {} lost\n", GetParam(), acked_.size(), lost);
  if (!may_lose) {
    EXPECT_EQ(lost, 0u) << "(seed " << seed << ")";
  }
  kill(s.pid, SIGTERM);
  EXPECT_EQ(Wait(s), 0);
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

}  // namespace process_test
}  // namespace fenec::server
