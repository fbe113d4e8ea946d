#include "scenarios/procs/child.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>

extern char** environ;

namespace fenec::scenarios::procs {

Child::~Child() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (stdin_ >= 0) close(stdin_);
  if (stdout_ >= 0) close(stdout_);
}

std::string Child::Start(const std::vector<std::string>& argv_in, const std::string& log_path, const std::string& ready,
                         std::chrono::seconds wait, std::string* line) {
  int out[2], in[2];
  if (pipe(out) != 0) return fmt::format("pipe: {}", std::strerror(errno));
  if (pipe(in) != 0) {
    close(out[0]);
    close(out[1]);
    return fmt::format("pipe: {}", std::strerror(errno));
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  posix_spawn_file_actions_addclose(&fa, in[1]);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  std::vector<std::string> all = argv_in;
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  int rc = posix_spawn(&pid_, all[0].c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(out[1]);
  close(in[0]);
  stdout_ = out[0];
  stdin_ = in[1];
  if (rc != 0) {
    pid_ = -1;
    return fmt::format("spawn {}: {}", all[0], std::strerror(rc));
  }
  const auto deadline = std::chrono::steady_clock::now() + wait;
  std::string got;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{stdout_, POLLIN, 0};
    char ch = 0;
    if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) <= 0 || read(stdout_, &ch, 1) != 1) break;
    if (ch != '\n') {
      got += ch;
      continue;
    }
    if (got.find(ready) != std::string::npos) {
      if (line != nullptr) *line = got;
      return "";
    }
    got.clear();
  }
  Stop();
  return fmt::format("{} did not say '{}' (see {}): '{}'", all[0], ready, log_path, got);
}

int Child::Stop(std::chrono::milliseconds grace) {
  if (stdin_ >= 0) {
    close(stdin_);
    stdin_ = -1;
  }
  if (stdout_ >= 0) {
    close(stdout_);
    stdout_ = -1;
  }
  if (pid_ <= 0) return -1;
  int status = 0;
  const auto grace_end = std::chrono::steady_clock::now() + grace;
  while (std::chrono::steady_clock::now() < grace_end) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      pid_ = -1;
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

uint64_t Child::rss_bytes() const {
  if (pid_ <= 0) return 0;
  std::ifstream statm(fmt::format("/proc/{}/statm", pid_));
  uint64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

std::string BuildTreeBinary(const std::string& relative) {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  auto bin = self.parent_path().parent_path().parent_path() / relative;
  return std::filesystem::exists(bin, ec) ? bin.string() : "";
}

}  // namespace fenec::scenarios::procs
