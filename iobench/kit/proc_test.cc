// kill_process_tree kills what a group kill leaves behind: a descendant that
// started a session of its own, as fio's job processes do.
#include "iobench/kit/proc.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

namespace proc_test {

using namespace std::chrono_literals;

bool gone(pid_t pid) {
  // Reparented to init (or a subreaper), a killed grandchild is reaped
  // elsewhere: wait until kill(0) stops finding it or it is a zombie.
  for (int i = 0; i < 200; ++i, std::this_thread::sleep_for(10ms)) {
    if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
    char path[64], state = 0;
    std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
    if (FILE* f = std::fopen(path, "r")) {
      const int n = std::fscanf(f, "%*d (%*[^)]) %c", &state);
      std::fclose(f);
      if (n == 1 && state == 'Z') return true;
    }
  }
  return false;
}

TEST(Proc, KillProcessTreeKillsADescendantInASessionOfItsOwn) {
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  const pid_t leader = fork();
  ASSERT_GE(leader, 0);
  if (leader == 0) {
    setpgid(0, 0);
    const pid_t child = fork();
    if (child == 0) {
      if (fork() == 0) {
        setsid();  // out of the leader's group, as a fio job, then says so
        const pid_t self = getpid();
        (void)!write(pipefd[1], &self, sizeof self);
        for (;;) pause();
      }
      for (;;) pause();
    }
    for (;;) pause();
  }
  close(pipefd[1]);
  pid_t grandchild = -1;
  ASSERT_EQ(read(pipefd[0], &grandchild, sizeof grandchild), static_cast<ssize_t>(sizeof grandchild));
  close(pipefd[0]);
  // What a group kill alone would leave: the grandchild is not in the group.
  EXPECT_NE(getpgid(grandchild), leader);
  EXPECT_EQ(fenec::kit::kill_process_tree(leader), 3);
  int status = 0;
  ASSERT_EQ(waitpid(leader, &status, 0), leader);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  EXPECT_TRUE(gone(grandchild)) << "pid " << grandchild << " outlived kill_process_tree";
  EXPECT_EQ(fenec::kit::kill_process_tree(leader), 0);
}

}  // namespace proc_test
