#include "scenarios/common/server_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <thread>

#include <fmt/format.h>

extern char** environ;

namespace fenec::scenarios {

ServerProcess::~ServerProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

std::string ServerProcess::Start(const std::string& bin, const std::vector<std::string>& args,
                                 const std::string& log_path) {
  int out[2];
  if (pipe(out) != 0) return fmt::format("pipe: {}", std::strerror(errno));
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  std::vector<std::string> all = {bin, "--listen", "127.0.0.1:0"};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  int rc = posix_spawn(&pid_, bin.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(out[1]);
  if (rc != 0) {
    close(out[0]);
    pid_ = -1;
    return fmt::format("spawn {}: {}", bin, std::strerror(rc));
  }
  std::string line;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{out[0], POLLIN, 0};
    char ch = 0;
    if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) <= 0 || read(out[0], &ch, 1) != 1) break;
    if (ch == '\n') break;
    line += ch;
  }
  close(out[0]);
  std::smatch m;
  if (!std::regex_search(line, m, std::regex("listening on [^ ]*:([0-9]+)"))) {
    Stop();
    return fmt::format("fenec-server did not start (see {}): '{}'", log_path, line);
  }
  port_ = std::stoi(m[1]);
  return "";
}

int ServerProcess::Stop() {
  if (pid_ <= 0) return -1;
  kill(pid_, SIGTERM);
  int status = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) break;
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

std::string DefaultServerBinary() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  auto bin = self.parent_path().parent_path().parent_path() / "engine" / "server" / "fenec-server";
  return std::filesystem::exists(bin, ec) ? bin.string() : "";
}

double PromValue(const std::string& text, const std::string& series) {
  std::string padded = "\n" + text;
  size_t at = padded.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  try {
    return std::stod(padded.substr(at + series.size() + 2));
  } catch (const std::exception&) {
    return -1;
  }
}

}  // namespace fenec::scenarios
