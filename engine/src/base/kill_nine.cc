#include "engine/src/base/kill_nine.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <random>
#include <thread>

namespace fenec::base {
namespace {

using Clock = std::chrono::steady_clock;

// Moves every whole ack in buf[0..*len) to acks, keeping a partial tail.
void TakeAcks(char* buf, size_t* len, std::vector<WriteAck>* acks) {
  size_t off = 0;
  for (; off + sizeof(WriteAck) <= *len; off += sizeof(WriteAck)) {
    WriteAck a;
    std::memcpy(&a, buf + off, sizeof a);
    acks->push_back(a);
  }
  std::memmove(buf, buf + off, *len - off);
  *len -= off;
}

}  // namespace

void ReportAck(int fd, const WriteAck& ack) {
  static_assert(sizeof(WriteAck) < PIPE_BUF, "one write, never interleaved with another writer's");
  if (write(fd, &ack, sizeof ack) != static_cast<ssize_t>(sizeof ack)) _exit(6);
}

ChildRun RunAckingChild(const ChildRunOptions& o, const std::function<void(int write_fd)>& child) {
  ChildRun r;
  int fds[2];
  if (pipe(fds) != 0) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  std::cout.flush();
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    r.error = std::string("fork: ") + std::strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return r;
  }
  if (pid == 0) {
    close(fds[0]);
    child(fds[1]);
    _exit(0);  // child() must not return; if it does, say it finished
  }
  close(fds[1]);

  const bool kill = o.kill_after > 0;
  char buf[sizeof(WriteAck) * 512];
  size_t len = 0;
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
  bool eof = false, timed_out = false;
  while (!eof && (!kill || r.acks.size() < o.kill_after)) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int n = poll(&p, 1, static_cast<int>(left) + 1);
    if (n <= 0) continue;  // EINTR or the deadline: the loop decides
    const ssize_t got = read(fds[0], buf + len, sizeof buf - len);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      eof = true;
      break;
    }
    len += static_cast<size_t>(got);
    TakeAcks(buf, &len, &r.acks);
  }
  r.acks_at_kill = r.acks.size();
  if (kill || timed_out) {
    if (kill) {
      std::mt19937_64 rng(o.seed);
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % 3000));  // land mid-commit
    }
    ::kill(pid, SIGKILL);
  }
  while (waitpid(pid, &r.status, 0) < 0 && errno == EINTR) {
  }
  for (ssize_t got; (got = read(fds[0], buf + len, sizeof buf - len)) != 0;) {
    if (got < 0) {
      if (errno == EINTR) continue;
      break;
    }
    len += static_cast<size_t>(got);
    TakeAcks(buf, &len, &r.acks);
  }
  close(fds[0]);
  r.killed = WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL;
  if (timed_out && !kill) {
    r.error = "the child did not finish in time";
  } else if (kill && !r.killed) {
    r.error = WIFEXITED(r.status) ? "the child exited early with status " + std::to_string(WEXITSTATUS(r.status))
                                  : "the child died of another signal";
  } else if (!kill && !(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0)) {
    r.error = "the child failed (status " + std::to_string(r.status) + ")";
  }
  return r;
}

}  // namespace fenec::base
